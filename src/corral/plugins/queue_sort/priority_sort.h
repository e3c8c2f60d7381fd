#pragma once
// PrioritySort (kube's queuesort plugin): the activeQ order. A pod with a higher priority comes
// first; among equal priorities, the one (re)added to the queue earlier.

#include <memory>
#include <string_view>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  static constexpr std::string_view kName = names::kPrioritySort;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);

  std::string_view Name() const override { return kName; }
  bool Less(const framework::QueuedPodView& a, const framework::QueuedPodView& b) const override;
};
static_assert(framework::kImplements<PrioritySort, framework::QueueSortPlugin>);

}  // namespace corral::plugins
