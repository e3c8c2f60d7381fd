#pragma once
// The fleet's dispatcher over time: work items arrive, wait in the fleet queue (queue.h), are
// placed by Karmada's scheduler (karmada_scheduler.h) or nominated by MultiKueue's dispatchers
// (kueue_dispatcher.h, AllAtOnce, Incremental), and their copies on the members are created,
// admitted, evicted, withdrawn and retried as MultiKueue's workload controller and Karmada's
// scheduler do it. The loop has the scheduler's driver shape one level up: events in (work added
// or finished, cluster status refreshed, a member reachable or not, a copy admitted or evicted),
// DispatchOne(), timers (NextTimerDeadline / FireTimers), and actions out through
// DispatchActions. It never includes the simulator or a member's scheduler: the simulator drives
// it in virtual time, and a live connector could drive it the same way.
//
// Kueue (MultiKueue, kueue pkg/controller/admissionchecks/multikueue/workload.go and
// pkg/controller/workloaddispatcher, KEP-8692 for the composable dispatcher):
//   - composable: the profile's nomination, top-1 or top-K; the copies go to the nominated clusters
//     best first. BestEffort top-1: the admission check is Ready once the copy exists (dispatched =
//     done); a later eviction on the member returns the item to the queue (Retry, "Workload
//     evicted on worker cluster"). MustBeAdmitted, and top-K in either mode: the item waits for
//     the first copy to be admitted; the others are withdrawn at once. A MustBeAdmitted item not
//     admitted within workerLostTimeout of its nomination withdraws its copies and is retried with
//     the clusters that timed out left out (the next-best cluster; when no other cluster remains
//     the exclusions are cleared).
//   - AllAtOnce: every connected, active worker is nominated (by name); the first to admit wins.
//   - Incremental: rounds of `round_timeout` (5 min): the first `step_size` (3) workers, in
//     MultiKueueConfig order (MultiKueueIncrementalDispatcherRespectConfigOrder, on by default) or
//     by name; each round without admission appends the next batch; earlier nominees stay.
//   - An admitted (or BestEffort-dispatched) copy on a member that stays unreachable for
//     workerLostTimeout is given up ("Admitting remote lost"): the copy is deleted and the
//     item retried.
// Karmada: one ScheduleBinding attempt per pop with the estimators given (the general estimator by
// default; an accurate estimator plugs in as one more ReplicaEstimator). Success creates one copy
// per selected cluster with its replicas (the previous assignment kept for steady division); the
// binding has no admission. A cluster that stays unreachable for the lost timeout is failed over:
// the binding's replicas there are evicted (gracefulEvictionTasks) and it is rescheduled; the task
// ends once the binding is placed again, or after the graceful eviction timeout (10 min).
//
// Failure goes back to the queue as Karmada's handleErr sends it: no feasible cluster to the
// unschedulable pool, any other error to backoff. A cluster whose readiness or activity changes at
// a refresh is a cluster event that moves the unschedulable pool.
//
// Invariant: a Kueue item is admitted in at most one cluster, and once admitted it has no other
// copy (the property tests check it after every step).

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/interner.h"
#include "corral/fleet/estimator.h"
#include "corral/fleet/queue.h"

namespace corral::fleet {

struct BindingSchedule;

enum class FleetKind : uint8_t { kKarmada, kKueue };
enum class KueueDispatcherKind : uint8_t { kComposable, kAllAtOnce, kIncremental };

struct DispatchLoopConfig {
  FleetKind kind = FleetKind::kKueue;
  KueueDispatcherKind dispatcher = KueueDispatcherKind::kComposable;
  api::DispatcherProfile profile;  // composable: filters, scores, nomination (top-1 / top-K)
  int32_t step_size = 3;           // Incremental (DefaultStepSize)
  int64_t round_timeout_ns = 300 * kQueueSecond;  // incrementalDispatcherRoundTimeout
  bool respect_config_order = true;               // ...IncrementalDispatcherRespectConfigOrder
  int64_t worker_lost_timeout_ns = 900 * kQueueSecond;        // WorkerLostTimeout
  int64_t graceful_eviction_timeout_ns = 600 * kQueueSecond;  // Karmada --graceful-eviction-timeout
  QueueOptions queue;
};

// One copy of a work item on a member.
struct WorkCopy {
  uint32_t cluster = 0;
  int32_t replicas = 0;
  int64_t created_ns = 0;
  bool admitted = false;
};

enum class WorkPhase : uint8_t {
  kQueued,    // in the fleet queue
  kPending,   // copies out, waiting for admission
  kReady,     // placed: admitted, BestEffort-dispatched, or a Karmada assignment
  kFinished,  // done; copies gone
};

// Why a cluster was not chosen at an item's last attempt ("" when it was).
struct ClusterWhyNot {
  uint32_t cluster = 0;
  std::string reason;
};

struct WorkItem {
  api::FleetWork work;
  WorkPhase phase = WorkPhase::kQueued;
  std::vector<WorkCopy> copies;
  int64_t arrival_ns = 0;
  int64_t placed_ns = -1;           // the first time it became kReady
  int64_t deadline_ns = -1;         // MustBeAdmitted timeout or Incremental round end
  std::vector<uint32_t> excluded;   // clusters that timed out (MustBeAdmitted next-best)
  std::vector<uint32_t> nominated;  // the current nomination, best first
  // Karmada's graceful-eviction tasks: (cluster, end). A failover's task ends when the binding is
  // placed again or after the graceful eviction timeout; a preemption's after its grace period.
  std::vector<std::pair<uint32_t, int64_t>> eviction_tasks;
  int32_t attempts = 0;
  int32_t nominations = 0;
  int32_t retries = 0;
  std::string last_error;              // the last failed attempt's message
  std::vector<ClusterWhyNot> why_not;  // at the last attempt
};

// A notable step, for the event log and the metrics.
struct DispatchRecord {
  enum class Kind : uint8_t {
    kNominated,      // clusters = the nomination
    kDispatched,     // Karmada assignment or BestEffort copy: placed
    kAdmitted,       // clusters = {the winner}
    kWithdrawn,      // clusters = copies deleted because another admitted
    kUnschedulable,  // message = the error
    kRetry,          // message = why (timeout, eviction, lost worker)
    kFinished,
  };
  Kind kind = Kind::kNominated;
  uint32_t work = 0;
  std::vector<uint32_t> clusters;
  std::string message;
};

// What the loop asks of the world.
class DispatchActions {
 public:
  virtual ~DispatchActions() = default;
  // Create the item's copy with `replicas` replicas on member `cluster`.
  virtual void CreateCopy(uint32_t work, uint32_t cluster, int32_t replicas) = 0;
  // Delete the item's copy on `cluster` (withdrawn, retried, failed over).
  virtual void DeleteCopy(uint32_t work, uint32_t cluster) = 0;
  virtual void Record(const DispatchRecord& record) = 0;
  // Karmada: called before each scheduling attempt of `work` (the estimators given to the loop may
  // answer for that requester, e.g. less the preemption claims it must respect).
  virtual void BeforeAttempt(uint32_t /*work*/) {}
  // Karmada: the attempt failed for want of capacity on clusters that pass every other filter.
  // Returns the condition message (Scheduled=False, Reason=Preempting) when the world started a
  // preemption for it; the loop then parks the item in the unschedulable pool. nullopt: the
  // scheduling error stands.
  virtual std::optional<std::string> OnCapacityShortage(uint32_t /*work*/,
                                                        const BindingSchedule& /*failed*/,
                                                        int64_t /*now_ns*/) {
    return std::nullopt;
  }
};

// getNextNominatedWorkers: the remote clusters (in MultiKueueConfig order) not yet nominated, by
// name when `respect_config_order` is off, at most `step_size` of them; empty when every one is
// nominated (Kueue's ErrNoMoreWorkers). `name` gives a cluster's name.
std::vector<uint32_t> NextNominatedWorkers(std::span<const uint32_t> remote,
                                           std::span<const uint32_t> nominated, int32_t step_size,
                                           bool respect_config_order,
                                           const std::function<std::string_view(uint32_t)>& name);

class DispatchLoop {
 public:
  // `clusters` is the first status report (one per member, in member order); `estimators` are
  // consulted by Karmada's scheduler and must outlive the loop, as must `interner` and `actions`.
  // `config_order`: the MultiKueueConfig's cluster order (empty: member order).
  DispatchLoop(DispatchLoopConfig config, std::vector<api::Cluster> clusters,
               std::vector<const ReplicaEstimator*> estimators, Interner& interner,
               DispatchActions& actions, std::vector<uint32_t> config_order = {});

  // The estimators Kueue's ClusterFeasibility filter asks (composable dispatcher); they must
  // outlive the loop. None by default: the filter then rejects every cluster as unknown.
  void SetWorkloadEstimators(std::vector<const WorkloadEstimator*> estimators) {
    workload_estimators_ = std::move(estimators);
  }

  // ---- events ----
  // A work item arrives; returns its id (dense, from 0).
  uint32_t AddWork(api::FleetWork work, int64_t now_ns);
  // Every replica of the item completed on its member: the item is done. The world has removed its
  // copies; the loop forgets them without DeleteCopy.
  void OnFinished(uint32_t work, int64_t now_ns);
  // The cluster status controller's report: the snapshot every later attempt sees.
  void RefreshClusters(std::span<const api::Cluster> clusters, int64_t now_ns);
  // The member's connection was lost (false) or is back (true).
  void SetReachable(uint32_t cluster, bool reachable, int64_t now_ns);
  // The copy on `cluster` was admitted (a Kueue workload's quota, a gang's full placement).
  void OnAdmitted(uint32_t work, uint32_t cluster, int64_t now_ns);
  // The copy on `cluster` was evicted there.
  void OnEvicted(uint32_t work, uint32_t cluster, int64_t now_ns);
  // Karmada's graceful eviction of a preempted binding from `cluster`: the cluster leaves its
  // assignment, a graceful-eviction task keeps it off that cluster for `grace_ns`, and the binding
  // goes back to the queue to be rescheduled. The copy is forgotten without DeleteCopy: the world
  // deletes its pods when the grace period ends. False when the binding is not assigned there.
  bool EvictFromCluster(uint32_t work, uint32_t cluster, int64_t grace_ns, std::string why,
                        int64_t now_ns);
  // A cluster or binding event that may have freed capacity: the unschedulable pool moves to the
  // active queue.
  void MoveAllUnschedulable(int64_t now_ns);

  // ---- dispatching ----
  // One attempt for the highest-priority queued item; false when the active queue is empty.
  bool DispatchOne(int64_t now_ns);
  bool HasActive() const { return queue_.active_len() > 0; }
  int64_t NextTimerDeadline(int64_t now_ns) const;
  void FireTimers(int64_t now_ns);

  // ---- state ----
  const WorkItem& item(uint32_t id) const { return items_[id]; }
  size_t items() const { return items_.size(); }
  const std::vector<api::Cluster>& clusters() const { return clusters_; }
  const FleetQueue& queue() const { return queue_; }
  bool reachable(uint32_t cluster) const { return lost_since_[cluster] < 0; }
  const DispatchLoopConfig& config() const { return config_; }

 private:
  void AttemptKarmada(uint32_t id, int64_t now_ns);
  void AttemptKueue(uint32_t id, int64_t now_ns);
  // Creates copies on `targets` (skipping clusters that already hold one or are unreachable).
  void CreateCopies(uint32_t id, const std::vector<uint32_t>& targets, int64_t now_ns);
  void DeleteCopy(uint32_t id, size_t copy_index);
  void DeleteAllCopies(uint32_t id);
  // Back to the queue with a record of why.
  void Retry(uint32_t id, std::string why, int64_t now_ns);
  // The next Incremental batch; false when every worker is nominated.
  bool NominateNextBatch(uint32_t id, int64_t now_ns);
  void ArmDeadline(uint32_t id, int64_t at_ns);
  void ClearDeadline(uint32_t id);
  // The snapshot as the dispatcher sees it: an unreachable member is NotReady / inactive, with
  // Karmada's not-ready taint.
  void RebuildView();
  uint32_t ClusterIndex(std::string_view name) const;
  bool Connected(uint32_t c) const;

  DispatchLoopConfig config_;
  std::vector<api::Cluster> reported_;  // the last report
  std::vector<api::Cluster> clusters_;  // the view (reported_ with reachability applied)
  std::vector<const ReplicaEstimator*> estimators_;
  std::vector<const WorkloadEstimator*> workload_estimators_;
  Interner& in_;
  DispatchActions& actions_;
  std::vector<uint32_t> config_order_;
  std::vector<int64_t> lost_since_;  // -1: reachable
  std::vector<uint8_t> lost_fired_;  // the lost timeout has been acted on
  std::vector<WorkItem> items_;
  FleetQueue queue_;
  std::set<std::pair<int64_t, uint32_t>> deadlines_;  // (time, item)
  Symbol not_ready_taint_;
};

}  // namespace corral::fleet
