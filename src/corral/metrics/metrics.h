#pragma once
// Metrics with kube-scheduler's names and labels (pkg/scheduler/metrics), kept in a Registry owned
// by whoever produces them (a Scheduler, a simulation) — never global. Output is deterministic:
// families sorted by name, series by label values. Exposed as Prometheus text (`--metrics FILE`)
// and JSON.
//
// Counters and histograms only; a series is created on first use. Not thread-safe (the scheduling
// thread records).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace corral::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;  // in the family's label order

// Prometheus ExponentialBuckets(start, factor, count).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

class Counter {
 public:
  void Inc(double v = 1) { value_ += v; }
  double value() const { return value_; }

 private:
  double value_ = 0;
};

class Histogram {
 public:
  explicit Histogram(const std::vector<double>* buckets)
      : buckets_(buckets), counts_(buckets->size(), 0) {}
  void Observe(double v);
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  const std::vector<uint64_t>& bucket_counts() const { return counts_; }  // non-cumulative
  const std::vector<double>& bounds() const { return *buckets_; }

 private:
  const std::vector<double>* buckets_;
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double sum_ = 0;
};

class Registry {
 public:
  // Returns the series of `name` with `labels`, creating the family (with `help`) on first use.
  // REQUIRES: a name is always used with the same kind and label names.
  Counter& GetCounter(std::string_view name, std::string_view help, const Labels& labels = {});
  Histogram& GetHistogram(std::string_view name, std::string_view help,
                          const std::vector<double>& buckets, const Labels& labels = {});

  // Sum of a counter family's series whose labels include every pair of `match` (0 if absent).
  double CounterSum(std::string_view name, const Labels& match = {}) const;

  std::string PrometheusText() const;
  // {"name": [{"labels": {...}, "value": v} | {"labels": {...}, "count": n, "sum": s, "buckets":
  // {...}}]}
  nlohmann::ordered_json ToJson() const;

 private:
  struct Family {
    bool histogram = false;
    std::string help;
    std::vector<double> buckets;
    std::map<Labels, Counter> counters;
    std::map<Labels, Histogram> histograms;
  };
  std::map<std::string, Family, std::less<>> families_;
};

}  // namespace corral::metrics
