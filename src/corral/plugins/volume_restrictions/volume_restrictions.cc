#include "corral/plugins/volume_restrictions/volume_restrictions.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "corral/api/storage.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"
#include "corral/state/volume_cache.h"

namespace corral::plugins {

using framework::Code;
using framework::Status;

namespace {

// kube's needsRestrictionsCheck.
bool NeedsCheck(const api::Volume& v) {
  return v.kind == api::VolumeKind::kGcePersistentDisk ||
         v.kind == api::VolumeKind::kAwsElasticBlockStore || v.kind == api::VolumeKind::kRbd ||
         v.kind == api::VolumeKind::kIscsi;
}

bool HaveOverlap(const std::vector<Symbol>& a, const std::vector<Symbol>& b) {
  for (Symbol x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  }
  return false;
}

}  // namespace

// The PreFilter state: the pod's ReadWriteOncePod claims (namespace, name) and how many of them
// bound or assumed pods use.
struct VolumeRestrictions::CycleData final : framework::StateData {
  std::vector<std::pair<Symbol, Symbol>> rwop_claims;
  int64_t conflicting = 0;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<CycleData>(*this);
  }
  // kube's conflictingPVCRefCountForPod: the claim volumes of `pod` that are among rwop_claims.
  int64_t RefsOf(const api::Pod& pod) const {
    int64_t n = 0;
    for (const auto& v : pod.volumes) {
      if (v.kind != api::VolumeKind::kPersistentVolumeClaim) continue;
      if (std::find(rwop_claims.begin(), rwop_claims.end(),
                    std::pair(pod.meta.namespace_, v.claim_name)) != rwop_claims.end()) {
        ++n;
      }
    }
    return n;
  }
};

Result<std::unique_ptr<framework::Plugin>> VolumeRestrictions::New(
    const framework::PluginArgs* args, framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeRestrictions>(handle));
}

VolumeRestrictions::VolumeRestrictions(framework::Handle& handle)
    : handle_(handle), interner_(handle.interner()) {}

bool VolumeRestrictions::VolumeConflicts(const api::Volume& v, const api::Pod& other) {
  for (const auto& e : other.volumes) {
    if (e.kind != v.kind) continue;
    const api::VolumeSource& a = v.source;
    const api::VolumeSource& b = e.source;
    switch (v.kind) {
      case api::VolumeKind::kGcePersistentDisk:
        if (a.id == b.id && !(a.read_only && b.read_only)) return true;
        break;
      case api::VolumeKind::kAwsElasticBlockStore:
        if (a.id == b.id) return true;
        break;
      case api::VolumeKind::kIscsi:
        if (a.id == b.id && !(a.read_only && b.read_only)) return true;
        break;
      case api::VolumeKind::kRbd:
        if (HaveOverlap(a.monitors, b.monitors) && a.pool == b.pool && a.id == b.id &&
            !(a.read_only && b.read_only)) {
          return true;
        }
        break;
      default:
        break;
    }
  }
  return false;
}

Status VolumeRestrictions::PreFilter(framework::CycleState& state, size_t slot,
                                     const framework::PodInfo& pod,
                                     const framework::Snapshot& snapshot,
                                     framework::PreFilterResult* result) {
  (void)result;
  slot_ = slot;
  const api::Pod& p = *pod.pod;
  bool needs_check = std::any_of(p.volumes.begin(), p.volumes.end(), NeedsCheck);
  auto data = std::make_unique<CycleData>();
  // kube's readWriteOncePodPVCsForPod.
  const state::VolumeCache* cache = handle_.volumes();
  for (const auto& v : p.volumes) {
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim) continue;
    const api::PersistentVolumeClaim* c =
        cache == nullptr ? nullptr : cache->GetClaim(p.meta.namespace_, v.claim_name);
    if (c == nullptr) {
      return Status::WithOwnedReason(
          Code::kUnschedulableAndUnresolvable,
          fmt::format("persistentvolumeclaim \"{}\" not found", interner_.Str(v.claim_name)));
    }
    if ((c->access_modes & api::kReadWriteOncePod) == 0) continue;
    std::pair key(p.meta.namespace_, v.claim_name);
    if (std::find(data->rwop_claims.begin(), data->rwop_claims.end(), key) ==
        data->rwop_claims.end()) {
      data->rwop_claims.push_back(key);
    }
  }
  // kube's calPreFilterState: one per claim that a bound or assumed pod uses.
  if (!data->rwop_claims.empty()) {
    for (const auto& claim : data->rwop_claims) {
      bool used = false;
      for (const framework::NodeInfo* n : snapshot.nodes()) {
        for (const framework::PodInfo* other : n->pods()) {
          const api::Pod& o = *other->pod;
          if (o.meta.namespace_ != claim.first) continue;
          for (const auto& v : o.volumes) {
            used |=
                v.kind == api::VolumeKind::kPersistentVolumeClaim && v.claim_name == claim.second;
          }
          if (used) break;
        }
        if (used) break;
      }
      if (used) ++data->conflicting;
    }
  }
  if (!needs_check && data->conflicting == 0) return Status::Skip();
  state.Write(slot, std::move(data));
  return {};
}

Status VolumeRestrictions::AddPod(framework::CycleState& state,
                                  const framework::PodInfo& pod_to_schedule,
                                  const framework::PodInfo& pod_to_add,
                                  const framework::NodeInfo& node) const {
  (void)pod_to_schedule;
  (void)node;
  if (auto* data = state.Get<CycleData>(slot_)) data->conflicting += data->RefsOf(*pod_to_add.pod);
  return {};
}

Status VolumeRestrictions::RemovePod(framework::CycleState& state,
                                     const framework::PodInfo& pod_to_schedule,
                                     const framework::PodInfo& pod_to_remove,
                                     const framework::NodeInfo& node) const {
  (void)pod_to_schedule;
  (void)node;
  if (auto* data = state.Get<CycleData>(slot_)) {
    data->conflicting -= data->RefsOf(*pod_to_remove.pod);
  }
  return {};
}

Status VolumeRestrictions::Filter(const framework::CycleState& state, size_t slot,
                                  const framework::PodInfo& pod,
                                  const framework::NodeInfo& node) const {
  for (const auto& v : pod.pod->volumes) {
    if (!NeedsCheck(v)) continue;
    for (const framework::PodInfo* other : node.pods()) {
      if (VolumeConflicts(v, *other->pod)) return Status::Unschedulable(kErrReasonDiskConflict);
    }
  }
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr)
    return Status::Error("reading \"PreFilterVolumeRestrictions\" from cycleState: not found");
  if (data->conflicting > 0) return Status::Unresolvable(kErrReasonReadWriteOncePodConflict);
  return {};
}

bool VolumeRestrictions::FilterIsNodeLocal(const framework::PodInfo& pod) const {
  for (const auto& v : pod.pod->volumes) {
    if (v.kind == api::VolumeKind::kPersistentVolumeClaim) return false;
  }
  return true;
}

std::vector<framework::ClusterEvent> VolumeRestrictions::EventsToRegister() const {
  return {{framework::EventResource::kAssignedPod, framework::ActionType::kDelete},
          {framework::EventResource::kNode, framework::ActionType::kAdd}};
}

framework::QueueingHint VolumeRestrictions::Hint(const framework::PodInfo& pod,
                                                 const framework::ClusterEvent& event,
                                                 const void* subject) const {
  if (event.resource != framework::EventResource::kAssignedPod || subject == nullptr) {
    return framework::QueueingHint::kQueue;
  }
  const api::Pod& deleted = *PodSubject(subject);
  const api::Pod& p = *pod.pod;
  if (deleted.meta.namespace_ != p.meta.namespace_) return framework::QueueingHint::kQueueSkip;
  for (const auto& v : p.volumes) {
    if (NeedsCheck(v) && VolumeConflicts(v, deleted)) return framework::QueueingHint::kQueue;
  }
  const state::VolumeCache* cache = handle_.volumes();
  for (const auto& v : p.volumes) {
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim) continue;
    const api::PersistentVolumeClaim* c =
        cache == nullptr ? nullptr : cache->GetClaim(p.meta.namespace_, v.claim_name);
    if (c == nullptr) return framework::QueueingHint::kQueue;  // kube: Queue with an error
    if ((c->access_modes & api::kReadWriteOncePod) == 0) continue;
    for (const auto& d : deleted.volumes) {
      if (d.kind == api::VolumeKind::kPersistentVolumeClaim && d.claim_name == v.claim_name) {
        return framework::QueueingHint::kQueue;
      }
    }
  }
  return framework::QueueingHint::kQueueSkip;
}

Status VolumeRestrictions::Sign(const framework::PodInfo& pod,
                                std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
