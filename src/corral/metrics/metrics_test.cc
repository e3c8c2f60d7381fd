#include "corral/metrics/metrics.h"

#include <gtest/gtest.h>

namespace corral::metrics {
namespace {

TEST(MetricsTest, CountersAndHistogramsInPrometheusText) {
  Registry r;
  r.GetCounter("scheduler_schedule_attempts_total", "Number of attempts",
               {{"profile", "p"}, {"result", "scheduled"}})
      .Inc();
  r.GetCounter("scheduler_schedule_attempts_total", "Number of attempts",
               {{"profile", "p"}, {"result", "scheduled"}})
      .Inc(2);
  r.GetCounter("scheduler_schedule_attempts_total", "Number of attempts",
               {{"profile", "p"}, {"result", "error"}})
      .Inc();
  auto& h = r.GetHistogram("d_seconds", "Durations", ExponentialBuckets(0.001, 2, 3));
  h.Observe(0.0005);  // le 0.001
  h.Observe(0.003);   // le 0.004
  h.Observe(1);       // +Inf only
  EXPECT_EQ(r.CounterSum("scheduler_schedule_attempts_total"), 4);
  EXPECT_EQ(r.CounterSum("scheduler_schedule_attempts_total", {{"result", "error"}}), 1);
  EXPECT_EQ(r.PrometheusText(),
            "# HELP d_seconds Durations\n"
            "# TYPE d_seconds histogram\n"
            "d_seconds_bucket{le=\"0.001\"} 1\n"
            "d_seconds_bucket{le=\"0.002\"} 1\n"
            "d_seconds_bucket{le=\"0.004\"} 2\n"
            "d_seconds_bucket{le=\"+Inf\"} 3\n"
            "d_seconds_sum 1.0035\n"
            "d_seconds_count 3\n"
            "# HELP scheduler_schedule_attempts_total Number of attempts\n"
            "# TYPE scheduler_schedule_attempts_total counter\n"
            "scheduler_schedule_attempts_total{profile=\"p\",result=\"error\"} 1\n"
            "scheduler_schedule_attempts_total{profile=\"p\",result=\"scheduled\"} 3\n");
  auto j = r.ToJson();
  EXPECT_EQ(j["d_seconds"][0]["count"], 3);
  EXPECT_EQ(j["scheduler_schedule_attempts_total"][1]["value"], 3);
}

}  // namespace
}  // namespace corral::metrics
