#pragma once
// NodeUnschedulable (kube's nodeunschedulable plugin): a cordoned node (spec.unschedulable) accepts
// only pods that tolerate the node.kubernetes.io/unschedulable:NoSchedule taint.

#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class NodeUnschedulable final : public framework::FilterPlugin,
                                public framework::EnqueueExtensions,
                                public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodeUnschedulable;
  static constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit NodeUnschedulable(const Interner& interner) : interner_(interner) {}

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable kErrReasonUnschedulable on a cordoned node the pod does
  // not tolerate.
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Reads only the pod and the evaluated node.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override {
    (void)pod;
    return true;
  }

  // Node/Add|Update: queues when the node is schedulable (added uncordoned, or uncordoned).
  // Pod/Update of the pod itself (kube's UpdatePodToleration, which fires when the number of
  // tolerations changed): queues when it now tolerates the unschedulable taint (`pod` is the
  // object before the update, the subject after).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  // {v1.Pod.Spec.Tolerations: ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  const Interner& interner_;
};
static_assert(framework::kImplements<NodeUnschedulable, framework::FilterPlugin,
                                     framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
