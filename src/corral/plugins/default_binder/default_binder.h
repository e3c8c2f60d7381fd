#pragma once
// DefaultBinder (kube's defaultbinder plugin). kube POSTs a pods/binding subresource; in Corral the
// scheduler applies the binding itself once Bind succeeds, so the plugin only accepts every pod.

#include <memory>
#include <string_view>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class DefaultBinder final : public framework::BindPlugin {
 public:
  static constexpr std::string_view kName = names::kDefaultBinder;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);

  std::string_view Name() const override { return kName; }
  // Always Success: this binder handles every pod.
  framework::Status Bind(framework::CycleState& state, const framework::PodInfo& pod,
                         Symbol node) override;
};
static_assert(framework::kImplements<DefaultBinder, framework::BindPlugin>);

}  // namespace corral::plugins
