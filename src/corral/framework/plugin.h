#pragma once
// Plugin interfaces: one small abstract class per extension point (kube's framework/interface.go).
// A plugin derives from the points it implements; the framework discovers them once when a profile
// is built. Plugins never throw: every outcome is a Status.
//
// Threading: Filter and Score may be called concurrently for different nodes within one cycle and
// must not mutate plugin or cycle state. Everything else runs on the scheduling thread.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "corral/framework/cycle_state.h"
#include "corral/framework/node_info.h"
#include "corral/framework/pod_group.h"
#include "corral/framework/pod_info.h"
#include "corral/framework/snapshot.h"
#include "corral/framework/status.h"
#include "corral/pipeline/score.h"

namespace corral::framework {

inline constexpr int64_t kMaxNodeScore = pipeline::kMaxScore;
inline constexpr int64_t kMinNodeScore = pipeline::kMinScore;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// Whether `P` implements every one of `Interfaces` (extension points and sub-interfaces). Each
// plugin class states its list in a static_assert beside it, so a refactoring that drops a base
// class fails to compile instead of silently unregistering the plugin from an extension point.
template <class P, class... Interfaces>
inline constexpr bool kImplements = (std::is_base_of_v<Interfaces, P> && ...);

// ---- queueing -----------------------------------------------------------------------------------

class PreEnqueuePlugin : public virtual Plugin {
 public:
  // Non-success keeps the pod gated (out of activeQ) until an event re-runs PreEnqueue.
  virtual Status PreEnqueue(const PodInfo& pod) = 0;
};

// What the queue knows about a pending pod, for QueueSort.
struct QueuedPodView {
  const PodInfo* pod;
  TimePoint timestamp;  // when the pod was (re)added to the queue
};

class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool Less(const QueuedPodView& a, const QueuedPodView& b) const = 0;
};

// Cluster events a plugin's rejection may be undone by (kube's EventsToRegister + QueueingHints).
enum class EventResource : uint8_t {
  kPod,
  kAssignedPod,
  kUnscheduledPod,
  kNode,
  kPodGroup,
  kWorkload,
  kOther
};
enum class ActionType : uint8_t { kAdd = 1, kDelete = 2, kUpdate = 4, kAll = 7 };
struct ClusterEvent {
  EventResource resource;
  ActionType action;
};
enum class QueueingHint : uint8_t { kQueue, kQueueSkip };

class EnqueueExtensions : public virtual Plugin {
 public:
  // The events that may make a pod rejected by this plugin schedulable. Fixed for the plugin's
  // lifetime (the scheduler reads it once per plugin, as kube builds its queueing-hint map once).
  virtual std::vector<ClusterEvent> EventsToRegister() const = 0;
  // Whether `event` (about `subject`, e.g. the added/deleted pod or node) may help `pod`. Default:
  // Queue.
  virtual QueueingHint Hint(const PodInfo& pod, const ClusterEvent& event,
                            const void* subject) const {
    (void)pod;
    (void)event;
    (void)subject;
    return QueueingHint::kQueue;
  }
};

// ---- scheduling cycle ---------------------------------------------------------------------------

// A PreFilter may restrict the candidate nodes (kube PreFilterResult). nullopt = all nodes.
struct PreFilterResult {
  std::optional<absl::flat_hash_set<Symbol>> node_names;
};

class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  // Updates `state` as if `pod_to_add` were on `node` (nominated pods, preemption reprieve).
  virtual Status AddPod(CycleState& state, const PodInfo& pod_to_schedule,
                        const PodInfo& pod_to_add, const NodeInfo& node) const = 0;
  virtual Status RemovePod(CycleState& state, const PodInfo& pod_to_schedule,
                           const PodInfo& pod_to_remove, const NodeInfo& node) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // `slot` is this plugin's CycleState slot. Skip ⇒ the plugin's Filter is not run this cycle.
  virtual Status PreFilter(CycleState& state, size_t slot, const PodInfo& pod,
                           const Snapshot& snapshot, PreFilterResult* result) = 0;
  // Null: no PreFilter extensions (kube's PreFilterExtensions() returning nil). Fixed for the
  // plugin's lifetime.
  virtual const framework::PreFilterExtensions* PreFilterExtensions() const { return nullptr; }
};

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status Filter(const CycleState& state, size_t slot, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
  // Whether this plugin's Filter verdict for `pod` (when PreFilter did not Skip it) is a function
  // of `pod` and the evaluated NodeInfo alone: not of other nodes, other cluster objects, or
  // PreFilter state derived from them. Memoized filtering and preemption dry runs rely on it
  // (Framework::NodeLocalFilterKey); `false` is always safe.
  virtual bool FilterIsNodeLocal(const PodInfo& pod) const {
    (void)pod;
    return false;
  }
};

// The result of filtering for PostFilter: per-node statuses of the nodes that were evaluated.
struct NodeStatus {
  const NodeInfo* node;
  Status status;
};

// The filter verdict of every node (kube's NodeToStatusReader): the nodes listed explicitly, and
// one status for all nodes the cycle did not evaluate (excluded by a PreFilterResult, or every node
// when PreFilter rejected the pod). kube's default for absent nodes
// is UnschedulableAndUnresolvable.
struct NodeToStatus {
  std::span<const NodeStatus> nodes;
  Status absent = Status::Unresolvable("");
  // The status of `node`: its explicit entry, else `absent`.
  const Status& Get(Symbol node) const {
    for (const auto& ns : nodes) {
      if (ns.node->name() == node) return ns.status;
    }
    return absent;
  }
};

// kube's NominatingInfo mode: kNoop leaves the pod's nominatedNodeName as it is; kOverride sets it
// to `nominated_node_name` (empty clears it).
enum class NominatingMode : uint8_t { kNoop, kOverride };

// A pod to evict so that the preemptor fits; `violates_pdb` when evicting it exceeds a
// PodDisruptionBudget's disruptionsAllowed.
struct PreemptionVictim {
  const PodInfo* pod = nullptr;
  bool violates_pdb = false;
  // KEP-5710, set only for a member of a disruptionMode-all PodGroup (evicted whole, so possibly
  // from another node): the node it runs on and its group. Empty/null: the pod runs on the
  // nominated node and is evicted on its own.
  Symbol node;
  const api::PodGroup* group = nullptr;
};

struct PostFilterResult {
  NominatingMode mode = NominatingMode::kNoop;
  Symbol nominated_node_name;
  // Pods to evict so that the pod fits on `nominated_node_name` (preemption victims, most important
  // first). The scheduler evicts them (kube's preemption Executor) before nominating the pod.
  std::vector<PreemptionVictim> victims;
  int32_t num_pdb_violations = 0;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  // Runs only when no node is feasible. Success with a nomination; a rejection otherwise (its
  // message becomes the post-filter part of the FitError).
  virtual Status PostFilter(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                            PostFilterResult* result) = 0;
};

// Incremental PreScore (Corral, beyond KEP-5598: the KEP's future work "PreScoreExtension.AddPod";
// gate CorralIncrementalPreScore). Used by opportunistic batching when it rescores: instead of
// re-running PreScore for the next pod of a batch, the batch updates the PreScore state it kept
// from the previous pod.
class PreScoreExtensions {
 public:
  virtual ~PreScoreExtensions() = default;
  // `state` holds what this plugin's PreScore wrote (or its Skip) for a pod with `pod`'s signature
  // over the feasible nodes, when the cluster was as it is now minus `added`, which has since been
  // placed on `node`; `nodes` are the feasible nodes now. Updates `state` in place so that it
  // equals what PreScore(state, slot, pod, nodes) would write now. REQUIRES: nothing else changed
  // in the cluster. Success: updated (a Skip stays a Skip). Skip: PreScore would now Skip. Any
  // other status: cannot update incrementally; the caller re-runs PreScore. Never mutates data
  // shared with other states.
  virtual Status AddPod(CycleState& state, size_t slot, const PodInfo& pod, const PodInfo& added,
                        const NodeInfo& node, std::span<const NodeInfo* const> nodes) const = 0;
};

// The PreScoreExtensions of plugins whose PreScore state depends only on the pod's signed fields
// (and on nothing a pod placement changes): AddPod leaves the state as it is.
const PreScoreExtensions* PodOnlyPreScoreExtensions();

class PreScorePlugin : public virtual Plugin {
 public:
  // `nodes` are the feasible nodes. Skip ⇒ the plugin's Score is not run this cycle.
  virtual Status PreScore(CycleState& state, size_t slot, const PodInfo& pod,
                          std::span<const NodeInfo* const> nodes) = 0;
  // Null: no incremental PreScore (the batch re-runs PreScore).
  virtual const framework::PreScoreExtensions* PreScoreExtensions() const { return nullptr; }
};

class RescoreExtension;  // below, with the batching extension points

using NodeScore = pipeline::TargetScore;

// kube's ScoreExtensions: normalization over the whole feasible list, after every node is scored.
class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  virtual Status NormalizeScore(const CycleState& state, size_t slot, const PodInfo& pod,
                                std::span<NodeScore> scores) const = 0;
};

// Optional sub-interfaces follow kube's idiom: a plugin returns a pointer to the sub-interface (its
// own `this`, usually), null meaning none; the answer is fixed for the plugin's lifetime.
class ScorePlugin : public virtual Plugin {
 public:
  virtual Status Score(const CycleState& state, size_t slot, const PodInfo& pod,
                       const NodeInfo& node, int64_t* score) const = 0;
  // Null: the raw scores are used as they are (no NormalizeScore).
  virtual const framework::ScoreExtensions* ScoreExtensions() const { return nullptr; }
  // Null: scores are node-local (placing a pod on A changes only A's score).
  virtual const framework::RescoreExtension* RescoreExtension() const { return nullptr; }
};

// The Rescore hook (Corral, beyond KEP-5598: the KEP's deferred "Rescore extension point"; gate
// CorralBatchingRescoreHook). Kube's batching only supports scoring where placing a pod on node A
// changes the scores of A alone, so pods with cross-node scoring terms (preferred inter-pod
// affinity, ScheduleAnyway topology spread) are unsignable. A Score plugin with this hook reports
// which cached nodes' raw scores change when a pod lands on A, so such pods become batchable.
struct NodeRescore {
  uint32_t index;  // into the `nodes` passed to Rescore
  int64_t raw;     // the node's new raw (pre-normalization) score
};

class RescoreExtension {
 public:
  virtual ~RescoreExtension() = default;
  // Whether placing a pod with `pod`'s signature may change this plugin's raw score for `pod` on
  // nodes other than the one it lands on. Depends only on `pod`'s signed fields.
  virtual bool CrossNode(const PodInfo& pod) const = 0;
  // A pod with `pod`'s signature was placed on `placed`, and `state` holds this plugin's PreScore
  // for `pod` with that placement (and over `nodes`, the feasible nodes). Appends to `changed`
  // every node of `nodes` whose raw score differs from its raw score before the placement, with its
  // new raw score (as Score would compute it now); may append unchanged nodes too. Same threading
  // rules as Score.
  virtual Status Rescore(const CycleState& state, size_t slot, const PodInfo& pod,
                         const NodeInfo& placed, std::span<const NodeInfo* const> nodes,
                         std::vector<NodeRescore>* changed) const = 0;
};

class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const PodInfo& pod, Symbol node) = 0;
  // Must be idempotent; called for every Reserve plugin (in reverse order) when a later step fails.
  virtual void Unreserve(CycleState& state, const PodInfo& pod, Symbol node) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // kSuccess, kWait with *timeout set, or a rejection.
  virtual Status Permit(CycleState& state, const PodInfo& pod, Symbol node, Duration* timeout) = 0;
};

// ---- workload scheduling cycle (KEP-4671 beta) --------------------------------------------------

// How far a workload cycle has got: members placed (assumed in this cycle, plus members already
// assumed or bound before it) and members still to be evaluated.
struct PlacementProgress {
  int32_t scheduled = 0;
  int32_t remaining = 0;
};

class PlacementFeasiblePlugin : public virtual Plugin {
 public:
  // Called after each member is evaluated in a workload cycle. kUnschedulable: the group cannot be
  // placed in this cycle whatever the remaining members do (the cycle stops early); kWait: not yet,
  // keep going; kSuccess: the group may be committed (and stays so as more members are placed).
  virtual Status PlacementFeasible(const PodGroupState& group, const ResolvedPodGroup& resolved,
                                   const PlacementProgress& progress) = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  virtual Status PreBind(CycleState& state, const PodInfo& pod, Symbol node) = 0;
};

class BindPlugin : public virtual Plugin {
 public:
  // kSkip ⇒ not this plugin's pod; the next Bind plugin is asked.
  virtual Status Bind(CycleState& state, const PodInfo& pod, Symbol node) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const PodInfo& pod, Symbol node) = 0;
};

// ---- batching (KEP-5598) ------------------------------------------------------------------------

// One fragment of a pod signature. Fragments with the same key carry the same value for the same
// pod; the first value for a key wins.
struct SignFragment {
  std::string key;
  std::string value;  // canonical encoding of the signed fields
};

class SignPlugin : public virtual Plugin {
 public:
  // Success: the fragments describe everything this plugin's results depend on. Unschedulable: the
  // pod cannot be signed (not batchable). Error: unexpected failure (not batchable).
  virtual Status Sign(const PodInfo& pod, std::vector<SignFragment>* fragments) const = 0;
};

}  // namespace corral::framework
