#pragma once
// VolumeZone, accepted by name. kube's volumezone plugin checks that the zones of a pod's bound
// PersistentVolumes match the node's zone labels. Corral does not model volumes: the plugin skips
// every pod (common/unmodeled_volume_plugin.h says why).

#include <memory>
#include <string_view>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/plugins/common/unmodeled_volume_plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class VolumeZone final : public UnmodeledVolumePlugin {
 public:
  static constexpr std::string_view kName = names::kVolumeZone;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit VolumeZone(const Interner& interner) : UnmodeledVolumePlugin(kName, interner) {}
};
static_assert(framework::kImplements<VolumeZone, framework::PreFilterPlugin,
                                     framework::FilterPlugin, framework::SignPlugin>);

}  // namespace corral::plugins
