// Inputs that once crashed or hung the simulator, each ending at once with its expected outcome: a
// positioned error, or a run that ends. Copies of the inputs live in testdata/reliability. Each
// case ends in milliseconds; the long sleep case checks through its virtual end time that idle time
// was skipped rather than ticked through.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/app/perf.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/virtual_time.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kSecond = 1'000'000'000;

constexpr const char* kDir = "test/sim/testdata/reliability/";

std::string ScenarioError(const std::string& file) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile(kDir + file, in, diags);
  EXPECT_FALSE(spec.ok()) << file << " was accepted";
  return spec.ok() ? "" : spec.error().message;
}

app::PerfRunOptions Fixed() {
  app::PerfRunOptions o;
  o.cost = CostModel{CostModel::Mode::kFixed, 1'000'000};
  return o;
}

PerfResult RunPerf(const std::string& dir, Interner& in) {
  Diagnostics diags;
  auto c = PerfConfig::Load(kDir + dir + "/perf.yaml", in, diags);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (!c.ok()) return {};
  return app::RunPerfWorkload(*c, c->All()[0], in, Fixed());
}

TEST(ReliabilityTest, DurationBeyondVirtualTimeIsAPositionedError) {
  EXPECT_THAT(ScenarioError("sim-hang-duration-2562047h.yaml"),
              HasSubstr("sim-hang-duration-2562047h.yaml:4: duration: duration 2562047h is beyond "
                        "the simulator's virtual-time range: at most 876000h"));
}

TEST(ReliabilityTest, SleepBeyondVirtualTimeIsAPositionedError) {
  const std::string msg = ScenarioError("scenario-sleep-overflow.yaml");
  EXPECT_THAT(msg, HasSubstr("scenario-sleep-overflow.yaml:15: ops[0].duration: duration 2562047h "
                             "is beyond the simulator's virtual-time range"));
  // One error, not a second one claiming the field is missing.
  EXPECT_THAT(msg, ::testing::Not(HasSubstr("missing required field")));
}

TEST(ReliabilityTest, PerfSleepBeyondVirtualTimeIsAPositionedError) {
  Interner in = api::NewInterner();
  PerfResult r = RunPerf("p20-sleep-huge", in);
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message, HasSubstr("p20-sleep-huge/perf.yaml:11: [0].workloadTemplate[2]: duration "
                                   "2562047h is beyond the simulator's virtual-time range"));
}

TEST(ReliabilityTest, PerfCountNoMachineCanHoldIsAnErrorBeforeAllocation) {
  Interner in = api::NewInterner();
  PerfResult r = RunPerf("p14-huge-count", in);
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message,
              HasSubstr("p14-huge-count/perf.yaml:4: [0].workloadTemplate[0].countParam: "
                        "parameter \"nodes\" = 1000000000000 is beyond the limit of "
                        "10000000 objects per op"));
}

TEST(ReliabilityTest, WorkloadTemplateMustBeAPod) {
  EXPECT_THAT(ScenarioError("scenario-template-kind-node-accepted.yaml"),
              HasSubstr("scenario-template-kind-node-accepted.yaml:17: workloads[1].template.kind: "
                        "a workload template must be a Pod, got kind \"Node\""));
}

TEST(ReliabilityTest, RecreatedVictimIsANewPendingPod) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadManifestsSpec({std::string(kDir) + "sim-hang-preempted-bound-pod-recreated.yaml"},
                                in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  testing::Ran ran = testing::RunSpec(*spec, in);
  const RunResult& r = ran.out.result;
  // The preemptor binds once its victim is gone; the recreated victim does not fit and stays
  // pending, and the run ends when no event can help.
  EXPECT_EQ(r.pods_scheduled, 1);
  EXPECT_EQ(r.pods_preempted, 1);
  EXPECT_EQ(r.pods_pending_end, 1);
  EXPECT_EQ(r.end_ns, 30 * kSecond);
  EXPECT_THAT(ran.log, HasSubstr("00:00:30.000 bind default/new node=n1 wait=30s"));
  EXPECT_THAT(ran.log, HasSubstr("00:00:30.000 arrive default/old-0 workload=manifests\n"));
}

// Within the range, a long idle stretch costs nothing: the sleep ends at its virtual time and the
// op after it runs (the flush and sample ticks jump instead of ticking through each interval).
TEST(ReliabilityTest, LongSleepIsSkippedNotTicked) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: t}
nodePools:
- {name: cpu, count: 3, resources: {cpu: "8", memory: 32Gi}}
workloads:
- {name: web, count: 5, resources: {cpu: "1", memory: 1Gi}, duration: 5m}
ops:
- {at: 1h, op: sleep, duration: 876000h}
- {op: cordon, pool: cpu, count: 1}
)",
                            "t.yaml", "", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  testing::Ran ran = testing::RunSpec(*spec, in);
  EXPECT_EQ(ran.out.result.end_ns, kMaxVirtualNs + 3600 * kSecond);
  EXPECT_THAT(ran.log, HasSubstr("876001:00:00.000 node-cordon cpu-0"));
  EXPECT_LE(ran.out.result.samples.size(), 2000U);
}

TEST(VirtualTimeTest, ArithmeticSaturates) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(SaturatingAdd(kMax - 5, 10), kMax);
  EXPECT_EQ(SaturatingAdd(std::numeric_limits<int64_t>::min() + 5, -10),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(SaturatingAdd(1, 2), 3);
  EXPECT_EQ(SaturatingMul(kMax / 2 + 1, 2), kMax);
  EXPECT_EQ(SaturatingMul(-(kMax / 2) - 2, 2), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(SaturatingMul(3, 4), 12);
  // Any time plus any accepted duration stays in range.
  EXPECT_LT(kMaxVirtualNs, kMax - kMaxVirtualNs);
}

}  // namespace
}  // namespace corral::sim
