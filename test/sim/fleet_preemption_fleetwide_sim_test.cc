// Fleet binding preemption beyond Karmada in `corral simulate` (fleet.preemption, minMember), end
// to end on one fragmented member: two nodes of 4 GPUs, full with jx (priority 50, 2 GPUs), jy
// (priority 40, 2 GPUs) and jz (priority 30, two replicas of 2 GPUs), all running 90m; the member's
// scheduler spreads them (LeastAllocated): jx and one jz replica share a node, jy and the other jz
// replica the other.
// A preemptor of one 4-GPU replica needs a whole node:
//   - summary victims (Phase 1) reprieve x and y and evict z alone, which frees 2 GPUs per node;
//   - simulated victims (Phase 2) try the member's nodes: x is reprieved, y and z are evicted, so
//     a whole node is free;
//   - a gang preemptor (minMember) with summary victims does not preempt: its gang would not fit
//     whole on the member after evicting z.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/sim/fleet_spec.h"

#include "sim_test_util.h"

namespace corral::sim::testing {
namespace {

std::string Job(const std::string& name, int priority, int parallelism, int gpus,
                const std::string& start, const std::string& extra_fleet = "") {
  return "- name: " + name + "\n  namespace: ml\n  kind: Job\n  count: 1\n  parallelism: " +
         std::to_string(parallelism) + "\n  start: " + start + "\n  duration: 90m" +
         "\n  resources: {cpu: \"1\", memory: 4Gi, nvidia.com/gpu: \"" + std::to_string(gpus) +
         "\"}\n  fleet:\n    priority: " + std::to_string(priority) +
         "\n    preemptionPolicy: PreemptLowerPriority\n" + extra_fleet +
         "    placement:\n      clusterAffinity: {clusterNames: [gpu]}\n"
         "      replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: "
         "Aggregated}\n";
}

std::string Fragmented(const std::string& preemption, const std::string& preemptor_extra) {
  return R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fleet-preemption-fragmented}
duration: 2h
clusters:
- name: gpu
  nodePools:
  - {name: gpu-pool, count: 2, resources: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "4"}}
fleet:
  scheduler: karmada
  featureGates: {PriorityBasedScheduling: true, PriorityBasedPreemptiveScheduling: true}
  preemption: )" +
         preemption + "\nworkloads:\n" + Job("jx", 50, 1, 2, "0s") + Job("jy", 40, 1, 2, "1s") +
         Job("jz", 30, 2, 2, "1m") + Job("p", 1000, 1, 4, "10m", preemptor_extra);
}

struct FleetRun {
  Ran ran;
  const FleetResult* fleet = nullptr;
};

FleetRun RunText(const std::string& text, Interner& in) {
  Diagnostics diags;
  auto spec = ParseScenario(text, "fleet.yaml", "", in, diags);
  EXPECT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  FleetRun r;
  if (!spec.ok()) return r;
  r.ran = RunSpec(*spec, in);
  r.fleet = r.ran.out.result.fleet.get();
  return r;
}

std::vector<std::string> Names(const std::vector<FleetVictimResult>& vs) {
  std::vector<std::string> out;
  for (const FleetVictimResult& v : vs) out.push_back(v.name);
  return out;
}

TEST(FleetwideSimPreemption, SummaryVictimsIgnoreFragmentation) {
  Interner in = api::NewInterner();
  FleetRun r = RunText(Fragmented("{mode: fleetwide, victims: summary}", ""), in);
  ASSERT_NE(r.fleet, nullptr);
  ASSERT_FALSE(r.fleet->preemptions.empty());
  const FleetPreemptionResult& p = r.fleet->preemptions.front();
  EXPECT_EQ(p.mode, "fleetwide");
  EXPECT_FALSE(p.simulated);
  EXPECT_EQ(Names(p.victims), std::vector<std::string>{"ml/jz-0"});
  EXPECT_EQ(Names(p.reprieved), (std::vector<std::string>{"ml/jx-0", "ml/jy-0"}));
}

TEST(FleetwideSimPreemption, SimulatedVictimsFreeAWholeNode) {
  Interner in = api::NewInterner();
  FleetRun r = RunText(Fragmented("{mode: fleetwide, victims: simulation}", ""), in);
  ASSERT_NE(r.fleet, nullptr);
  ASSERT_EQ(r.fleet->preemptions.size(), 1u);
  const FleetPreemptionResult& p = r.fleet->preemptions.front();
  EXPECT_TRUE(p.simulated);
  EXPECT_EQ(Names(p.victims), (std::vector<std::string>{"ml/jy-0", "ml/jz-0"}));
  EXPECT_EQ(Names(p.reprieved), std::vector<std::string>{"ml/jx-0"});
  EXPECT_EQ(p.claim_end, "scheduled");  // placed once its victims left
}

TEST(FleetwideSimPreemption, GangPreemptorNeedsItsWholeGangToFit) {
  Interner in = api::NewInterner();
  FleetRun r = RunText(Fragmented("{mode: fleetwide, victims: summary}", "    minMember: 1\n"), in);
  ASSERT_NE(r.fleet, nullptr);
  ASSERT_EQ(r.fleet->preemptions.size(), 1u);
  const FleetPreemptionResult& p = r.fleet->preemptions.front();
  // Not before jx and jy finish (90m: then a node is whole once jz leaves), soon after.
  constexpr int64_t kMin = int64_t{60} * 1'000'000'000;
  EXPECT_GE(p.at_ns, 90 * kMin);
  EXPECT_LT(p.at_ns, 91 * kMin);
  EXPECT_EQ(Names(p.victims), std::vector<std::string>{"ml/jz-0"});
  int64_t no_victims = 0;
  for (const auto& [result, n] : r.fleet->preemption_attempts) {
    if (result == "no_victims") no_victims = n;
  }
  EXPECT_GT(no_victims, 0);
}

}  // namespace
}  // namespace corral::sim::testing
