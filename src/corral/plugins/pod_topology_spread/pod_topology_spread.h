#pragma once
// PodTopologySpread (kube's podtopologyspread plugin, v1.37): spreads pods that match a label
// selector evenly over topology domains.
//
// Constraints come from the pod's spec.topologySpreadConstraints or, for pods that have none, from
// the plugin's defaults: `defaultingType: System` gives {hostname, maxSkew 3} and {zone, maxSkew
// 5}, both ScheduleAnyway; `List` gives args.default_constraints. Default constraints take their
// selector from the Services selecting the pod and the pod's controlling ReplicationController,
// ReplicaSet or StatefulSet (kube's helper.DefaultSelector); when that selector is empty they do
// not apply.
//
//   PreFilter  DoNotSchedule constraints: counts matching pods per topology domain over every node
//              whose labels carry all the constraints' keys (filtered by nodeAffinityPolicy,
//              default Honor, and nodeTaintsPolicy, default Ignore), plus the global minimum per
//              constraint. Skip when the pod has no such constraint.
//   Filter     per constraint: matching pods in the node's domain + (1 if the pod matches itself) −
//              global minimum (0 while fewer than minDomains domains exist) must not exceed
//              maxSkew. Unschedulable "node(s) didn't match pod topology spread constraints"; a
//              node without the topology key: UnschedulableAndUnresolvable "... (missing
//              required label)".
//   PreScore   ScheduleAnyway constraints; Skip when the pod has none.
//   Score      Σ cnt × log(domains + 2) + (maxSkew − 1) over the constraints whose key the node
//              carries, rounded; pods with explicit constraints require nodes to carry every key.
//   Normalize  100 × (max + min − s) / max; ignored nodes get 0; all 100 when max is 0.
//
// Sign (Corral, CorralBatchingRescoreHook): a pod whose explicit constraints are all ScheduleAnyway
// is signed (fragment "corral.PodTopologySpread.ScheduleAnyway") and rescored through the Rescore
// hook. Sign: kube refuses (Unschedulable) every pod with constraints and, whenever default
// constraints exist (the stock System defaulting has two), every other pod too — so with kube's
// configuration no pod is batchable. That is the default here. The Corral option
// `sign_when_defaults_select_nothing` signs a pod without explicit constraints when its default
// selector is empty, i.e. when no Service or controller selects it: the plugin then does nothing
// for that pod (PreFilter and PreScore Skip) and placing it changes nothing this plugin computes
// for any pod sharing its signature (such pods are not selected either, or they would be
// unsignable). Caveat: the signature is computed when the pod is queued, so a Service created
// afterwards that selects the pod is not seen until the pod is re-signed.
//
// Queueing hints assume the subject convention of plugins/common/plugin_util.h: pod events carry
// the new (or deleted) `const api::Pod*`, node events the new (or deleted) `const api::Node*`.
// Updates carry no old object, so an update is queued whenever kube could queue it.

#include <cstdint>
#include <memory>
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

// kube's config.PodTopologySpreadArgs (kubescheduler.config.k8s.io/v1), plus one Corral option.
struct PodTopologySpreadArgs final : framework::PluginArgs {
  static constexpr std::string_view kSystemDefaulting = "System";
  static constexpr std::string_view kListDefaulting = "List";

  // Used for pods without constraints when defaulting_type is "List". Their labelSelector must
  // be unset.
  std::vector<api::TopologySpreadConstraint> default_constraints;
  // "System" (kube's default) or "List"; kept as text so validation can quote a wrong value as
  // kube does.
  std::string defaulting_type = std::string(kSystemDefaulting);
  // Corral option, off by default (kube's behaviour): see the file comment.
  bool sign_when_defaults_select_nothing = false;
};

// kube's validation.ValidatePodTopologySpreadArgs, with kube's messages. `path` is the field path
// of the args ("" as in kube's plugin factory, which validates with a nil path; the config loader
// passes e.g. "profiles[0].pluginConfig[2].args"). Several errors are reported as kube aggregates
// them: "[e1, e2]". Topology keys are read through `interner`.
Result<void> ValidatePodTopologySpreadArgs(const PodTopologySpreadArgs& args,
                                           const Interner& interner, std::string_view path = "");

namespace pod_topology_spread {
struct Constraint;
struct CountSignature;
class HostCounts;
}  // namespace pod_topology_spread

class PodTopologySpread final : public framework::PreFilterPlugin,
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
  static constexpr std::string_view kName = names::kPodTopologySpread;
  static constexpr std::string_view kErrReasonConstraintsNotMatch =
      "node(s) didn't match pod topology spread constraints";
  static constexpr std::string_view kErrReasonNodeLabelNotMatch =
      "node(s) didn't match pod topology spread constraints (missing required label)";
  // Corral's fragment for pods signed through the Rescore hook (explicit
  // ScheduleAnyway constraints).
  static constexpr std::string_view kScheduleAnywaySignerKey =
      "corral.PodTopologySpread.ScheduleAnyway";

  // `args` must be null (kube's defaults: System defaulting) or a PodTopologySpreadArgs; invalid
  // args are rejected with kube's validation messages.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  PodTopologySpread(const PodTopologySpreadArgs& args, framework::Handle& handle);
  ~PodTopologySpread() override;

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
  // Incremental PreScore (CorralIncrementalPreScore): re-derives the ignored nodes, domains and
  // weights over the feasible nodes (O(feasible)) and adds the added pod to its node's domain
  // counts, instead of refreshing the counts over every node of the cluster.
  const framework::PreScoreExtensions* PreScoreExtensions() const override { return this; }
  framework::Status AddPod(framework::CycleState& state, size_t slot, const framework::PodInfo& pod,
                           const framework::PodInfo& added, const framework::NodeInfo& node,
                           std::span<const framework::NodeInfo* const> nodes) const override;
  // Rescore hook (CorralBatchingRescoreHook): when the weights are unchanged (known only after an
  // incremental AddPod), the nodes sharing a domain with the placed node; otherwise every node.
  const framework::RescoreExtension* RescoreExtension() const override { return this; }
  bool CrossNode(const framework::PodInfo& pod) const override {
    return !pod.pod->topology_spread_constraints.empty();
  }
  framework::Status Rescore(const framework::CycleState& state, size_t slot,
                            const framework::PodInfo& pod, const framework::NodeInfo& placed,
                            std::span<const framework::NodeInfo* const> nodes,
                            std::vector<framework::NodeRescore>* changed) const override;
  const framework::ScoreExtensions* ScoreExtensions() const override { return this; }
  framework::Status NormalizeScore(const framework::CycleState& state, size_t slot,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // Pod add/update/delete and node add/delete/update (kube: Pod
  // Add|UpdatePodLabel|UpdatePodToleration| Delete,
  // Node Add|Delete|UpdateNodeLabel|UpdateNodeTaint).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

  // The constraints of `pod` with `when` (its own, else the applicable defaults), as PreFilter
  // (DoNotSchedule) and PreScore (ScheduleAnyway) use them. Exposed for tests.
  std::vector<pod_topology_spread::Constraint> GetConstraints(const framework::PodInfo& pod,
                                                              api::WhenUnsatisfiable when) const;

  // Corral keeps per-node domain counts across cycles (plugins/incremental); off recomputes
  // everything every cycle as kube does. Both give identical results; tests compare them.
  void SetIncrementalForTesting(bool on) { incremental_ = on; }

 private:
  // kube's updateWithPod (AddPod/RemovePod).
  framework::Status UpdateWithPod(framework::CycleState& state,
                                  const framework::PodInfo& pod_to_schedule,
                                  const framework::PodInfo& updated,
                                  const framework::NodeInfo& node, int64_t delta) const;
  // kube's helper.DefaultSelector, as a label selector; empty (no labels, no expressions) when
  // nothing selects the pod.
  api::LabelSelector DefaultSelector(const api::Pod& pod) const;

  // The hostname count memo for (ns, c.selector), most recently used last.
  std::shared_ptr<pod_topology_spread::HostCounts> HostCountsFor(
      Symbol ns, const pod_topology_spread::Constraint& c);

  static constexpr size_t kNoSlot = ~size_t{0};
  struct Caches;

  framework::Handle& handle_;
  // This plugin's CycleState slot, recorded by PreFilter: PreFilterExtensions are not told the
  // slot, and the framework calls them only after PreFilter ran in the same profile (whose slots
  // never change).
  size_t slot_ = kNoSlot;
  std::vector<api::TopologySpreadConstraint> default_constraints_;
  bool system_defaulted_ = false;
  bool sign_when_defaults_select_nothing_ = false;
  bool enable_node_inclusion_policy_ = true;
  bool enable_match_label_keys_ = true;
  bool incremental_ = true;
  // Cross-cycle domain counts per signature: PreFilter's (DoNotSchedule) and
  // PreScore's (ScheduleAnyway).
  std::unique_ptr<Caches> caches_;
};
static_assert(framework::kImplements<
              PodTopologySpread, framework::PreFilterPlugin, framework::PreFilterExtensions,
              framework::PreScoreExtensions, framework::RescoreExtension, framework::FilterPlugin,
              framework::PreScorePlugin, framework::ScorePlugin, framework::ScoreExtensions,
              framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
