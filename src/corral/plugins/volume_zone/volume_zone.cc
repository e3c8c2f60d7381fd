#include "corral/plugins/volume_zone/volume_zone.h"

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> VolumeZone::New(const framework::PluginArgs* args,
                                                           framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeZone>(handle.interner()));
}

}  // namespace corral::plugins
