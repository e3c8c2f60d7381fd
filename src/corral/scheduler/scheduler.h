#pragma once
// Scheduler: the queue, the cache and one Framework per profile, driving kube's scheduling cycle
// (pkg/scheduler/schedule_one.go) one pod at a time. Events in (nodes and pods added/removed),
// decisions out (through SchedulerObserver). Time comes from the injected Clock; randomness from a
// seeded Rng, so the same inputs and seed give the same decisions.
//
// Deviations from kube (docs/deviations.md): the feasible-node search is serial, so exactly the
// first numFeasibleNodesToFind feasible nodes from the round-robin start are found (kube's parallel
// search may find a slightly different set); ties between top-scored nodes are broken by a per-node
// random key drawn from the seeded Rng.

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "corral/api/types.h"
#include "corral/core/clock.h"
#include "corral/core/rng.h"
#include "corral/framework/config.h"
#include "corral/framework/framework.h"
#include "corral/framework/registry.h"
#include "corral/metrics/metrics.h"
#include "corral/scheduler/batch.h"
#include "corral/scheduler/explain.h"
#include "corral/scheduler/filter_memo.h"
#include "corral/scheduler/filter_pass.h"
#include "corral/scheduler/nominator.h"
#include "corral/scheduler/queue.h"
#include "corral/scheduler/waiting_pods.h"
#include "corral/scheduler/workload_manager.h"
#include "corral/state/cluster_cache.h"
#include "corral/state/dra_store.h"
#include "corral/state/volume_cache.h"

namespace corral::scheduler {

// One preemption, executed: either DefaultPreemption's PostFilter result for one pod (the preemptor
// is nominated to `node`), or a workload-aware preemption for a pod group (KEP-5710: `group` is
// set, every member in `nominations` is nominated to its node; `preemptor`/`node` are the first of
// them). The victims are evicted (most important first).
struct PreemptionRecord {
  const api::Pod* preemptor = nullptr;
  Symbol node;
  struct Victim {
    const api::Pod* pod = nullptr;
    bool violates_pdb = false;  // evicting it exceeds a PodDisruptionBudget
    Symbol node;                // the node it runs on
    int32_t priority = 0;  // its priority as preemption saw it (a pod group's priority for members)
    std::string unit;  // "ns/name" of its disruptionMode-all pod group (evicted whole), or empty
  };
  std::vector<Victim> victims;
  int32_t num_pdb_violations = 0;
  // Pod-group preemptions only.
  std::string group;     // the preemptor group ("ns/name", or "ns/workload/podGroup[/replica]")
  int32_t priority = 0;  // the preemptor's priority (the pod's, or the group's)
  std::vector<std::pair<const api::Pod*, Symbol>>
      nominations;  // every nominated member and its node
  int32_t min_count = 0;
};

class SchedulerObserver {
 public:
  virtual ~SchedulerObserver() = default;
  virtual void OnScheduled(const api::Pod& pod, Symbol node, std::string_view profile) {
    (void)pod, (void)node, (void)profile;
  }
  virtual void OnUnschedulable(const api::Pod& pod, const std::string& message) {
    (void)pod, (void)message;
  }
  virtual void OnExplain(const api::Pod& pod, const CycleExplain& explain) {
    (void)pod, (void)explain;
  }
  // A preemption, reported before its victims are deleted (with delete_victims_immediately) or
  // marked terminating (without: the driver deletes each victim with DeletePod after its
  // termination grace period, e.g. on the simulator's virtual clock).
  virtual void OnPreempted(const PreemptionRecord& preemption) { (void)preemption; }
};

struct SchedulerStats {
  int64_t cycles = 0;
  int64_t scheduled = 0;
  int64_t unschedulable_attempts = 0;
  int64_t errors = 0;
  int64_t batched = 0;  // pods placed on an opportunistic-batching hint (KEP-5598)
  // Pod group scheduling attempts (workload cycles) by result, as
  // scheduler_podgroup_schedule_attempts_total counts them.
  int64_t group_attempts_scheduled = 0;
  int64_t group_attempts_unschedulable = 0;
};

// The driver API is public. The plugin callbacks of framework::Handle are private overrides:
// plugins reach them through the Handle their Framework was built with, and a driver that needs
// the plugins' view (e.g. to resolve a pod group) passes the scheduler as a framework::Handle.
class Scheduler final : public framework::Handle {
 public:
  struct Options {
    framework::SchedulerConfig config;  // defaulted (ApplyDefaults) by New
    framework::FeatureGates gates;
    uint64_t seed = 1;
    // Pods for which a CycleExplain is produced.
    std::function<bool(const api::Pod&)> explain;
    // Wall clock for duration metrics (the scheduler's own speed). Null ⇒ duration histograms are
    // not recorded, which keeps every output deterministic.
    const Clock* wall_clock = nullptr;
    // Gangs: schedule a pod group as one entity in kube's beta workload scheduling cycle (one
    // attempt places the members all-or-nothing, workload_cycle.cc). False: kube's alpha
    // Permit-only mode, where members are scheduled one by one and held at Permit until the quorum
    // is assumed.
    bool workload_cycle = true;
    // Preemption victims are deleted as soon as they are chosen (`corral schedule`). When false
    // they stay on their nodes, terminating, until the driver calls DeletePod (after their
    // grace period).
    bool delete_victims_immediately = true;
  };

  static Result<std::unique_ptr<Scheduler>> New(Interner& interner, const Clock& clock,
                                                Options options,
                                                const framework::Registry& registry);
  ~Scheduler() override;

  void set_observer(SchedulerObserver* o) { observer_ = o; }

  // Cluster objects other than nodes and pods (namespaces, selectors, PDBs). Must outlive
  // the scheduler.
  void SetClusterObjects(const api::ObjectSet* objects);

  // ---- events in ----
  void AddNode(const api::Node* node);
  // The held node named node->meta.name was replaced by `node` (labels, taints, allocatable,
  // unschedulable): the cache takes the new object and a Node/Update event is fired. REQUIRES: a
  // node of that name was added.
  void UpdateNode(const api::Node* node);
  void RemoveNode(Symbol name);
  // A pod with spec.nodeName is recorded as bound; otherwise it is queued for the profile named by
  // its schedulerName. Returns false for a pending pod whose schedulerName matches no profile:
  // kube's informer filter leaves such pods to another scheduler, and so does Corral (callers
  // report them).
  bool AddPod(const api::Pod* pod);
  void DeletePod(const api::Pod* pod);
  // In-place pod resize (KEP-1287, resize.cc). `pod`, bound and added, was changed in place by the
  // driver (the node's agent): its containers' requests are what the node accounts for it (kube's
  // max of spec and allocated while a resize is pending) and its conditions carry the resize
  // status. The cache re-accounts the pod and an AssignedPod/Update event fires. With
  // InPlacePodVerticalScalingSchedulerPreemption a Deferred resize puts the pod in the scheduling
  // queue (KEP-5836: its cycle may preempt lower-priority pods on its node), and a resize no longer
  // Deferred takes it out.
  void UpdateAssignedPod(const api::Pod* pod);
  // An update of a pending pod (pod_update.cc; kube's updatePodInSchedulingQueue and
  // PriorityQueue.Update): `pod`, added and not bound, was changed in place by the driver (labels,
  // tolerations, scheduling gates, ...) and `old` is a copy of it before the update. A pod in
  // activeQ or backoffQ is updated where it is; a pod in the unschedulable pool (gated included)
  // is re-evaluated with the queueing hints of the plugins that rejected it for its own
  // UnscheduledPod/Update event, and moves to activeQ or backoffQ when one says Queue. The hints
  // see `old` as the pending pod and `pod` as the event's subject, so they can compare the two as
  // kube's do. No other pod is re-evaluated. A pod in its binding cycle keeps its place.
  void UpdatePendingPod(const api::Pod* pod, const api::Pod& old);

  // ---- driving ----
  // Pops one pod and runs its scheduling cycle. Returns false when no pod is ready.
  bool ScheduleOne();
  // Schedules until no pod can make progress.
  void RunUntilIdle();
  // Permit timers (gangs waiting for their quorum) and PreBind polls (pods held in their binding
  // cycle) run on the injected clock. The earliest deadline of a pod waiting at Permit or poll of a
  // pod held in PreBind, if any; drivers with virtual time advance their clock to it when nothing
  // else can progress, then call FireTimers, which rejects every waiting pod whose timeout has
  // passed (unreserved, forgotten, requeued with kube's timeout message) and polls the held pods.
  std::optional<TimePoint> NextTimerDeadline() const;
  void FireTimers();
  // Pod groups known to the scheduler (gang instances), and whether a pod is held at Permit.
  const WorkloadManager& workloads() const { return wm_; }
  bool IsWaitingOnPermit(const api::Pod* pod) const;
  // Pods held in their binding cycle by a PreBind plugin (DRA device binding conditions).
  size_t NumWaitingInPreBind() const { return prebind_waits_.size(); }
  // A driver's update of ResourceClaim ns/name's status.devices (DRAResourceClaimDeviceStatus), as
  // a live cluster's claim informer would report it; pods waiting in PreBind see it at their next
  // poll. False when the scheduler holds no such claim.
  bool UpdateClaimDeviceStatus(Symbol ns, Symbol name,
                               std::vector<api::resource::AllocatedDeviceStatus> devices);
  // The resource.k8s.io state (claims with their current status).
  const state::DraStore& dra_state() const { return dra_; }
  size_t NumWaitingOnPermit() const { return waiting_.size(); }
  // kube's periodic queue maintenance, to be called by the driver on its clock: pods unschedulable
  // for longer than 5 minutes are retried (kube runs this every 30 s).
  void FlushUnschedulableLeftover();
  static constexpr Duration kPodMaxInUnschedulablePodsDuration = std::chrono::minutes(5);
  static constexpr Duration kUnschedulableFlushInterval = std::chrono::seconds(30);
  // Number of pods waiting in activeQ/backoffQ/unschedulable (gated included).
  size_t NumPendingPods() const;
  // The backoff the queue applies to a pending pod after its failed attempts (kube
  // calculateBackoffDuration; members of a failed pod group cycle back off longer), or nullopt for
  // a pod that is not pending.
  std::optional<Duration> PendingBackoff(const api::Pod* pod) const;

  // Runs the pod's profile's PreFilter and Filter plugins (with nominated pods) against `node` in
  // the current state, without changing anything: "would this pod pass every filter on that
  // node now?".
  framework::Status Evaluate(const api::Pod& pod, Symbol node);

  // Read-only (estimate.cc): how many of `max` copies of `pod`, which must satisfy
  // IndependentReplicas (estimate.h), the cluster can take now. PreFilter once, Filter on every
  // node with its nominated pods, and for each node that passes, the copies its free resources and
  // pod slots hold (one on a node with nominated pods). Nothing in the scheduler changes.
  int32_t EstimateIndependentReplicas(const api::Pod& pod, int32_t max);

  // The node `pod` is nominated to (by preemption, or from its status), or empty.
  Symbol NominatedNodeOf(const api::Pod* pod) const;

  // Pods still pending with the last failure message (in queue order).
  std::vector<std::pair<const api::Pod*, std::string>> PendingPods() const;
  const SchedulerStats& stats() const { return stats_; }
  // kube's scheduler metrics (scheduler_schedule_attempts_total, ...), deterministic unless a wall
  // clock was given.
  const metrics::Registry& metrics() const { return metrics_; }
  metrics::Registry& mutable_metrics() { return metrics_; }
  const framework::Framework* profile(std::string_view scheduler_name) const;
  // The profile's opportunistic batch, or null when OpportunisticBatching is off.
  const OpportunisticBatch* batch(std::string_view scheduler_name) const;
  // Batching counters summed over every profile's batch (zero when OpportunisticBatching is off).
  struct BatchTotals {
    int64_t cross_node_pods = 0;        // pods batched while their batch rescored cross-node
    int64_t incremental_prescores = 0;  // cross-node rescores with an incremental PreScore
    int64_t hook_rescored_nodes = 0;    // nodes the Rescore hooks reported changed
  };
  BatchTotals batch_totals() const;
  // The failed-filter memo (CorralFilterMemo), or null when the gate is off.
  const FilterMemo* filter_memo() const { return filter_memo_.get(); }

  // What both drivers and plugins read (also framework::Handle's).
  const Interner& interner() const override { return interner_; }
  const framework::FeatureGates& features() const override { return options_.gates; }
  const Clock& clock() const override { return clock_; }

 private:
  // ---- framework::Handle (plugin-facing; private) ----
  Rng& rng() override { return rng_; }
  const framework::Snapshot& snapshot() const override { return *snapshot_; }
  const api::Namespace* GetNamespace(Symbol name) const override;
  state::VolumeCache* volumes() const override { return volumes_.get(); }
  std::span<const api::SelectorOwner* const> SelectorOwners(Symbol ns) const override;
  std::span<const api::PodDisruptionBudget* const> PodDisruptionBudgets(Symbol ns) const override;
  std::span<const framework::PodInfo* const> NominatedPodsForNode(Symbol node) const override;
  uint64_t NominationVersion(Symbol node) const override;
  std::optional<int32_t> MinPodPriorityOnNodes() const override { return cache_.MinPodPriority(); }
  Symbol NodeOfPod(const framework::PodInfo& pod) const override { return cache_.NodeOf(&pod); }
  Symbol NominatedNodeName(const framework::PodInfo& pod) const override {
    return nominator_.NodeOf(&pod);
  }
  bool IsTerminatingByPreemption(const framework::PodInfo& pod) const override {
    return terminating_victims_.contains(&pod);
  }
  const framework::Framework* GetFramework(Symbol scheduler_name) const override;
  void Activate(std::span<const framework::PodInfo* const> pods) override;
  framework::DraManager* SharedDRAManager() override { return &dra_; }
  const api::Workload* GetWorkload(Symbol ns, Symbol name) const override;
  const api::PodGroup* GetPodGroup(Symbol ns, Symbol name) const override;
  framework::Status CompositeHierarchyReady(const api::PodGroup& pg) const override;
  bool HasAllModePodGroups() const override { return wm_.HasAllModePodGroups(); }
  framework::PodGroupState* GetPodGroupState(const framework::PodInfo& pod) override;
  void IterateWaitingPods(const std::function<void(const framework::PodInfo&)>& fn) const override;
  bool AllowWaitingPod(const framework::PodInfo& pod, std::string_view plugin) override;
  bool RejectWaitingPod(const framework::PodInfo& pod, std::string_view plugin,
                        std::string message) override;

  // ---- construction and the scheduling cycle ----
  Scheduler(Interner& interner, const Clock& clock, Options options);
  struct Diagnosis;
  struct CycleContext;
  // The scheduling cycle (schedule_one.cc). Returns true if the pod was assumed and bound.
  bool ScheduleCycle(QueuedPod* qp);
  // Starts one scheduling attempt of `qp` (a pod cycle or a workload-cycle member): a fresh context
  // on the current snapshot, the cycle counted, the pod's rejectors of its last attempt cleared.
  void StartAttempt(CycleContext& c, QueuedPod* qp);
  // SchedulePod, then the profile batch's StoreScheduleResults (or CycleFailed when it failed).
  // `*hinted`: the node selected is the batching hint.
  framework::Status RunAlgorithm(CycleContext& c, const framework::NodeInfo** selected,
                                 bool* hinted);
  // kube schedulePod: ok with *selected set; a rejection (diagnosis in the context); or an error.
  framework::Status SchedulePod(CycleContext& c, const framework::NodeInfo** selected);
  framework::Status FindNodesThatPassFilters(CycleContext& c, const framework::PreFilterResult& pre,
                                             std::vector<std::string_view>& restricting);
  // Explain records of the filter pass just run: how the node was found, and the absent nodes.
  void ExplainFilterPass(CycleContext& c, const framework::PreFilterResult& pre);
  framework::Status PrioritizeAndSelect(CycleContext& c, const framework::NodeInfo** selected);
  bool AssumeAndBind(CycleContext& c, Symbol node);
  // ---- gangs (waiting_pods.cc) ----
  // Binds a pod that is assumed in the cache (PreBind, Bind, confirm, PostBind, report). False (and
  // the pod requeued) if binding failed, or when a PreBind plugin holds the pod (prebind_wait.cc):
  // it is then parked, with its state, until that plugin's next poll. `pre_bind_from`: the PreBind
  // plugin to start at (a parked pod resumes at the one that held it).
  bool BindAssumed(QueuedPod* qp, framework::Framework& fwk, framework::CycleState& state,
                   Symbol node, TimePoint wall_start, size_t pre_bind_from = 0);
  // ---- PreBind waits (prebind_wait.cc; framework/prebind_wait.h) ----
  // A pod held in its binding cycle by a PreBindWaitPlugin: assumed, not bound, polled at `next`.
  struct PreBindWaiting {
    QueuedPod* qp = nullptr;
    framework::Framework* fwk = nullptr;
    framework::CycleState state;
    Symbol node;
    TimePoint wall_start;
    size_t resume = 0;  // the PreBind plugin that asked to wait
    Duration interval{};
    TimePoint next;
  };
  // Parks the pod after `plugin`'s PreBind returned Wait. False (nothing parked) when the plugin
  // is no PreBindWaitPlugin.
  bool ParkPreBind(QueuedPod* qp, framework::Framework& fwk, framework::CycleState& state,
                   Symbol node, TimePoint wall_start, size_t resume, std::string_view plugin);
  // Calls PreBind again for every parked pod whose poll time has come, in the order they were
  // parked; each either stays parked (next poll one interval later), is bound, or fails.
  void PollPreBindWaits();
  // Drops a deleted pod's PreBind wait (unreserving it). False when it had none.
  bool DropPreBindWait(const framework::PodInfo* pod);
  std::optional<TimePoint> NextPreBindPoll() const;
  // Unreserves and forgets an assumed pod, then requeues it as `code` with `message` (rejected by
  // `plugin`, if any).
  void ForgetAndRequeue(QueuedPod* qp, framework::Framework& fwk, framework::CycleState& state,
                        Symbol node, framework::Code code, std::string message,
                        std::string_view plugin);
  // ---- the workload scheduling cycle (workload_cycle.cc) ----
  // One member's outcome in a workload cycle (also used by workload-aware preemption's
  // trial placements).
  struct MemberResult {
    QueuedPod* qp = nullptr;
    bool placed = false;
    Symbol node;
    framework::CycleState state;
    std::string failure;  // FitError (or Reserve rejection) when evaluated and not placed
    bool hinted = false;  // placed on the opportunistic-batching hint
  };
  // A candidate placement of topology-aware scheduling (KEP-5732): the nodes that carry one value
  // of the topology key. Invariant: `nodes` is in snapshot order and holds exactly the NodeInfos
  // named by `names`.
  struct PlacementDomain {
    std::string_view value;  // the label value (interned)
    std::vector<const framework::NodeInfo*> nodes;
    absl::flat_hash_set<Symbol> names;
  };
  // The placements of topology key `key`, in value order; built on first use and kept until a node
  // is added, updated or removed (which is also when the snapshot order changes).
  const std::vector<PlacementDomain>& TopologyDomains(Symbol key);
  // One member's scheduling algorithm inside a workload cycle (schedule_one.cc): PreFilter, Filter
  // (with batching hints), Score, restricted to `domain` when given; no assume, no failure
  // handling. `*hinted`: the node came from the batching hint (counted in stats().batched only when
  // the group commits).
  bool ScheduleMember(QueuedPod* qp, framework::CycleState& state, const PlacementDomain* domain,
                      Symbol* node, std::string* failure, bool* hinted);
  // Schedules `qp`'s whole group (every pending member) in one attempt. REQUIRES: qp was popped.
  void ScheduleGroup(QueuedPod* qp, framework::PodGroupState& group,
                     const framework::ResolvedPodGroup& resolved);
  // Places the pending `members` (inside `domain` when given); members that fit are assumed and
  // reserved. Returns the number placed; `results` gets one entry per member.
  int32_t PlaceMembers(const std::vector<QueuedPod*>& members, framework::PodGroupState& group,
                       const framework::ResolvedPodGroup& resolved, const PlacementDomain* domain,
                       std::vector<MemberResult>& results);
  void RollBack(std::vector<MemberResult>& results);
  // ---- CompositePodGroup hierarchies (KEP-6012, composite_cycle.cc) ----
  struct CompositeRun;
  struct LeafRun;
  // The root CompositePodGroup whose hierarchy `resolved`'s PodGroup belongs to, while the
  // CompositePodGroup gate is on; null otherwise.
  const api::CompositePodGroup* CompositeRootOf(const framework::ResolvedPodGroup& resolved) const;
  // One workload cycle for the whole hierarchy below `root` (every pending member of every
  // PodGroup in it). REQUIRES: qp was popped and belongs to the hierarchy.
  void ScheduleComposite(QueuedPod* qp, const api::CompositePodGroup& root);
  bool EvalCompositeNode(CompositeRun& run, const api::CompositePodGroup& cpg,
                         const PlacementDomain* within, std::string* failure);
  bool EvalCompositeChildren(CompositeRun& run, const api::CompositePodGroup& cpg,
                             const PlacementDomain* within, std::string* failure);
  bool EvalLeaf(CompositeRun& run, LeafRun& leaf, const PlacementDomain* within);
  void RollBackSubtree(CompositeRun& run, const api::CompositePodGroup& cpg);
  // Re-runs PreEnqueue for the gated members of every PodGroup below `root`.
  void RetryGatedInHierarchy(const api::CompositePodGroup& root);
  void RecordGroupAttempt(const framework::Framework& fwk, std::string_view result,
                          TimePoint wall_start);
  // Binds allowed waiting pods and requeues rejected ones, in the order their outcomes
  // were reached.
  void ProcessWaitingOutcomes();
  // A pending member was added: re-runs PreEnqueue for gated siblings once the quorum is known.
  void OnGroupMemberAdded(framework::PodGroupState& group);
  bool HandleFailure(CycleContext& c, framework::Code code, std::string message);
  // KEP-5836: the pod is bound and its resize is Deferred, with the scheduler's preemption for it
  // enabled (resize.cc). Such a pod is scheduled on its own node only, never assumed nor bound.
  bool IsDeferredResize(const framework::PodInfo& pod) const;
  // The cycle of a deferred resize that fits its node (DeferredPodScheduling's Permit): rejected
  // to wait for the node's agent to actuate the resize.
  bool ParkDeferredResize(CycleContext& c);
  // ---- preemption (schedule_one.cc) ----
  // Runs PostFilter after a FitError; executes a preemption it proposes and updates the pod's
  // nomination. Returns the post-filter message for the FitError.
  std::string RunPostFilter(CycleContext& c);
  // kube's prepareCandidate: clears lower-priority nominations on the node, then evicts
  // the victims.
  void ExecutePreemption(CycleContext& c, const framework::PostFilterResult& r);
  // ---- workload-aware preemption (KEP-5710, workload_preemption.cc) ----
  struct PreemptionUnit;
  // Called when a gang's workload cycle failed (its placements already rolled back): searches the
  // whole cluster for lower-priority victims, and when evicting them lets ≥ minCount members fit,
  // nominates those members, evicts the victims and returns "" (the members retry once the victims
  // are gone). Otherwise returns kube's "preemption: …" part of the failure message and clears
  // every nomination of the group. While the group's earlier victims are still terminating it
  // starts no new preemption.
  std::string PreemptForGroup(const std::vector<QueuedPod*>& members,
                              framework::PodGroupState& group,
                              const framework::ResolvedPodGroup& resolved);
  // `message` followed by kube's "preemption: …" part (as a FitError joins them: ". " unless
  // `message` already ends with a period); `message` alone when `preemption` is empty.
  static std::string WithPreemption(const std::string& message, const std::string& preemption);
  // The priority preemption uses for a pod: its PodGroup's spec.priority when set (KEP-5710), else
  // its own.
  int32_t EffectivePriority(const framework::PodInfo& pod) const;
  // Puts an evicted-for-trial unit back if every pod still passes its own filters on its node,
  // with the pods nominated there at `preemptor_priority` or above counted, as the preemptor's
  // next cycle counts them (a unit reprieved into room promised to a nominated pod would let that
  // cycle fail where this placement said it fits, and the gang would preempt again, without a
  // victim, forever).
  bool TryReprieve(PreemptionUnit& unit, bool check, int32_t preemptor_priority);
  void FireEvent(const framework::ClusterEvent& event, const void* subject);
  // The plugin's queueing-hint registration (its EnqueueExtensions, null when it has none) and the
  // registered event that matches `event` (null: none).
  std::pair<const framework::EnqueueExtensions*, const framework::ClusterEvent*> Registration(
      const framework::Framework* fwk, const std::string& plugin_name,
      const framework::ClusterEvent& event);
  std::string FitErrorMessage(size_t num_nodes, const Diagnosis& d,
                              const std::string& post_filter_msg);

  Interner& interner_;
  const Clock& clock_;
  Options options_;
  Rng rng_;
  state::ClusterCache cache_;
  const framework::Snapshot* snapshot_ = nullptr;
  std::vector<std::unique_ptr<framework::Framework>> frameworks_;
  absl::flat_hash_map<Symbol, framework::Framework*> by_scheduler_name_;
  std::unique_ptr<SchedulingQueue> queue_;
  absl::flat_hash_map<const api::Pod*, std::unique_ptr<QueuedPod>> pods_;
  absl::flat_hash_map<const api::Pod*, std::string> last_failure_;
  SchedulerObserver* observer_ = nullptr;
  SchedulerStats stats_;
  metrics::Registry metrics_;
  TimePoint cycle_start_;  // wall clock at the start of the current attempt (when measuring)
  void RecordAttempt(const framework::Framework& fwk, std::string_view result);
  bool in_cycle_ = false;
  bool event_during_cycle_ = false;

  // Preemption: nominated pods, and victims still terminating
  // (delete_victims_immediately off).
  LoggedNominator nominator_;
  absl::flat_hash_set<const framework::PodInfo*> terminating_victims_;
  mutable std::vector<const framework::PodInfo*> nominated_scratch_;  // NominatedPodsForNode
  // Each plugin's queueing-hint registration, read once (FireEvent runs for every unschedulable
  // pod on every cluster event): its EnqueueExtensions (null: none) and EventsToRegister.
  struct EnqueueRegistration {
    const framework::EnqueueExtensions* ext = nullptr;
    std::vector<framework::ClusterEvent> events;
  };
  absl::flat_hash_map<const framework::Plugin*, EnqueueRegistration> enqueue_registrations_;

  // Gangs: pod groups and the pods held at Permit.
  WorkloadManager wm_;
  state::DraStore dra_;  // resource.k8s.io objects and claim allocation state
  WaitingPods waiting_;
  std::vector<std::unique_ptr<PreBindWaiting>> prebind_waits_;  // in the order they were parked
  // DraManager::ClaimStatusVersion at the start of the current cycle: a claim status change made
  // during the cycle (PostFilter's deallocation) requeues the pod as kube's in-flight ResourceClaim
  // event does.
  uint64_t claim_status_version_at_cycle_ = 0;
  const PlacementDomain* member_domain_ = nullptr;  // set while a member is placed in a domain
  absl::flat_hash_map<Symbol, std::vector<PlacementDomain>>
      topology_domains_;  // cache of TopologyDomains
  absl::flat_hash_map<const framework::Framework*, std::vector<framework::PlacementFeasiblePlugin*>>
      placement_feasible_;  // per profile, looked up once
  // Runs Permit for an assumed pod and then binds it, holds it waiting, or forgets and requeues it.
  void PermitAndBind(QueuedPod* qp, framework::CycleState state, Symbol node, TimePoint wall_start);

  absl::flat_hash_map<Symbol, const api::Namespace*> namespaces_;
  // Storage objects and the volume binder's assumptions (built once per StorageObjects).
  std::unique_ptr<state::VolumeCache> volumes_;
  const api::StorageObjects* volumes_source_ = nullptr;
  absl::flat_hash_map<Symbol, std::vector<const api::SelectorOwner*>> owners_;
  absl::flat_hash_map<Symbol, std::vector<const api::PodDisruptionBudget*>> pdbs_;

  // The feasible-node search (filter_pass.h) and its scratch, reused across cycles (no per-cycle
  // allocation on the hot path).
  FilterPass filter_pass_;
  framework::ScoreTable scores_;
  std::vector<uint64_t> tie_keys_;
  // CorralFilterMemo (filter_memo.h): null when the gate is off.
  std::unique_ptr<FilterMemo> filter_memo_;

  // Opportunistic batching (batch.h): one batch per profile; kube's per-node Randomizer, drawn once
  // per node from the seeded Rng when the node is added (docs/deviations.md).
  absl::flat_hash_map<const framework::Framework*, std::unique_ptr<OpportunisticBatch>> batches_;
  // Cluster events fired so far (FireEvent); batches compare it across cycles (OpportunisticBatch).
  uint64_t cluster_epoch_ = 0;
  absl::flat_hash_map<Symbol, uint64_t> node_rnd_;
  uint64_t NodeRandomizer(Symbol node) const {
    auto it = node_rnd_.find(node);
    return it == node_rnd_.end() ? 0 : it->second;
  }
};

}  // namespace corral::scheduler
