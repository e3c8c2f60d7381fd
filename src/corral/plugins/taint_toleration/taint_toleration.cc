#include "corral/plugins/taint_toleration/taint_toleration.h"

#include <string>
#include <utility>

#include "corral/api/selectors.h"
#include "corral/pipeline/normalize.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

namespace {

// PreScore's result: the tolerations that may tolerate a PreferNoSchedule taint.
struct PreScoreState final : framework::StateData {
  std::vector<api::Toleration> prefer_no_schedule;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace

Result<std::unique_ptr<framework::Plugin>> TaintToleration::New(const framework::PluginArgs* args,
                                                                framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<TaintToleration>(handle.interner()));
}

framework::Status TaintToleration::Filter(const framework::CycleState& state, size_t slot,
                                          const framework::PodInfo& pod,
                                          const framework::NodeInfo& node) const {
  (void)state;
  (void)slot;
  if (api::FindUntoleratedTaint(node.node()->taints, pod.pod->tolerations,
                                api::kDoNotScheduleTaints) == nullptr) {
    return {};
  }
  return framework::Status::Unresolvable(kErrReasonUntolerated);
}

framework::Status TaintToleration::PreScore(framework::CycleState& state, size_t slot,
                                            const framework::PodInfo& pod,
                                            std::span<const framework::NodeInfo* const> nodes) {
  (void)nodes;
  auto s = std::make_unique<PreScoreState>();
  for (const auto& t : pod.pod->tolerations) {
    // An empty effect means every effect, PreferNoSchedule included.
    if (t.effect == api::TaintEffect::kNone || t.effect == api::TaintEffect::kPreferNoSchedule) {
      s->prefer_no_schedule.push_back(t);
    }
  }
  state.Write(slot, std::move(s));
  return {};
}

framework::Status TaintToleration::Score(const framework::CycleState& state, size_t slot,
                                         const framework::PodInfo& pod,
                                         const framework::NodeInfo& node, int64_t* score) const {
  (void)pod;
  const auto* s = state.Get<PreScoreState>(slot);
  if (s == nullptr) {
    return framework::Status::Error(
        "failed to read \"PreScoreTaintToleration\" from cycleState: not found");
  }
  int64_t untolerated = 0;
  for (const auto& taint : node.node()->taints) {
    if (taint.effect != api::TaintEffect::kPreferNoSchedule) continue;
    if (!api::TolerationsTolerateTaint(s->prefer_no_schedule, taint)) ++untolerated;
  }
  *score = untolerated;
  return {};
}

framework::Status TaintToleration::NormalizeScore(const framework::CycleState& state, size_t slot,
                                                  const framework::PodInfo& pod,
                                                  std::span<framework::NodeScore> scores) const {
  (void)state;
  (void)slot;
  (void)pod;
  pipeline::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/true, scores);
  return {};
}

std::vector<framework::ClusterEvent> TaintToleration::EventsToRegister() const {
  using framework::ActionType;
  using framework::EventResource;
  return {{EventResource::kNode, Actions(ActionType::kAdd, ActionType::kUpdate)},
          {EventResource::kPod, ActionType::kUpdate}};
}

framework::QueueingHint TaintToleration::Hint(const framework::PodInfo& pod,
                                              const framework::ClusterEvent& event,
                                              const void* subject) const {
  using framework::QueueingHint;
  if (subject == nullptr) return QueueingHint::kQueue;
  if (event.resource == framework::EventResource::kNode) {
    const api::Node& node = *NodeSubject(subject);
    const bool untolerated = api::FindUntoleratedTaint(node.taints, pod.pod->tolerations,
                                                       api::kDoNotScheduleTaints) != nullptr;
    return untolerated ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
  }
  // kube's isSchedulableAfterPodTolerationChange (the pod itself queues), behind its event filter:
  // kube fires UpdatePodToleration only when the number of tolerations changed.
  const api::Pod& updated = *PodSubject(subject);
  return SamePod(*pod.pod, updated) && pod.pod->tolerations.size() != updated.tolerations.size()
             ? QueueingHint::kQueue
             : QueueingHint::kQueueSkip;
}

framework::Status TaintToleration::Sign(const framework::PodInfo& pod,
                                        std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back(
      {std::string(signers::kTolerationsKey), signers::Tolerations(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
