#include "corral/plugins/scheduling_gates/scheduling_gates.h"

#include <string>

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> SchedulingGates::New(const framework::PluginArgs* args,
                                                                framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<SchedulingGates>(handle.interner()));
}

framework::Status SchedulingGates::PreEnqueue(const framework::PodInfo& pod) {
  const auto& gates = pod.pod->scheduling_gates;
  if (gates.empty()) return {};
  std::string msg = "waiting for scheduling gates: [";
  for (size_t i = 0; i < gates.size(); ++i) {
    if (i > 0) msg += ' ';
    msg += interner_.Str(gates[i]);
  }
  msg += ']';
  return framework::Status::WithOwnedReason(framework::Code::kUnschedulableAndUnresolvable,
                                            std::move(msg));
}

std::vector<framework::ClusterEvent> SchedulingGates::EventsToRegister() const {
  return {{framework::EventResource::kPod, framework::ActionType::kUpdate}};
}

framework::QueueingHint SchedulingGates::Hint(const framework::PodInfo& pod,
                                              const framework::ClusterEvent& event,
                                              const void* subject) const {
  (void)event;
  const api::Pod* updated = PodSubject(subject);
  if (updated == nullptr) return framework::QueueingHint::kQueue;  // kube: a bad object queues
  // kube's event fires only when every gate is gone; its hint then queues the pod itself.
  const bool eliminated = !pod.pod->scheduling_gates.empty() && updated->scheduling_gates.empty();
  return eliminated && SamePod(*pod.pod, *updated) ? framework::QueueingHint::kQueue
                                                   : framework::QueueingHint::kQueueSkip;
}

}  // namespace corral::plugins
