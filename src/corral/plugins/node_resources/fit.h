#pragma once
// NodeResourcesFit (kube's noderesources/fit.go): filters out nodes without room for the pod's
// requests and scores the rest with one of three strategies (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio) over the configured resources.
//
// Filter, per node (all failing reasons are reported, in this order):
//   - pod count: |pods on node| + 1 > allocatable pods                    "Too many pods"
//   - cpu, memory, ephemeral-storage: request > 0 and
//     request > allocatable - requested                                    "Insufficient <name>"
//   - each non-zero scalar request (extended, hugepages, kubernetes.io/*) that is not ignored,
//     in resource name order (kube iterates a Go map: random order)        "Insufficient <name>"
// The status is UnschedulableAndUnresolvable when some insufficient resource is requested beyond
// the node's whole allocatable (preemption cannot help), else Unschedulable. ignoredResources and
// ignoredResourceGroups (the part before '/') apply to extended resources only.
//
// Score uses non-zero requests for cpu and memory (100m / 200Mi for containers without one), actual
// requests otherwise; a configured scalar the pod does not request, or a resource the node does not
// offer, is left out of the weighted average.
//
// Extended resources backed by DRA (DRAExtendedResource, locked on in v1.37): Filter leaves a
// resource that a DeviceClass backs to DynamicResources on a node that does not advertise it in
// allocatable; Score gives such a resource the class's devices on the node as allocatable and the
// allocated ones as requested (plugins/dynamic_resources/extended_resource.h).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <absl/container/node_hash_map.h>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/dynamic_resources/extended_resource.h"
#include "corral/plugins/helper/shape_score.h"
#include "corral/plugins/names.h"
#include "corral/plugins/node_resources/args.h"
#include "corral/plugins/node_resources/resource_allocation.h"

namespace corral::plugins {

class NodeResourcesFit final : public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::EnqueueExtensions,
                               public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodeResourcesFit;
  static constexpr std::string_view kTooManyPods = "Too many pods";
  static constexpr std::string_view kInsufficientCpu = "Insufficient cpu";
  static constexpr std::string_view kInsufficientMemory = "Insufficient memory";
  static constexpr std::string_view kInsufficientEphemeralStorage =
      "Insufficient ephemeral-storage";
  static constexpr std::string_view kSidecarContainersDisabled =
      "Pod has a restartable init container and the SidecarContainers feature is disabled";

  // `args` must be null (defaults) or a NodeResourcesFitArgs; it is validated as kube's
  // NewFit does.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  // REQUIRES: `args` passed Validate() and has a scoring strategy (with a shape for
  // RequestedToCapacityRatio). Prefer New().
  NodeResourcesFit(const NodeResourcesFitArgs& args, framework::Handle& handle);

  std::string_view Name() const override { return kName; }

  // Records the pod's request and the scalar resources Filter must check (with their reasons).
  // Fails UnschedulableAndUnresolvable for restartable init containers when SidecarContainers
  // is off.
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Reads only the pod and the evaluated node.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override {
    (void)pod;
    return true;
  }

  // Records the pod's request of each configured resource. Never skips.
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  // PreScore reads only the pod's requests, which placing a pod does not change.
  const framework::PreScoreExtensions* PreScoreExtensions() const override {
    return framework::PodOnlyPreScoreExtensions();
  }
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;

  // Pod/Delete (freed resources), Pod/Update (kube's Pod/UpdatePodScaleDown: an in-place resize,
  // the only pod update Corral fires) and Node/Add|Update (new or grown allocatable).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  // `subject` is what the scheduler passes (common/plugin_util.h): `const api::Pod*` for pod
  // events, `const api::Node*` (the new node) for node events. Without the old node an update is
  // judged like an add (queue when the pod fits the node), which may queue where kube skips but
  // never the reverse.
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;
  // kube's isSchedulableAfterNodeChange with both objects (old_node null for an add): skip unless
  // the pod fits the new node and, for an update, the allocatable pods or a resource the pod
  // requests grew.
  framework::QueueingHint NodeChangeHint(const framework::PodInfo& pod, const api::Node* old_node,
                                         const api::Node& new_node) const;
  // kube's isSchedulableAfterPodEvent for a deletion: skip when the deleted pod was neither bound
  // nor nominated (it held no resources).
  framework::QueueingHint PodDeletedHint(const framework::PodInfo& pod,
                                         const api::Pod& deleted) const;

  // {kResourcesSignerKey: the pod's request}. Refuses a pod that requests a resource a class
  // backs (kube refuses every pod while DRAExtendedResource is on: docs/deviations.md).
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  enum class Strategy : uint8_t { kLeast, kMost, kRatio };
  // What Filter needs to know about one scalar resource, computed once per resource name.
  struct ScalarInfo {
    std::string reason;  // "Insufficient <name>"; Filter hands out views of it
    bool ignored = false;
  };
  const ScalarInfo& ScalarInfoFor(Symbol name);

  framework::Handle& handle_;
  absl::flat_hash_set<std::string> ignored_resources_;
  absl::flat_hash_set<std::string> ignored_resource_groups_;
  bool enable_sidecar_containers_ = true;
  bool enable_dra_extended_resource_ = true;
  // InPlacePodVerticalScalingSchedulerPreemption: a pod filtered against the node it is bound to
  // (a deferred resize) is already counted in that node's requested resources.
  bool enable_resize_preemption_ = false;
  mutable dra::ClassDeviceCounter dra_devices_;  // thread-safe cache of class devices per node
  Strategy strategy_ = Strategy::kLeast;
  std::vector<noderesources::ScoredResource> resources_;
  std::vector<helper::FunctionShapePoint> shape_;  // RequestedToCapacityRatio only, scores x10
  // Written by PreFilter only (scheduling thread, before any Filter of the cycle); node-based, so
  // the reasons Filter returns stay valid as entries are added. Lives as long as the plugin.
  absl::node_hash_map<Symbol, ScalarInfo> scalar_info_;
};
static_assert(
    framework::kImplements<NodeResourcesFit, framework::PreFilterPlugin, framework::FilterPlugin,
                           framework::PreScorePlugin, framework::ScorePlugin,
                           framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
