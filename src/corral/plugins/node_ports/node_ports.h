#pragma once
// NodePorts (kube's nodeports plugin): the pod's host ports must be free on the node. A (protocol,
// hostIP, hostPort) triple conflicts with a used triple of the same protocol and port when either
// IP is the wildcard 0.0.0.0 (an empty hostIP means 0.0.0.0) or the IPs are equal
// (kube's HostPortInfo).

#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class NodePorts final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions,
                        public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodePorts;
  static constexpr std::string_view kErrReason =
      "node(s) didn't have free ports for the requested pod ports";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit NodePorts(const Interner& interner) : interner_(interner) {}

  std::string_view Name() const override { return kName; }

  // Skip when the pod has no host ports (containers and restartable init containers, as kube's
  // GetHostPorts); else records them for Filter.
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  // Unschedulable kErrReason when a wanted port conflicts with one used on the node (preemption may
  // free it).
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Reads only the pod and the evaluated node.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override {
    (void)pod;
    return true;
  }

  // AssignedPod/Delete: queues when the deleted pod (bound or nominated) held a port the pod wants.
  // Node/Add: always queues.
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  // {v1.Pod.Spec.HostPorts(): [sorted distinct host port numbers]}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  const Interner& interner_;
};
static_assert(framework::kImplements<NodePorts, framework::PreFilterPlugin, framework::FilterPlugin,
                                     framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
