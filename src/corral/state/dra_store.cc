#include "corral/state/dra_store.h"

#include <algorithm>

namespace corral::state {

namespace res = api::resource;

void DraStore::Reset(const res::ResourceObjects* objects) {
  if (initialized_ && objects == source_) return;
  initialized_ = true;
  source_ = objects;
  ++generation_;
  classes_.clear();
  class_by_name_.clear();
  slices_.clear();
  taint_rules_.clear();
  claims_.clear();
  by_key_.clear();
  pending_.clear();
  allocated_.clear();
  class_by_resource_.clear();
  extended_claims_.clear();
  shared_.clear();
  group_claims_.clear();
  if (objects == nullptr) return;
  class_by_resource_.clear();
  extended_claims_.clear();
  for (const auto& c : objects->device_classes) {
    classes_.push_back(&c);
    class_by_name_[c.meta.name] = &c;
    for (Symbol r : {c.extended_resource_name, c.implicit_extended_resource_name}) {
      if (r.empty()) continue;
      auto [it, inserted] = class_by_resource_.try_emplace(r, &c);
      if (!inserted && PreferredClass(c, *it->second)) it->second = &c;
    }
  }
  for (const auto& s : objects->resource_slices) slices_.push_back(&s);
  for (const auto& r : objects->device_taint_rules) taint_rules_.push_back(&r);
  for (const auto& g : objects->pod_group_claims) group_claims_[{g.namespace_, g.pod_group}] = &g;
  for (const auto& c : objects->resource_claims) {
    claims_.push_back(c);
    by_key_[{c.meta.namespace_, c.meta.name}] = &claims_.back();
    if (c.allocation.has_value()) Hold(*c.allocation);
  }
}

void DraStore::AddClaim(res::ResourceClaim claim) {
  const auto key = std::pair(claim.meta.namespace_, claim.meta.name);
  if (by_key_.contains(key)) return;
  claims_.push_back(std::move(claim));
  by_key_[key] = &claims_.back();
}

// A shared result (kube's shareID set) adds its consumed capacity to the device's shares instead
// of holding the device (kube's allocated-state tracking).
void DraStore::Hold(const res::AllocationResult& a) {
  for (const auto& r : a.devices) {
    if (r.shared) {
      framework::DeviceShares& sh = shared_[{r.driver, r.pool, r.device}];
      ++sh.shares;
      for (const auto& c : r.consumed_capacity) {
        auto it = std::find_if(sh.consumed.begin(), sh.consumed.end(),
                               [&](const auto& x) { return x.domain == c.domain && x.id == c.id; });
        if (it == sh.consumed.end()) {
          sh.consumed.push_back(c);
        } else if (auto sum = it->value.Add(c.value); sum.ok()) {
          it->value = *sum;
        }
      }
    } else if (!r.admin_access) {
      allocated_.insert({r.driver, r.pool, r.device});
    }
  }
}

void DraStore::Release(const res::AllocationResult& a) {
  for (const auto& r : a.devices) {
    if (r.shared) {
      auto sit = shared_.find(framework::DeviceId{r.driver, r.pool, r.device});
      if (sit == shared_.end()) continue;
      framework::DeviceShares& sh = sit->second;
      if (--sh.shares <= 0) {
        shared_.erase(sit);
        continue;
      }
      for (const auto& c : r.consumed_capacity) {
        for (auto& x : sh.consumed) {
          if (x.domain != c.domain || x.id != c.id) continue;
          if (auto diff = x.value.Sub(c.value); diff.ok()) x.value = *diff;
        }
      }
    } else if (!r.admin_access) {
      allocated_.erase(framework::DeviceId{r.driver, r.pool, r.device});
    }
  }
}

const res::DeviceClass* DraStore::GetDeviceClass(Symbol name) const {
  auto it = class_by_name_.find(name);
  return it == class_by_name_.end() ? nullptr : it->second;
}

const res::ResourceClaim* DraStore::GetClaim(Symbol ns, Symbol name) const {
  auto it = by_key_.find({ns, name});
  return it == by_key_.end() ? nullptr : it->second;
}

res::ResourceClaim* DraStore::Mutable(const res::ResourceClaim& claim) {
  auto it = by_key_.find({claim.meta.namespace_, claim.meta.name});
  return it == by_key_.end() || it->second != &claim ? nullptr : it->second;
}

bool DraStore::ClaimHasPendingAllocation(const res::ResourceClaim& claim) const {
  return pending_.contains(&claim);
}

void DraStore::SignalClaimPendingAllocation(const res::ResourceClaim& claim,
                                            res::AllocationResult allocation) {
  if (auto it = pending_.find(&claim); it != pending_.end()) Release(it->second);
  Hold(allocation);
  pending_[&claim] = std::move(allocation);
}

bool DraStore::RemoveClaimPendingAllocation(const res::ResourceClaim& claim) {
  auto it = pending_.find(&claim);
  if (it == pending_.end()) return false;
  Release(it->second);
  pending_.erase(it);
  return true;
}

std::string DraStore::BindClaim(const res::ResourceClaim& claim, Symbol pod_name, Symbol pod_uid) {
  res::ResourceClaim* c = Mutable(claim);
  if (c == nullptr) return "claim got deleted in the meantime";
  auto it = pending_.find(c);
  if (it != pending_.end()) {
    if (c->allocation.has_value()) return "claim got allocated elsewhere in the meantime";
    c->allocation = std::move(it->second);  // its devices stay held
    pending_.erase(it);
  }
  if (c->reserved_for.size() >= res::kReservedForMaxSize) {
    return "claim reserved for too many consumers";
  }
  c->reserved_for.push_back({pods_resource_, pod_name, pod_uid});
  return "";
}

std::string DraStore::BindClaimToPodGroup(const res::ResourceClaim& claim, Symbol group_name,
                                          Symbol group_uid) {
  res::ResourceClaim* c = Mutable(claim);
  if (c == nullptr) return "claim got deleted in the meantime";
  auto it = pending_.find(c);
  if (it != pending_.end()) {
    if (c->allocation.has_value()) return "claim got allocated elsewhere in the meantime";
    c->allocation = std::move(it->second);  // its devices stay held
    pending_.erase(it);
  } else if (!c->allocation.has_value()) {
    // The member whose allocation this pod used was unreserved before writing it.
    return "claim is not allocated";
  }
  for (const auto& r : c->reserved_for) {
    if (r.resource == pod_groups_resource_ && r.name == group_name && r.uid == group_uid) {
      return "";  // another member's PreBind reserved it for the group already
    }
  }
  if (c->reserved_for.size() >= res::kReservedForMaxSize) {
    return "claim reserved for too many consumers";
  }
  c->reserved_for.push_back({pod_groups_resource_, group_name, group_uid});
  return "";
}

const res::PodGroupClaims* DraStore::GetPodGroupClaims(Symbol ns, Symbol name) const {
  if (group_claims_.empty()) return nullptr;
  auto it = group_claims_.find({ns, name});
  return it == group_claims_.end() ? nullptr : it->second;
}

const res::AllocationResult* DraStore::PendingAllocation(const res::ResourceClaim& claim) const {
  auto it = pending_.find(&claim);
  return it == pending_.end() ? nullptr : &it->second;
}

void DraStore::UnreserveClaim(const res::ResourceClaim& claim, Symbol pod_uid) {
  res::ResourceClaim* c = Mutable(claim);
  if (c == nullptr) return;
  // The caller passes the pod's uid; a pod without one is matched by the last entry it added.
  for (size_t i = c->reserved_for.size(); i-- > 0;) {
    if (c->reserved_for[i].uid == pod_uid) {
      c->reserved_for.erase(c->reserved_for.begin() + static_cast<ptrdiff_t>(i));
      return;
    }
  }
}

void DraStore::DeallocateClaim(const res::ResourceClaim& claim) {
  res::ResourceClaim* c = Mutable(claim);
  if (c == nullptr) return;
  if (c->allocation.has_value()) Release(*c->allocation);
  c->allocation.reset();
  c->reserved_for.clear();
  c->devices.clear();
  ++status_version_;
}

void DraStore::SetAllocationTimestamp(const res::ResourceClaim& claim, TimePoint t) {
  res::ResourceClaim* c = Mutable(claim);
  if (c == nullptr || !c->allocation.has_value() || c->allocation->allocation_timestamp) return;
  c->allocation->allocation_timestamp = t;
}

bool DraStore::UpdateDeviceStatus(Symbol ns, Symbol name,
                                  std::vector<res::AllocatedDeviceStatus> devices) {
  auto it = by_key_.find({ns, name});
  if (it == by_key_.end()) return false;
  it->second->devices = std::move(devices);
  ++status_version_;
  return true;
}

bool DraStore::PreferredClass(const res::DeviceClass& a, const res::DeviceClass& b) const {
  // KEP-5004: the class created later; of two created at the same time, the name sorted first.
  const auto ta = a.meta.creation_timestamp, tb = b.meta.creation_timestamp;
  if (ta != tb) return tb < ta;  // nullopt sorts first: a class without a timestamp is oldest
  if (interner_ == nullptr) return false;
  return interner_->Str(a.meta.name) < interner_->Str(b.meta.name);
}

const res::DeviceClass* DraStore::DeviceClassForResource(Symbol resource) const {
  auto it = class_by_resource_.find(resource);
  return it == class_by_resource_.end() ? nullptr : it->second;
}

const res::ResourceClaim* DraStore::ExtendedResourceClaimOf(const api::Pod& pod) const {
  if (extended_claims_.empty()) return nullptr;
  auto it = extended_claims_.find(PodKey{pod.meta.namespace_, pod.meta.name, pod.meta.uid});
  return it == extended_claims_.end() ? nullptr : it->second.get();
}

const res::ResourceClaim* DraStore::CreateExtendedResourceClaim(const api::Pod& pod,
                                                                res::ResourceClaim claim) {
  auto& slot = extended_claims_[PodKey{pod.meta.namespace_, pod.meta.name, pod.meta.uid}];
  if (slot != nullptr && slot->allocation.has_value()) Release(*slot->allocation);
  slot = std::make_unique<res::ResourceClaim>(std::move(claim));
  if (slot->allocation.has_value()) Hold(*slot->allocation);
  return slot.get();
}

void DraStore::DeleteExtendedResourceClaim(const api::Pod& pod) {
  auto it = extended_claims_.find(PodKey{pod.meta.namespace_, pod.meta.name, pod.meta.uid});
  if (it == extended_claims_.end()) return;
  if (it->second->allocation.has_value()) Release(*it->second->allocation);
  extended_claims_.erase(it);
}

bool DraStore::RefersTo(const res::ConsumerReference& ref, const api::Pod& pod,
                        Symbol pods_resource) {
  return ref.resource == pods_resource && ref.name == pod.meta.name && ref.uid == pod.meta.uid;
}

bool DraStore::ReleasePod(const api::Pod& pod) {
  bool changed = false;
  // The extended-resource claim is owned by the pod: garbage-collected with it.
  if (ExtendedResourceClaimOf(pod) != nullptr) {
    DeleteExtendedResourceClaim(pod);
    changed = true;
  }
  for (const api::PodResourceClaim& pc : pod.resource_claims) {
    Symbol name =
        !pc.resource_claim_name.empty() ? pc.resource_claim_name : pc.generated_claim_name;
    if (name.empty()) continue;
    auto it = by_key_.find({pod.meta.namespace_, name});
    if (it == by_key_.end()) continue;
    res::ResourceClaim* c = it->second;
    auto& rf = c->reserved_for;
    const size_t before = rf.size();
    rf.erase(std::remove_if(
                 rf.begin(), rf.end(),
                 [&](const res::ConsumerReference& r) { return RefersTo(r, pod, pods_resource_); }),
             rf.end());
    changed |= rf.size() != before;
    bool owned = false;
    for (const auto& o : c->meta.owner_references) {
      owned |= o.controller && o.name == pod.meta.name && o.uid == pod.meta.uid;
    }
    if (owned && !pc.resource_claim_template_name.empty()) {
      // Garbage-collected with its pod.
      if (c->allocation.has_value()) Release(*c->allocation);
      if (auto p = pending_.find(c); p != pending_.end()) {
        Release(p->second);
        pending_.erase(p);
      }
      c->allocation.reset();
      c->reserved_for.clear();
      by_key_.erase(it);
      changed = true;
      continue;
    }
    if (rf.empty() && c->allocation.has_value()) {
      // kube's resourceclaim controller deallocates a claim no pod uses any more.
      Release(*c->allocation);
      c->allocation.reset();
      changed = true;
    }
  }
  return changed;
}

}  // namespace corral::state
