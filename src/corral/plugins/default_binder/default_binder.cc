#include "corral/plugins/default_binder/default_binder.h"

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> DefaultBinder::New(const framework::PluginArgs* args,
                                                              framework::Handle& handle) {
  (void)handle;
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<DefaultBinder>());
}

framework::Status DefaultBinder::Bind(framework::CycleState& state, const framework::PodInfo& pod,
                                      Symbol node) {
  (void)state;
  (void)pod;
  (void)node;
  return {};
}

}  // namespace corral::plugins
