#include "corral/plugins/node_volume_limits/node_volume_limits.h"

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> NodeVolumeLimits::New(const framework::PluginArgs* args,
                                                                 framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeVolumeLimits>(handle.interner()));
}

}  // namespace corral::plugins
