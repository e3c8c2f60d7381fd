#include "corral/plugins/node_unschedulable/node_unschedulable.h"

#include <string>

#include "corral/api/selectors.h"
#include "corral/api/well_known.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

namespace {
// The taint a cordoned node is treated as having (v1.TaintNodeUnschedulable:NoSchedule).
const api::Taint kUnschedulableTaint{api::wk::kUnschedulableTaintKey, Symbol(),
                                     api::TaintEffect::kNoSchedule, std::nullopt};

bool ToleratesUnschedulable(const api::Pod& pod) {
  return api::TolerationsTolerateTaint(pod.tolerations, kUnschedulableTaint);
}
}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodeUnschedulable::New(const framework::PluginArgs* args,
                                                                  framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeUnschedulable>(handle.interner()));
}

framework::Status NodeUnschedulable::Filter(const framework::CycleState& state, size_t slot,
                                            const framework::PodInfo& pod,
                                            const framework::NodeInfo& node) const {
  (void)state;
  (void)slot;
  if (!node.node()->unschedulable || ToleratesUnschedulable(*pod.pod)) return {};
  return framework::Status::Unresolvable(kErrReasonUnschedulable);
}

std::vector<framework::ClusterEvent> NodeUnschedulable::EventsToRegister() const {
  using framework::ActionType;
  using framework::EventResource;
  return {{EventResource::kNode, Actions(ActionType::kAdd, ActionType::kUpdate)},
          {EventResource::kPod, ActionType::kUpdate}};
}

framework::QueueingHint NodeUnschedulable::Hint(const framework::PodInfo& pod,
                                                const framework::ClusterEvent& event,
                                                const void* subject) const {
  using framework::QueueingHint;
  if (subject == nullptr) return QueueingHint::kQueue;
  if (event.resource == framework::EventResource::kNode) {
    return NodeSubject(subject)->unschedulable ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
  }
  const api::Pod& updated = *PodSubject(subject);
  if (!SamePod(*pod.pod, updated)) return QueueingHint::kQueueSkip;
  // kube's isSchedulableAfterPodTolerationChange, behind its event filter: kube fires
  // UpdatePodToleration only when the number of tolerations changed.
  return pod.pod->tolerations.size() != updated.tolerations.size() &&
                 ToleratesUnschedulable(updated)
             ? QueueingHint::kQueue
             : QueueingHint::kQueueSkip;
}

framework::Status NodeUnschedulable::Sign(const framework::PodInfo& pod,
                                          std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back(
      {std::string(signers::kTolerationsKey), signers::Tolerations(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
