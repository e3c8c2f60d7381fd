// Input formats: scenario diagnostics (file, line, field path, all of them), the embedded default
// scenario, Alibaba trace import (and its errors), manifests with duration annotations.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/loader/loader.h"
#include "corral/sim/input/default_scenario.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/input/trace.h"

#include "test/sim/sim_test_util.h"

namespace corral::sim {
namespace {

using testing::ExpectGolden;
using testing::ReadFileOrEmpty;
using testing::RunSpec;

std::string Lines(const Diagnostics& diags) {
  std::string s;
  for (const auto& d : diags.items()) s += d.ToString() + "\n";
  return s;
}

TEST(ScenarioTest, ReportsEveryMistakeWithFileLineAndPath) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("test/sim/testdata/bad_scenario.yaml", in, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().code, ErrorCode::kInvalidInput);
  ExpectGolden("test/sim/testdata/bad_scenario.golden", Lines(diags));
}

TEST(ScenarioTest, ClusterMistakesAreReportedWithPositions) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("test/sim/testdata/bad_clusters.yaml", in, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().code, ErrorCode::kInvalidInput);
  ExpectGolden("test/sim/testdata/bad_clusters.golden", Lines(diags));
}

TEST(ScenarioTest, ClustersOwnTheirPoolsAndSchedulerSettings) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  constexpr std::string_view kText = R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
scheduler:
  bindLatency: 1s
clusters:
- name: a
  scheduler:
    featureGates: {GenericWorkload: false}
  nodePools:
  - {name: pa, count: 2, resources: {cpu: "4"}}
- name: b
  nodePools:
  - {name: pb, count: 1, resources: {cpu: "8"}}
workloads:
- {name: wa, cluster: a, count: 1, resources: {cpu: "1"}}
- {name: wb, cluster: b, count: 1, resources: {cpu: "1"}}
)";
  auto spec = ParseScenario(kText, "t.yaml", "", in, diags);
  ASSERT_TRUE(spec.ok()) << Lines(diags);
  ASSERT_EQ(spec->clusters.size(), 2U);
  EXPECT_EQ(spec->clusters[0].name, "a");
  EXPECT_EQ(spec->clusters[1].name, "b");
  EXPECT_FALSE(spec->clusters[0].gates.Enabled(framework::Feature::kGenericWorkload));
  EXPECT_TRUE(spec->clusters[1].gates.Enabled(framework::Feature::kGenericWorkload));
  ASSERT_EQ(spec->pools.size(), 2U);
  EXPECT_EQ(spec->pools[0].cluster, 0U);
  EXPECT_EQ(spec->pools[1].cluster, 1U);
  ASSERT_EQ(spec->workloads.size(), 2U);
  EXPECT_EQ(spec->workloads[0].cluster, 0U);
  EXPECT_EQ(spec->workloads[1].cluster, 1U);
}

TEST(ScenarioTest, ClusterFieldsInTheWrongPlaceArePositionedErrors) {
  struct Case {
    std::string_view text;
    std::string_view want;
  };
  const Case kCases[] = {
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
nodePools:
- {name: p, count: 1, resources: {cpu: "4"}}
workloads:
- {name: w, cluster: east, count: 1, resources: {cpu: "1"}}
)",
       "t.yaml:6: workloads[0].cluster: the scenario declares no clusters"},
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
nodePools:
- {name: p, count: 1, resources: {cpu: "4"}}
clusters:
- name: east
workloads:
- {name: w, cluster: east, count: 1, resources: {cpu: "1"}}
)",
       "t.yaml:4: nodePools: a scenario with clusters declares its node pools per cluster"},
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
scheduler:
  featureGates: {GenericWorkload: true}
clusters:
- name: east
  nodePools:
  - {name: p, count: 1, resources: {cpu: "4"}}
)",
       "t.yaml:4: scheduler.featureGates: a scenario with clusters sets feature gates"},
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
clusters:
- nodePools:
  - {name: p, count: 1, resources: {cpu: "4"}}
)",
       "t.yaml:4: clusters[0].name: required field \"name\" is missing"},
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
clusters:
- name: east
  scheduler:
    featureGates: {GenericWorkload: maybe}
  nodePools:
  - {name: p, count: 1, resources: {cpu: "4"}}
)",
       "t.yaml:6: clusters[0].scheduler.featureGates[GenericWorkload]: want true or false"},
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
clusters:
- name: east
  nodePools:
  - {name: p, count: 1, resources: {cpu: "4"}}
- name: west
  nodePools:
  - {name: p, count: 1, resources: {cpu: "4"}}
)",
       // Pool names are unique over the whole scenario: ops name a pool, not a cluster.
       "t.yaml:9: clusters[1].nodePools[0].name: duplicate pool name \"p\""},
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
clusters: []
)",
       "t.yaml:3: clusters: must declare at least one cluster"},
      // Unknown keys of a cluster are errors, not warnings: a misspelled nodePools would leave the
      // member without nodes.
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
clusters:
- name: east
  nodePool:
  - {name: p, count: 1, resources: {cpu: "4"}}
)",
       "t.yaml:5: clusters[0].nodePool: unknown field \"nodePool\" (did you mean \"nodePools\"?)"},
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
clusters:
- name: east
  nodePools:
  - {name: p, count: 1, resources: {cpu: "4"}}
  schedular: {featureGates: {GenericWorkload: false}}
)",
       "t.yaml:7: clusters[0].schedular: unknown field \"schedular\" (did you mean "
       "\"scheduler\"?)"},
      // bindLatency is the scenario's, not a member's.
      {R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
clusters:
- name: east
  scheduler: {bindLatency: 1s}
  nodePools:
  - {name: p, count: 1, resources: {cpu: "4"}}
)",
       "t.yaml:5: clusters[0].scheduler.bindLatency: unknown field \"bindLatency\""},
  };
  for (const auto& c : kCases) {
    Interner in = api::NewInterner();
    Diagnostics diags;
    auto spec = ParseScenario(c.text, "t.yaml", "", in, diags);
    EXPECT_FALSE(spec.ok()) << c.text;
    EXPECT_THAT(Lines(diags), ::testing::HasSubstr(std::string(c.want))) << c.text;
  }
}

TEST(ScenarioTest, TemplateErrorsFromTheLoaderPointIntoTheScenario) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  constexpr std::string_view kText = R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
nodePools:
- name: np
  count: 1
  template:
    status:
      capacity:
        cpu: "4"
        memory: 8Qi
workloads:
- name: w
  count: 1
  template:
    spec:
      containers:
      - name: c
        image: x
        resources:
          requests: {cpu: -1}
)";
  auto spec = ParseScenario(kText, "t.yaml", "", in, diags);
  ASSERT_FALSE(spec.ok());
  std::string all = Lines(diags);
  EXPECT_THAT(all,
              ::testing::HasSubstr("t.yaml:10: nodePools[0].template.status.capacity[memory]: "));
  EXPECT_THAT(all,
              ::testing::HasSubstr(
                  "t.yaml:20: workloads[0].template.spec.containers[0].resources.requests[cpu]: "));
}

TEST(ScenarioTest, RatesParse) {
  double r = 0;
  ASSERT_TRUE(ParseRate("2/s", r));
  EXPECT_DOUBLE_EQ(r, 2);
  ASSERT_TRUE(ParseRate("30/min", r));
  EXPECT_DOUBLE_EQ(r, 0.5);
  ASSERT_TRUE(ParseRate("36/h", r));
  EXPECT_DOUBLE_EQ(r, 0.01);
  ASSERT_TRUE(ParseRate("0.25", r));
  EXPECT_DOUBLE_EQ(r, 0.25);
  EXPECT_FALSE(ParseRate("0/s", r));
  EXPECT_FALSE(ParseRate("3/week", r));
  EXPECT_FALSE(ParseRate("x/s", r));
}

TEST(DefaultScenarioTest, EmbeddedTextIsTheExampleFile) {
  std::string file = ReadFileOrEmpty("examples/scenarios/default.yaml");
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(DefaultScenarioYaml(), file)
      << "rebuild: the binary embeds examples/scenarios/default.yaml";
}

TEST(DefaultScenarioTest, IsTheDocumentedDay) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(DefaultScenarioYaml(), "default.yaml", "", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->duration_ns, 24LL * 3600 * 1'000'000'000);
  int64_t nodes = 0;
  for (const auto& p : spec->pools) nodes += p.initial_count;
  EXPECT_EQ(nodes, 2000);
  bool gpu = false, gang = false, spread = false;
  for (const auto& p : spec->pools)
    gpu = gpu || api::FindResource(p.tmpl.allocatable, in.Intern("nvidia.com/gpu"));
  for (const auto& w : spec->workloads) gang = gang || w.kind == WorkloadKind::kGang;
  for (const auto& t : spec->pod_templates)
    spread = spread || !t.pod.topology_spread_constraints.empty();
  EXPECT_TRUE(gpu);
  EXPECT_TRUE(gang);
  EXPECT_TRUE(spread);
  std::vector<std::string> classes;
  for (const auto& pc : spec->objects.priority_classes) classes.emplace_back(in.Str(pc.meta.name));
  EXPECT_THAT(classes, ::testing::IsSupersetOf(
                           {"critical", "training-high", "training-low", "batch", "best-effort"}));
}

TEST(ExampleScenariosTest, AllParse) {
  for (const char* f : {"examples/scenarios/small.yaml", "examples/scenarios/default.yaml",
                        "examples/scenarios/gpu-gangs.yaml", "examples/scenarios/maintenance.yaml",
                        "examples/scenarios/fleet-10k.yaml"}) {
    Interner in = api::NewInterner();
    Diagnostics diags;
    auto spec = LoadScenarioFile(f, in, diags);
    EXPECT_TRUE(spec.ok()) << f << ": " << (spec.ok() ? "" : spec.error().message);
  }
}

TEST(TraceTest, ImportsTheAlibabaColumnsAndRuns) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadAlibabaTrace(
      {"examples/traces/openb_pod_list_sample.csv", "examples/traces/openb_node_list_sample.csv"},
      in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  // pod-0012 asks for a GPU model no node has: a warning, not a silent drop.
  ASSERT_EQ(diags.warning_count(), 1U);
  EXPECT_EQ(diags.items()[0].ToString(),
            "examples/traces/openb_pod_list_sample.csv:13: warning: gpu_spec: no node has GPU "
            "model \"H800\"; pods "
            "asking for it stay pending");
  ASSERT_EQ(spec->initial_nodes.size(), 6U);
  const api::Node& n2 = spec->initial_nodes[1];
  EXPECT_EQ(in.Str(n2.meta.name), "openb-node-0002");
  EXPECT_EQ(api::FindResource(n2.allocatable, in.Intern("nvidia.com/gpu"))->Value(), 8);
  EXPECT_EQ(api::FindResource(n2.allocatable, api::wk::kCpu)->MilliValue(), 96000);
  EXPECT_EQ(api::FindResource(n2.allocatable, api::wk::kMemory)->Value(), 786432LL * 1024 * 1024);
  EXPECT_EQ(in.Str(*n2.meta.labels.Find(in.Intern("alibabacloud.com/gpu-card-model"))), "V100M32");
  ASSERT_EQ(spec->workloads.size(), 1U);
  const auto& arrivals = spec->workloads[0].explicit_arrivals;
  ASSERT_EQ(arrivals.size(), 12U);
  EXPECT_EQ(arrivals[0].time_ns, 0);                           // creation 100 is the origin
  EXPECT_EQ(arrivals[0].duration_ns, 1800LL * 1'000'000'000);  // 1900 − 100
  EXPECT_EQ(arrivals[2].duration_ns, kForeverNs);              // no deletion_time
  auto r = RunSpec(*spec, in);
  ExpectGolden("test/sim/testdata/trace.log", r.log);
  EXPECT_EQ(r.out.result.pods_arrived, 12);
  // The H800 pod, and two pods whose only matching node is busy for the rest of the trace.
  EXPECT_EQ(r.out.result.pods_unschedulable_end, 3);
}

TEST(TraceTest, ReportsEveryBadRow) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadAlibabaTrace(
      {"test/sim/testdata/bad_nodes.csv", "test/sim/testdata/bad_pods.csv"}, in, diags);
  ASSERT_FALSE(spec.ok());
  ExpectGolden("test/sim/testdata/bad_trace.golden", Lines(diags));
}

TEST(TraceTest, RejectsFilesThatAreNotTraceLists) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadAlibabaTrace({"examples/scenarios/small.yaml"}, in, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(Lines(diags), ::testing::HasSubstr(
                                "examples/scenarios/small.yaml:1: not an Alibaba GPU v2023 list"));
}

TEST(ManifestsTest, BadDurationAnnotationNamesThePod) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {corral.dev/duration: "ten minutes"}
spec:
  containers: [{name: c, image: x}]
)";
  auto loaded = loader::LoadString(kPod, "p.yaml", in);
  ASSERT_TRUE(loaded.ok());
  SimSpec spec;
  AddManifestPods({&loaded.objects.pods[0]}, in, spec, diags);
  ASSERT_TRUE(diags.has_errors());
  EXPECT_EQ(diags.items()[0].ToString(),
            "p.yaml:1: metadata.annotations[corral.dev/duration]: invalid duration \"ten minutes\" "
            "(want a Go "
            "duration such as \"30m\" or \"1h30m\")");
}

}  // namespace
}  // namespace corral::sim
