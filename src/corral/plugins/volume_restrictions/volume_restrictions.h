#pragma once
// VolumeRestrictions (kube's volumerestrictions plugin). Two checks:
//  - Disk conflicts: an in-tree GCE PD, AWS EBS, RBD or iSCSI volume of the pod conflicts with the
//    same disk mounted by a pod on the node (same PD name unless both read-only; same EBS volume
//    ID; same RBD image in the same pool on an overlapping monitor unless both read-only; same
//    iSCSI IQN unless both read-only): Unschedulable "node(s) had no available disk".
//  - ReadWriteOncePod: a claim of the pod with that access mode that a bound or assumed pod
//    already uses makes every node UnschedulableAndUnresolvable ("node has pod using
//    PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"); a missing claim
//    is UnschedulableAndUnresolvable at PreFilter. PreFilter counts the conflicting claims once;
//    its AddPod/RemovePod extensions keep the count for preemption's what-ifs.
// Pods without such volumes are skipped.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class VolumeRestrictions final : public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions,
                                 public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kVolumeRestrictions;
  static constexpr std::string_view kErrReasonDiskConflict = "node(s) had no available disk";
  static constexpr std::string_view kErrReasonReadWriteOncePodConflict =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
      "mode";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit VolumeRestrictions(framework::Handle& handle);

  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  const framework::PreFilterExtensions* PreFilterExtensions() const override { return this; }
  framework::Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Disk conflicts depend on the node's pods only; the ReadWriteOncePod count on every node.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override;

  // Assigned pod deletion and node addition (kube also registers claim events; Corral
  // emits none).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  // kube's isSchedulableAfterPodDeleted: for a deleted pod of the same namespace, Queue when it had
  // a disk that conflicts with the pod's, or used one of the pod's ReadWriteOncePod claims.
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  // {v1.Pod.Spec.Volumes.NonSyntheticSources(): ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

  // kube's isVolumeConflict: whether `v` conflicts with a volume of `other`.
  static bool VolumeConflicts(const api::Volume& v, const api::Pod& other);

 private:
  struct CycleData;

  framework::Handle& handle_;
  const Interner& interner_;
  size_t slot_ = SIZE_MAX;
};
static_assert(framework::kImplements<VolumeRestrictions, framework::PreFilterPlugin,
                                     framework::PreFilterExtensions, framework::FilterPlugin,
                                     framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
