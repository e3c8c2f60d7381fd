#include "corral/plugins/volume_restrictions/volume_restrictions.h"

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> VolumeRestrictions::New(
    const framework::PluginArgs* args, framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<VolumeRestrictions>(handle.interner()));
}

}  // namespace corral::plugins
