#include "corral/plugins/dynamic_resources/dynamic_resources.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include "corral/api/resource/types.h"
#include "corral/api/selectors.h"
#include "corral/framework/dra_manager.h"
#include "corral/plugins/dynamic_resources/allocator.h"
#include "corral/plugins/dynamic_resources/binding_conditions.h"
#include "corral/plugins/dynamic_resources/extended_resource.h"
#include "corral/plugins/dynamic_resources/pool_index.h"
#include "corral/plugins/dynamic_resources/workload_claims.h"

namespace corral::plugins {

namespace res = api::resource;
using framework::Code;
using framework::Status;

Result<std::unique_ptr<framework::Plugin>> DynamicResources::New(const framework::PluginArgs* args,
                                                                 framework::Handle& handle) {
  Duration binding_timeout = kBindingTimeout;
  if (args != nullptr) {
    const auto* typed = dynamic_cast<const DynamicResourcesArgs*>(args);
    if (typed == nullptr) return Error::Invalid("DynamicResources: args of the wrong type");
    const bool gate = handle.features().Enabled(framework::Feature::kDRADeviceBindingConditions);
    if (auto ok = typed->Validate("", gate); !ok) return ok.error();
    binding_timeout = typed->binding_timeout.value_or(kBindingTimeout);
  }
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DynamicResources>(handle, binding_timeout));
}

namespace {

Status Unresolvable(std::string msg) {
  return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable, std::move(msg));
}

// The cycle's state (kube's stateData). Filter writes the per-node results under the mutex.
struct DraState final : framework::StateData {
  std::vector<const res::ResourceClaim*> claims;  // the pod's claims, in spec order
  // DRAWorkloadResourceClaims: the pod's PodGroup claims (null if none) and, parallel to claims,
  // whether each is a claim of the group (reserved for the PodGroup, shared by its members).
  const res::PodGroupClaims* group = nullptr;
  std::vector<uint8_t> for_group;
  std::vector<std::optional<api::NodeSelector>> available_on_nodes;  // allocated claims only
  std::vector<size_t> to_allocate;                                   // indices into claims
  std::shared_ptr<const plugins::dra::Allocator> allocator;
  // Reserve's allocation of each claim of to_allocate (parallel to it).
  std::vector<std::optional<res::AllocationResult>> reserved;
  // DRAExtendedResource (extended_resource.h): the pod's DRA-named requests when some class backs
  // one; Filter's node-specific special claim per node that needs one; Reserve's choice (its
  // allocation in flight, written by PreBind).
  std::optional<dra::PodExtendedResources> ext;
  mutable absl::flat_hash_map<Symbol, std::shared_ptr<const res::ResourceClaim>> node_ext_claims;
  std::optional<res::ResourceClaim> ext_claim;
  // When PreBind began waiting for device binding conditions (binding_conditions.h).
  std::optional<TimePoint> binding_wait_start;
  bool ext_claim_created = false;  // PreBind created the special claim (a later poll must not)
  // The special claims built so far, by the mask of the resources DRA provides (the claim does not
  // otherwise depend on the node): most pods need one claim for every node.
  mutable std::vector<std::pair<uint64_t, std::shared_ptr<const res::ResourceClaim>>>
      ext_claims_by_mask;

  mutable std::mutex mu;
  mutable std::set<size_t> unavailable_claims;
  mutable absl::flat_hash_map<Symbol, std::vector<res::AllocationResult>> node_allocations;

  std::unique_ptr<framework::StateData> Clone() const override {
    auto c = std::make_unique<DraState>();
    c->claims = claims;
    c->group = group;
    c->for_group = for_group;
    c->available_on_nodes = available_on_nodes;
    c->to_allocate = to_allocate;
    c->allocator = allocator;
    c->reserved = reserved;
    c->ext = ext;
    c->ext_claim = ext_claim;
    c->binding_wait_start = binding_wait_start;
    c->ext_claim_created = ext_claim_created;
    std::lock_guard<std::mutex> l(mu);
    c->node_ext_claims = node_ext_claims;
    c->ext_claims_by_mask = ext_claims_by_mask;
    c->unavailable_claims = unavailable_claims;
    c->node_allocations = node_allocations;
    return c;
  }
};

bool IsReservedForPod(const res::ResourceClaim& claim, const api::Pod& pod, Symbol pods) {
  for (const auto& r : claim.reserved_for) {
    if (r.resource == pods && r.name == pod.meta.name && r.uid == pod.meta.uid) return true;
  }
  return false;
}

// kube's IsReservedForPod with acceptPodGroup: reserved for the pod or for its PodGroup.
bool IsReservedForPodOrGroup(const res::ResourceClaim& claim, const api::Pod& pod, Symbol pods,
                             const res::PodGroupClaims* group, Symbol pod_groups) {
  return IsReservedForPod(claim, pod, pods) ||
         (group != nullptr && dra::IsReservedForPodGroup(claim, *group, pod_groups));
}

// The pod's PodGroup claims when DRAWorkloadResourceClaims is on, else null.
const res::PodGroupClaims* GroupClaimsOf(const framework::Handle& h,
                                         const framework::DraManager* dra, const api::Pod& pod) {
  if (dra == nullptr || !pod.scheduling_group.has_value() ||
      !h.features().Enabled(framework::Feature::kDRAWorkloadResourceClaims)) {
    return nullptr;
  }
  return dra::PodGroupClaimsOf(*dra, pod);
}

// kube resourceclaim.Name + draManager lookup + IsForPod, as foreachPodResourceClaim does. Calls
// `cb(claim, for_group)` for every claim found; returns kube's error text for the first problem,
// or "". A claim that matches one of `group`'s (DRAWorkloadResourceClaims) resolves through the
// PodGroup (workload_claims.h).
template <class Fn>
std::string ForEachPodClaim(const framework::Handle& h, framework::DraManager* dra,
                            const api::Pod& pod, const res::PodGroupClaims* group, Fn&& cb) {
  const Interner& in = h.interner();
  for (const api::PodResourceClaim& pc : pod.resource_claims) {
    if (const res::PodGroupResourceClaim* gc = dra::MatchPodGroupClaim(group, pc)) {
      bool must_check_owner = false;
      std::string err;
      Symbol name = dra::PodGroupClaimName(in, *group, *gc, &must_check_owner, &err);
      if (name.empty()) return err;
      const res::ResourceClaim* claim = dra->GetClaim(pod.meta.namespace_, name);
      if (claim == nullptr) {
        return fmt::format("resourceclaim.resource.k8s.io \"{}\" not found", in.Str(name));
      }
      if (claim->meta.deletion_timestamp.has_value()) {
        return fmt::format("resourceclaim \"{}\" is being deleted", in.Str(name));
      }
      if (must_check_owner && !dra::IsOwnedByPodGroup(*claim, *group)) {
        return fmt::format(
            "ResourceClaim {}/{} was not created for Pod {}/{} (neither Pod nor PodGroup {} is the "
            "owner)",
            in.Str(claim->meta.namespace_), in.Str(claim->meta.name), in.Str(pod.meta.namespace_),
            in.Str(pod.meta.name), in.Str(group->pod_group));
      }
      cb(*claim, true);
      continue;
    }
    Symbol name = pc.resource_claim_name;
    bool must_check_owner = false;
    if (name.empty()) {
      if (pc.generated_claim_name.empty()) {
        return fmt::format("pod \"{}/{}\": ResourceClaim not created yet",
                           in.Str(pod.meta.namespace_), in.Str(pod.meta.name));
      }
      name = pc.generated_claim_name;
      must_check_owner = true;
    }
    const res::ResourceClaim* claim =
        dra != nullptr ? dra->GetClaim(pod.meta.namespace_, name) : nullptr;
    if (claim == nullptr) {
      return fmt::format("resourceclaim.resource.k8s.io \"{}\" not found", in.Str(name));
    }
    if (claim->meta.deletion_timestamp.has_value()) {
      return fmt::format("resourceclaim \"{}\" is being deleted", in.Str(name));
    }
    if (must_check_owner) {
      bool owner = false;
      for (const auto& o : claim->meta.owner_references) {
        owner |= o.controller && o.name == pod.meta.name && o.uid == pod.meta.uid;
      }
      if (!owner) {
        return fmt::format("ResourceClaim {}/{} was not created for pod {}/{} (pod is not owner)",
                           in.Str(claim->meta.namespace_), in.Str(claim->meta.name),
                           in.Str(pod.meta.namespace_), in.Str(pod.meta.name));
      }
    }
    cb(*claim, false);
  }
  return "";
}

}  // namespace

Status DynamicResources::PreEnqueue(const framework::PodInfo& pod) {
  if (pod.pod->resource_claims.empty()) return {};
  framework::DraManager* dra = handle_.SharedDRAManager();
  std::string err = ForEachPodClaim(handle_, dra, *pod.pod, GroupClaimsOf(handle_, dra, *pod.pod),
                                    [](const res::ResourceClaim&, bool) {});
  return err.empty() ? Status() : Unresolvable(std::move(err));
}

Status DynamicResources::PreFilter(framework::CycleState& cs, size_t slot,
                                   const framework::PodInfo& pod, const framework::Snapshot&,
                                   framework::PreFilterResult*) {
  slot_ = slot;
  const api::Pod& p = *pod.pod;
  framework::DraManager* dra = handle_.SharedDRAManager();
  const Interner& in = handle_.interner();
  // Extended resources backed by DRA (DRAExtendedResource, locked on in v1.37; off, as in kube's
  // preFilterExtendedResources, no class backs any): a map lookup per scalar request, nothing more
  // for a pod whose requests no class backs.
  std::optional<dra::PodExtendedResources> ext;
  std::string ext_error;
  if (dra != nullptr && !pod.request.scalar.empty() &&
      handle_.features().Enabled(framework::Feature::kDRAExtendedResource)) {
    dra::PodExtendedResources e;
    if (dra::CollectPodExtendedResources(pod, *dra, in, &e, &ext_error)) ext = std::move(e);
  }
  // No state for a pod without claims (kube writes an empty one; every reader treats a missing
  // state as empty), so most pods cost nothing here.
  if (p.resource_claims.empty() && !ext.has_value()) return Status::Skip();
  auto state = std::make_unique<DraState>();
  DraState* s = state.get();
  cs.Write(slot, std::move(state));
  if (!ext_error.empty()) return Status::Error(std::move(ext_error));
  // As kube, the state keeps the claims only once PreFilter succeeds (PostFilter then has nothing
  // to deallocate after a PreFilter rejection).
  std::vector<const res::ResourceClaim*> claims;
  std::vector<uint8_t> for_group;
  const res::PodGroupClaims* group = GroupClaimsOf(handle_, dra, p);
  std::string err =
      ForEachPodClaim(handle_, dra, p, group, [&](const res::ResourceClaim& c, bool g) {
        claims.push_back(&c);
        for_group.push_back(g ? 1 : 0);
      });
  if (!err.empty()) return Unresolvable(std::move(err));
  if (claims.empty() && !ext.has_value()) return Status::Skip();
  const Symbol pods = in.Find("pods").value_or(Symbol());
  const Symbol pod_groups = in.Find("podgroups").value_or(Symbol());
  std::vector<std::optional<api::NodeSelector>> available(claims.size());
  std::vector<size_t> to_allocate;
  for (size_t i = 0; i < claims.size(); ++i) {
    const res::ResourceClaim& c = *claims[i];
    if (c.allocation.has_value()) {
      const bool can_be_reserved = c.reserved_for.size() < res::kReservedForMaxSize;
      if (!can_be_reserved && !IsReservedForPodOrGroup(c, p, pods, group, pod_groups)) {
        return Status::Unresolvable("resourceclaim in use");
      }
      available[i] = c.allocation->node_selector;
      continue;
    }
    if (for_group[i] != 0) {
      // Another member of the group allocated the shared claim and its PreBind has not written
      // it yet: this pod uses that allocation, as if it were written.
      if (const res::AllocationResult* a = dra->PendingAllocation(c)) {
        available[i] = a->node_selector;
        continue;
      }
    }
    to_allocate.push_back(i);
    if (dra->ClaimHasPendingAllocation(c)) {
      return Unresolvable(fmt::format("resource claim {}/{} is in the process of being allocated",
                                      in.Str(c.meta.namespace_), in.Str(c.meta.name)));
    }
    auto check_class = [&](Symbol cls, const std::string& request) -> std::string {
      if (dra->GetDeviceClass(cls) != nullptr) return "";
      return fmt::format("request {}: device class {} does not exist", request, in.Str(cls));
    };
    for (const res::DeviceRequest& r : c.spec.requests) {
      std::string e;
      if (r.exactly.has_value()) {
        e = check_class(r.exactly->device_class_name, std::string(in.Str(r.name)));
      } else {
        for (const auto& sub : r.first_available) {
          e = check_class(sub.device_class_name, std::string(in.Str(sub.result_name)));
          if (!e.empty()) break;
        }
      }
      if (!e.empty()) return Unresolvable(std::move(e));
    }
  }
  s->claims = std::move(claims);
  s->group = group;
  s->for_group = std::move(for_group);
  s->available_on_nodes = std::move(available);
  s->to_allocate = std::move(to_allocate);
  s->ext = std::move(ext);
  if (!s->to_allocate.empty() || s->ext.has_value()) {
    // DRAPartitionableDevices and DRAConsumableCapacity are on (their v1.37 default); Corral's
    // gate table does not have them, so those allocator features keep their defaults.
    const framework::FeatureGates& gates = handle_.features();
    std::shared_ptr<const dra::PoolIndex> index;
    {
      std::lock_guard<std::mutex> l(pool_index_mu_);
      const bool binding = gates.Enabled(framework::Feature::kDRADeviceBindingConditions);
      if (pool_index_ == nullptr || !pool_index_->Matches(*dra) ||
          pool_index_->binding_conditions() != binding) {
        pool_index_ = std::make_shared<const dra::PoolIndex>(*dra, in, binding);
      }
      index = pool_index_;
    }
    s->allocator = std::make_shared<const dra::Allocator>(
        *dra, in,
        dra::Allocator::Features{
            .device_taints = gates.Enabled(framework::Feature::kDRADeviceTaints),
            .device_taint_rules = gates.Enabled(framework::Feature::kDRADeviceTaintRules),
            .list_type_attributes = gates.Enabled(framework::Feature::kDRAListTypeAttributes),
            .compatibility_groups =
                gates.Enabled(framework::Feature::kDRADeviceCompatibilityGroups),
            .device_binding = gates.Enabled(framework::Feature::kDRADeviceBindingConditions)},
        std::move(index));
    s->reserved.resize(s->to_allocate.size());
  }
  return {};
}

Status DynamicResources::Filter(const framework::CycleState& cs, size_t slot,
                                const framework::PodInfo& pod,
                                const framework::NodeInfo& node) const {
  const DraState* s = cs.Get<DraState>(slot);
  if (s == nullptr || (s->claims.empty() && !s->ext.has_value())) return {};
  const api::Node& n = *node.node();
  const Interner& in = handle_.interner();
  std::vector<size_t> unavailable;
  const bool binding = BindingConditionsEnabled();
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const auto& sel = s->available_on_nodes[i];
    if (sel.has_value() && !api::MatchesNodeSelector(*sel, n.meta.labels, n.meta.name, in)) {
      unavailable.push_back(i);
      continue;
    }
    // kube: an allocated claim whose device binding failed, or timed out, is unavailable, so
    // PostFilter deallocates it and other devices can be tried.
    const res::ResourceClaim& c = *s->claims[i];
    if (binding && c.allocation.has_value() && dra::HasBindingConditions(c)) {
      std::string err;
      const dra::BindingReadiness r = dra::ClaimBindingReadiness(c, in, &err);
      if (r == dra::BindingReadiness::kFailed ||
          (r == dra::BindingReadiness::kNotReady &&
           dra::ClaimBindingTimedOut(c, handle_.clock().Now(), binding_timeout_))) {
        unavailable.push_back(i);
      }
    }
  }
  std::shared_ptr<const res::ResourceClaim> ext_claim;
  // The special claim is the cycle's (kept in the state for every node of its mask) rather than
  // built for this node alone: the allocator may reuse answers by claim address.
  bool ext_claim_kept = true;
  if (s->ext.has_value()) {
    std::string reason;
    if (s->ext->resources.size() <= dra::kMaxMaskedResources) {
      uint64_t mask = 0;
      if (!dra::NeededExtendedResources(*s->ext, node.allocatable(), &mask, &reason)) {
        return Unresolvable(std::move(reason));
      }
      if (mask != 0) {
        std::lock_guard<std::mutex> l(s->mu);
        for (const auto& [m, claim] : s->ext_claims_by_mask) {
          if (m == mask) ext_claim = claim;
        }
        if (ext_claim == nullptr) {
          ext_claim = std::make_shared<const res::ResourceClaim>(
              dra::MakeExtendedResourceClaim(*s->ext, *pod.pod, mask, in));
          s->ext_claims_by_mask.emplace_back(mask, ext_claim);
        }
      }
    } else {
      std::optional<res::ResourceClaim> claim;
      if (!dra::BuildNodeExtendedResourceClaim(*s->ext, *pod.pod, node.allocatable(), in, &claim,
                                               &reason)) {
        return Unresolvable(std::move(reason));
      }
      if (claim.has_value()) {
        ext_claim = std::make_shared<const res::ResourceClaim>(std::move(*claim));
        ext_claim_kept = false;
      }
    }
  }
  std::vector<res::AllocationResult> allocations;
  if (s->allocator != nullptr) {
    absl::InlinedVector<const res::ResourceClaim*, 4> claims;
    for (size_t i : s->to_allocate) claims.push_back(s->claims[i]);
    if (ext_claim != nullptr) claims.push_back(ext_claim.get());
    std::string err;
    switch (s->allocator->Allocate(n, claims, &allocations, &err, ext_claim_kept)) {
      case dra::Allocator::Outcome::kError:
        return Status::Error(std::move(err));
      case dra::Allocator::Outcome::kUnsatisfiable:
        return Status::Unresolvable("cannot allocate all claims");
      case dra::Allocator::Outcome::kFailedOnNode:
        return Unresolvable(std::move(err));
      case dra::Allocator::Outcome::kAllocated:
        break;
    }
  }
  std::lock_guard<std::mutex> l(s->mu);
  if (!unavailable.empty()) {
    s->unavailable_claims.insert(unavailable.begin(), unavailable.end());
    return Status::Unresolvable("resourceclaim not available on the node");
  }
  if (s->allocator != nullptr) s->node_allocations[n.meta.name] = std::move(allocations);
  if (ext_claim != nullptr) {
    s->node_ext_claims.insert_or_assign(n.meta.name, std::move(ext_claim));
  } else if (s->ext.has_value()) {
    s->node_ext_claims.erase(n.meta.name);
  }
  return {};
}

Status DynamicResources::PostFilter(framework::CycleState& cs, const framework::PodInfo& pod,
                                    const framework::NodeToStatus&, framework::PostFilterResult*) {
  DraState* s = cs.Get<DraState>(slot_);
  // The special claim of DRA-backed extended resources counts as a claim here (kube keeps it in
  // the state's claims), so such a pod ends with "still not schedulable".
  if (s == nullptr || (s->claims.empty() && !s->ext.has_value())) {
    return Status::Unschedulable("no new claims to deallocate");
  }
  framework::DraManager* dra = handle_.SharedDRAManager();
  const Symbol pods = handle_.interner().Find("pods").value_or(Symbol());
  // kube picks one unavailable claim at random (map order); Corral takes the first in spec order.
  for (size_t i : s->unavailable_claims) {
    const res::ResourceClaim& c = *s->claims[i];
    if (c.reserved_for.empty() ||
        (c.reserved_for.size() == 1 && c.reserved_for[0].resource == pods &&
         c.reserved_for[0].name == pod.pod->meta.name &&
         c.reserved_for[0].uid == pod.pod->meta.uid)) {
      dra->DeallocateClaim(c);
      return Status::Unschedulable("deallocation of ResourceClaim completed");
    }
  }
  return Status::Unschedulable("still not schedulable");
}

Status DynamicResources::Reserve(framework::CycleState& cs, const framework::PodInfo&,
                                 Symbol node) {
  DraState* s = cs.Get<DraState>(slot_);
  if (s == nullptr || (s->to_allocate.empty() && !s->ext.has_value())) return {};
  auto it = s->node_allocations.find(node);
  if (it == s->node_allocations.end()) {
    return Status::Error("claim allocation not found for node");
  }
  auto ext_it = s->node_ext_claims.find(node);
  const bool has_ext_claim = ext_it != s->node_ext_claims.end();
  const size_t want = s->to_allocate.size() + (has_ext_claim ? 1 : 0);
  if (it->second.size() != want) {
    return Status::Error(
        fmt::format("internal error, have {} allocations, {} claims to allocate, want {} claims",
                    it->second.size(), s->to_allocate.size(), want));
  }
  framework::DraManager* dra = handle_.SharedDRAManager();
  for (size_t k = 0; k < s->to_allocate.size(); ++k) {
    s->reserved[k] = it->second[k];
    dra->SignalClaimPendingAllocation(*s->claims[s->to_allocate[k]], it->second[k]);
  }
  if (has_ext_claim) {
    s->ext_claim = *ext_it->second;
    s->ext_claim->allocation = it->second.back();
    dra->SignalClaimPendingAllocation(*s->ext_claim, it->second.back());
  }
  return {};
}

void DynamicResources::Unreserve(framework::CycleState& cs, const framework::PodInfo& pod, Symbol) {
  DraState* s = cs.Get<DraState>(slot_);
  if (s == nullptr || (s->claims.empty() && !s->ext.has_value())) return;
  framework::DraManager* dra = handle_.SharedDRAManager();
  const Symbol pods = handle_.interner().Find("pods").value_or(Symbol());
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const res::ResourceClaim* c = s->claims[i];
    if (s->for_group[i] != 0) {
      // A PodGroup's claim: only the allocation this pod put in flight is dropped; the group's
      // reservation stays for its other members.
      if (std::find(s->to_allocate.begin(), s->to_allocate.end(), i) != s->to_allocate.end()) {
        dra->RemoveClaimPendingAllocation(*c);
      }
      continue;
    }
    dra->RemoveClaimPendingAllocation(*c);
    if (c->allocation.has_value() && IsReservedForPod(*c, *pod.pod, pods)) {
      dra->UnreserveClaim(*c, pod.pod->meta.uid);
    }
  }
  if (s->ext_claim.has_value()) {
    // kube's unreserveExtendedResourceClaim: drop the in-flight allocation and delete the claim
    // PreBind may have written.
    dra->RemoveClaimPendingAllocation(*s->ext_claim);
    dra->DeleteExtendedResourceClaim(*pod.pod);
    s->ext_claim.reset();
  }
}

Status DynamicResources::PreBind(framework::CycleState& cs, const framework::PodInfo& pod, Symbol) {
  DraState* s = cs.Get<DraState>(slot_);
  if (s == nullptr || (s->claims.empty() && !s->ext.has_value())) return Status::Skip();
  framework::DraManager* dra = handle_.SharedDRAManager();
  const Symbol pods = handle_.interner().Find("pods").value_or(Symbol());
  const Interner& in = handle_.interner();
  const Symbol pod_groups = in.Find("podgroups").value_or(Symbol());
  const bool binding = BindingConditionsEnabled();
  const TimePoint now = handle_.clock().Now();
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const res::ResourceClaim* c = s->claims[i];
    if (IsReservedForPodOrGroup(*c, *pod.pod, pods, s->group, pod_groups)) continue;
    // kube's BindTo: a claim of the PodGroup is reserved for the group, any other for the pod.
    std::string err = s->for_group[i] != 0
                          ? dra->BindClaimToPodGroup(*c, s->group->pod_group, s->group->uid)
                          : dra->BindClaim(*c, pod.pod->meta.name, pod.pod->meta.uid);
    if (!err.empty()) {
      return Status::Error(
          fmt::format("claim {}/{}: {}", in.Str(c->meta.namespace_), in.Str(c->meta.name), err));
    }
    // kube's bindClaim: the allocation's timestamp, the start of its binding timeout.
    if (binding) dra->SetAllocationTimestamp(*c, now);
  }
  if (s->ext_claim.has_value() && !s->ext_claim_created) {
    // kube's bindClaim for the special claim: created with its allocation, reserved for the pod.
    dra->RemoveClaimPendingAllocation(*s->ext_claim);
    res::ResourceClaim claim = *s->ext_claim;
    claim.reserved_for.push_back({pods, pod.pod->meta.name, pod.pod->meta.uid});
    if (binding && claim.allocation.has_value() && !claim.allocation->allocation_timestamp) {
      claim.allocation->allocation_timestamp = now;
    }
    dra->CreateExtendedResourceClaim(*pod.pod, std::move(claim));
    s->ext_claim_created = true;
  }
  if (!binding) return {};
  // The pod's claims with their current status (a driver may have updated it since the last
  // poll), the extended-resource claim included.
  absl::InlinedVector<const res::ResourceClaim*, 4> claims(s->claims.begin(), s->claims.end());
  if (const res::ResourceClaim* ext = dra->ExtendedResourceClaimOf(*pod.pod)) claims.push_back(ext);
  bool wait = false;
  for (const res::ResourceClaim* c : claims) wait |= dra::HasBindingConditions(*c);
  if (!wait) return {};
  // kube waits in wait.PollUntilContextTimeout(5s, bindingTimeout, immediate): the first check
  // now, then one per poll until the timeout, which is checked before the condition.
  if (!s->binding_wait_start.has_value()) {
    s->binding_wait_start = now;
  } else if (now - *s->binding_wait_start >= binding_timeout_) {
    return Status::Error("device binding timeout");
  }
  // kube's isPodReadyForBinding.
  for (const res::ResourceClaim* c : claims) {
    std::string err;
    switch (dra::ClaimBindingReadiness(*c, in, &err)) {
      case dra::BindingReadiness::kFailed:
        return Status::Error(std::move(err));
      case dra::BindingReadiness::kNotReady:
        if (dra::ClaimBindingTimedOut(*c, now, binding_timeout_)) {
          return Status::Error(fmt::format("claim {} binding timeout", in.Str(c->meta.name)));
        }
        return {Code::kWait, "waiting for binding conditions"};
      case dra::BindingReadiness::kReady:
        break;
    }
  }
  return {};
}

Duration DynamicResources::PreBindPollInterval() const {
  return dra::kBindingConditionsPollInterval;
}

bool DynamicResources::BindingConditionsEnabled() const {
  const framework::FeatureGates& gates = handle_.features();
  return gates.Enabled(framework::Feature::kDRADeviceBindingConditions) &&
         gates.Enabled(framework::Feature::kDRAResourceClaimDeviceStatus);
}

std::vector<framework::ClusterEvent> DynamicResources::EventsToRegister() const {
  using framework::ActionType;
  using framework::EventResource;
  return {
      {EventResource::kNode, ActionType::kAdd},
      {EventResource::kNode, ActionType::kUpdate},
      // A deleted pod releases its claims (kube: ResourceClaim update, deallocated).
      {EventResource::kAssignedPod, ActionType::kDelete},
      // A bound pod's PreBind wrote its claims' status (kube: ResourceClaim update).
      {EventResource::kAssignedPod, ActionType::kAdd},
  };
}

framework::QueueingHint DynamicResources::Hint(const framework::PodInfo& pod,
                                               const framework::ClusterEvent& event,
                                               const void* subject) const {
  using framework::QueueingHint;
  if (event.resource != framework::EventResource::kAssignedPod) return QueueingHint::kQueue;
  const auto* other = static_cast<const api::Pod*>(subject);
  if (other == nullptr) return QueueingHint::kQueueSkip;
  // kube isSchedulableAfterClaimChange: a deallocation may help any pod. A pod whose extended
  // resources DRA backed releases its special claim when deleted.
  if (event.action == framework::ActionType::kDelete &&
      (!other->resource_claims.empty() ||
       (handle_.SharedDRAManager() != nullptr &&
        handle_.features().Enabled(framework::Feature::kDRAExtendedResource) &&
        dra::PodRequestsBackedResource(*other, *handle_.SharedDRAManager())))) {
    return QueueingHint::kQueue;
  }
  if (other->resource_claims.empty()) return QueueingHint::kQueueSkip;
  // A claim status update matters to the pods that use the claim.
  const framework::DraManager* dra = handle_.SharedDRAManager();
  const res::PodGroupClaims* ga = GroupClaimsOf(handle_, dra, *pod.pod);
  const res::PodGroupClaims* gb = GroupClaimsOf(handle_, dra, *other);
  auto claim_name = [](const api::PodResourceClaim& pc, const res::PodGroupClaims* g) {
    if (const res::PodGroupResourceClaim* gc = dra::MatchPodGroupClaim(g, pc)) {
      return gc->resource_claim_name.empty() ? gc->generated_claim_name : gc->resource_claim_name;
    }
    return pc.resource_claim_name.empty() ? pc.generated_claim_name : pc.resource_claim_name;
  };
  for (const auto& a : pod.pod->resource_claims) {
    Symbol an = claim_name(a, ga);
    for (const auto& b : other->resource_claims) {
      Symbol bn = claim_name(b, gb);
      if (!an.empty() && an == bn && pod.pod->meta.namespace_ == other->meta.namespace_) {
        return QueueingHint::kQueue;
      }
    }
  }
  return QueueingHint::kQueueSkip;
}

Status DynamicResources::Sign(const framework::PodInfo& pod,
                              std::vector<framework::SignFragment>*) const {
  return pod.pod->resource_claims.empty() ? Status()
                                          : Status::Unschedulable("pod has ResourceClaims");
}

}  // namespace corral::plugins
