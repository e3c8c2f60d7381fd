// scheduler_perf workloads under kube-scheduler's --emulated-version (PerfConfig::Compile's
// emulated version): the gates a workload sets are set at that version, so the twins of gates
// locked in v1.37 run where kube v1.37 emulating v1.36 runs them, and fail where it fails, with
// kube's messages; the runs with the gates off decide as kube v1.36 does.

#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/app/simulate.h"
#include "corral/framework/feature_gates.h"
#include "corral/sim/perf.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using framework::Feature;
using framework::KubeVersion;

// Beside kube's misc templates, as the misc config is.
constexpr std::string_view kPath = "examples/scheduler_perf/kube/misc/inline.yaml";

// Nodes with one extended resource each (foo.com/bar-<i>) and one pod per node requesting its
// node's resource, plus one node without any: kube's SchedulingWithExtendedResource. GATES is
// replaced by the workload's featureGates.
constexpr std::string_view kConfig = R"(
- name: T
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: createNodes
    nodeTemplatePath: templates/node-with-extended-resource.yaml
    count: 3
  - opcode: createPods
    namespace: test
    count: 3
    podTemplatePath: templates/pod-with-extended-resource.yaml
    collectMetrics: true
  workloads:
  - name: w
    featureGates:
GATES
)";

struct Compiled {
  std::string error;
  std::optional<SimSpec> spec;
};

Compiled Compile(std::string_view gates, KubeVersion v, Interner& in) {
  std::string cfg(kConfig);
  cfg.replace(cfg.find("GATES"), 5, gates);
  Diagnostics diags;
  auto c = PerfConfig::Parse(cfg, std::string(kPath), in, diags);
  if (!c.ok()) return {c.error().message, std::nullopt};
  auto spec = c->Compile(c->All().front(), in, diags, v);
  if (!spec.ok()) return {spec.error().message, std::nullopt};
  return {"", *std::move(spec)};
}

TEST(PerfEmulationTest, LockedGatesAtEachEmulatedVersion) {
  struct Case {
    std::string gates;
    int minor;
    std::string error;  // empty: compiles
  };
  const std::string at = std::string(kPath) + ":";
  const Case cases[] = {
      {"      DRAExtendedResource: false", 37,
       at + "17: featureGates.DRAExtendedResource: cannot set feature gate DRAExtendedResource to "
            "false, feature is locked to true"},
      {"      DRAExtendedResource: false", 36, ""},
      {"      DRAExtendedResource: false", 34, ""},
      {"      NodeDeclaredFeatures: false", 37,
       at + "17: featureGates.NodeDeclaredFeatures: cannot set feature gate NodeDeclaredFeatures "
            "to false, feature is locked to true"},
      {"      NodeDeclaredFeatures: false", 36, ""},
      {"      NodeDeclaredFeatures: false", 34,
       at + "17: featureGates.NodeDeclaredFeatures: cannot set feature gate NodeDeclaredFeatures "
            "to false, feature is PreAlpha at emulated version 1.34, min compatibility version "
            "1.33"},
      {"      SchedulerQueueingHints: false", 34,
       at + "17: featureGates.SchedulerQueueingHints: cannot set feature gate "
            "SchedulerQueueingHints to false, feature is locked to true"},
      {"      DRAPrioritizedList: false", 36,
       "unsupported: feature gate DRAPrioritizedList=false is not modelled by Corral: Corral's DRA "
       "allocator always honours firstAvailable (kube's behaviour with the gate on)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{} at 1.{}", c.gates, c.minor));
    Interner in = api::NewInterner();
    Compiled r = Compile(c.gates, KubeVersion{1, c.minor}, in);
    if (c.error.empty()) {
      ASSERT_EQ(r.error, "");
      EXPECT_EQ(r.spec->gates.emulation_version(), (KubeVersion{1, c.minor}));
    } else {
      EXPECT_EQ(r.error, c.error);
    }
  }
}

// The twin with DRAExtendedResource off at v1.36 runs as kube v1.36's: every pod fits the one node
// that advertises its resource, and the gates that differ from v1.37's are v1.36's defaults.
TEST(PerfEmulationTest, ExtendedResourceTwinRunsAtV136) {
  Interner in = api::NewInterner();
  Compiled r = Compile("      DRAExtendedResource: false", KubeVersion{1, 36}, in);
  ASSERT_EQ(r.error, "");
  EXPECT_FALSE(r.spec->gates.Enabled(Feature::kDRAExtendedResource));
  EXPECT_FALSE(r.spec->gates.Enabled(Feature::kStorageCapacityScoring));  // beta in v1.37 only
  EXPECT_TRUE(r.spec->gates.Enabled(Feature::kNodeDeclaredFeatures));
  EXPECT_EQ(r.spec->explicit_gates, (std::vector<std::string>{"DRAExtendedResource=false"}));
  r.spec->cost = CostModel{CostModel::Mode::kFixed, 1'000'000};
  Diagnostics diags;
  auto run = app::RunSimulation(*r.spec, in, diags, app::RunRequest{});
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->result.failure, "");
  EXPECT_EQ(run->result.pods_scheduled, 3);
  ASSERT_EQ(run->result.provenance.schedulers.size(), 1u);
  const SchedulerProvenance& p = run->result.provenance.schedulers[0];
  EXPECT_EQ(p.emulated_version, "1.36");
  EXPECT_TRUE(p.gates_non_default == (std::vector<std::string>{"DRAExtendedResource=false"}));
}

}  // namespace
}  // namespace corral::sim
