#pragma once
// `corral perf` results: a scheduler_perf workload (perf_config.h) run on the simulator reports
// kube's SchedulingThroughput (metrics.h ThroughputCollector) plus the scheduling attempt duration,
// checked against each workload's threshold (kube's rule: Average pods/s must not be below it; with
// thresholdMetricSelector.expectLower the metric must not be above it).
//
// By default the scheduling cost charged to the virtual clock is the measured wall time of each
// ScheduleOne call, so virtual seconds are the scheduler's real seconds and the throughput is the
// scheduler's own (object creation, API calls and informers cost nothing here, unlike kube's
// harness, except the scheduler's API calls under a workload's schedulerApiClientQPS/Burst, which
// wait for client-go's token bucket in virtual time: sim/api_client.h). When the measured window
// is shorter than two sampling intervals, kube's collector yields no sample; the result then is
// one sample over the whole window (measured pods / window length), flagged in single_window.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/sim/engine.h"
#include "corral/sim/input/perf_config.h"
#include "corral/sim/metrics.h"
#include "corral/sim/spec.h"

namespace corral::sim {

struct PerfResult {
  enum class Status { kPass, kFail, kNoThreshold, kSkipped, kError };
  std::string name;
  Status status = Status::kNoThreshold;
  std::string message;  // skip reason, error, or threshold comparison
  ThroughputCollector::Summary throughput;
  bool single_window = false;
  LogHistogram attempt_ns;  // scheduling attempt durations of measured pods
  // Pod group scheduling attempt durations (groups with a measured member), by result.
  LogHistogram group_attempt_scheduled_ns, group_attempt_unschedulable_ns;
  int64_t measured_pods = 0, measured_scheduled = 0;
  double window_seconds = 0;
  PerfThreshold threshold;
  double compared = 0;  // the metric value compared with the threshold
  double wall_seconds = 0;
  std::string cost_model;  // "measured", "fixed 1ms", ...
  std::vector<std::string> notes;
  Provenance provenance;  // what the workload ran with (provenance.h); empty when it did not run
};

std::string PerfStatusName(PerfResult::Status s);
std::string FormatPerfTable(const std::vector<PerfResult>& results);
// kube's perf-dash DataItems: {"version": "v1", "dataItems": [...]}.
std::string FormatPerfJson(const std::vector<PerfResult>& results);

}  // namespace corral::sim
