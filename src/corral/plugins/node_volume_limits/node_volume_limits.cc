#include "corral/plugins/node_volume_limits/node_volume_limits.h"

#include <string>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> NodeVolumeLimits::New(const framework::PluginArgs* args,
                                                                 framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeVolumeLimits>(handle.interner()));
}

framework::Status NodeVolumeLimits::PreFilter(framework::CycleState& state, size_t slot,
                                              const framework::PodInfo& pod,
                                              const framework::Snapshot& snapshot,
                                              framework::PreFilterResult* result) {
  (void)state;
  (void)slot;
  (void)pod;
  (void)snapshot;
  (void)result;
  return framework::Status::Skip();
}

framework::Status NodeVolumeLimits::Filter(const framework::CycleState& state, size_t slot,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node) const {
  (void)state;
  (void)slot;
  (void)pod;
  (void)node;
  return {};
}

framework::Status NodeVolumeLimits::Sign(const framework::PodInfo& pod,
                                         std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
