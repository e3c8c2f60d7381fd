#pragma once
// VolumeBinding (kube's volumebinding plugin). A pod's claims (PersistentVolumeClaim volumes and
// the claims of generic ephemeral volumes) must exist; unbound claims of Immediate classes make the
// pod UnschedulableAndUnresolvable at PreFilter ("pod has unbound immediate
// PersistentVolumeClaims"), since the PV controller binds those. Filter checks, per node, that the
// volumes of bound claims allow the node, and finds for each unbound WaitForFirstConsumer claim
// the smallest matching available volume or a dynamic provisioning that the class's
// allowedTopologies and (for CSI drivers with storageCapacity) a CSIStorageCapacity allow. Reserve
// assumes the chosen bindings in the VolumeCache (so no other pod takes those volumes), Unreserve
// reverts them, PreBind completes them at once. Score (StorageCapacityScoring) rates the node by
// the utilization of the volumes it would use through `shape`.
//
// Without storage objects (Handle::volumes() null) every claim is missing, as in a cluster with
// no PersistentVolumeClaims.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/helper/shape_score.h"
#include "corral/plugins/names.h"
#include "corral/plugins/volume_binding/binder.h"

namespace corral::plugins {

// kube's VolumeBindingArgs.
struct VolumeBindingArgs final : framework::PluginArgs {
  int64_t bind_timeout_seconds = 600;
  struct ShapePoint {
    int32_t utilization = 0;
    int32_t score = 0;
  };
  // Empty: kube's default when StorageCapacityScoring is on ({0, 10}, {100, 0}).
  std::vector<ShapePoint> shape;
  bool has_shape = false;  // `shape` was given (even empty)

  // kube's ValidateVolumeBindingArgsWithOptions; `path` prefixes field names ("" for none), e.g.
  // "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative
  // value". `capacity_scoring` is the StorageCapacityScoring gate.
  Result<void> Validate(std::string_view path = "", bool capacity_scoring = true) const;
};

class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions,
                            public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kVolumeBinding;

  // Args: VolumeBindingArgs or null (defaults).
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  // `shape` empty: no scorer (StorageCapacityScoring off).
  VolumeBinding(framework::Handle& handle, std::vector<helper::FunctionShapePoint> shape,
                bool capacity_scoring);

  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // The verdict depends on the volume cache, which changes without the node changing.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override;
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod, Symbol node) override;
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;

  // Node add and label updates (kube also registers storage events; Corral emits none).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;

  // kube's queueing hints for storage events, for drivers that emit them (`old_*` null for a
  // creation). A claim of the pod that does not exist queues the pod (kube: Queue with an error).
  // isSchedulableAfterPersistentVolumeClaimChange: Queue when a claim of the pod (same namespace,
  // its claim or ephemeral claim name) was created or changed.
  static framework::QueueingHint HintAfterClaimChange(const api::Pod& pod,
                                                      const api::PersistentVolumeClaim* old_claim,
                                                      const api::PersistentVolumeClaim& new_claim,
                                                      const Interner& interner);
  // isSchedulableAfterPersistentVolumeChange: Queue for a pod with volumes.
  static framework::QueueingHint HintAfterVolumeChange(const api::Pod& pod);
  // isSchedulableAfterStorageClassChange: Queue when a claim of the pod uses the class and the
  // class is new or its allowedTopologies changed.
  static framework::QueueingHint HintAfterStorageClassChange(const api::Pod& pod,
                                                             const api::StorageClass* old_class,
                                                             const api::StorageClass& new_class,
                                                             const state::VolumeCache& cache);
  // isSchedulableAfterCSIStorageCapacityChange: Queue when a claim of the pod uses the capacity's
  // class and the capacity is new or its volume limit grew.
  static framework::QueueingHint HintAfterCapacityChange(const api::Pod& pod,
                                                         const api::CSIStorageCapacity* old_cap,
                                                         const api::CSIStorageCapacity& new_cap,
                                                         const state::VolumeCache& cache);
  // isSchedulableAfterCSINodeChange: Queue on creation or a migrated-plugins annotation change.
  static framework::QueueingHint HintAfterCSINodeChange(const api::CSINode* old_node,
                                                        const api::CSINode& new_node,
                                                        const state::VolumeCache& cache);
  // isSchedulableAfterCSIDriverChange: Queue when a CSI volume of the pod uses the driver and its
  // storageCapacity went from true to false.
  static framework::QueueingHint HintAfterCSIDriverChange(const api::Pod& pod,
                                                          const api::CSIDriver& old_driver,
                                                          const api::CSIDriver& new_driver);

  // {v1.Pod.Spec.Volumes.NonSyntheticSources(): ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  struct CycleData;

  framework::Handle& handle_;
  const Interner& interner_;
  std::vector<helper::FunctionShapePoint> shape_;  // empty: no scorer
  bool capacity_scoring_;
  size_t slot_ = SIZE_MAX;
};
static_assert(framework::kImplements<
              VolumeBinding, framework::PreFilterPlugin, framework::FilterPlugin,
              framework::PreScorePlugin, framework::ScorePlugin, framework::ReservePlugin,
              framework::PreBindPlugin, framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
