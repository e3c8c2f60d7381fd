// scheduler_perf's DRA ops: the glob createResourceDriver matches node names with (Go's
// path/filepath.Match), the slices it publishes, createResourceClaims, allocResourceClaims (claims
// allocated before the measured pods, each device at most once) and pods whose claims come from a
// ResourceClaimTemplate. Configs are parsed as if they lived next to the copy of kube's DRA config
// under examples/scheduler_perf/kube/dra, so their template paths are kube's.

#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/app/perf.h"
#include "corral/cel/cel.h"
#include "corral/sim/input/perf_config_internal.h"
#include "corral/sim/perf.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using app::PerfRunOptions;
using app::RunPerfWorkload;
using ::testing::HasSubstr;

// Cases of Go's path/filepath TestMatch (match_test.go) that have no separator in the name, with
// Go's expected results; a malformed pattern is no match (Go: ErrBadPattern).
TEST(PerfDraOpsTest, GlobMatchAsGoFilepathMatch) {
  struct Case {
    std::string_view pattern, name;
    bool match;
  } cases[] = {
      {"abc", "abc", true},
      {"*", "abc", true},
      {"*c", "abc", true},
      {"a*", "a", true},
      {"a*", "abc", true},
      {"a*", "ab/c", false},
      {"a*b*c*d*e*", "axbxcxdxe", true},
      {"ab[c]", "abc", true},
      {"ab[b-d]", "abc", true},
      {"ab[e-g]", "abc", false},
      {"ab[^c]", "abc", false},
      {"ab[^b-d]", "abc", false},
      {"ab[^e-g]", "abc", true},
      {"a\\*b", "a*b", true},
      {"a\\*b", "ab", false},
      {"a?b", "a☺b", false},  // Go matches one rune; one byte here, so a multi-byte rune fails
      {"a?b", "axb", true},
      {"a[^a]b", "axb", true},
      {"a???b", "a☺b", true},  // the rune's three bytes
      {"*x", "xxx", true},
      {"[", "a", false},
      {"[^", "a", false},
      {"a[", "a", false},
      {"scheduler-perf-dra-*", "scheduler-perf-dra-12", true},
      {"scheduler-perf-dra-*", "scheduler-perf-12", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(perf_detail::GlobMatch(c.pattern, c.name), c.match)
        << "pattern " << c.pattern << " name " << c.name;
  }
  EXPECT_FALSE(perf_detail::WellFormedGlob("a["));
  EXPECT_TRUE(perf_detail::WellFormedGlob("a[b-c]*"));
}

TEST(PerfDraOpsTest, DriverSliceHasKubesDevices) {
  Interner in = api::NewInterner();
  const std::string yaml = perf_detail::DriverSliceYaml("test-driver.cdi.k8s.io", "node-1", 3);
  auto obj = perf_detail::LoadRendered(yaml, "slice.yaml", in);
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  ASSERT_NE(obj->objects.resources, nullptr);
  ASSERT_EQ(obj->objects.resources->resource_slices.size(), 1U);
  const auto& s = obj->objects.resources->resource_slices[0];
  EXPECT_EQ(in.Str(s.meta.name), "node-1");
  EXPECT_EQ(in.Str(s.node_name), "node-1");
  EXPECT_EQ(in.Str(s.pool_name), "node-1");
  EXPECT_EQ(s.resource_slice_count, 1);
  ASSERT_EQ(s.devices.size(), 3U);
  EXPECT_EQ(in.Str(s.devices[2].name), "instance-2");
  EXPECT_EQ(s.devices[2].attributes.size(), 4U);
  ASSERT_EQ(s.devices[2].capacity.size(), 1U);
  EXPECT_EQ(s.devices[2].capacity[0].id, "memory");
}

// A program compiled from a buffer that is gone before it runs (as templates rendered for one
// object are) still evaluates its literals correctly.
TEST(PerfDraOpsTest, CelProgramOwnsItsSource) {
  auto compiled = [] {
    std::string text = "device.driver == \"test-driver.cdi.k8s.io\" && true";
    auto r = cel::Compile(text);
    text.assign(text.size(), 'x');
    return r;
  }();
  ASSERT_NE(compiled.program, nullptr) << compiled.error.message;
  cel::Device d;
  d.driver = "test-driver.cdi.k8s.io";
  bool matched = false;
  std::string error;
  ASSERT_TRUE(compiled.program->Matches(d, &matched, &error)) << error;
  EXPECT_TRUE(matched);
}

PerfRunOptions Fixed() {
  PerfRunOptions o;
  o.cost = CostModel{CostModel::Mode::kFixed, 1'000'000};
  return o;
}

Result<PerfConfig> ParseDra(std::string_view cfg, Interner& in, Diagnostics& diags) {
  return PerfConfig::Parse(cfg, "examples/scheduler_perf/kube/dra/inline.yaml", in, diags);
}

// Two DRA nodes with 3 devices each and one without: 4 claims allocated up front leave 2 devices,
// so of 3 pods with a claim from the template 2 are scheduled.
constexpr std::string_view kAllocThenSchedule = R"(
- name: T
  featureGates:
    DynamicResourceAllocation: true
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: createNodes
    nodeTemplatePath: templates/node-with-dra-test-driver.yaml
    count: 2
  - opcode: createResourceDriver
    driverName: test-driver.cdi.k8s.io
    nodes: scheduler-perf-dra-*
    maxClaimsPerNode: 3
  - opcode: createAny
    templatePath: templates/deviceclass.yaml
  - opcode: createAny
    templatePath: templates/resourceclaim.yaml
    namespace: init
    count: INIT
  - opcode: allocResourceClaims
    namespace: init
  - opcode: createAny
    templatePath: templates/resourceclaimtemplate.yaml
    namespace: test
  - opcode: startCollectingMetrics
    namespaces: [test]
  - opcode: createPods
    namespace: test
    count: 3
    podTemplatePath: templates/pod-with-claim-template.yaml
    skipWaitToCompletion: true
  - opcode: barrier
    stageRequirement: Attempted
  - opcode: stopCollectingMetrics
  workloads:
  - name: w
)";

std::string WithInit(int n) {
  std::string cfg(kAllocThenSchedule);
  cfg.replace(cfg.find("INIT"), 4, std::to_string(n));
  return cfg;
}

TEST(PerfDraOpsTest, CreateResourceDriverAndAllocResourceClaims) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto c = ParseDra(WithInit(4), in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto spec = c->Compile(c->All()[0], in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_NE(spec->objects.resources, nullptr);
  const auto& r = *spec->objects.resources;
  ASSERT_EQ(r.resource_slices.size(), 2U);
  EXPECT_EQ(in.Str(r.resource_slices[0].node_name), "scheduler-perf-dra-0");
  EXPECT_EQ(in.Str(r.resource_slices[1].node_name), "scheduler-perf-dra-1");
  ASSERT_EQ(r.resource_claims.size(), 4U);
  std::set<std::string> devices;
  for (const auto& claim : r.resource_claims) {
    EXPECT_EQ(in.Str(claim.meta.namespace_), "init");
    ASSERT_TRUE(claim.allocation.has_value()) << in.Str(claim.meta.name);
    ASSERT_EQ(claim.allocation->devices.size(), 1U);
    const auto& d = claim.allocation->devices[0];
    devices.insert(std::string(in.Str(d.pool)) + "/" + std::string(in.Str(d.device)));
    EXPECT_TRUE(claim.reserved_for.empty());
  }
  EXPECT_EQ(devices.size(), 4U);  // each device at most once

  PerfResult res = RunPerfWorkload(*c, c->All()[0], in, Fixed());
  ASSERT_NE(res.status, PerfResult::Status::kError) << res.message;
  EXPECT_EQ(res.measured_pods, 3);
  EXPECT_EQ(res.measured_scheduled, 2);
}

TEST(PerfDraOpsTest, AllocResourceClaimsFailsAsKubeWhenDevicesRunOut) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto c = ParseDra(WithInit(7), in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto spec = c->Compile(c->All()[0], in, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.error().message, HasSubstr("could not allocate claim 6 out of 7"));
}

TEST(PerfDraOpsTest, CreateResourceDriverNeedsItsFields) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto c = ParseDra(R"(
- name: T
  workloadTemplate:
  - opcode: createResourceDriver
    nodes: "x["
    maxClaimsPerNode: 1
    driverName: d
  workloads:
  - name: w
)",
                    in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto spec = c->Compile(c->All()[0], in, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.error().message, HasSubstr("syntax error in pattern"));
}

TEST(PerfDraOpsTest, CreateResourceClaimsNamesGeneratedCopies) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto c = ParseDra(R"(
- name: T
  workloadTemplate:
  - opcode: createResourceClaims
    namespace: ns
    count: 2
    templatePath: templates/resourceclaim.yaml
  workloads:
  - name: w
)",
                    in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto spec = c->Compile(c->All()[0], in, diags);
  // kube's op reads the file as one fixed object: two copies of a named claim cannot be created.
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.error().message, HasSubstr("AlreadyExists"));
}

}  // namespace
}  // namespace corral::sim
