#pragma once
// FleetSpec: the fleet level of a simulation — the dispatcher in front of the member clusters
// (Karmada's scheduler or MultiKueue's dispatcher), the clusters as the dispatcher sees them, the
// work that arrives at the fleet, and the members' outages. A SimSpec holds one when the scenario
// declares `fleet:` (fleet_scenario.h); the engine then runs a fleet lane (fleet_lane.h) before the
// members' lanes.
//
// FleetResult: what the fleet lane reports at the end (RunResult::fleet), written
// by fleet_output.h.

#include <cstdint>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/fleet/dispatch_loop.h"
#include "corral/fleet/preemption.h"
#include "corral/fleet/preemption_fleetwide.h"

namespace corral::sim {

// A member lost to the fleet from `at_ns` for `duration_ns` (kForeverNs: never back).
struct FleetOutage {
  uint32_t cluster = 0;
  int64_t at_ns = 0;
  int64_t duration_ns = 0;
};

// Which estimators the dispatcher consults: Karmada's general estimator alone, or with the
// accurate estimator (each member's own scheduler, fleet_estimate.h) — calAvailableReplicas takes
// the minimum of their answers, and ClusterFeasibility needs every answer to say yes. kShadow asks
// the accurate estimator at every attempt and ignores its answers (tests: a run must decide exactly
// as with kGeneral); no scenario spells it.
enum class FleetEstimatorKind : uint8_t { kGeneral, kAccurate, kShadow };

struct FleetSpec {
  fleet::DispatchLoopConfig config;
  FleetEstimatorKind estimator = FleetEstimatorKind::kGeneral;
  std::string profile_path;  // the ClusterDispatcherProfile file of config.profile; empty: built in
  int64_t refresh_interval_ns = 10'000'000'000;  // Karmada's cluster status update frequency
  // One per member, in member order: labels, provider/region/zone, taints, API enablements; the
  // resource summary is filled from the member at each refresh.
  std::vector<api::Cluster> clusters;
  std::vector<uint32_t> config_order;  // MultiKueueConfig order (member indices)
  std::vector<FleetOutage> outages;
  // Per fleet workload (Workload::fleet_work): the work item each arrival becomes (placement,
  // selectors, priority, dispatch mode, the resource kind); replicas and requests are set here.
  std::vector<api::FleetWork> works;
  // Karmada: the scheduler's gates (preemption needs both), the grace period of a preempted
  // binding's graceful eviction (the proposal's 30 s), and per fleet workload the time after
  // its arrival at which a work item not yet placed is deleted (-1: never).
  fleet::FeatureGates gates;
  int64_t preemption_grace_ns = 30'000'000'000;
  std::vector<int64_t> work_deadline_ns;
  // fleet.preemption: how the cluster is chosen (Karmada's single-cluster rule, or fleet-wide at
  // the least cost) and whether the victims are chosen by simulating on the member's real nodes
  // (Phase 2, sim/fleet_victims.h) instead of from the summaries (Phase 1).
  fleet::PreemptionMode preemption_mode = fleet::PreemptionMode::kKarmada;
  bool simulate_victims = false;
  // Per fleet workload: the node label within one value of which all its pods must run (Kueue's
  // `kueue.x-k8s.io/podset-required-topology` on its pod template; empty: none). The accurate
  // estimator asks GangFits(…, key), and each copy's PodGroup carries it as its topology
  // constraint, so the member places the gang within one domain (KEP-5732).
  std::vector<Symbol> work_topology_key;
};

// One work item's story, for "why not that cluster" and the per-item table.
struct FleetItemResult {
  std::string name;
  std::string workload;
  int64_t arrival_ns = 0;
  int64_t placed_ns = -1;
  std::string phase;     // queued, pending, ready, finished
  std::string clusters;  // where it runs: "b" or "a:2 b:1"
  int32_t attempts = 0, nominations = 0, retries = 0;
  std::string last_error;
  std::vector<std::pair<std::string, std::string>>
      why_not;  // cluster → reason, at the last attempt
};

// One victim of a fleet preemption: a binding evicted from the preemptor's cluster.
struct FleetVictimResult {
  std::string name;  // the work item
  int32_t priority = 0;
  int32_t replicas = 0;  // its replicas on the cluster
  int64_t gone_ns = -1;  // its pods left the member (grace period ended or they finished)
  std::string gone_how;  // "grace period ended", "finished"
  std::string cluster;   // set for a gang victim evicted from another cluster than the preemption's
};

// One cluster the fleet-wide mode weighed for a preemption: its cost tuple, or why not.
struct FleetClusterCost {
  std::string cluster;
  bool feasible = false;
  bool chosen = false;
  std::string reason;  // when not feasible
  int32_t highest_victim_priority = 0;
  int64_t priority_sum = 0;
  int64_t victim_replicas = 0;
  int64_t victim_bindings = 0;
};

// One fleet preemption (Karmada's tryPreempt that chose victims), and its claim's lifetime.
struct FleetPreemptionResult {
  std::string preemptor;  // the work item
  int32_t priority = 0;
  std::string cluster;
  std::string why;  // why that cluster
  int64_t at_ns = 0;
  int64_t cluster_available = 0;
  int32_t deficit = 0;
  std::vector<FleetVictimResult> victims;  // in eviction order
  std::vector<FleetVictimResult> reprieved;
  std::string result;   // "preempting" (victims evicted), "eviction failed"
  std::string message;  // the condition message, or why the eviction failed
  int64_t claim_set_ns = 0;
  int64_t claim_end_ns = -1;  // -1: still active at the end
  // "scheduled", "deleted", "eviction failed", "expired", "replaced", "" (active at the end)
  std::string claim_end;
  // Beyond Karmada (fleet.preemption): the mode that chose the cluster, victims chosen by
  // simulation on the member, the gang victims' evictions from other clusters, the clusters the
  // fleet-wide mode weighed. Empty or false in Karmada's mode with summary victims.
  std::string mode;  // "fleetwide"; empty: karmada
  bool simulated = false;
  std::vector<FleetVictimResult> gang_victims;
  std::vector<FleetClusterCost> considered;
};

// What the fleet sent to one member.
struct FleetMemberResult {
  std::string name;
  int64_t copies = 0;     // copies created there
  int64_t replicas = 0;   // replicas those copies asked for
  int64_t withdrawn = 0;  // copies the dispatcher withdrew from there
};

struct FleetResult {
  std::string scheduler;   // "karmada", "kueue"
  std::string dispatcher;  // "composable top-1", "composable top-2", "AllAtOnce", "Incremental"
  int64_t refresh_interval_ns = 0;
  int64_t items = 0, placed = 0, finished = 0, queued_end = 0, pending_end = 0;
  int64_t attempts = 0, nominations = 0, copies_created = 0, copies_withdrawn = 0, retries = 0;
  int64_t unschedulable = 0;
  std::vector<int64_t> dispatch_latency_ns;  // arrival → placed, per placed item (sorted)
  // Per sample (aligned with RunResult::samples): nominations and retries so far.
  std::vector<int64_t> sample_nominations, sample_retries, sample_queued;
  std::vector<FleetItemResult> items_detail;  // the first kMaxItemDetails items
  std::vector<FleetMemberResult> members;     // in member order
  // The estimators' answers, one per cluster asked: computed, taken from the memo (the accurate
  // estimator's: same member generation and replica template), or refused (no answer:
  // kUnauthenticReplica or nullopt); asked is their sum. The accurate estimator's also per member,
  // in member order. `accurate`: the dispatcher used the accurate estimator (kAccurate).
  struct EstimateCounts {
    int64_t asked = 0, computed = 0, memoized = 0, refused = 0;
  };
  bool accurate = false;
  EstimateCounts general_estimates, accurate_estimates;
  std::vector<EstimateCounts> accurate_member_estimates;
  static constexpr size_t kMaxItemDetails = 200;
  // Karmada binding preemption, when the gates enable it.
  bool preemption_enabled = false;
  int64_t preemption_grace_ns = 0;
  // fleet.preemption: "karmada" or "fleetwide"; victims chosen by simulation (Phase 2).
  std::string preemption_mode = "karmada";
  bool preemption_simulated_victims = false;
  int64_t deleted = 0;  // work items deleted (their deadline passed)
  // tryPreempt calls by result: preempting, blocked, no_victims, not_applicable, eviction_failed
  std::vector<std::pair<std::string, int64_t>> preemption_attempts;
  int64_t preemption_victims = 0;
  std::vector<FleetPreemptionResult> preemptions;
};

}  // namespace corral::sim
