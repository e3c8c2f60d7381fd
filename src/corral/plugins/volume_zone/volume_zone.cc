#include "corral/plugins/volume_zone/volume_zone.h"

#include <string>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> VolumeZone::New(const framework::PluginArgs* args,
                                                           framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeZone>(handle.interner()));
}

framework::Status VolumeZone::PreFilter(framework::CycleState& state, size_t slot,
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

framework::Status VolumeZone::Filter(const framework::CycleState& state, size_t slot,
                                     const framework::PodInfo& pod,
                                     const framework::NodeInfo& node) const {
  (void)state;
  (void)slot;
  (void)pod;
  (void)node;
  return {};
}

framework::Status VolumeZone::Sign(const framework::PodInfo& pod,
                                   std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
