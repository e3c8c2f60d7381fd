// Honest statistics of a simulation run: pods and gangs still waiting at the end are censored
// observations that count in the percentiles at their wait so far, the summary's eviction and
// preemption figures add up over causes and workloads, a run that places nothing is not shown as
// fast, and a run stopped by a signal says it is partial.

#include <atomic>
#include <csignal>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "corral/sim/report/report.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using testing::Ran;
using testing::RunSpec;

constexpr int64_t kHour = 3600LL * 1'000'000'000;

SimSpec MustParse(std::string_view text, Interner& in) {
  Diagnostics diags;
  auto spec = ParseScenario(text, "test.yaml", "", in, diags);
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message);
  return spec.ok() ? std::move(spec).value() : SimSpec{};
}

// The lines of the SCHEDULING LATENCY section.
std::string LatencySection(const std::string& summary) {
  const size_t at = summary.find("SCHEDULING LATENCY");
  EXPECT_NE(at, std::string::npos);
  const size_t end = summary.find("\n\n", at);
  return summary.substr(at, end - at);
}

// The shape of the run that once printed `p99 0s`: 3,602 pods of which 3,442 never fit. A node
// of 160 pod slots takes the first 160 at once (wait 0); the rest wait the whole hour.
constexpr std::string_view kMostlyPending = R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: mostly-pending}
duration: 1h
nodePools:
- {name: small, count: 1, resources: {cpu: "1000", memory: 1000Gi, pods: "160"}}
workloads:
- {name: batch, count: 3602, resources: {cpu: 100m, memory: 100Mi}}
)";

TEST(HonestStatsTest, MostlyPendingRunCountsPendingPodsInThePercentiles) {
  Interner in = api::NewInterner();
  SimSpec spec = MustParse(kMostlyPending, in);
  Ran ran = RunSpec(spec, in);
  const RunResult& r = ran.out.result;
  ASSERT_EQ(r.pods_scheduled, 160);
  ASSERT_EQ(r.pods_pending_end, 3442);
  // Bound pods alone say p99 0s: that is the figure the summary must not present as the latency.
  EXPECT_EQ(r.latency.Percentile(99), 0);
  EXPECT_EQ(r.pending_waits.count, 3442);
  EXPECT_EQ(r.pending_waits.waited.min(), kHour);
  EXPECT_EQ(r.pending_waits.waited.max(), kHour);
  EXPECT_EQ(r.latency_with_pending.count(), 3602);
  // Within the histogram's 1.6% resolution of the hour every pending pod has waited.
  EXPECT_NEAR(static_cast<double>(r.latency_with_pending.Percentile(99)), 1.0 * kHour,
              0.016 * kHour);
  EXPECT_NEAR(static_cast<double>(r.latency_with_pending.Percentile(50)), 1.0 * kHour,
              0.016 * kHour);

  const std::string summary = FormatSummary(r);
  const std::string latency = LatencySection(summary);
  EXPECT_NE(latency.find("all pods       p50 1h00m  p90 1h00m  p99 1h00m  max 1h00m"),
            std::string::npos)
      << latency;
  EXPECT_NE(latency.find("(3,602 pods; lower bounds: 3,442 still pending)"), std::string::npos)
      << latency;
  EXPECT_NE(latency.find("still pending  3,442 pods, waited so far: min 1h00m  median 1h00m  max "
                         "1h00m"),
            std::string::npos)
      << latency;
  // The workload's wait columns are lower bounds, marked as such.
  EXPECT_NE(summary.find("≥1h00m"), std::string::npos) << summary;

  const auto j = nlohmann::json::parse(FormatJson(r));
  EXPECT_EQ(j["latency_with_pending_seconds"]["censored"], 3442);
  EXPECT_EQ(j["latency_with_pending_seconds"]["count"], 3602);
  EXPECT_NEAR(j["latency_with_pending_seconds"]["p99"].get<double>(), 3600.0, 0.016 * 3600);
  EXPECT_EQ(j["pending_wait_seconds"]["count"], 3442);
  EXPECT_EQ(j["pending_wait_seconds"]["min"], 3600.0);
  EXPECT_EQ(j["workloads"][0]["pending_wait_seconds"]["count"], 3442);
}

TEST(HonestStatsTest, EvictionsAndPreemptionsAddUpOverCausesAndWorkloads) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("test/sim/testdata/all_eviction_causes.yaml", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  Ran ran = RunSpec(*spec, in);
  const RunResult& r = ran.out.result;
  // The scenario has every cause.
  EXPECT_GT(r.evictions.drain, 0);
  EXPECT_GT(r.evictions.node_failure, 0);
  EXPECT_GT(r.evictions.gang_restart, 0);
  EXPECT_GT(r.evictions.preemption, 0);
  // Totals: evicted pods are the non-preemption causes; victims are the preemption cause.
  EXPECT_EQ(r.pods_evicted,
            r.evictions.drain + r.evictions.node_failure + r.evictions.gang_restart);
  EXPECT_EQ(r.pods_preempted, r.evictions.preemption);
  // Workloads sum to the totals, cause by cause.
  Evictions sum;
  int64_t evicted = 0, preempted = 0;
  for (const auto& w : r.workloads) {
    evicted += w.pods_evicted;
    preempted += w.pods_preempted;
    sum.drain += w.evictions.drain;
    sum.node_failure += w.evictions.node_failure;
    sum.gang_restart += w.evictions.gang_restart;
    sum.preemption += w.evictions.preemption;
    EXPECT_EQ(w.pods_evicted + w.pods_preempted, w.evictions.total()) << w.name;
  }
  EXPECT_EQ(evicted, r.pods_evicted);
  EXPECT_EQ(preempted, r.pods_preempted);
  EXPECT_EQ(sum.drain, r.evictions.drain);
  EXPECT_EQ(sum.node_failure, r.evictions.node_failure);
  EXPECT_EQ(sum.gang_restart, r.evictions.gang_restart);
  EXPECT_EQ(sum.preemption, r.evictions.preemption);
  // Waiting gangs are in the gang-wait distribution that includes them.
  EXPECT_EQ(r.gang_wait_with_waiting.count(), r.gang_wait.count() + r.waiting_gangs.count);

  // The summary and the JSON say the same.
  const std::string summary = FormatSummary(r);
  EXPECT_NE(
      summary.find(fmt::format("drain {}, node failure {}, gang restart {};", r.evictions.drain,
                               r.evictions.node_failure, r.evictions.gang_restart)),
      std::string::npos)
      << summary;
  const auto j = nlohmann::json::parse(FormatJson(r));
  EXPECT_EQ(j["pods"]["evictions"]["total"].get<int64_t>(),
            j["pods"]["evicted"].get<int64_t>() + j["pods"]["preempted"].get<int64_t>());
  int64_t json_victims = 0;
  for (const auto& w : j["workloads"]) json_victims += w["pods_preempted"].get<int64_t>();
  EXPECT_EQ(json_victims, j["preemption"]["victims"].get<int64_t>());
}

TEST(HonestStatsTest, RunThatPlacesNothingIsNotShownAsFast) {
  Interner in = api::NewInterner();
  SimSpec spec = MustParse(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: nothing-fits}
duration: 10m
nodePools:
- {name: tiny, count: 2, resources: {cpu: "1", memory: 1Gi}}
workloads:
- {name: big, count: 5, resources: {cpu: "4", memory: 1Gi}}
)",
                           in);
  Ran ran = RunSpec(spec, in);
  const RunResult& r = ran.out.result;
  ASSERT_EQ(r.pods_scheduled, 0);
  const std::string summary = FormatSummary(r);
  EXPECT_EQ(summary.find("p99 0s"), std::string::npos) << summary;
  EXPECT_NE(LatencySection(summary).find("bound pods     no pod placed"), std::string::npos)
      << summary;
  const size_t tp = summary.find("THROUGHPUT");
  ASSERT_NE(tp, std::string::npos);
  EXPECT_EQ(summary.find("  no pod placed\n", tp), summary.find('\n', tp) + 1) << summary;
  EXPECT_NE(RenderHtmlReport(r).find("no pod placed"), std::string::npos);
}

TEST(HonestStatsTest, StopRequestEndsTheRunAtAnEventBoundaryAsPartial) {
  Interner in = api::NewInterner();
  SimSpec spec = MustParse(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: long}
duration: 100h
nodePools:
- {name: cpu, count: 4, resources: {cpu: "8", memory: 32Gi}}
workloads:
- {name: tasks, arrival: {rate: 5/s}, duration: {fixed: 1s}, resources: {cpu: 100m, memory: 100Mi}}
)",
                           in);
  std::atomic<int> stop{0};
  app::RunRequest req;
  req.stop = &stop;
  // Raised from inside the run, as a signal handler would.
  req.progress = [&](const Progress& p) {
    if (p.now_ns >= kHour / 6) stop.store(SIGTERM);
  };
  Diagnostics diags;
  auto out = app::RunSimulation(spec, in, diags, req);
  ASSERT_TRUE(out.ok()) << out.error().message;
  RunResult& r = out->result;
  r.partial_cause = "SIGTERM";
  EXPECT_TRUE(r.partial);
  EXPECT_GE(r.end_ns, kHour / 6);
  EXPECT_LT(r.end_ns, kHour);
  EXPECT_EQ(r.samples.back().t_ns, r.end_ns);
  const std::string summary = FormatSummary(r);
  EXPECT_NE(summary.find(fmt::format("partial: stopped by signal at virtual time {} (SIGTERM)",
                                     FormatClock(r.end_ns))),
            std::string::npos)
      << summary;
  const auto j = nlohmann::json::parse(FormatJson(r));
  EXPECT_EQ(j["partial"], true);
  EXPECT_EQ(j["partial_cause"], "SIGTERM");
  EXPECT_NE(FormatCsv(r).find("# partial: stopped by signal"), std::string::npos);
  EXPECT_NE(FormatPrometheus(r).find("corral_sim_partial 1\n"), std::string::npos);
  EXPECT_NE(RenderHtmlReport(r).find("id=\"partial\""), std::string::npos);
}

TEST(HonestStatsTest, CompleteRunIsNotPartial) {
  Interner in = api::NewInterner();
  SimSpec spec = MustParse(kMostlyPending, in);
  Ran ran = RunSpec(spec, in);
  EXPECT_FALSE(ran.out.result.partial);
  const auto j = nlohmann::json::parse(FormatJson(ran.out.result));
  EXPECT_EQ(j["partial"], false);
  EXPECT_FALSE(j.contains("partial_cause"));
}

}  // namespace
}  // namespace corral::sim
