#pragma once
// Member: one simulated cluster — its scheduler, its node slots with their resource totals, the
// cluster objects handed to its scheduler, the decisions its scheduler reports, and its own
// scheduling lane on the shared virtual clock (idle, busy-until, retry and Permit-timer state,
// cycles and cost).
//
// Lane contract:
//  (1) A member is ready when it is neither idle nor busy. Step() runs one ScheduleOne at `now`.
//      With no cost the decisions take effect at once; with a cost c the member is busy until
//      now + c and its decisions take effect then (Complete), before any event the engine holds
//      for that instant or earlier — a cycle is atomic, so an event that falls inside it is seen
//      when it ends, as a single scheduler thread would see it.
//  (2) Touch() records a change of this cluster's state (epoch) and wakes the lane. A pod that
//      fails twice at the same epoch (an error retried from backoff) idles the lane until the next
//      change or a retry tick (1 s doubling to 10 s), so a hopeless pod cannot spin virtual time
//      at zero cost.
//  (3) Node slots are member-local indices; a removed node's slot is reused by the next new node.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/types.h"
#include "corral/framework/feature_gates.h"
#include "corral/scheduler/scheduler.h"
#include "corral/sim/metrics.h"
#include "corral/sim/world.h"

namespace corral::sim {

class ApiClient;  // api_client.h

struct NodeSlot {
  api::Node node;
  std::array<int64_t, kMaxTracked> alloc{};
  std::array<int64_t, kMaxTracked> req{};
  std::vector<uint32_t> pods;
  uint64_t serial = 0;
  uint32_t pool = kNone;
  bool alive = false;
};

struct Decision {
  enum class Kind : uint8_t { kScheduled, kUnschedulable, kPreempted };
  Kind kind = Kind::kScheduled;
  uint32_t slot = 0;
  Symbol node;
  std::string message;
  std::vector<uint32_t> victims;  // kPreempted
};

class Member : public scheduler::SchedulerObserver {
 public:
  // `objects`: the cluster objects its scheduler sees (PodGroups of live gangs are added).
  Member(World& w, uint16_t index, scheduler::Scheduler& sched,
         const framework::FeatureGates& gates, const api::ObjectSet& objects);
  ~Member() override;

  uint16_t index() const { return index_; }
  scheduler::Scheduler& sched() { return sched_; }
  const scheduler::Scheduler& sched() const { return sched_; }
  const framework::FeatureGates& gates() const { return gates_; }

  // ---- nodes ----
  void AddInitialNode(const api::Node& n);
  void CreateNode(uint32_t pool);
  void RemoveNode(uint32_t idx, std::string_view reason);
  void SetCordon(uint32_t idx, bool cordon);
  // Replaces the live node in slot `idx` by `n` (same name; kube's update of the Node object and
  // its status): its pods stay and keep their requests, allocatable and schedulability are
  // re-accounted, and the scheduler sees a Node/Update event.
  void UpdateNode(uint32_t idx, api::Node n);
  // Evicts every pod of the node, oldest binding first (a stable log).
  void EvictAll(uint32_t idx, std::string_view reason);
  // Alive nodes of `pool` (kNone: any), oldest first (or newest first), at most `count` (-1: all).
  // want: 0 = any alive, 1 = schedulable, 2 = cordoned.
  std::vector<uint32_t> PickNodes(uint32_t pool, int64_t count, bool newest_first, int want) const;
  // The newest alive node of `pool`, or kNone.
  uint32_t NewestNode(uint32_t pool) const;
  const NodeSlot& node(uint32_t idx) const { return *nodes_[idx]; }
  size_t node_slots() const { return nodes_.size(); }
  uint32_t FindNode(Symbol name) const {
    auto it = node_by_name_.find(name);
    return it == node_by_name_.end() ? kNone : it->second;
  }
  // Accounts a pod's requests on a node (and the totals); Unplace reverses it.
  void Place(uint32_t slot, uint32_t node);
  void Unplace(uint32_t slot);
  // A placed pod's requests change to `req` (an in-place resize): its node and the totals follow.
  void Reaccount(uint32_t slot, const std::array<int64_t, kMaxTracked>& req);

  // ---- cluster objects ----
  void AddPodGroup(api::PodGroup pg);
  void RemovePodGroup(Symbol name);

  // ---- trial placements (the fleet's accurate estimator) ----
  // The options and registry the member's scheduler was built with (null when the driver did not
  // give them).
  void set_trial_source(const scheduler::Scheduler::Options* options,
                        const framework::Registry* registry) {
    trial_options_ = options;
    trial_registry_ = registry;
  }
  const scheduler::Scheduler::Options* trial_options() const { return trial_options_; }
  const framework::Registry* trial_registry() const { return trial_registry_; }
  // The member as a trial placement copies it: its cluster objects, its alive nodes and the pods
  // bound or binding to them (terminating victims included, as they still hold their room), and
  // no pending pod.
  api::ObjectSet TrialObjects() const;

  // ---- lane ----
  void Touch(bool wake = true) {
    ++epoch_;
    ++w_.epoch;
    if (wake) idle_ = false;
  }
  uint64_t epoch() const { return epoch_; }
  bool ready() const { return !idle_ && !busy_ && !api_blocked_; }
  bool busy() const { return busy_; }
  int64_t busy_until() const { return busy_until_; }
  void Step();
  // REQUIRES: busy() and now == busy_until().
  void Complete();
  void ArmRetry();
  void OnRetryTick();
  void OnFlushTick();
  void OnPermitTimer();
  // Puts the scheduler's earliest Permit deadline on the agenda (when idle).
  void ArmPermitTimer();
  // The scheduler's API calls under a rate limit (SimSpec::api_client): a binding or a status
  // patch of pod `slot` in generation `gen` took effect; the scheduling loop's own call got its
  // token and the loop goes on.
  void OnBindLanded(uint32_t slot, uint32_t gen);
  void OnStatusLanded(uint32_t slot, uint32_t gen);
  void OnApiUnblock();

  // ---- counters ----
  int64_t pending = 0, running = 0, binding = 0;
  int64_t nodes_alive = 0, nodes_schedulable = 0, nodes_max = 0;
  std::array<int64_t, kMaxTracked> alloc_total{};
  std::array<int64_t, kMaxTracked> req_total{};
  int64_t cycles = 0;  // ScheduleOne calls that ran a cycle (a pod's, or a gang's workload cycle)
  int64_t sched_wall_ns = 0;
  std::vector<std::string> slot_names;  // last node name per slot
  std::vector<std::string> slot_pools;
  // Kept only in a run of several clusters (RunResult::clusters).
  int64_t scheduled = 0;
  LogHistogram latency;
  std::vector<int64_t> sample_pending;
  std::vector<std::array<float, kMaxTracked>> sample_util;

  // ---- SchedulerObserver ----
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override;
  void OnUnschedulable(const api::Pod& pod, const std::string& message) override;
  void OnExplain(const api::Pod& pod, const scheduler::CycleExplain& ex) override;
  void OnPreempted(const scheduler::PreemptionRecord& rec) override;

 private:
  uint32_t NewNodeSlot();
  void TrackNode(NodeSlot& n);
  void NodeAdded(uint32_t idx, std::string_view pool);
  void ApplyDecision(const Decision& d, int64_t cost_ns);
  // The part of a binding that shows once it reached the API server: the pod counts as scheduled
  // (kube's harness sees its nodeName) and starts running after the bind latency.
  void BindLanded(uint32_t slot);
  // An unschedulable pod's PodScheduled=False patch under the rate limit: issued when its condition
  // changed; the pod counts as attempted when it lands, and a direct call holds the loop till then.
  void PatchStatus(const Decision& d);
  // After a cycle's decisions: holds the loop while its own call waits for a token.
  void HoldForApi();

  World& w_;
  uint16_t index_;
  scheduler::Scheduler& sched_;
  const framework::FeatureGates& gates_;
  api::ObjectSet objects_;
  const scheduler::Scheduler::Options* trial_options_ = nullptr;
  const framework::Registry* trial_registry_ = nullptr;

  std::vector<std::unique_ptr<NodeSlot>> nodes_;
  std::vector<uint32_t> free_nodes_;
  absl::flat_hash_map<Symbol, uint32_t> node_by_name_;
  std::vector<int64_t> pool_next_index_;
  uint64_t node_serial_ = 0;

  std::vector<Decision> decisions_;
  bool idle_ = false;
  bool busy_ = false;
  int64_t busy_until_ = 0;
  int64_t attempt_cost_ns_ = 0;  // charged to each decision of the cycle (attempt duration)
  uint64_t epoch_ = 1;
  bool retry_armed_ = false;
  int64_t retry_backoff_ns_ = kSecond;
  bool timer_armed_ = false;
  int64_t timer_at_ = 0;
  std::unique_ptr<ApiClient> api_;  // null without a rate limit
  int64_t api_hold_until_ = 0;      // the loop's own call of this cycle proceeds then
  bool api_blocked_ = false;
};

}  // namespace corral::sim
