// The fleet in the simulator, end to end on small scenarios: Karmada divides a Deployment over the
// members; MultiKueue's top-K withdraws the copies that lose; a BestEffort workload evicted on its
// member (a drain) goes back to the fleet and runs elsewhere; a work item never has pods running
// in two clusters at once.
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "corral/sim/fleet_spec.h"

#include "sim_test_util.h"

namespace corral::sim::testing {
namespace {

constexpr std::string_view kTwoClusters = R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fleet-test}
duration: 2h
clusters:
- name: a
  scheduler: {featureGates: {GenericWorkload: true}}
  nodePools:
  - {name: a-pool, count: 2, resources: {cpu: "8", memory: 32Gi, pods: "20"}}
- name: b
  scheduler: {featureGates: {GenericWorkload: true}}
  nodePools:
  - {name: b-pool, count: 2, resources: {cpu: "8", memory: 32Gi, pods: "20"}}
)";

Ran RunText(const std::string& text, Interner& in) {
  Diagnostics diags;
  auto spec = ParseScenario(text, "fleet.yaml", "", in, diags);
  EXPECT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  if (!spec.ok()) return {};
  return RunSpec(*spec, in);
}

// For each work item, the clusters where one of its copies started to run: a copy is the gang
// <item>-<cluster>, and "gang-ready" is logged when all its pods run.
std::map<std::string, std::set<std::string>> RunningClusters(const std::string& log) {
  std::map<std::string, std::set<std::string>> out;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find(" gang-ready default/");
    if (at == std::string::npos) continue;
    const size_t start = at + std::string_view(" gang-ready default/").size();
    const std::string group = line.substr(start, line.find(' ', start) - start);
    const size_t dash = group.rfind('-');
    out[group.substr(0, dash)].insert(group.substr(dash + 1));
  }
  return out;
}

// Karmada's Divided/Weighted (no weights: equal) splits 4 replicas 2:2 over the two clusters.
TEST(FleetSimTest, KarmadaDividesADeployment) {
  Interner in = api::NewInterner();
  Ran r = RunText(std::string(kTwoClusters) + R"(
fleet: {scheduler: karmada}
workloads:
- name: web
  count: 1
  resources: {cpu: "1", memory: 1Gi}
  fleet:
    replicas: 4
    placement:
      replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
)",
                  in);
  const RunResult& res = r.out.result;
  ASSERT_NE(res.fleet, nullptr);
  EXPECT_EQ(res.fleet->placed, 1);
  ASSERT_EQ(res.clusters.size(), 2U);
  EXPECT_EQ(res.clusters[0].pods_scheduled, 2);
  EXPECT_EQ(res.clusters[1].pods_scheduled, 2);
  ASSERT_EQ(res.fleet->items_detail.size(), 1U);
  EXPECT_EQ(res.fleet->items_detail[0].clusters, "a:2 b:2");
}

// Top-2 with gangs: both clusters get a copy; the first admitted wins and the other is withdrawn
// before any of its pods could run (bound pods still wait out the bind latency).
TEST(FleetSimTest, TopKWithdrawsTheLosingCopy) {
  Interner in = api::NewInterner();
  Ran r = RunText(std::string(kTwoClusters) + R"(
scheduler: {bindLatency: 1s}
fleet: {scheduler: kueue, nomination: TopK, topK: 2}
workloads:
- name: train
  kind: Gang
  parallelism: 2
  arrival: {rate: 6/h}
  count: 4
  duration: 20m
  resources: {cpu: "6", memory: 4Gi}
)",
                  in);
  const RunResult& res = r.out.result;
  ASSERT_NE(res.fleet, nullptr);
  EXPECT_EQ(res.fleet->placed, 4);
  EXPECT_EQ(res.fleet->copies_created, 8);
  EXPECT_EQ(res.fleet->copies_withdrawn, 4);
  EXPECT_NE(r.log.find("fleet-withdraw train-0 cluster="), std::string::npos);
  for (const FleetItemResult& it : res.fleet->items_detail) {
    EXPECT_EQ(it.clusters.find(' '), std::string::npos) << it.name << " on " << it.clusters;
  }
  // Both copies reserve (bind) at once; only the winner runs.
  const auto running = RunningClusters(r.log);
  EXPECT_EQ(running.size(), 4U) << r.log;
  for (const auto& [item, clusters] : running) EXPECT_EQ(clusters.size(), 1U) << item;
}

// BestEffort: a drain on the member evicts the copy's pod; the workload goes back to the fleet
// (Retry) and is dispatched again. The dispatcher sees no capacity (KEP-8692's default profile),
// so it nominates the drained cluster again (the name breaks the tie) and, BestEffort, counts the
// work as placed while its pod waits on cordoned nodes: the risk the KEP names for BestEffort.
TEST(FleetSimTest, BestEffortEvictionReturnsTheWork) {
  Interner in = api::NewInterner();
  Ran r = RunText(std::string(kTwoClusters) + R"(
fleet: {scheduler: kueue}
workloads:
- name: svc
  count: 1
  resources: {cpu: "1", memory: 1Gi}
ops:
- {at: 10m, op: drain, pool: a-pool, count: 2}
)",
                  in);
  const RunResult& res = r.out.result;
  ASSERT_NE(res.fleet, nullptr);
  ASSERT_EQ(res.fleet->items_detail.size(), 1U);
  const FleetItemResult& it = res.fleet->items_detail[0];
  EXPECT_EQ(it.retries, 1);
  EXPECT_NE(r.log.find("00:10:00.000 fleet-retry svc-0 \"Workload evicted on worker cluster: "
                       "\\\"a\\\", resetting for re-admission\""),
            std::string::npos)
      << r.log;
  EXPECT_EQ(it.clusters, "a");
  EXPECT_EQ(it.phase, "ready");
  ASSERT_EQ(res.clusters.size(), 2U);
  EXPECT_EQ(res.clusters[0].pods_pending_end, 1);
}

// A ClusterDispatcherProfile file (fleet.profilePath): its scores and nomination mode are used.
TEST(FleetSimTest, ProfileFromAFile) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(std::string(kTwoClusters) + R"(
fleet:
  scheduler: kueue
  profilePath: fleet_profile.yaml
  members:
  - {name: a, taints: [{key: slow, effect: PreferNoSchedule}]}
workloads:
- name: svc
  count: 1
  resources: {cpu: "1", memory: 1Gi}
)",
                            "fleet.yaml", "test/sim/testdata", in, diags);
  ASSERT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  ASSERT_NE(spec->fleet, nullptr);
  EXPECT_EQ(spec->fleet->config.profile.top_k, 2);
  Ran r = RunSpec(*spec, in);
  EXPECT_NE(r.log.find("fleet-nominate svc-0 clusters=b,a"), std::string::npos) << r.log;
  // A profile and the fleet's own nomination fields are exclusive.
  Diagnostics bad;
  auto e = ParseScenario(std::string(kTwoClusters) + R"(
fleet: {scheduler: kueue, profilePath: fleet_profile.yaml, nomination: Top1}
)",
                         "fleet.yaml", "test/sim/testdata", in, bad);
  EXPECT_FALSE(e.ok());
  EXPECT_NE(DiagnosticsMessage(bad).find("fleet.yaml:16: fleet.profilePath: a profile sets its "
                                         "own nominationMode and topK"),
            std::string::npos)
      << DiagnosticsMessage(bad);
}

}  // namespace
}  // namespace corral::sim::testing
