#include "corral/plugins/node_name/node_name.h"

#include <string>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> NodeName::New(const framework::PluginArgs* args,
                                                         framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeName>(handle.interner()));
}

framework::Status NodeName::Filter(const framework::CycleState& state, size_t slot,
                                   const framework::PodInfo& pod,
                                   const framework::NodeInfo& node) const {
  (void)state;
  (void)slot;
  const Symbol want = pod.pod->node_name;
  if (want.empty() || want == node.name()) return {};
  return framework::Status::Unresolvable(kErrReason);
}

std::vector<framework::ClusterEvent> NodeName::EventsToRegister() const {
  return {{framework::EventResource::kNode, framework::ActionType::kAdd}};
}

framework::Status NodeName::Sign(const framework::PodInfo& pod,
                                 std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back(
      {std::string(signers::kNodeNameKey), signers::NodeName(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
