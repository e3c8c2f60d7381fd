#pragma once
// InterPodAffinity (kube's interpodaffinity plugin, v1.37): required and preferred pod affinity and
// anti-affinity between the incoming pod and the pods already placed, per topology domain.
//
//   PreFilter  builds three (topology key, value) → count maps: existing pods' required
//              anti-affinity terms matching the incoming pod (only nodes in
//              Snapshot::have_pods_with_required_anti_affinity); pods matching all of the incoming
//              pod's required affinity terms; pods matching its required anti-affinity terms (all
//              nodes, only when the pod has such terms). Skip when all are empty.
//   Filter     affinity: every term's domain must hold a match, unless no pod matches anywhere and
//              the pod matches its own terms (the first pod of a group) —
//              UnschedulableAndUnresolvable "node(s) didn't match pod affinity rules";
//              anti-affinity — Unschedulable "node(s) didn't match pod anti-affinity rules";
//              existing pods' anti-affinity — Unschedulable "node(s) didn't satisfy existing pods
//              anti-affinity rules".
//   PreScore   topology score: +w/−w for the incoming pod's preferred (anti-)affinity terms
//              matching existing pods, +hardPodAffinityWeight for existing pods' required affinity
//              terms matching the incoming pod, +w/−w for existing pods' preferred terms. Skip when
//              ignorePreferredTermsOfExistingPods and the pod has no preferred terms, or when
//              nothing matched.
//   Score      Σ over the node's labels of the topology score; Normalize min–max to [0, 100] (v1.37
//              starts from min = MaxInt64, max = MinInt64; all 0 when max == min).
//
// Namespaces: a term's namespaces plus, with a namespaceSelector, every namespace whose labels
// match (kube unrolls the selector through the namespace lister in PreFilter/PreScore; Corral
// evaluates it per matched pod through Handle::GetNamespace, which gives the same result). An empty
// namespaceSelector matches all namespaces. Existing pods' selectors are evaluated against the
// incoming pod's namespace labels.
//
// Sign: unsignable (Unschedulable) when the pod has podAffinity or podAntiAffinity; otherwise its
// labels (existing pods' terms may select them). With CorralBatchingRescoreHook (Corral, beyond
// kube) a pod whose pod (anti-)affinity terms are all preferred, none with a non-empty
// namespaceSelector, is signed too: its labels plus its namespace and preferred terms
// ("corral.InterPodAffinity.Preferred"); the batch then rescores it through the Rescore hook
// (placing such a pod changes other nodes' scores).
//
// Queueing hints: pod events carry `const api::Pod*`, node events `const api::Node*`
// (plugins/common/ plugin_util.h); updates carry no old object and are queued whenever kube could
// queue them.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

// kube's config.InterPodAffinityArgs (v1 defaults).
struct InterPodAffinityArgs final : framework::PluginArgs {
  int32_t hard_pod_affinity_weight = 1;  // 0..100
  bool ignore_preferred_terms_of_existing_pods = false;
};

// kube's validation.ValidateInterPodAffinityArgs: "hardPodAffinityWeight: Invalid value: 101: not
// in valid range [0, 100]". `path` prefixes the field as in ValidatePodTopologySpreadArgs.
Result<void> ValidateInterPodAffinityArgs(const InterPodAffinityArgs& args,
                                          std::string_view path = "");

class InterPodAffinity final : public framework::PreFilterPlugin,
                               public framework::PreFilterExtensions,
                               public framework::PreScoreExtensions,
                               public framework::RescoreExtension,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::ScoreExtensions,
                               public framework::EnqueueExtensions,
                               public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kInterPodAffinity;
  static constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
      "node(s) didn't satisfy existing pods anti-affinity rules";
  static constexpr std::string_view kErrReasonAffinityRulesNotMatch =
      "node(s) didn't match pod affinity rules";
  static constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch =
      "node(s) didn't match pod anti-affinity rules";
  // The signature fragment key (kube's LabelsSignerName).
  static constexpr std::string_view kLabelsSignerKey = "v1.Pod.Labels";
  // Corral's fragment for pods signed through the Rescore hook (namespace and preferred terms).
  static constexpr std::string_view kPreferredSignerKey = "corral.InterPodAffinity.Preferred";

  // `args` must be null (defaults) or an InterPodAffinityArgs.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  InterPodAffinity(const InterPodAffinityArgs& args, framework::Handle& handle);
  ~InterPodAffinity() override;

  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  const framework::PreFilterExtensions* PreFilterExtensions() const override { return this; }
  framework::Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;
  // Incremental PreScore (CorralIncrementalPreScore): adds the added pod's contributions (as
  // PreScore derives them for one existing pod) to an overlay of the topology score map.
  const framework::PreScoreExtensions* PreScoreExtensions() const override { return this; }
  framework::Status AddPod(framework::CycleState& state, size_t slot, const framework::PodInfo& pod,
                           const framework::PodInfo& added, const framework::NodeInfo& node,
                           std::span<const framework::NodeInfo* const> nodes) const override;
  // Rescore hook (CorralBatchingRescoreHook): a pod with preferred (anti-)affinity terms placed on
  // A changes the counts of A's topology pairs only, so exactly the nodes sharing one of those
  // pairs are rescored.
  const framework::RescoreExtension* RescoreExtension() const override { return this; }
  bool CrossNode(const framework::PodInfo& pod) const override;
  framework::Status Rescore(const framework::CycleState& state, size_t slot,
                            const framework::PodInfo& pod, const framework::NodeInfo& placed,
                            std::span<const framework::NodeInfo* const> nodes,
                            std::vector<framework::NodeRescore>* changed) const override;
  const framework::ScoreExtensions* ScoreExtensions() const override { return this; }
  framework::Status NormalizeScore(const framework::CycleState& state, size_t slot,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // Pod add/update/delete, node add/update (kube: AssignedPod Add|UpdatePodLabel|Delete, the pod's
  // own label updates, Node Add|UpdateNodeLabel|UpdateNodeTaint).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

  // Corral keeps per-node topology counts across cycles (plugins/incremental); off recomputes
  // everything every cycle as kube does. Both give identical results; tests compare them.
  // `direct_scan_limit`: up to this many nodes with pods that have (required anti-)affinity terms,
  // those nodes are walked directly instead of through the cache.
  void SetIncrementalForTesting(bool on, size_t direct_scan_limit = kDefaultDirectScanLimit) {
    incremental_ = on;
    direct_scan_limit_ = direct_scan_limit;
  }

 private:
  struct Caches;
  framework::Status UpdateWithPod(framework::CycleState& state,
                                  const framework::PodInfo& pod_to_schedule,
                                  const framework::PodInfo& updated,
                                  const framework::NodeInfo& node, int64_t multiplier) const;

  static constexpr size_t kNoSlot = ~size_t{0};

  InterPodAffinityArgs args_;
  framework::Handle& handle_;
  // This plugin's CycleState slot, recorded by PreFilter (PreFilterExtensions are not told
  // the slot).
  size_t slot_ = kNoSlot;
  static constexpr size_t kDefaultDirectScanLimit = 32;
  bool incremental_ = true;
  size_t direct_scan_limit_ = kDefaultDirectScanLimit;
  std::unique_ptr<Caches> caches_;
};
static_assert(framework::kImplements<
              InterPodAffinity, framework::PreFilterPlugin, framework::PreFilterExtensions,
              framework::PreScoreExtensions, framework::RescoreExtension, framework::FilterPlugin,
              framework::PreScorePlugin, framework::ScorePlugin, framework::ScoreExtensions,
              framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
