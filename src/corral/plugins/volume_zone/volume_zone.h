#pragma once
// VolumeZone (kube's volumezone plugin). The zone and region labels of the PersistentVolumes bound
// to a pod's claims (GA topology.kubernetes.io/{zone,region} and the deprecated
// failure-domain.beta.kubernetes.io/{zone,region}; "__" separates several zones) must include the
// node's value of the same label (a beta label of the volume also matches the node's GA label). A
// node without any of these labels fits. Unbound claims of WaitForFirstConsumer classes are
// skipped (VolumeBinding places them); other unbound claims are UnschedulableAndUnresolvable.
// PreFilter collects the volumes' topology once per pod; Filter compares it with each node.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "corral/api/storage.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class VolumeZone final : public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions,
                         public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kVolumeZone;
  static constexpr std::string_view kErrReasonConflict = "node(s) had no available volume zone";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit VolumeZone(framework::Handle& handle);

  std::string_view Name() const override { return kName; }

  // Skip when no bound volume of the pod has topology labels.
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // The volumes' topology changes when a claim of the pod gets bound, without the node changing.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override;

  // Node add and label updates (kube also registers PV, PVC and StorageClass events; Corral
  // emits none).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;

  // kube's queueing hints for storage events, for drivers that emit them.
  // isSchedulableAfterPersistentVolumeClaimChange: Queue when the pod uses the claim.
  static framework::QueueingHint HintAfterClaimChange(const api::Pod& pod,
                                                      const api::PersistentVolumeClaim& claim);
  // isSchedulableAfterStorageClassAdded: Queue for a WaitForFirstConsumer class.
  static framework::QueueingHint HintAfterStorageClassAdded(const api::StorageClass& sc);
  // isSchedulableAfterPersistentVolumeChange: Queue on creation or a topology label change.
  static framework::QueueingHint HintAfterVolumeChange(const api::PersistentVolume* old_pv,
                                                       const api::PersistentVolume& new_pv,
                                                       const Interner& interner);

  // {v1.Pod.Spec.Volumes.NonSyntheticSources(): ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

  // One topology label of a bound volume: its key and the zones or regions it allows.
  struct Topology {
    Symbol key;
    std::vector<Symbol> values;
  };

 private:
  struct CycleData;
  // kube's getPVbyPod: the topologies of the pod's bound volumes, or a rejection.
  framework::Status VolumeTopologies(const api::Pod& pod, std::vector<Topology>* out) const;

  framework::Handle& handle_;
  const Interner& interner_;
};
static_assert(
    framework::kImplements<VolumeZone, framework::PreFilterPlugin, framework::FilterPlugin,
                           framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
