#include "corral/app/perf.h"

#include <chrono>

#include <fmt/format.h>

#include "corral/app/simulate.h"

namespace corral::app {

using sim::LogHistogram;
using sim::PerfResult;
using sim::PerfThreshold;
using sim::PerfWindow;
using sim::ThroughputCollector;

namespace {

double Bucket(const ThroughputCollector::Summary& s, const std::string& b, bool* ok) {
  *ok = true;
  if (b == "Average") return s.average;
  if (b == "Perc50") return s.perc50;
  if (b == "Perc90") return s.perc90;
  if (b == "Perc95") return s.perc95;
  if (b == "Perc99") return s.perc99;
  *ok = false;
  return 0;
}

double Ms(int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

double AttemptBucket(const LogHistogram& h, const std::string& b, bool* ok) {
  *ok = true;
  if (b == "Average") return h.mean() / 1e6;
  if (b == "Perc50") return Ms(h.Percentile(50));
  if (b == "Perc90") return Ms(h.Percentile(90));
  if (b == "Perc95") return Ms(h.Percentile(95));
  if (b == "Perc99") return Ms(h.Percentile(99));
  *ok = false;
  return 0;
}

}  // namespace

PerfResult RunPerfWorkload(const sim::PerfConfig& config, const sim::PerfWorkloadRef& ref,
                           Interner& interner, const PerfRunOptions& opts) {
  PerfResult out;
  out.name = ref.name;
  out.threshold = config.Threshold(ref);
  Diagnostics diags;
  auto spec = config.Compile(ref, interner, diags, opts.emulated_version);
  if (!spec.ok()) {
    const std::string& m = spec.error().message;
    if (m.starts_with("unsupported: ")) {
      out.status = PerfResult::Status::kSkipped;
      out.message = m.substr(13);
    } else {
      out.status = PerfResult::Status::kError;
      out.message = m;
    }
    return out;
  }
  if (opts.cost.has_value()) spec->cost = *opts.cost;
  RunRequest req;
  req.wall = opts.wall;
  req.progress = opts.progress;
  req.log = opts.log;
  auto t0 = std::chrono::steady_clock::now();
  auto run = RunSimulation(*spec, interner, diags, req);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.ok()) {
    out.status = PerfResult::Status::kError;
    out.message = run.error().message;
    return out;
  }
  out.notes = run->result.notes;
  out.cost_model = run->result.cost_model;
  out.provenance = std::move(run->result.provenance);
  out.provenance.command = "perf";
  if (!run->result.failure.empty()) {
    out.status = PerfResult::Status::kError;
    out.message = run->result.failure;
    return out;
  }
  const PerfWindow& w = run->perf;
  out.attempt_ns = w.attempt_duration;
  out.group_attempt_scheduled_ns = w.group_attempt_scheduled;
  out.group_attempt_unschedulable_ns = w.group_attempt_unschedulable;
  out.measured_pods = w.measured_pods;
  out.measured_scheduled = w.measured_scheduled;
  out.window_seconds = static_cast<double>(w.stop_ns - w.start_ns) / 1e9;
  out.throughput = w.collector.Summarize();
  if (!out.throughput.has_samples && w.measured_scheduled > 0 && out.window_seconds > 0) {
    out.single_window = true;
    out.throughput = ThroughputCollector::SummarizeSamples(
        {static_cast<double>(w.measured_scheduled) / out.window_seconds});
  }
  const PerfThreshold& t = out.threshold;
  if (!t.set) {
    out.status = PerfResult::Status::kNoThreshold;
    out.message = t.note;
    return out;
  }
  bool ok = false;
  double value = 0;
  std::string unit;
  if (t.metric == "SchedulingThroughput") {
    value = Bucket(out.throughput, t.bucket, &ok);
    unit = "pods/s";
    if (!out.throughput.has_samples) ok = false;
  } else if (t.metric == "scheduler_scheduling_attempt_duration_seconds") {
    value = AttemptBucket(out.attempt_ns, t.bucket, &ok);
    unit = "ms";
  } else if (t.metric == "scheduler_podgroup_scheduling_attempt_duration_seconds") {
    // kube's series carry `result` (scheduled, unschedulable) and `profile`; the selector's labels
    // pick the series, and only `result` can pick apart what corral perf keeps.
    std::string result;
    bool labels_ok = true;
    for (const auto& [k, v] : t.labels) {
      if (k == "result" && (v == "scheduled" || v == "unschedulable")) {
        result = v;
      } else if (k != "profile" || v != "default-scheduler") {
        labels_ok = false;
      }
    }
    if (labels_ok) {
      const LogHistogram& h = result == "unschedulable" ? out.group_attempt_unschedulable_ns
                                                        : out.group_attempt_scheduled_ns;
      if (result.empty()) {
        LogHistogram both = out.group_attempt_scheduled_ns;
        both.Merge(out.group_attempt_unschedulable_ns);
        value = AttemptBucket(both, t.bucket, &ok);
        ok = ok && !both.empty();
      } else {
        value = AttemptBucket(h, t.bucket, &ok);
        ok = ok && !h.empty();
      }
      unit = "ms";
    }
  }
  if (!ok) {
    out.status = PerfResult::Status::kNoThreshold;
    out.message = fmt::format("threshold on {} {} is not measured by corral perf; not checked",
                              t.metric, t.bucket);
    return out;
  }
  out.compared = value;
  bool pass = t.expect_lower ? value <= t.value : value >= t.value;
  out.status = pass ? PerfResult::Status::kPass : PerfResult::Status::kFail;
  // Latencies far below a millisecond print with three decimals (the threshold's unit is ms).
  const bool fine = unit == "ms" && value < 1;
  out.message =
      fmt::format("{} {} {:.{}f} {} {} threshold {:g}", t.metric, t.bucket, value, fine ? 3 : 1,
                  unit, t.expect_lower ? (pass ? "≤" : ">") : (pass ? "≥" : "<"), t.value);
  return out;
}

}  // namespace corral::app
