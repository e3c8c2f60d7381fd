// LogHistogram, ThroughputCollector (kube's scheduler_perf collector rules), EventQueue ordering
// and distributions.

#include "corral/sim/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/doc/decoder.h"
#include "corral/doc/parse.h"
#include "corral/sim/distribution.h"
#include "corral/sim/event_queue.h"

namespace corral::sim {
namespace {

TEST(LogHistogramTest, ExactForSmallValuesAndWithinThreePercentAbove) {
  LogHistogram h;
  for (int64_t v : {0, 1, 2, 31}) h.Add(v);
  EXPECT_EQ(h.count(), 4);
  EXPECT_EQ(h.Percentile(25), 0);
  EXPECT_EQ(h.Percentile(50), 1);
  EXPECT_EQ(h.Percentile(100), 31);
  LogHistogram big;
  for (int64_t v = 1; v <= 1000; ++v) big.Add(v * 1'000'000);  // 1ms .. 1s
  // Nearest rank: p50 is the 500th value (500ms), p99 the 990th (990ms); buckets are ≤ 1/32 wide.
  EXPECT_NEAR(static_cast<double>(big.Percentile(50)), 500e6, 500e6 / 32);
  EXPECT_NEAR(static_cast<double>(big.Percentile(99)), 990e6, 990e6 / 32);
  EXPECT_EQ(big.Percentile(100), 1'000'000'000);  // clamped to the observed max
  EXPECT_EQ(big.min(), 1'000'000);
  EXPECT_DOUBLE_EQ(big.mean(), 500.5e6);
}

TEST(LogHistogramTest, BucketBoundsAreContiguous) {
  for (size_t b = 0; b + 1 < LogHistogram::kBuckets; ++b) {
    EXPECT_EQ(LogHistogram::BucketHigh(b), LogHistogram::BucketLow(b + 1)) << b;
    EXPECT_EQ(LogHistogram::BucketOf(LogHistogram::BucketLow(b)), b);
  }
}

TEST(ThroughputCollectorTest, SkipsTheFirstSampleAndMergesIdleIntervals) {
  constexpr int64_t kS = 1'000'000'000;
  ThroughputCollector c;
  c.Start(0, 0);
  c.Tick(1 * kS, 0);    // nothing scheduled yet: no sampling at all
  c.Tick(2 * kS, 100);  // first sample: skipped (kube: "likely to be an outlier")
  c.Tick(3 * kS, 300);  // 200 pods in 1 s
  c.Tick(4 * kS, 300);  // idle: merged into the next one
  c.Tick(5 * kS, 300);  // idle
  c.Tick(6 * kS, 600);  // 300 pods over 3 s = 100/s, recorded 3 times
  ASSERT_THAT(c.samples(), testing::ElementsAre(200.0, 100.0, 100.0, 100.0));
  auto s = c.Summarize();
  ASSERT_TRUE(s.has_samples);
  EXPECT_DOUBLE_EQ(s.average, 125.0);
  // kube: sorted [100,100,100,200]; index ceil(n·p/100) − 1.
  EXPECT_DOUBLE_EQ(s.perc50, 100.0);  // ceil(2) − 1 = 1
  EXPECT_DOUBLE_EQ(s.perc90, 200.0);  // ceil(3.6) − 1 = 3
  EXPECT_DOUBLE_EQ(s.perc99, 200.0);
  EXPECT_EQ(s.samples, 4U);
}

TEST(ThroughputCollectorTest, NoSamplesWhenEverythingHappensInTheFirstSecond) {
  ThroughputCollector c;
  c.Start(0, 0);
  c.Tick(1'000'000'000, 10000);
  EXPECT_FALSE(c.Summarize().has_samples);
}

TEST(EventQueueTest, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.Push(50, EventKind::kPodDone, 1);
  q.Push(10, EventKind::kArrival, 2);
  q.Push(50, EventKind::kArrival, 3);
  q.Push(10, EventKind::kPodDone, 4);
  q.Push(0, EventKind::kFlushTick, 5);
  std::vector<uint32_t> order;
  while (!q.empty()) order.push_back(q.Pop().a);
  EXPECT_THAT(order, testing::ElementsAre(5, 2, 4, 1, 3));
}

TEST(EventQueueTest, ManyEventsComeOutSorted) {
  EventQueue q;
  Rng rng(3);
  for (uint32_t i = 0; i < 5000; ++i)
    q.Push(static_cast<int64_t>(rng.Uniform(1000)), EventKind::kArrival, i);
  int64_t last_t = -1;
  uint64_t last_seq = 0;
  while (!q.empty()) {
    Event e = q.Pop();
    ASSERT_TRUE(e.time_ns > last_t || (e.time_ns == last_t && e.seq > last_seq));
    last_t = e.time_ns;
    last_seq = e.seq;
  }
}

TEST(DistributionTest, SamplesAreDeterministicAndClamped) {
  Distribution d;
  d.kind = Distribution::Kind::kExponential;
  d.a = 60e9;
  d.max = 120'000'000'000;
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) {
    int64_t x = d.SampleNs(a);
    EXPECT_EQ(x, d.SampleNs(b));
    EXPECT_GE(x, 0);
    EXPECT_LE(x, 120'000'000'000);
  }
  EXPECT_EQ(Distribution::Forever().SampleNs(a), kForeverNs);
  EXPECT_EQ(Distribution::Fixed(std::chrono::seconds(3)).SampleNs(a), 3'000'000'000);
}

TEST(DistributionTest, LogNormalMedianIsRoughlyRight) {
  Distribution d;
  d.kind = Distribution::Kind::kLogNormal;
  d.a = 100e9;
  d.sigma = 0.5;
  Rng rng(11);
  std::vector<int64_t> v;
  for (int i = 0; i < 4001; ++i) v.push_back(d.SampleNs(rng));
  std::nth_element(v.begin(), v.begin() + 2000, v.end());
  EXPECT_NEAR(static_cast<double>(v[2000]), 100e9, 5e9);
}

Distribution Decode(std::string_view yaml, Diagnostics& diags) {
  doc::Stream st = doc::ParseYaml(yaml, "d.yaml", diags);
  doc::Decoder d("d.yaml", diags);
  Distribution out;
  DecodeDistribution(d, st.documents()[0].value(0), out);
  return out;
}

TEST(DistributionTest, DecodesEveryForm) {
  Diagnostics diags;
  EXPECT_EQ(Decode("x: 90s", diags).a, 90e9);
  EXPECT_TRUE(Decode("x: forever", diags).is_forever());
  Distribution u = Decode("x: {uniform: {min: 1m, max: 2m}}", diags);
  EXPECT_EQ(u.kind, Distribution::Kind::kUniform);
  EXPECT_EQ(u.b, 120e9);
  Distribution e = Decode("x: {exponential: {mean: 5m}, max: 1h}", diags);
  EXPECT_EQ(e.kind, Distribution::Kind::kExponential);
  EXPECT_EQ(e.max, 3'600'000'000'000);
  Distribution l = Decode("x: {lognormal: {median: 10m, sigma: 1.5}}", diags);
  EXPECT_EQ(l.sigma, 1.5);
  EXPECT_FALSE(diags.has_errors());
}

TEST(DistributionTest, ReportsMistakesWithPaths) {
  Diagnostics diags;
  Decode("x: {uniform: {min: 2m, max: 1m}}", diags);
  Decode("x: {exponential: {mean: 5m}, lognormal: {median: 1m}}", diags);
  Decode("x: 12", diags);
  Decode("x: {normal: {mean: 5m}}", diags);
  std::vector<std::string> msgs;
  for (const auto& d : diags.items()) msgs.push_back(d.ToString());
  EXPECT_THAT(msgs,
              testing::ElementsAre(
                  "d.yaml:1: uniform: max must not be below min",
                  "d.yaml:1: give exactly one of fixed, uniform, exponential, lognormal, normal",
                  "d.yaml:1: expected a string, got integer 12 (quote it: \"12\")",
                  "d.yaml:1: normal.stddev: required field \"stddev\" is missing"));
}

TEST(DistributionTest, FormatsGoDurations) {
  EXPECT_EQ(FormatGoDuration(0), "0s");
  EXPECT_EQ(FormatGoDuration(1'500'000), "1.5ms");
  EXPECT_EQ(FormatGoDuration(90'000'000'000), "1m30s");
  EXPECT_EQ(FormatGoDuration(3'600'000'000'000), "1h0m0s");
  EXPECT_EQ(FormatGoDuration(2'500'000'000), "2.5s");
}

}  // namespace
}  // namespace corral::sim
