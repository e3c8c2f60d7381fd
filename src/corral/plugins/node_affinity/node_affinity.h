#pragma once
// NodeAffinity (kube's nodeaffinity plugin).
//   Filter: the node must match the profile's addedAffinity required selector (if any), the pod's
//   spec.nodeSelector and its required node affinity terms (ORed; requirements within a term
//   ANDed). Score: the sum of the weights of the preferred terms (the pod's and addedAffinity's)
//   that match the node, normalized to [0, 100] against the best node.
//
// A term that kube cannot parse (e.g. an invalid label value in NotIn, a Gt value that is not an
// integer) matches no node; an unparsable preferred term of the pod makes PreScore fail with kube's
// field error, and one in addedAffinity makes the args invalid.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

// kube's NodeAffinityArgs.
struct NodeAffinityArgs final : framework::PluginArgs {
  // Affinity added to every pod of the profile: the required selector must match too, and the
  // preferred terms add to every node's score.
  std::optional<api::NodeAffinity> added_affinity;

  // kube's ValidateNodeAffinityArgs: every term must parse. `path` prefixes field names ("" for
  // none); an error reads:
  //   addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]
  //   .values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty
  // Several errors aggregate as "[e1, e2]".
  Result<void> Validate(const Interner& interner, std::string_view path = "") const;
};

class NodeAffinity final : public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public framework::ScorePlugin,
                           public framework::ScoreExtensions,
                           public framework::EnqueueExtensions,
                           public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodeAffinity;
  static constexpr std::string_view kErrReasonPod =
      "node(s) didn't match Pod's node affinity/selector";
  static constexpr std::string_view kErrReasonEnforced =
      "node(s) didn't match scheduler-enforced node affinity";
  static constexpr std::string_view kErrReasonConflict = "pod affinity terms conflict";

  // Args: NodeAffinityArgs (validated) or null (no added affinity).
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  NodeAffinity(const Interner& interner, std::optional<api::NodeAffinity> added_affinity);
  NodeAffinity(const NodeAffinity&) = delete;  // holds pointers into added_
  NodeAffinity& operator=(const NodeAffinity&) = delete;

  std::string_view Name() const override { return kName; }

  // Skip when the pod has no nodeSelector, no required node affinity and the profile adds no
  // required selector. When every required term names nodes with `metadata.name In (...)`,
  // restricts the candidates to those names (ANDed within a term, ORed across terms); an empty
  // result is UnschedulableAndUnresolvable kErrReasonConflict.
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  // UnschedulableAndUnresolvable kErrReasonEnforced, then kErrReasonPod.
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Reads only the pod and the evaluated node.
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override {
    (void)pod;
    return true;
  }

  // Skip when neither the pod nor the profile has preferred terms; Error with kube's field errors
  // when a preferred term of the pod does not parse.
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  // PreScore reads only the pod's preferred terms and the args; placing a pod changes neither.
  const framework::PreScoreExtensions* PreScoreExtensions() const override {
    return framework::PodOnlyPreScoreExtensions();
  }
  // Σ weight of the matching preferred terms.
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;
  const framework::ScoreExtensions* ScoreExtensions() const override { return this; }
  // DefaultNormalizeScore(100, reverse = false).
  framework::Status NormalizeScore(const framework::CycleState& state, size_t slot,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // Node/Add|Update: queues when the node matches both the added selector and the pod's
  // required node affinity.
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  // {v1.Pod.Spec.Affinity.NodeAffinity: ..., v1.Pod.Spec.Affinity.NodeSelector: ...}. The profile's
  // addedAffinity is the same for every pod and needs no fragment.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  bool MatchesAdded(const api::Node& node) const;

  const Interner& interner_;
  std::optional<api::NodeAffinity> added_;
  const api::NodeSelector* added_selector_ = nullptr;  // into added_; null when none
  // addedAffinity's preferred terms that count (non-zero weight, non-empty), into added_.
  std::vector<const api::PreferredSchedulingTerm*> added_preferred_;
  bool has_added_preferred_ =
      false;  // kube: addedAffinity lists preferred terms (even zero-weight)
};
static_assert(framework::kImplements<NodeAffinity, framework::PreFilterPlugin,
                                     framework::FilterPlugin, framework::PreScorePlugin,
                                     framework::ScorePlugin, framework::ScoreExtensions,
                                     framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
