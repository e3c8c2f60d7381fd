#pragma once
// TaintToleration (kube's tainttoleration plugin).
//   Filter: the pod must tolerate every NoSchedule and NoExecute taint of the node.
//   Score: the number of the node's PreferNoSchedule taints the pod does not tolerate, normalized
//   in reverse (fewer untolerated taints, higher score).

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class TaintToleration final : public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::ScoreExtensions,
                              public framework::EnqueueExtensions,
                              public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kTaintToleration;
  // Since kube 1.35 (PR#134740) the reason names no taint: keys and values may be sensitive.
  static constexpr std::string_view kErrReasonUntolerated = "node(s) had untolerated taint(s)";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit TaintToleration(const Interner& interner) : interner_(interner) {}

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable kErrReasonUntolerated when some NoSchedule/NoExecute taint of the
  // node is not tolerated.
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Reads only the pod and the evaluated node.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override {
    (void)pod;
    return true;
  }

  // Keeps the tolerations that can tolerate a PreferNoSchedule taint (effect empty
  // or PreferNoSchedule).
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  // PreScore reads only the pod's tolerations, which placing a pod does not change.
  const framework::PreScoreExtensions* PreScoreExtensions() const override {
    return framework::PodOnlyPreScoreExtensions();
  }
  // The number of PreferNoSchedule taints on the node that those tolerations do not tolerate.
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;
  const framework::ScoreExtensions* ScoreExtensions() const override { return this; }
  // DefaultNormalizeScore(100, reverse = true).
  framework::Status NormalizeScore(const framework::CycleState& state, size_t slot,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // Node/Add|Update: queues when the node's NoSchedule/NoExecute taints are all tolerated.
  // Pod/Update of the pod itself (kube's UpdatePodToleration, which fires when the number of
  // tolerations changed; the API only lets tolerations be added): queues (`pod` is the object
  // before the update, the subject after).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  // {v1.Pod.Spec.Tolerations: ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  const Interner& interner_;
};
static_assert(
    framework::kImplements<TaintToleration, framework::FilterPlugin, framework::PreScorePlugin,
                           framework::ScorePlugin, framework::ScoreExtensions,
                           framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
