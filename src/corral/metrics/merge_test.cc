#include "corral/metrics/merge.h"

#include <gtest/gtest.h>

#include "corral/metrics/metrics.h"

namespace corral::metrics {
namespace {

TEST(MergePrometheusTextTest, EveryFamilyOnceAndEverySeriesLabelledByItsRegistry) {
  Registry web;
  web.GetCounter("scheduler_schedule_attempts_total", "Number of attempts",
                 {{"profile", "p"}, {"result", "scheduled"}})
      .Inc(3);
  web.GetHistogram("d_seconds", "Durations", ExponentialBuckets(0.001, 2, 2)).Observe(0.0005);
  Registry gpu;
  gpu.GetCounter("scheduler_schedule_attempts_total", "Number of attempts",
                 {{"profile", "p"}, {"result", "error"}})
      .Inc();
  gpu.GetCounter("scheduler_preemption_attempts_total", "Preemption attempts").Inc(2);
  EXPECT_EQ(MergePrometheusText(
                "cluster", {{"web", web.PrometheusText()}, {"gpu \"1\"", gpu.PrometheusText()}}),
            "# HELP d_seconds Durations\n"
            "# TYPE d_seconds histogram\n"
            "d_seconds_bucket{cluster=\"web\",le=\"0.001\"} 1\n"
            "d_seconds_bucket{cluster=\"web\",le=\"0.002\"} 1\n"
            "d_seconds_bucket{cluster=\"web\",le=\"+Inf\"} 1\n"
            "d_seconds_sum{cluster=\"web\"} 0.0005\n"
            "d_seconds_count{cluster=\"web\"} 1\n"
            "# HELP scheduler_preemption_attempts_total Preemption attempts\n"
            "# TYPE scheduler_preemption_attempts_total counter\n"
            "scheduler_preemption_attempts_total{cluster=\"gpu \\\"1\\\"\"} 2\n"
            "# HELP scheduler_schedule_attempts_total Number of attempts\n"
            "# TYPE scheduler_schedule_attempts_total counter\n"
            "scheduler_schedule_attempts_total{cluster=\"web\",profile=\"p\",result=\"scheduled\"} "
            "3\n"
            "scheduler_schedule_attempts_total{cluster=\"gpu \\\"1\\\"\",profile=\"p\",result="
            "\"error\"} 1\n");
}

TEST(MergePrometheusTextTest, NoRegistriesIsEmpty) {
  EXPECT_EQ(MergePrometheusText("cluster", {}), "");
}

}  // namespace
}  // namespace corral::metrics
