#pragma once
// Framework: one profile's plugins, instantiated and ordered per extension point, and the runners
// that call them with kube's semantics (pkg/scheduler/framework/runtime/framework.go). Built once
// per profile; the scheduler calls the runners in cycle order.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/config.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/framework/registry.h"
#include "corral/pipeline/plugin_table.h"
#include "corral/pipeline/score.h"

namespace corral::framework {

// The scores of one cycle over nodes (pipeline/score.h); `plugins`
// index Framework::score_plugins().
using ScoreTable = pipeline::ScoreTable<NodeInfo>;

class Framework {
 public:
  // Instantiates the profile's plugins from `registry` (each once, with its pluginConfig args),
  // expands multiPoint as kube does, and checks kube's invariants (exactly one QueueSort, at least
  // one Bind, score weights that cannot overflow). Errors carry kube's messages.
  static Result<std::unique_ptr<Framework>> New(const ProfileConfig& profile,
                                                const Registry& registry, Handle& handle);

  const std::string& profile_name() const { return profile_name_; }
  std::optional<int32_t> percentage_of_nodes_to_score() const { return percentage_; }
  Handle& handle() const { return *handle_; }

  template <class P>
  using Entry = pipeline::PointEntry<P>;

  // ---- queueing ----
  Status RunPreEnqueuePlugins(const PodInfo& pod) const;
  bool Less(const QueuedPodView& a, const QueuedPodView& b) const {
    return queue_sort_->Less(a, b);
  }

  // ---- scheduling cycle ----
  // kube RunPreFilterPlugins: UU returns at once; Unschedulable from several plugins is merged;
  // Skip marks the coupled Filter skipped; PreFilterResults are intersected, an empty intersection
  // is UU "node(s) didn't satisfy plugin(s) [names]". `plugins_with_nodes` (optional) receives the
  // plugins that restricted the node set.
  Status RunPreFilterPlugins(CycleState& state, const PodInfo& pod, PreFilterResult* result,
                             std::vector<std::string_view>* plugins_with_nodes = nullptr) const;
  Status RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod, const PodInfo& to_add,
                                     const NodeInfo& node) const;
  Status RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                        const PodInfo& to_remove, const NodeInfo& node) const;
  // Runs Filter plugins in order, stopping at the first non-success (tagged with the
  // plugin's name).
  Status RunFilterPlugins(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const;
  // kube RunFilterPluginsWithNominatedPods: with nominated pods of priority ≥ the pod's on the
  // node, the node must pass both with them added (on copies of state and node) and without them.
  // The state is copied only when a PreFilter extension updates it for the added pods.
  Status RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                           const NodeInfo& node) const;
  // Whether this cycle's filter verdicts for `pod` on any node depend only on `pod`, that node's
  // NodeInfo and the pods nominated to it: nullopt if a filter plugin that runs this cycle (not
  // skipped in `state`) is not node-local (FilterPlugin::FilterIsNodeLocal); otherwise a key of
  // which filter plugins were skipped. Pods with the same signature and priority whose cycles
  // return the same key get equal verdicts (RunFilterPluginsWithNominatedPods) on a node whose
  // NodeInfo generation and Handle::NominationVersion are unchanged.
  std::optional<uint64_t> NodeLocalFilterKey(const CycleState& state, const PodInfo& pod) const;
  // kube RunPostFilterPlugins: the first Success, UU or Error wins; otherwise Unschedulable with
  // the reasons of every plugin, and the last non-noop result.
  Status RunPostFilterPlugins(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                              PostFilterResult* result) const;
  Status RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                            std::span<const NodeInfo* const> nodes) const;
  // Batch rescoring (batch.cc): `state` holds the PreScore results of a pod with `pod`'s signature;
  // `added` has since been placed on `node` and `nodes` are the feasible nodes now. Every PreScore
  // plugin's state is brought up to date: with `incremental`, plugins with PreScoreExtensions
  // update it (AddPod), the others (and those whose AddPod cannot) re-run PreScore over `nodes`;
  // skip flags follow the results.
  // `*incremental_count` (may be null) is incremented per plugin updated incrementally.
  Status RunPreScorePluginsAfterAdd(CycleState& state, const PodInfo& pod, const PodInfo& added,
                                    const NodeInfo& node, std::span<const NodeInfo* const> nodes,
                                    bool incremental, int64_t* incremental_count) const;
  // Score → NormalizeScore → [0,100] check → × weight → total, into `out` (overwritten).
  Status RunScorePlugins(const CycleState& state, const PodInfo& pod,
                         std::span<const NodeInfo* const> nodes, ScoreTable* out) const;
  Status RunReservePluginsReserve(CycleState& state, const PodInfo& pod, Symbol node) const;
  void RunReservePluginsUnreserve(CycleState& state, const PodInfo& pod, Symbol node) const;
  // Wait is returned with *timeout = the smallest plugin timeout, capped at 15 minutes. `waits`
  // (optional) receives every plugin that asked to wait with its own (capped) timeout, in
  // plugin order.
  Status RunPermitPlugins(
      CycleState& state, const PodInfo& pod, Symbol node, Duration* timeout,
      std::vector<std::pair<std::string_view, Duration>>* waits = nullptr) const;
  // PreBind plugins in order. A plugin may return Wait (a PreBindWaitPlugin, prebind_wait.h): the
  // run stops there and returns that Wait, with the plugin set, and `*resume` (when given) is that
  // plugin's position; a later call with the same `*resume` starts again at that plugin.
  Status RunPreBindPlugins(CycleState& state, const PodInfo& pod, Symbol node,
                           size_t* resume = nullptr) const;
  Status RunBindPlugins(CycleState& state, const PodInfo& pod, Symbol node) const;
  void RunPostBindPlugins(CycleState& state, const PodInfo& pod, Symbol node) const;

  // ---- batching ----
  // kube SignPod: nullopt if signatures are disabled for the profile or any Sign plugin refuses.
  std::optional<std::string> SignPod(const PodInfo& pod) const {
    return signatures_enabled_ ? Signature(pod) : std::nullopt;
  }
  bool signatures_enabled() const { return signatures_enabled_; }
  // The pod's signature whatever the OpportunisticBatching gate says (the filter memo keys on it):
  // nullopt if a PreFilter/Filter/PreScore/Score plugin cannot sign or any Sign plugin refuses.
  std::optional<std::string> Signature(const PodInfo& pod) const;

  bool HasFilterPlugins() const { return !filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }
  const std::vector<Entry<ScorePlugin>>& score_plugins() const { return score_; }
  const std::vector<Entry<FilterPlugin>>& filter_plugins() const { return filter_; }
  size_t num_slots() const { return table_.size(); }
  // Names of every plugin per extension point, for `corral` diagnostics and tests.
  std::vector<std::string> ListPlugins(std::string_view extension_point) const;
  // The instantiated plugin named `name`, or null.
  Plugin* GetPlugin(std::string_view name) const;
  // Every instantiated plugin that implements `P`, in slot order (looked up once by callers, not
  // per cycle).
  template <class P>
  std::vector<P*> PluginsImplementing() const {
    std::vector<P*> out;
    for (size_t i = 0; i < table_.size(); ++i) {
      if (auto* x = dynamic_cast<P*>(table_.at(i))) out.push_back(x);
    }
    return out;
  }

  static constexpr Duration kMaxPermitTimeout = std::chrono::minutes(15);

 private:
  Framework() = default;
  Result<void> Build(const ProfileConfig& profile, const Registry& registry);
  // Whether RunPreFilterExtensionAddPod/RemovePod would call any extension with `state` (a
  // PreFilter plugin with extensions whose Filter is not skipped this cycle).
  bool HasActivePreFilterExtensions(const CycleState& state) const;

  std::string profile_name_;
  std::optional<int32_t> percentage_;
  Handle* handle_ = nullptr;
  pipeline::PluginTable<Plugin> table_;  // slot i = table_.at(i)
  std::vector<Entry<PreEnqueuePlugin>> pre_enqueue_;
  QueueSortPlugin* queue_sort_ = nullptr;
  std::vector<Entry<QueueSortPlugin>> queue_sort_list_;
  std::vector<Entry<PreFilterPlugin>> pre_filter_;
  // The PreFilter plugins with PreFilterExtensions (cached at Build:
  // PreFilterPlugin::PreFilterExtensions() is fixed for a plugin's lifetime), in pre_filter_ order.
  struct PreFilterExt {
    const PreFilterExtensions* ext;
    std::string_view name;
    size_t slot;
  };
  std::vector<PreFilterExt> pre_filter_ext_;
  std::vector<Entry<FilterPlugin>> filter_;
  std::vector<Entry<PostFilterPlugin>> post_filter_;
  std::vector<Entry<PreScorePlugin>> pre_score_;
  std::vector<Entry<ScorePlugin>> score_;
  std::vector<Entry<ReservePlugin>> reserve_;
  std::vector<Entry<PermitPlugin>> permit_;
  std::vector<Entry<PreBindPlugin>> pre_bind_;
  std::vector<Entry<BindPlugin>> bind_;
  std::vector<Entry<PostBindPlugin>> post_bind_;
  std::vector<Entry<SignPlugin>> sign_;
  bool signatures_enabled_ = false;
  bool can_sign_ = false;  // every PreFilter/Filter/PreScore/Score plugin signs
  mutable std::vector<NodeScore> normalize_scratch_;
};

}  // namespace corral::framework
