#pragma once
// SchedulingGates (kube's schedulinggates plugin): a pod with spec.schedulingGates stays gated (out
// of activeQ) until every gate is removed.

#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class SchedulingGates final : public framework::PreEnqueuePlugin,
                              public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kName = names::kSchedulingGates;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit SchedulingGates(const Interner& interner) : interner_(interner) {}

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable "waiting for scheduling gates: [g1 g2]" (Go's %v of the gate
  // names) while the pod has gates.
  framework::Status PreEnqueue(const framework::PodInfo& pod) override;

  // The pod's own update (kube: Pod/UpdatePodSchedulingGatesEliminated): queues when the update
  // removed its last gate (`pod` is the object before the update, the subject after).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

 private:
  const Interner& interner_;
};
static_assert(framework::kImplements<SchedulingGates, framework::PreEnqueuePlugin,
                                     framework::EnqueueExtensions>);

}  // namespace corral::plugins
