#pragma once
// NodeName (kube's nodename plugin): a pod with spec.nodeName set fits only the node of that name.

#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class NodeName final : public framework::FilterPlugin,
                       public framework::EnqueueExtensions,
                       public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodeName;
  static constexpr std::string_view kErrReason = "node(s) didn't match the requested node name";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit NodeName(const Interner& interner) : interner_(interner) {}

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable kErrReason when spec.nodeName is set and names another node.
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Reads only the pod and the evaluated node.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override {
    (void)pod;
    return true;
  }

  // Node/Add only: no update of an existing node changes its name.
  std::vector<framework::ClusterEvent> EventsToRegister() const override;

  // {v1.Pod.Spec.NodeName: "<name>"}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  const Interner& interner_;
};
static_assert(framework::kImplements<NodeName, framework::FilterPlugin,
                                     framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
