#pragma once
// NodeVolumeLimits, accepted by name. kube's nodevolumelimits plugin (CSI limits) checks that
// the node's CSI drivers can attach the pod's volumes. Corral does not model volumes: the plugin
// skips every pod (common/unmodeled_volume_plugin.h says why).

#include <memory>
#include <string_view>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/plugins/common/unmodeled_volume_plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class NodeVolumeLimits final : public UnmodeledVolumePlugin {
 public:
  static constexpr std::string_view kName = names::kNodeVolumeLimits;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit NodeVolumeLimits(const Interner& interner) : UnmodeledVolumePlugin(kName, interner) {}
};
static_assert(framework::kImplements<NodeVolumeLimits, framework::PreFilterPlugin,
                                     framework::FilterPlugin, framework::SignPlugin>);

}  // namespace corral::plugins
