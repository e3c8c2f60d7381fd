// scheduler_perf configs: kube's format read as is, workloads selected by name and label, params
// and Go templates resolved, throughput measured with kube's collector on the virtual clock,
// thresholds checked, and kube's perf-dash JSON shape. Runs use a fixed scheduling cost so that the
// numbers are exact.

#include "corral/app/perf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "corral/sim/perf.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using app::PerfRunOptions;
using app::RunPerfWorkload;

constexpr const char* kConfig = "examples/scheduler_perf/misc/performance-config.yaml";

PerfConfig Load(Interner& in) {
  Diagnostics diags;
  auto c = PerfConfig::Load(kConfig, in, diags);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return std::move(c).value();
}

PerfRunOptions Fixed(int64_t ns) {
  PerfRunOptions o;
  o.cost = CostModel{CostModel::Mode::kFixed, ns};
  return o;
}

TEST(PerfConfigTest, SelectsByLabelAndName) {
  Interner in = api::NewInterner();
  PerfConfig c = Load(in);
  auto perf = c.Select({});  // kube's default label filter: performance
  ASSERT_TRUE(perf.ok());
  std::vector<std::string> names;
  for (const auto& r : *perf) names.push_back(r.name);
  EXPECT_THAT(names, ::testing::Contains("SchedulingBasic/5000Nodes_10000Pods"));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("SchedulingBasic/5Nodes")));
  auto quick = c.Select({.label_filter = "performance,short,-integration-test"});
  ASSERT_TRUE(quick.ok());
  for (const auto& r : *quick) EXPECT_THAT(r.labels, ::testing::Contains("short"));
  auto one = c.Select({.test_case = "SchedulingBasic", .workload = "5Nodes"});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1U);
  auto missing = c.Select({.test_case = "Nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, ::testing::HasSubstr("no test case \"Nope\" (have "));
}

TEST(PerfRunTest, OneMillisecondPerCycleIsAThousandPodsPerSecond) {
  Interner in = api::NewInterner();
  PerfConfig c = Load(in);
  auto refs = c.Select({.test_case = "SchedulingBasic", .workload = "5Nodes"});
  ASSERT_TRUE(refs.ok());
  PerfResult r = RunPerfWorkload(c, (*refs)[0], in, Fixed(1'000'000));
  ASSERT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  EXPECT_EQ(r.measured_pods, 10);
  EXPECT_EQ(r.measured_scheduled, 10);
  // 10 pods in 10 ms: shorter than two 1 s samples, so one sample over the window.
  EXPECT_TRUE(r.single_window);
  EXPECT_DOUBLE_EQ(r.throughput.average, 1000.0);
  EXPECT_EQ(r.attempt_ns.Percentile(99), 1'000'000);
}

TEST(PerfRunTest, KubeCollectorSamplesOverLongWindows) {
  Interner in = api::NewInterner();
  constexpr std::string_view kCfg = R"(
- name: Long
  workloadTemplate:
  - opcode: createNodes
    count: 20
  - opcode: createPods
    count: 500
    collectMetrics: true
  workloads:
  - name: w
)";
  Diagnostics diags;
  auto c = PerfConfig::Parse(kCfg, "long.yaml", in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  // 500 pods at 20 ms each: 50 pods per virtual second for 10 s. Samples at 1 s … 10 s, the
  // first skipped.
  PerfResult r = RunPerfWorkload(*c, c->All()[0], in, Fixed(20'000'000));
  ASSERT_NE(r.status, PerfResult::Status::kError) << r.message;
  EXPECT_FALSE(r.single_window);
  ASSERT_TRUE(r.throughput.has_samples);
  EXPECT_EQ(r.throughput.samples, 9U);
  EXPECT_DOUBLE_EQ(r.throughput.average, 50.0);
  EXPECT_DOUBLE_EQ(r.throughput.perc99, 50.0);
}

TEST(PerfRunTest, ThresholdsPassAndFail) {
  Interner in = api::NewInterner();
  constexpr std::string_view kCfg = R"(
- name: Basic
  workloadTemplate:
  - opcode: createNodes
    countParam: $nodes
  - opcode: createPods
    countParam: $pods
    collectMetrics: true
  workloads:
  - name: fast
    threshold: 900
    params: {nodes: 10, pods: 20}
  - name: slow
    threshold: 1100
    params: {nodes: 10, pods: 20}
  - name: latency
    threshold: 0.5
    thresholdMetricSelector: {name: scheduler_scheduling_attempt_duration_seconds, dataBucket: Perc99, expectLower: true}
    params: {nodes: 10, pods: 20}
)";
  Diagnostics diags;
  auto c = PerfConfig::Parse(kCfg, "inline.yaml", in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<PerfResult> results;
  for (const auto& ref : c->All())
    results.push_back(RunPerfWorkload(*c, ref, in, Fixed(1'000'000)));
  ASSERT_EQ(results.size(), 3U);
  EXPECT_EQ(results[0].status, PerfResult::Status::kPass) << results[0].message;
  EXPECT_EQ(results[1].status, PerfResult::Status::kFail) << results[1].message;
  EXPECT_EQ(results[1].message, "SchedulingThroughput Average 1000.0 pods/s < threshold 1100");
  EXPECT_EQ(results[2].status, PerfResult::Status::kFail) << results[2].message;  // 1 ms > 0.5 ms

  auto j = nlohmann::json::parse(FormatPerfJson(results));
  EXPECT_EQ(j["version"], "v1");
  ASSERT_GE(j["dataItems"].size(), 3U);
  const auto& item = j["dataItems"][0];
  EXPECT_EQ(item["unit"], "pods/s");
  EXPECT_EQ(item["labels"]["Name"], "Basic/fast");
  EXPECT_EQ(item["labels"]["Metric"], "SchedulingThroughput");
  for (const char* k : {"Average", "Perc50", "Perc90", "Perc95", "Perc99"})
    EXPECT_TRUE(item["data"].contains(k)) << k;
}

TEST(PerfRunTest, EveryIntegrationWorkloadOfTheExampleRuns) {
  Interner in = api::NewInterner();
  PerfConfig c = Load(in);
  auto refs = c.Select({.label_filter = "integration-test"});
  ASSERT_TRUE(refs.ok());
  EXPECT_GE(refs->size(), 6U);
  for (const auto& ref : *refs) {
    PerfResult r = RunPerfWorkload(c, ref, in, Fixed(1'000'000));
    EXPECT_TRUE(r.status == PerfResult::Status::kNoThreshold ||
                r.status == PerfResult::Status::kPass)
        << ref.name << ": " << PerfStatusName(r.status) << " " << r.message;
    EXPECT_GT(r.measured_scheduled, 0) << ref.name;
  }
}

TEST(PerfConfigTest, UnknownParamsAndTemplatesAreReportedWhereTheyAre) {
  Interner in = api::NewInterner();
  constexpr std::string_view kCfg = R"(
- name: Broken
  workloadTemplate:
  - opcode: createNodes
    countParam: $nodes
  - opcode: createPods
    count: 3
    podTemplatePath: does/not/exist.yaml
  - opcode: teleport
  workloads:
  - name: w
    params: {pods: 3}
)";
  Diagnostics diags;
  auto c = PerfConfig::Parse(kCfg, "broken.yaml", in, diags);
  ASSERT_TRUE(c.ok());
  auto spec = c->Compile(c->All()[0], in, diags);
  ASSERT_FALSE(spec.ok());
  std::string all;
  for (const auto& d : diags.items()) all += d.ToString() + "\n";
  EXPECT_EQ(all,
            "broken.yaml:5: [0].workloadTemplate[0].countParam: parameter \"nodes\" is not set by "
            "workload \"w\"\n"
            "broken.yaml:8: [0].workloadTemplate[1].podTemplatePath: cannot read template "
            "\"does/not/exist.yaml\"\n"
            "broken.yaml:9: [0].workloadTemplate[2].opcode: unknown opcode \"teleport\"\n");
}

TEST(PerfConfigTest, UpdateAnyWithAMissingTemplateIsAnError) {
  Interner in = api::NewInterner();
  constexpr std::string_view kCfg = R"(
- name: Update
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: updateAny
    templatePath: update.yaml
  workloads:
  - name: w
)";
  Diagnostics diags;
  auto c = PerfConfig::Parse(kCfg, "update.yaml", in, diags);
  ASSERT_TRUE(c.ok());
  PerfResult r = RunPerfWorkload(*c, c->All()[0], in, Fixed(1'000'000));
  // updateAny reads its template to learn the object's kind; here the file does not exist.
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message, ::testing::HasSubstr("update.yaml"));
}

}  // namespace
}  // namespace corral::sim
