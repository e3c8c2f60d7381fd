#include "corral/state/volume_cache.h"

#include <algorithm>
#include <string>

#include "corral/api/csi_translation.h"
#include "corral/api/selectors.h"

namespace corral::state {

VolumeCache::VolumeCache(const api::StorageObjects& objects, Interner& interner)
    : interner_(interner),
      classes_(objects.classes),
      csi_nodes_(objects.csi_nodes),
      csi_drivers_(objects.csi_drivers),
      capacity_objects_(objects.capacities) {
  for (std::string_view k :
       {api::kAnnBindCompleted, api::kAnnBoundByController, api::kAnnSelectedNode}) {
    interner_.Intern(k);
  }
  api::InternCSITranslationNames(interner_);
  for (const auto& pv : objects.volumes) IndexVolume(&volumes_.emplace_back(pv));
  for (const auto& c : objects.claims) {
    claims_.push_back(c);
    claim_by_name_[{c.meta.namespace_, c.meta.name}] = &claims_.back();
  }
  for (const auto& c : classes_) class_by_name_[c.meta.name] = &c;
  for (const auto& n : csi_nodes_) csi_node_by_name_[n.meta.name] = &n;
  for (const auto& d : csi_drivers_) csi_driver_by_name_[d.meta.name] = &d;
  for (const auto& c : capacity_objects_) capacities_.push_back(&c);
}

void VolumeCache::IndexVolume(api::PersistentVolume* pv) {
  ++epoch_;
  volume_by_name_[pv->meta.name] = pv;
  volumes_by_class_[pv->storage_class_name].push_back(pv);
}

const api::PersistentVolumeClaim* VolumeCache::GetClaim(Symbol ns, Symbol name) const {
  auto it = claim_by_name_.find(std::pair(ns, name));
  return it == claim_by_name_.end() ? nullptr : it->second;
}

const api::PersistentVolume* VolumeCache::GetVolume(Symbol name) const {
  auto it = volume_by_name_.find(name);
  return it == volume_by_name_.end() ? nullptr : it->second;
}

const api::StorageClass* VolumeCache::GetClass(Symbol name) const {
  auto it = class_by_name_.find(name);
  return it == class_by_name_.end() ? nullptr : it->second;
}

const api::CSINode* VolumeCache::GetCSINode(Symbol node) const {
  auto it = csi_node_by_name_.find(node);
  return it == csi_node_by_name_.end() ? nullptr : it->second;
}

const api::CSIDriver* VolumeCache::GetCSIDriver(Symbol name) const {
  auto it = csi_driver_by_name_.find(name);
  return it == csi_driver_by_name_.end() ? nullptr : it->second;
}

std::span<const api::PersistentVolume* const> VolumeCache::VolumesOfClass(
    Symbol storage_class) const {
  auto it = volumes_by_class_.find(storage_class);
  if (it == volumes_by_class_.end()) return {};
  return it->second;
}

const std::string* VolumeCache::Annotation(const api::ObjectMeta& meta,
                                           std::string_view key) const {
  auto sym = interner_.Find(key);
  if (!sym) return nullptr;
  for (const auto& [k, v] : meta.annotations) {
    if (k == *sym) return &v;
  }
  return nullptr;
}

bool VolumeCache::HasAnnotation(const api::ObjectMeta& meta, std::string_view key) const {
  return Annotation(meta, key) != nullptr;
}

void VolumeCache::SetAnnotation(api::ObjectMeta& meta, std::string_view key, std::string value) {
  ++epoch_;
  Symbol sym = interner_.Intern(key);
  for (auto& [k, v] : meta.annotations) {
    if (k == sym) {
      v = std::move(value);
      return;
    }
  }
  meta.annotations.emplace_back(sym, std::move(value));
}

api::PersistentVolume* VolumeCache::MutableVolume(const api::PersistentVolume* pv) {
  ++epoch_;
  return volume_by_name_.at(pv->meta.name);
}

api::PersistentVolumeClaim* VolumeCache::MutableClaim(const api::PersistentVolumeClaim* claim) {
  ++epoch_;
  return claim_by_name_.at(std::pair(claim->meta.namespace_, claim->meta.name));
}

const api::PersistentVolume* VolumeCache::AssumeVolumeBound(
    const api::PersistentVolume* pv, const api::PersistentVolumeClaim* claim) {
  api::PersistentVolume* m = MutableVolume(pv);
  bool bound_to_claim = m->claim_ref.has_value() && m->claim_ref->name == claim->meta.name &&
                        m->claim_ref->namespace_ == claim->meta.namespace_ &&
                        (m->claim_ref->uid.empty() || m->claim_ref->uid == claim->meta.uid);
  bool same_ref = m->claim_ref.has_value() && m->claim_ref->name == claim->meta.name &&
                  m->claim_ref->namespace_ == claim->meta.namespace_ &&
                  m->claim_ref->uid == claim->meta.uid;
  bool set_by_controller = !bound_to_claim && !HasAnnotation(m->meta, api::kAnnBoundByController);
  if (same_ref && !set_by_controller) return m;  // not dirty: nothing to assume
  assumed_volumes_.try_emplace(m->meta.name, *m);
  if (!same_ref)
    m->claim_ref = api::ClaimReference{claim->meta.namespace_, claim->meta.name, claim->meta.uid};
  if (set_by_controller) SetAnnotation(m->meta, api::kAnnBoundByController, "yes");
  return m;
}

const api::PersistentVolumeClaim* VolumeCache::AssumeClaimProvisioned(
    const api::PersistentVolumeClaim* claim, Symbol node) {
  api::PersistentVolumeClaim* m = MutableClaim(claim);
  assumed_claims_.try_emplace(std::pair(m->meta.namespace_, m->meta.name), *m);
  SetAnnotation(m->meta, api::kAnnSelectedNode, std::string(interner_.Str(node)));
  return m;
}

void VolumeCache::RestoreVolume(Symbol name) {
  auto it = assumed_volumes_.find(name);
  if (it == assumed_volumes_.end()) return;
  ++epoch_;
  *volume_by_name_.at(name) = std::move(it->second);
  assumed_volumes_.erase(it);
}

void VolumeCache::RestoreClaim(Symbol ns, Symbol name) {
  auto it = assumed_claims_.find(std::pair(ns, name));
  if (it == assumed_claims_.end()) return;
  ++epoch_;
  *claim_by_name_.at(std::pair(ns, name)) = std::move(it->second);
  assumed_claims_.erase(it);
}

void VolumeCache::BindVolume(const api::PersistentVolume* pv,
                             const api::PersistentVolumeClaim* claim) {
  api::PersistentVolume* v = MutableVolume(pv);
  api::PersistentVolumeClaim* c = MutableClaim(claim);
  assumed_volumes_.erase(v->meta.name);
  assumed_claims_.erase(std::pair(c->meta.namespace_, c->meta.name));
  v->claim_ref = api::ClaimReference{c->meta.namespace_, c->meta.name, c->meta.uid};
  v->phase = api::PersistentVolumePhase::kBound;
  c->volume_name = v->meta.name;
  c->phase = api::ClaimPhase::kBound;
  SetAnnotation(c->meta, api::kAnnBindCompleted, "yes");
}

const api::PersistentVolume* VolumeCache::ProvisionVolume(const api::PersistentVolumeClaim* claim,
                                                          const api::StorageClass& storage_class,
                                                          const api::Node& node) {
  api::PersistentVolumeClaim* c = MutableClaim(claim);
  std::string name = "pvc-";
  if (!c->meta.uid.empty()) {
    name += interner_.Str(c->meta.uid);
  } else {
    name += interner_.Str(c->meta.namespace_);
    name += '-';
    name += interner_.Str(c->meta.name);
  }
  api::PersistentVolume pv;
  pv.meta.name = interner_.Intern(name);
  pv.meta.source = c->meta.source;
  pv.capacity = c->storage_request;
  pv.access_modes = c->access_modes;
  pv.storage_class_name = storage_class.meta.name;
  pv.volume_mode = c->volume_mode;
  pv.phase = api::PersistentVolumePhase::kBound;
  pv.reclaim_policy = storage_class.reclaim_policy;
  pv.claim_ref = api::ClaimReference{c->meta.namespace_, c->meta.name, c->meta.uid};
  if (const api::CSINode* csi = GetCSINode(node.meta.name)) {
    for (const auto& d : csi->drivers) {
      if (d.name != storage_class.provisioner || d.topology_keys.empty()) continue;
      api::NodeSelectorTerm term;
      for (Symbol key : d.topology_keys) {
        if (const Symbol* v = node.meta.labels.Find(key)) {
          term.match_expressions.push_back({key, api::NodeSelectorOp::kIn, {*v}});
        }
      }
      if (!term.match_expressions.empty()) pv.node_affinity = api::NodeSelector{{term}};
    }
  }
  api::PersistentVolume* stored = &volumes_.emplace_back(std::move(pv));
  IndexVolume(stored);
  assumed_claims_.erase(std::pair(c->meta.namespace_, c->meta.name));
  c->volume_name = stored->meta.name;
  c->phase = api::ClaimPhase::kBound;
  SetAnnotation(c->meta, api::kAnnBindCompleted, "yes");
  return stored;
}

const api::PersistentVolumeClaim* VolumeCache::AddClaim(api::PersistentVolumeClaim claim) {
  const auto key = std::pair(claim.meta.namespace_, claim.meta.name);
  if (auto it = claim_by_name_.find(key); it != claim_by_name_.end()) return it->second;
  ++epoch_;
  claims_.push_back(std::move(claim));
  claim_by_name_[key] = &claims_.back();
  return &claims_.back();
}

Symbol VolumeCache::DeleteClaim(Symbol ns, Symbol name) {
  auto it = claim_by_name_.find(std::pair(ns, name));
  if (it == claim_by_name_.end()) return {};
  ++epoch_;
  const Symbol volume = it->second->volume_name;
  claim_by_name_.erase(it);
  assumed_claims_.erase(std::pair(ns, name));
  if (volume.empty()) return {};
  auto v = volume_by_name_.find(volume);
  if (v == volume_by_name_.end()) return volume;
  api::PersistentVolume* pv = v->second;
  if (pv->reclaim_policy == api::ReclaimPolicy::kRetain) {
    pv->phase = api::PersistentVolumePhase::kReleased;
    return volume;
  }
  auto& list = volumes_by_class_[pv->storage_class_name];
  list.erase(std::remove(list.begin(), list.end(), pv), list.end());
  assumed_volumes_.erase(volume);
  volume_by_name_.erase(v);
  return volume;
}

const api::PersistentVolume* VolumeCache::BindImmediate(const api::PersistentVolumeClaim* claim) {
  if (!claim->volume_name.empty()) {
    const api::PersistentVolume* pv = GetVolume(claim->volume_name);
    if (pv != nullptr && claim->phase != api::ClaimPhase::kBound) BindVolume(pv, claim);
    return pv;
  }
  const api::PersistentVolume* best = nullptr;
  for (const api::PersistentVolume* pv : VolumesOfClass(claim->storage_class_name)) {
    const bool free =
        !pv->claim_ref.has_value() || (pv->claim_ref->namespace_ == claim->meta.namespace_ &&
                                       pv->claim_ref->name == claim->meta.name);
    if (!free || pv->phase == api::PersistentVolumePhase::kReleased) continue;
    if (!api::AccessModesSatisfied(claim->access_modes, pv->access_modes)) continue;
    if (pv->volume_mode != claim->volume_mode) continue;
    if (pv->capacity < claim->storage_request) continue;
    if (claim->selector.has_value() && !api::Matches(*claim->selector, pv->meta.labels)) continue;
    if (best == nullptr || pv->capacity < best->capacity) best = pv;
  }
  if (best != nullptr) {
    BindVolume(best, claim);
    return best;
  }
  const api::StorageClass* cls = GetClass(claim->storage_class_name);
  if (cls == nullptr || cls->provisioner.empty() ||
      interner_.Str(cls->provisioner) == api::kNotSupportedProvisioner) {
    return nullptr;
  }
  return ProvisionVolume(claim, *cls, api::Node{});
}

}  // namespace corral::state
