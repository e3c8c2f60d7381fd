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

namespace corral::sim {

// A member lost to the fleet from `at_ns` for `duration_ns` (kForeverNs: never back).
struct FleetOutage {
  uint32_t cluster = 0;
  int64_t at_ns = 0;
  int64_t duration_ns = 0;
};

struct FleetSpec {
  fleet::DispatchLoopConfig config;
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
  static constexpr size_t kMaxItemDetails = 200;
};

}  // namespace corral::sim
