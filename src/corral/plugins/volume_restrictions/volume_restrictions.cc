#include "corral/plugins/volume_restrictions/volume_restrictions.h"

#include <string>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> VolumeRestrictions::New(
    const framework::PluginArgs* args, framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<VolumeRestrictions>(handle.interner()));
}

framework::Status VolumeRestrictions::PreFilter(framework::CycleState& state, size_t slot,
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

framework::Status VolumeRestrictions::Filter(const framework::CycleState& state, size_t slot,
                                             const framework::PodInfo& pod,
                                             const framework::NodeInfo& node) const {
  (void)state;
  (void)slot;
  (void)pod;
  (void)node;
  return {};
}

framework::Status VolumeRestrictions::Sign(const framework::PodInfo& pod,
                                           std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
