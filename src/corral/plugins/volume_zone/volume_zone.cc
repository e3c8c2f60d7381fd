#include "corral/plugins/volume_zone/volume_zone.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "corral/api/storage.h"
#include "corral/api/well_known.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"
#include "corral/state/volume_cache.h"

namespace corral::plugins {

using framework::Code;
using framework::Status;

namespace {

// kube's topologyLabels, in its order: beta zone, beta region, GA zone, GA region.
constexpr std::string_view kTopologyLabels[] = {api::kZoneLabelBeta, api::kRegionLabelBeta,
                                                "topology.kubernetes.io/zone",
                                                "topology.kubernetes.io/region"};
// translateToGALabel: the GA key of each of kTopologyLabels.
constexpr size_t kGaOf[] = {2, 3, 2, 3};

Status Unresolvable(std::string message) {
  return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable, std::move(message));
}

}  // namespace

// The PreFilter state: the labels' symbols (unset when never interned: nothing carries them) and
// the volumes' topologies.
struct VolumeZone::CycleData final : framework::StateData {
  Symbol labels[4];
  std::vector<VolumeZone::Topology> topologies;
  std::vector<size_t> label_index;  // per topology: its key's index in kTopologyLabels
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<CycleData>(*this);
  }
};

Result<std::unique_ptr<framework::Plugin>> VolumeZone::New(const framework::PluginArgs* args,
                                                           framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeZone>(handle));
}

VolumeZone::VolumeZone(framework::Handle& handle) : handle_(handle), interner_(handle.interner()) {}

Status VolumeZone::VolumeTopologies(const api::Pod& pod, std::vector<Topology>* out) const {
  const state::VolumeCache* cache = handle_.volumes();
  for (const auto& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim) continue;
    const api::PersistentVolumeClaim* c =
        cache == nullptr ? nullptr : cache->GetClaim(pod.meta.namespace_, v.claim_name);
    if (c == nullptr) {
      return Unresolvable(
          fmt::format("persistentvolumeclaim \"{}\" not found", interner_.Str(v.claim_name)));
    }
    if (c->volume_name.empty()) {
      if (c->storage_class_name.empty()) {
        return Status::Unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
      }
      const api::StorageClass* sc = cache->GetClass(c->storage_class_name);
      if (sc == nullptr) {
        return Unresolvable(fmt::format("storageclass.storage.k8s.io \"{}\" not found",
                                        interner_.Str(c->storage_class_name)));
      }
      if (sc->volume_binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer) continue;
      return Status::Unresolvable("PersistentVolume had no name");
    }
    const api::PersistentVolume* pv = cache->GetVolume(c->volume_name);
    if (pv == nullptr) {
      return Unresolvable(
          fmt::format("persistentvolume \"{}\" not found", interner_.Str(c->volume_name)));
    }
    // kube's getPVTopologies: each topology label of the volume, its value split on "__"; a value
    // with an empty zone is ignored (kube logs it).
    for (std::string_view label : kTopologyLabels) {
      auto key = interner_.Find(label);
      if (!key) continue;
      const Symbol* value = pv->meta.labels.Find(*key);
      if (value == nullptr) continue;
      Topology t{*key, {}};
      std::string_view rest = interner_.Str(*value);
      bool bad = false;
      while (true) {
        size_t at = rest.find("__");
        std::string_view zone = rest.substr(0, at);
        while (!zone.empty() && zone.front() == ' ') zone.remove_prefix(1);
        while (!zone.empty() && zone.back() == ' ') zone.remove_suffix(1);
        if (zone.empty()) {
          bad = true;
          break;
        }
        // A zone no node is labelled with matches nothing; it need not be kept.
        if (auto z = interner_.Find(zone)) t.values.push_back(*z);
        if (at == std::string_view::npos) break;
        rest.remove_prefix(at + 2);
      }
      if (!bad) out->push_back(std::move(t));
    }
  }
  return {};
}

Status VolumeZone::PreFilter(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                             framework::PreFilterResult* result) {
  (void)snapshot;
  (void)result;
  auto data = std::make_unique<CycleData>();
  if (Status st = VolumeTopologies(*pod.pod, &data->topologies); !st.ok()) return st;
  if (data->topologies.empty()) return Status::Skip();
  for (size_t i = 0; i < 4; ++i) {
    if (auto s = interner_.Find(kTopologyLabels[i])) data->labels[i] = *s;
  }
  for (const Topology& t : data->topologies) {
    size_t idx = 0;
    while (idx < 4 && data->labels[idx] != t.key) ++idx;
    data->label_index.push_back(idx);
  }
  state.Write(slot, std::move(data));
  return {};
}

Status VolumeZone::Filter(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node) const {
  if (pod.pod->volumes.empty()) return {};
  const auto* data = state.Get<CycleData>(slot);
  CycleData fallback;
  if (data == nullptr) {
    // kube recomputes the topologies when PreFilter did not run.
    if (Status st = VolumeTopologies(*pod.pod, &fallback.topologies); !st.ok()) return st;
    for (size_t i = 0; i < 4; ++i) {
      if (auto s = interner_.Find(kTopologyLabels[i])) fallback.labels[i] = *s;
    }
    for (const Topology& t : fallback.topologies) {
      size_t idx = 0;
      while (idx < 4 && fallback.labels[idx] != t.key) ++idx;
      fallback.label_index.push_back(idx);
    }
    data = &fallback;
  }
  const api::LabelSet& labels = node.node()->meta.labels;
  bool constrained = false;
  for (Symbol l : data->labels) constrained |= !l.empty() && labels.Has(l);
  if (!constrained) return {};  // the node has no zone constraints
  for (size_t i = 0; i < data->topologies.size(); ++i) {
    const Topology& t = data->topologies[i];
    const Symbol* v = labels.Find(t.key);
    if (v == nullptr) {
      Symbol ga = data->labels[kGaOf[data->label_index[i]]];
      if (!ga.empty()) v = labels.Find(ga);
    }
    if (v == nullptr || std::find(t.values.begin(), t.values.end(), *v) == t.values.end()) {
      return Status::Unresolvable(kErrReasonConflict);
    }
  }
  return {};
}

bool VolumeZone::FilterIsNodeLocal(const framework::PodInfo& pod) const {
  for (const auto& v : pod.pod->volumes) {
    if (v.kind == api::VolumeKind::kPersistentVolumeClaim) return false;
  }
  return true;
}

std::vector<framework::ClusterEvent> VolumeZone::EventsToRegister() const {
  return {{framework::EventResource::kNode,
           Actions(framework::ActionType::kAdd, framework::ActionType::kUpdate)}};
}

framework::QueueingHint VolumeZone::HintAfterClaimChange(const api::Pod& pod,
                                                         const api::PersistentVolumeClaim& claim) {
  if (pod.meta.namespace_ != claim.meta.namespace_) return framework::QueueingHint::kQueueSkip;
  for (const auto& v : pod.volumes) {
    if (v.kind == api::VolumeKind::kPersistentVolumeClaim && v.claim_name == claim.meta.name) {
      return framework::QueueingHint::kQueue;
    }
  }
  return framework::QueueingHint::kQueueSkip;
}

framework::QueueingHint VolumeZone::HintAfterStorageClassAdded(const api::StorageClass& sc) {
  return sc.volume_binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer
             ? framework::QueueingHint::kQueue
             : framework::QueueingHint::kQueueSkip;
}

framework::QueueingHint VolumeZone::HintAfterVolumeChange(const api::PersistentVolume* old_pv,
                                                          const api::PersistentVolume& new_pv,
                                                          const Interner& interner) {
  if (old_pv == nullptr) return framework::QueueingHint::kQueue;
  for (std::string_view label : kTopologyLabels) {
    auto key = interner.Find(label);
    if (!key) continue;
    const Symbol* a = old_pv->meta.labels.Find(*key);
    const Symbol* b = new_pv.meta.labels.Find(*key);
    if ((a == nullptr) != (b == nullptr) || (a != nullptr && *a != *b)) {
      return framework::QueueingHint::kQueue;
    }
  }
  return framework::QueueingHint::kQueueSkip;
}

Status VolumeZone::Sign(const framework::PodInfo& pod,
                        std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
