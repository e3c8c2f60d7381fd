#pragma once
// NodeVolumeLimits (kube's nodevolumelimits CSI limits plugin). Counts, per CSI driver, the unique
// volumes that the pods on a node and the pod attach (claims bound to CSI volumes or to in-tree
// GCE PD, AWS EBS, Azure Disk and Cinder volumes that the node's CSINode marks migrated; unbound
// claims counted through their class's provisioner; migratable inline in-tree volumes), and
// rejects the node when a driver's count would exceed its limit: the CSINode's allocatable.count
// for the driver, else the node's `attachable-volumes-csi-<driver>` allocatable. Message: "node(s)
// exceed max volume count" (Unschedulable). A missing claim of the pod is
// UnschedulableAndUnresolvable. Pods with no claim, CSI or migratable in-tree volume are skipped.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/storage.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/node_info.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class NodeVolumeLimits final : public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::EnqueueExtensions,
                               public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodeVolumeLimits;
  static constexpr std::string_view kErrReasonMaxVolumeCountExceeded =
      "node(s) exceed max volume count";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit NodeVolumeLimits(framework::Handle& handle);

  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // The count depends on claims and CSINodes, which change without the node changing.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override;

  // Node add and assigned pod deletion (kube also registers CSINode and claim events; Corral
  // emits none).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  // kube's isSchedulableAfterPodDeleted: Queue when the deleted pod was on a node (or nominated to
  // one) and had a claim, an ephemeral volume or a migratable inline volume.
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;
  static framework::QueueingHint HintAfterPodDeleted(const api::Pod& deleted);
  // kube's isSchedulableAfterPVCAdded: Queue when the claim is one of the pod's (same namespace,
  // its claim or ephemeral claim name).
  static framework::QueueingHint HintAfterClaimAdded(const api::Pod& pod,
                                                     const api::PersistentVolumeClaim& claim,
                                                     const Interner& interner);

  // {v1.Pod.Spec.Volumes.NonSyntheticSources(): ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

  // One attachable volume: "<driver>/<volume handle>" and its driver.
  struct Attached {
    std::string unique_name;
    Symbol driver;
  };
  // kube's filterAttachableVolumes for one pod and node. `new_pod`: a missing claim is an error
  // (UnschedulableAndUnresolvable); for pods on the node it is not counted.
  framework::Status AttachableVolumes(const api::Pod& pod, Symbol node, bool new_pod,
                                      std::vector<Attached>* out) const;

 private:
  // What Filter derives from a node alone: the drivers' limits (kube's getVolumeLimits) and, when
  // there are limits, the unique volumes its pods attach, sorted by unique name.
  struct NodeVolumes {
    std::vector<std::pair<Symbol, int64_t>> limits;
    std::vector<Attached> attached;
  };
  // Fills `out` for `node`. Returns false when the result must not be reused: a driver name that
  // no symbol names yet (it may gain one later) or an error from a pod on the node (`status`).
  bool DeriveNodeVolumes(const framework::NodeInfo& node, NodeVolumes* out,
                         framework::Status* status) const;
  // The node's NodeVolumes, derived again only when the node (its NodeInfo generation) or the
  // volume cache (its epoch) changed since it was last derived. Null with `status` set on an error.
  const NodeVolumes* NodeVolumesOf(const framework::NodeInfo& node,
                                   framework::Status* status) const;

  framework::Handle& handle_;
  const Interner& interner_;
  // Filter's per-node memo (filters run on the scheduling thread only), and the scratch entry of
  // a node whose derivation is not reused.
  struct CachedNode {
    const api::Node* api_node = nullptr;
    uint64_t generation = 0;
    uint64_t epoch = 0;
    NodeVolumes volumes;
  };
  mutable absl::flat_hash_map<const framework::NodeInfo*, CachedNode> node_cache_;
  mutable NodeVolumes scratch_;
};
static_assert(
    framework::kImplements<NodeVolumeLimits, framework::PreFilterPlugin, framework::FilterPlugin,
                           framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
