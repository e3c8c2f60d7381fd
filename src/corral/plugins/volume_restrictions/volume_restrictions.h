#pragma once
// VolumeRestrictions, accepted by name. kube's volumerestrictions plugin checks in-tree disk
// volumes (GCE PD, EBS, RBD, ISCSI) mounted by other pods on the node and ReadWriteOncePod claims.
// Corral does not model volumes: the plugin skips every pod (common/unmodeled_volume_plugin.h
// says why).

#include <memory>
#include <string_view>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/plugins/common/unmodeled_volume_plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class VolumeRestrictions final : public UnmodeledVolumePlugin {
 public:
  static constexpr std::string_view kName = names::kVolumeRestrictions;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit VolumeRestrictions(const Interner& interner) : UnmodeledVolumePlugin(kName, interner) {}
};
static_assert(framework::kImplements<VolumeRestrictions, framework::PreFilterPlugin,
                                     framework::FilterPlugin, framework::SignPlugin>);

}  // namespace corral::plugins
