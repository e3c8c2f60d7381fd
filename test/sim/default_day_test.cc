// The main job end to end: the built-in default scenario (`corral simulate` with no arguments,
// `make run`) over its whole simulated day. It is the one run that exercises every feature
// together, so this test checks what the scenario exists to show and the invariants every run must
// keep. Label `slow`: about 10 s in optimized builds and far longer in Debug and under `make asan`,
// which run it too (every build registers it, test/sim/CMakeLists.txt).

#include <string>

#include <gtest/gtest.h>

#include "corral/sim/input/default_scenario.h"
#include "corral/sim/report/report.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

TEST(DefaultDayTest, EveryFeatureShowsUpAndTheBooksBalance) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(DefaultScenarioYaml(), "<built-in default scenario>", "", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  testing::Ran ran = testing::RunSpec(*spec, in);
  const RunResult& r = ran.out.result;

  // A simulated day on 2,000 nodes.
  EXPECT_GE(r.end_ns, 24LL * 3600 * 1'000'000'000);
  EXPECT_EQ(r.nodes_max, 2000);
  EXPECT_EQ(r.errors, 0);

  // Every feature the scenario is built to show happens.
  EXPECT_GT(r.preemptions, 0);
  EXPECT_GE(r.pods_preempted, r.preemptions);  // each preemption evicts at least one victim
  EXPECT_GT(r.gangs_complete, 0);
  EXPECT_LE(r.gangs_complete, r.gangs_arrived);
  EXPECT_GE(r.gang_wait.count(), r.gangs_complete);  // a restarted gang waits again
  EXPECT_GT(r.batched, 0);
  EXPECT_LE(r.batched, r.pods_scheduled);

  // The books balance: every arrival is scheduled or still pending, and the run drains.
  EXPECT_EQ(r.latency.count(), r.pods_scheduled);
  EXPECT_LE(r.pods_scheduled, r.pods_arrived);
  EXPECT_EQ(r.pods_pending_end, 0);
  EXPECT_EQ(r.pods_arrived - r.pods_ignored, r.pods_scheduled + r.pods_pending_end);

  // No resource is ever overcommitted.
  for (size_t k = 0; k < r.resources.size(); ++k) {
    EXPECT_LE(r.peak_util[k], 1.0) << r.resources[k].name;
    EXPECT_GT(r.mean_util[k], 0.0) << r.resources[k].name;
  }

  // The report has every chart.
  const std::string html = RenderHtmlReport(r);
  for (const char* id : {"chart-utilization", "chart-pending", "chart-running", "chart-latency",
                         "chart-gang-wait", "chart-preemptions", "chart-batching"}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
}

}  // namespace
}  // namespace corral::sim
