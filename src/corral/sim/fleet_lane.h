#pragma once
// FleetLane: the fleet's dispatcher inside a simulation — a fleet::DispatchLoop driven on the
// shared virtual clock, whose copies are groups of pods created on the members.
//
// Contract:
//  (1) Work arrives from the fleet workloads (Workload::fleet_work), one item per arrival, and
//      waits in the fleet queue. Step() runs every attempt due at `now` before the members step
//      (dispatching is instantaneous); its copies are created at once on the chosen members.
//  (2) A copy is admitted when all its pods are bound (a Kueue workload is admitted whole; a Gang
//      copy binds all-or-nothing). An eviction of a copy's pod (drain, node removal, preemption)
//      goes to the dispatcher; MultiKueue withdraws the copy and retries the work, Karmada leaves
//      the member to recreate its pods. A copy whose pods all completed finishes its item once
//      every copy of the item has.
//  (3) The dispatcher sees the members only through the status refresh (every refresh interval,
//      Karmada's cluster status controller): each member's allocatable and allocated totals of the
//      tracked resources become its ResourceSummary, so the general estimator is as stale as in
//      production. Outages make a member unreachable (fleet::DispatchLoop::SetReachable) for their
//      duration; the member itself keeps running.
//  (4) The estimators are the general estimator and, with FleetSpec::estimator accurate, each
//      member's own scheduler answering read-only (fleet_estimate.h).
//  (5) Karmada binding preemption, when the fleet's gates enable it (fleet_preemption.h): a binding
//      that fails for want of capacity may preempt; each victim is evicted from the cluster by
//      graceful eviction (its assignment there removed, a graceful-eviction task, rescheduled) and
//      its pods on the member are deleted when the grace period ends or when they finish, whichever
//      is first. The preemptor waits in the unschedulable pool (Scheduled=False,
//      Reason=Preempting); a status refresh that shows a member's allocation changed moves the pool
//      (Karmada requeues on ResourceSummary changes). A work item with a deadline that is not
//      placed by then is deleted (its claim cleared).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/fleet/dispatch_loop.h"
#include "corral/fleet/estimator.h"
#include "corral/sim/fleet_estimate.h"
#include "corral/sim/fleet_preemption.h"
#include "corral/sim/fleet_spec.h"
#include "corral/sim/fleet_victims.h"
#include "corral/sim/world.h"

namespace corral::sim {

class FleetLane final : public fleet::DispatchActions {
 public:
  FleetLane(World& w, const FleetSpec& spec);
  ~FleetLane() override;

  // ---- from the pods ----
  // An arrival of fleet workload `workload`; its copies' pods run `duration_ns` once bound.
  void Arrive(uint32_t workload, int64_t duration_ns);
  void OnGroupComplete(uint32_t group);
  // True when the dispatcher took the eviction (the copy is withdrawn; the pod is not recreated).
  bool OnGroupEvicted(uint32_t group);
  void OnGroupFinished(uint32_t group);

  // ---- from the engine ----
  // Pushes the first status refresh and the outages. REQUIRES: called once, at time 0.
  void Start();
  bool ready() const { return loop_->HasActive(); }
  void Step();
  void OnTimer(uint32_t generation);
  void OnRefresh();
  void OnOutage(uint32_t outage, bool down);
  // Puts the loop's next timer on the agenda (after anything that may have changed it).
  void ArmTimer();
  // Takes a time-series sample (with the sampler's).
  void Sample();
  std::shared_ptr<const FleetResult> Finish() const;

  // ---- fleet::DispatchActions ----
  void CreateCopy(uint32_t work, uint32_t cluster, int32_t replicas) override;
  void DeleteCopy(uint32_t work, uint32_t cluster) override;
  void Record(const fleet::DispatchRecord& record) override;
  void BeforeAttempt(uint32_t work) override;
  std::optional<std::string> OnCapacityShortage(uint32_t work, const fleet::BindingSchedule& failed,
                                                int64_t now_ns) override;

 private:
  struct ItemInfo {
    uint32_t workload = 0;
    int64_t duration_ns = 0;
    std::string name;
    int32_t live_copies = 0;  // groups still alive
  };
  // A preempted copy whose pods leave the member when its grace period ends.
  struct Evicting {
    uint32_t work = 0;
    int64_t until_ns = 0;
    size_t record = 0;  // its FleetPreemptionResult and victim index there
    size_t victim = 0;
    bool gang = false;  // an index into the record's gang victims
  };
  std::vector<api::Cluster> Snapshot() const;
  // Grace periods that ended, deadlines that passed, claims that expired, at `now`.
  void FireOwnTimers();
  void VictimGone(const Evicting& e, std::string_view how);
  // Evicts work item `id` from `cluster` for `preemptor` (graceful eviction); the victim is entry
  // `victim` of the record's victims (or, with `gang`, of its gang victims). "" or why it failed.
  std::string EvictVictim(uint32_t id, uint32_t cluster, const std::string& victim_name,
                          const std::string& preemptor, const fleet::Victim& v, size_t record,
                          size_t victim, bool gang, int64_t now_ns);
  void DeleteWork(uint32_t work, std::string_view why);
  std::string ClusterName(uint32_t c) const { return w_.spec.clusters[c].name; }

  World& w_;
  const FleetSpec& spec_;
  std::unique_ptr<FleetEstimators> estimators_;
  std::unique_ptr<fleet::DispatchLoop> loop_;
  std::vector<ItemInfo> info_;
  // (work, cluster) ↔ group of pods.
  absl::flat_hash_map<uint64_t, uint32_t> group_of_;
  absl::flat_hash_map<uint32_t, std::pair<uint32_t, uint32_t>> copy_of_;
  int64_t timer_at_ = -1;
  uint32_t timer_gen_ = 0;
  FleetResult res_;
  // Karmada binding preemption (null when the gates do not enable it), and the member-side trials
  // of Phase 2 and of gang preemptors (fleet_victims.h).
  std::unique_ptr<SimVictimSimulator> victims_;
  std::unique_ptr<FleetPreemption> preempt_;
  absl::flat_hash_map<Symbol, uint32_t> work_by_name_;  // a work item's metadata.name → its id
  std::map<uint32_t, Evicting> evicting_;               // by group
  std::set<std::pair<int64_t, uint32_t>> deadlines_;    // (time, work)
  std::vector<std::vector<int64_t>> last_allocated_;    // per member, at the last refresh
  bool deleting_ = false;
};

}  // namespace corral::sim
