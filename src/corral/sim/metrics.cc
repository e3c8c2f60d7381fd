#include "corral/sim/metrics.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace corral::sim {

size_t LogHistogram::BucketOf(int64_t v) {
  if (v < kSub) return v < 0 ? 0 : static_cast<size_t>(v);
  auto u = static_cast<uint64_t>(v);
  int e = 63 - std::countl_zero(u);  // >= kSubBits
  size_t sub = static_cast<size_t>((u >> (e - kSubBits)) & (kSub - 1));
  return kSub + static_cast<size_t>(e - kSubBits) * kSub + sub;
}

int64_t LogHistogram::BucketLow(size_t b) {
  if (b < kSub) return static_cast<int64_t>(b);
  size_t e = (b - kSub) / kSub + kSubBits;
  size_t sub = (b - kSub) % kSub;
  return static_cast<int64_t>((uint64_t{kSub} + sub) << (e - kSubBits));
}

int64_t LogHistogram::BucketHigh(size_t b) {
  if (b < kSub) return static_cast<int64_t>(b) + 1;
  size_t e = (b - kSub) / kSub + kSubBits;
  uint64_t high = static_cast<uint64_t>(BucketLow(b)) + (uint64_t{1} << (e - kSubBits));
  return high > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(high);
}

void LogHistogram::Add(int64_t v) {
  if (v < 0) v = 0;
  ++buckets_[BucketOf(v)];
  if (count_ == 0 || v < min_) min_ = v;
  if (v > max_) max_ = v;
  ++count_;
  sum_ += static_cast<double>(v);
}

void LogHistogram::Merge(const LogHistogram& o) {
  if (o.count_ == 0) return;
  for (size_t i = 0; i < kBuckets; ++i) buckets_[i] += o.buckets_[i];
  if (count_ == 0 || o.min_ < min_) min_ = o.min_;
  max_ = std::max(max_, o.max_);
  count_ += o.count_;
  sum_ += o.sum_;
}

int64_t LogHistogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  auto rank = static_cast<int64_t>(std::ceil(static_cast<double>(count_) * p / 100.0));
  rank = std::clamp<int64_t>(rank, 1, count_);
  if (rank == count_) return max_;
  int64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += static_cast<int64_t>(buckets_[b]);
    if (seen >= rank) {
      if (b < kSub) return static_cast<int64_t>(b);
      int64_t lo = BucketLow(b), hi = BucketHigh(b);
      int64_t mid = lo + (hi - lo) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

void ThroughputCollector::Start(int64_t now_ns, int64_t scheduled) {
  running_ = true;
  started_ = false;
  skipped_ = 0;
  last_count_ = scheduled;
  last_time_ = now_ns;
}

void ThroughputCollector::Tick(int64_t now_ns, int64_t scheduled) {
  if (!running_) return;
  if (scheduled == 0) return;  // kube: no sampling until a pod is scheduled
  if (!started_) {
    // kube skips the first sample: "likely to be an outlier because sampling and creating pods get
    // started independently".
    started_ = true;
    last_count_ = scheduled;
    last_time_ = now_ns;
    return;
  }
  int64_t fresh = scheduled - last_count_;
  if (fresh == 0) {
    ++skipped_;
    return;
  }
  double seconds = static_cast<double>(now_ns - last_time_) / 1e9;
  double throughput = static_cast<double>(fresh) / seconds;
  for (int64_t i = 0; i <= skipped_; ++i) samples_.push_back(throughput);
  last_count_ = scheduled;
  skipped_ = 0;
  last_time_ = now_ns;
}

void ThroughputCollector::TickMany(int64_t first_ns, int64_t interval_ns, int64_t n,
                                   int64_t scheduled) {
  (void)interval_ns;
  if (n <= 0 || !running_ || scheduled == 0) return;
  Tick(first_ns, scheduled);
  // Every later tick sees the same count: an empty interval each.
  skipped_ += n - 1;
}

ThroughputCollector::Summary ThroughputCollector::Summarize() const {
  return SummarizeSamples(samples_);
}

ThroughputCollector::Summary ThroughputCollector::SummarizeSamples(std::vector<double> s) {
  Summary out;
  if (s.empty()) return out;
  std::sort(s.begin(), s.end());
  double sum = 0;
  for (double v : s) sum += v;
  const auto n = static_cast<int64_t>(s.size());
  auto at = [&](int64_t p) {
    auto idx = static_cast<int64_t>(std::ceil(static_cast<double>(n * p) / 100.0)) - 1;
    return s[static_cast<size_t>(std::clamp<int64_t>(idx, 0, n - 1))];
  };
  out.has_samples = true;
  out.samples = s.size();
  out.average = sum / static_cast<double>(n);
  out.perc50 = at(50);
  out.perc90 = at(90);
  out.perc95 = at(95);
  out.perc99 = at(99);
  return out;
}

}  // namespace corral::sim
