#pragma once
// Comparison: runs of the same workload under several variants and seeds, reduced to what a person
// deciding between the variants needs — every headline metric per variant as its mean over seeds
// with the spread (min–max over seeds), the difference of means against the first variant (the
// baseline) with a flag when it is beyond the seed-to-seed spread, and "what changed": the
// workloads and the gang/Job instances whose wait, preemptions or placement differ most from
// the baseline.
//
// Definitions (docs/comparing-policies.md):
//  - spread: the min–max range of a metric over the seeds of one variant;
//  - beyond seed spread: the variant's range and the baseline's do not overlap (undefined, null,
//    with a single seed);
//  - a gang or Job instance is the same instance in two runs when it has the same id and seed (runs
//    with the same seed see the same arrivals: arrival streams draw from per-workload random
//    streams derived from the seed, not from scheduling decisions);
//  - moved: members of an instance bound to a node other than in the baseline (multiset
//    difference of the nodes of their first bindings).
//
// Deterministic: a pure function of the records; records are taken in matrix order (index).

#include <cstdint>
#include <string>
#include <vector>

#include "corral/compare/record.h"
#include "corral/core/result.h"

namespace corral::compare {

enum class MetricUnit { kCount, kSeconds, kRatio };

struct Spread {
  double mean = 0, min = 0, max = 0;
};

struct MetricRow {
  std::string key, label;
  MetricUnit unit = MetricUnit::kCount;
  std::vector<Spread> values;  // per variant
  std::vector<double> delta;   // mean − baseline mean, per variant (0 for the baseline)
  std::vector<int> beyond;     // per variant: 1 beyond the spread, 0 not, -1 undefined (1 seed)
};

struct WorkloadChange {
  std::string name, kind;
  // Per variant, means over seeds.
  std::vector<double> wait_mean_s, pending_end, preempted;
};

struct UnitChange {
  std::string id, workload;
  uint64_t seed = 0;
  // Per variant.
  std::vector<int64_t> wait_ns;
  std::vector<bool> complete;
  std::vector<int32_t> preempted;
  std::vector<int32_t> moved;  // 0 for the baseline
};

// A chart's series per variant on a shared x grid.
struct ChartData {
  std::string id, title, y_label;
  bool percent = false;
  bool time_axis = true;  // x is virtual time (else: wait in seconds)
  std::vector<double> x;
  std::vector<std::vector<double>> y;  // per variant
};

// The comparison at one point of the parameter matrix.
struct PointComparison {
  std::string point;  // the parameters' options, "" without parameters
  std::vector<std::string> variants, options;
  std::vector<uint64_t> seeds;
  std::vector<MetricRow> metrics;
  std::vector<WorkloadChange> workloads;  // most changed first, at most 10
  std::vector<UnitChange> units;          // most changed first, at most 10
  std::vector<ChartData> charts;
  std::vector<std::string> failures;  // "variant seed 4: ..." for runs that failed
};

struct Comparison {
  std::string scenario;
  std::vector<PointComparison> points;
};

inline constexpr size_t kTopChanges = 10;

// Errors: no records, or a variant that lacks a seed another variant has.
Result<Comparison> Compare(std::vector<RunRecord> records);

}  // namespace corral::compare
