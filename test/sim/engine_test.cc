// The engine end to end on small scenarios: golden event logs (byte for byte), determinism of every
// output, the virtual clock, cost models, drains, node removal, gangs, priorities and the
// leftover flush.

#include <map>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "corral/sim/input/manifests.h"
#include "corral/sim/report/report.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using testing::ExpectGolden;
using testing::Ran;
using testing::RunSpec;

SimSpec MustParse(std::string_view text, Interner& in) {
  Diagnostics diags;
  auto spec = ParseScenario(text, "test.yaml", "", in, diags);
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message);
  return spec.ok() ? std::move(spec).value() : SimSpec{};
}

TEST(EngineGoldenTest, SmallScenarioEventLogAndSummary) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/small.yaml", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  Ran r = RunSpec(*spec, in);
  ExpectGolden("test/sim/testdata/small.log", r.log);
  ExpectGolden("test/sim/testdata/small.summary", FormatSummary(r.out.result));
}

TEST(EngineGoldenTest, ManifestsWithDurationAnnotations) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadManifestsSpec({"examples/scenarios/manifests"}, in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  Ran r = RunSpec(*spec, in);
  ExpectGolden("test/sim/testdata/manifests.log", r.log);
  // report-1 runs 20m from 00:00, report-2 waits for it (15m), report-3 for report-2 (29m); then
  // nothing is left to happen and the run ends.
  EXPECT_EQ(r.out.result.end_ns, 45LL * 60 * 1'000'000'000);
  EXPECT_EQ(r.out.result.pods_completed, 3);
  EXPECT_EQ(r.out.result.latency.max(), 29LL * 60 * 1'000'000'000);
}

TEST(EngineTest, SameSeedSameBytesEverywhere) {
  std::string outputs[2];
  for (auto& o : outputs) {
    Interner in = api::NewInterner();
    Diagnostics diags;
    auto spec = LoadScenarioFile("examples/scenarios/small.yaml", in, diags);
    ASSERT_TRUE(spec.ok());
    Ran r = RunSpec(*spec, in);
    o = r.log + FormatJson(r.out.result) + FormatCsv(r.out.result) +
        FormatPrometheus(r.out.result) + RenderHtmlReport(r.out.result);
  }
  EXPECT_EQ(outputs[0], outputs[1]);
}

TEST(EngineTest, DifferentSeedDifferentArrivals) {
  std::string logs[2];
  for (int i = 0; i < 2; ++i) {
    Interner in = api::NewInterner();
    Diagnostics diags;
    auto spec = LoadScenarioFile("examples/scenarios/small.yaml", in, diags);
    ASSERT_TRUE(spec.ok());
    spec->seed = 100 + i;
    logs[i] = RunSpec(*spec, in).log;
  }
  EXPECT_NE(logs[0], logs[1]);
}

constexpr std::string_view kBase = R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: t}
nodePools:
- name: np
  count: 2
  resources: {cpu: "2", memory: 4Gi, pods: "10"}
)";

TEST(EngineTest, PodsRunForTheirDurationThenFreeTheirNode) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
workloads:
- name: a
  count: 3
  duration: 10m
  resources: {cpu: "2"}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  // Two nodes of 2 CPUs: a-0 and a-1 bind at once; a-2 waits until one completes at 10m (the
  // completion's AssignedPod/Delete event requeues it through NodeResourcesFit's hint).
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:10:00.000 bind default/a-2 node="));
  EXPECT_EQ(r.out.result.end_ns, 20LL * 60 * 1'000'000'000);
  EXPECT_EQ(r.out.result.pods_completed, 3);
  EXPECT_EQ(r.out.result.latency.max(), 10LL * 60 * 1'000'000'000);
}

TEST(EngineTest, HopelessPodsAreRetriedByTheLeftoverFlushOnly) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
duration: 12m
workloads:
- name: big
  count: 1
  resources: {cpu: "3"}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  // Attempted at 0, then after 5 minutes in the unschedulable pool, at the first 30 s flush tick
  // past that.
  EXPECT_EQ(r.out.result.unschedulable_attempts, 3);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:05:30.000 unschedulable default/big-0"));
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:11:00.000 unschedulable default/big-0"));
  EXPECT_EQ(r.out.result.pods_pending_end, 1);
  ASSERT_EQ(r.out.result.pending_reasons.size(), 1U);
  EXPECT_EQ(r.out.result.pending_reasons[0].first,
            "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: "
            "0/2 nodes are available: 2 "
            "Preemption is not "
            "helpful for scheduling.");
}

TEST(EngineTest, DrainEvictsAndRecreatesElsewhere) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
duration: 1h
workloads:
- name: svc
  count: 2
  resources: {cpu: "1"}
ops:
- {at: 10m, op: drain, pool: np, count: 1}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_EQ(r.out.result.pods_evicted, 1);
  EXPECT_EQ(r.out.result.pods_running_end, 2);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:10:00.000 node-cordon np-0"));
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:10:00.000 bind default/svc-2 node=np-1"));
}

TEST(EngineTest, DeletedNodesTakeTheirPodsAndReplacementsGetNewNames) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
duration: 1h
workloads:
- name: svc
  count: 4
  resources: {cpu: "1"}
ops:
- {at: 10m, op: deleteNodes, pool: np, count: 1}
- {at: 20m, op: createNodes, pool: np, count: 1}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:10:00.000 node-remove np-1 reason=delete"));
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:20:00.000 node-add np-2 pool=np"));
  EXPECT_EQ(r.out.result.pods_evicted, 2);
  EXPECT_EQ(r.out.result.pods_running_end, 4);  // the recreated pods bound on the replacement node
  EXPECT_EQ(r.out.result.nodes_end, 2);
}

TEST(EngineTest, GangWaitIsUntilTheLastMemberIsBound) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
workloads:
- name: hog
  count: 1
  duration: 15m
  resources: {cpu: "2"}
- name: g
  kind: Gang
  start: 1m
  count: 1
  parallelism: 2
  duration: 5m
  resources: {cpu: "2"}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  // One member binds at 1m on the free node; the other waits for the hog to finish at 15m.
  EXPECT_EQ(r.out.result.gangs_arrived, 1);
  EXPECT_EQ(r.out.result.gangs_complete, 1);
  EXPECT_EQ(r.out.result.gang_wait.max(), 14LL * 60 * 1'000'000'000);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:15:00.000 gang-ready default/g-0 size=2 wait=14m0s"));
}

TEST(EngineTest, FixedSchedulingCostAdvancesTheVirtualClock) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
scheduler:
  schedulingCost: 10ms
workloads:
- name: a
  count: 5
  resources: {cpu: 100m}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  // Each decision takes effect at the end of its 10 ms cycle.
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:00:00.010 bind default/a-0"));
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:00:00.050 bind default/a-4"));
  EXPECT_EQ(r.out.result.latency.max(), 50'000'000);
}

TEST(EngineTest, BindLatencyDelaysTheStart) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
scheduler:
  bindLatency: 2s
workloads:
- name: a
  count: 1
  duration: 1m
  resources: {cpu: 100m}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_EQ(r.out.result.latency.max(), 2'000'000'000);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:01:02.000 complete default/a-0"));
}

TEST(EngineTest, SetPriorityAppliesToPodsCreatedAfterwards) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
duration: 30m
priorityClasses:
- {name: p, value: 5}
workloads:
- name: a
  arrival: {rate: 6/h}
  count: 2
  priorityClassName: p
  resources: {cpu: 100m}
ops:
- {at: 5m, op: setPriority, priorityClass: p, value: 7}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:05:00.000 op setPriority priorityClass=p value=7"));
  EXPECT_EQ(r.out.result.pods_scheduled, 2);
}

TEST(EngineTest, PoissonArrivalsStopAtTheirStopTime) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
duration: 2h
workloads:
- name: p
  arrival: {poisson: 60/h}
  stop: 1h
  duration: 1m
  resources: {cpu: 100m}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_GT(r.out.result.pods_arrived, 35);
  EXPECT_LT(r.out.result.pods_arrived, 90);
  EXPECT_THAT(
      r.log, ::testing::Not(::testing::HasSubstr("\n01:0")));  // nothing arrives after 1h (+1m run)
}

TEST(EngineTest, CreatePodsOpIsABurstOfTheTemplateAndCanWait) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
workloads:
- name: tmpl
  count: 0
  duration: 5m
  resources: {cpu: "1"}
ops:
- {at: 1m, op: createPods, workload: tmpl, count: 3, wait: true}
- {op: createPods, workload: tmpl, count: 2}
- {op: sleep, duration: 1m}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_THAT(r.log,
              ::testing::HasSubstr("00:01:00.000 op createPods workload=tmpl count=3 wait\n"));
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:01:00.000 op createPods workload=tmpl count=2\n"));
  EXPECT_EQ(r.out.result.pods_arrived, 5);
  EXPECT_EQ(r.out.result.pods_completed, 5);
  // 4 CPUs: the fifth pod waits for the first to complete at 00:06:00.
  EXPECT_EQ(r.out.result.latency.max(), 5LL * 60 * 1'000'000'000);
  ASSERT_EQ(r.out.result.workloads.size(), 3U);
  EXPECT_EQ(r.out.result.workloads[1].name, "tmpl-op0");
  EXPECT_EQ(r.out.result.workloads[1].pods_arrived, 3);
  EXPECT_EQ(r.out.result.workloads[2].pods_arrived, 2);
  EXPECT_EQ(r.out.result.workloads[0].pods_arrived, 0);
}

TEST(EngineTest, ChurnRecreatesNodesAndPodsUntilItsDuration) {
  Interner in = api::NewInterner();
  std::string text = R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: t}
duration: 10m
nodePools:
- name: np
  count: 2
  resources: {cpu: "2", memory: 4Gi, pods: "10"}
- name: extra
  count: 0
  resources: {cpu: "1", memory: 1Gi}
workloads:
- name: churner
  count: 0
  resources: {cpu: 100m}
ops:
- {at: 1m, op: churn, pool: extra, workload: churner, mode: recreate, number: 2, interval: 1m, duration: 4m}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:01:00.000 op churn mode=recreate pool=extra "
                                          "workload=churner number=2 interval=1m0s\n"));
  // Recreate keeps 2 of each alive: 2 at 1m, then one replaced per minute at 2m, 3m, 4m; stopped
  // at 5m.
  EXPECT_EQ(r.out.result.pods_arrived, 5);
  EXPECT_EQ(r.out.result.nodes_end, 4);
  EXPECT_THAT(r.log, ::testing::HasSubstr("00:04:00.000 node-remove"));
  EXPECT_THAT(r.log, ::testing::Not(::testing::HasSubstr("00:05:00.000 node-remove")));
}

TEST(EngineTest, ScenarioOpsReportMistakes) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  std::string text = std::string(kBase) + R"(
workloads:
- name: g
  kind: Gang
  count: 0
  parallelism: 2
ops:
- {op: createPods, workload: g}
- {op: churn}
- {op: churn, workload: g, mode: sometimes}
)";
  auto spec = ParseScenario(text, "test.yaml", "", in, diags);
  ASSERT_FALSE(spec.ok());
  const std::string& m = spec.error().message;
  EXPECT_THAT(m, ::testing::HasSubstr("ops[0]: missing required field \"count\""));
  EXPECT_THAT(m, ::testing::HasSubstr("ops[1]: churn needs a pool, a workload or both"));
  EXPECT_THAT(m, ::testing::HasSubstr("ops[2].mode"));
  EXPECT_THAT(m, ::testing::HasSubstr("ops[2].workload: churn creates single pods"));
}

TEST(EngineTest, GangMembersShareOneRunTime) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
workloads:
- name: g
  kind: Gang
  count: 2
  parallelism: 3
  duration: {uniform: {min: 10m, max: 50m}}
  resources: {cpu: 100m}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  EXPECT_EQ(r.out.result.pods_completed, 6);
  // Per gang, the three completions carry the same timestamp.
  std::map<std::string, std::set<std::string>> times;
  std::istringstream lines(r.log);
  for (std::string line; std::getline(lines, line);) {
    size_t sp = line.find(' ');
    if (line.compare(sp + 1, 9, "complete ") != 0) continue;
    std::string pod = line.substr(sp + 10, line.find(' ', sp + 10) - sp - 10);
    times[pod.substr(0, pod.rfind('-'))].insert(line.substr(0, sp));
  }
  ASSERT_EQ(times.size(), 2U) << r.log;
  for (const auto& [gang, ts] : times) EXPECT_EQ(ts.size(), 1U) << gang;
  EXPECT_NE(*times.begin()->second.begin(), *times.rbegin()->second.begin());  // sampled per gang
}

TEST(EngineTest, TimeSeriesIsSampledAtTheInterval) {
  Interner in = api::NewInterner();
  std::string text = std::string(kBase) + R"(
duration: 10m
sampleInterval: 1m
workloads:
- name: a
  count: 2
  resources: {cpu: "1"}
)";
  SimSpec spec = MustParse(text, in);
  Ran r = RunSpec(spec, in);
  ASSERT_EQ(r.out.result.samples.size(), 11U);  // 0, 1m, ..., 10m
  EXPECT_EQ(r.out.result.samples[3].t_ns, 180'000'000'000);
  EXPECT_FLOAT_EQ(r.out.result.samples[3].util[0], 0.5F);  // 2 of 4 CPUs
  EXPECT_EQ(r.out.result.samples[3].running, 2);
  EXPECT_EQ(r.out.result.heat[0].size(), 11U);
}

}  // namespace
}  // namespace corral::sim

namespace corral::sim {
namespace {

// Two member clusters built from one scenario: pool `b` and workload `w1` belong to the second.
Result<SimSpec> TwoClusters(Interner& in, std::string_view cost) {
  Diagnostics diags;
  auto spec = ParseScenario(fmt::format(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {{name: two}}
scheduler: {{schedulingCost: {}}}
nodePools:
- {{name: a, count: 2, resources: {{cpu: "4", memory: 8Gi}}}}
- {{name: b, count: 1, resources: {{cpu: "4", memory: 8Gi}}}}
workloads:
- {{name: w0, count: 10, resources: {{cpu: 100m, memory: 100Mi}}}}
- {{name: w1, count: 10, resources: {{cpu: 100m, memory: 100Mi}}}}
)",
                                        cost),
                            "two.yaml", "", in, diags);
  if (!spec.ok()) return spec;
  spec->clusters = {{"east", spec->gates, "", std::nullopt},
                    {"west", spec->gates, "", std::nullopt}};
  spec->pools[1].cluster = 1;
  spec->workloads[1].cluster = 1;
  return spec;
}

TEST(EngineMembersTest, EachWorkloadRunsInItsCluster) {
  Interner in = api::NewInterner();
  auto spec = TwoClusters(in, "instant");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  testing::Ran ran = testing::RunSpec(*spec, in);
  const RunResult& r = ran.out.result;
  ASSERT_EQ(r.clusters.size(), 2U);
  EXPECT_EQ(r.clusters[0].name, "east");
  EXPECT_EQ(r.clusters[0].nodes_end, 2);
  EXPECT_EQ(r.clusters[1].nodes_end, 1);
  EXPECT_EQ(r.clusters[0].pods_scheduled, 10);
  EXPECT_EQ(r.clusters[1].pods_scheduled, 10);
  EXPECT_EQ(r.pods_scheduled, 20);
  EXPECT_EQ(r.nodes_end, 3);
  // Every pod of w1 is on the west cluster's only node, every pod of w0 on an east node.
  std::istringstream log(ran.log);
  int w0 = 0, w1 = 0;
  for (std::string line; std::getline(log, line);) {
    if (line.find(" bind default/w1-") != std::string::npos) {
      EXPECT_NE(line.find(" node=b-0 "), std::string::npos) << line;
      EXPECT_TRUE(line.ends_with(" cluster=west")) << line;
      ++w1;
    } else if (line.find(" bind default/w0-") != std::string::npos) {
      EXPECT_NE(line.find(" node=a-"), std::string::npos) << line;
      EXPECT_TRUE(line.ends_with(" cluster=east")) << line;
      ++w0;
    } else if (line.find(" node-add b-0") != std::string::npos) {
      EXPECT_TRUE(line.ends_with(" cluster=west")) << line;
    }
  }
  EXPECT_EQ(w0, 10);
  EXPECT_EQ(w1, 10);
  // Each member's kube-scheduler metrics, labelled with its cluster.
  EXPECT_THAT(
      r.scheduler_metrics,
      ::testing::HasSubstr(
          "scheduler_schedule_attempts_total{cluster=\"east\",profile=\"default-scheduler\","
          "result=\"scheduled\"} 10\n"));
  EXPECT_THAT(
      r.scheduler_metrics,
      ::testing::HasSubstr(
          "scheduler_schedule_attempts_total{cluster=\"west\",profile=\"default-scheduler\","
          "result=\"scheduled\"} 10\n"));
  // West holds 10 × 100m of 4 cpus on one node; east spreads the same over two.
  EXPECT_NEAR(r.clusters[1].util.back()[0], 0.25, 1e-6);
  EXPECT_NEAR(r.clusters[0].util.back()[0], 0.125, 1e-6);
  // The summary and -o json gain a section per cluster.
  const std::string summary = FormatSummary(r);
  EXPECT_THAT(summary, ::testing::HasSubstr("CLUSTERS (the sections above are the fleet total)"));
  EXPECT_THAT(summary, ::testing::ContainsRegex("  west +1 +10 "));
  const auto j = nlohmann::json::parse(FormatJson(r));
  ASSERT_EQ(j["clusters"].size(), 2U);
  EXPECT_EQ(j["clusters"][1]["name"], "west");
  EXPECT_EQ(j["clusters"][1]["pods"]["scheduled"], 10);
  EXPECT_EQ(j["clusters"][1]["timeline"].size(), r.samples.size());
}

TEST(EngineMembersTest, LanesScheduleSideBySide) {
  // With a fixed cost per cycle, each member's lane is busy for its own cycles only: the two
  // clusters' ten pods each are bound by 10 ms, where one scheduler for all twenty would need
  // 20 ms.
  Interner in = api::NewInterner();
  auto spec = TwoClusters(in, "1ms");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  testing::Ran ran = testing::RunSpec(*spec, in);
  EXPECT_EQ(ran.out.result.pods_scheduled, 20);
  EXPECT_EQ(ran.out.result.clusters[0].cycles, 10);
  EXPECT_EQ(ran.out.result.clusters[1].cycles, 10);
  EXPECT_EQ(ran.log.find("00:00:00.011"), std::string::npos);
  EXPECT_NE(ran.log.find("00:00:00.010 bind default/w0-9"), std::string::npos) << ran.log;
  EXPECT_NE(ran.log.find("00:00:00.010 bind default/w1-9"), std::string::npos) << ran.log;
}

}  // namespace
}  // namespace corral::sim
