#include "corral/sim/perf.h"

#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/sim/output.h"
#include "corral/sim/run.h"

namespace corral::sim {

std::string PerfStatusName(PerfResult::Status s) {
  switch (s) {
    case PerfResult::Status::kPass:
      return "PASS";
    case PerfResult::Status::kFail:
      return "FAIL";
    case PerfResult::Status::kNoThreshold:
      return "-";
    case PerfResult::Status::kSkipped:
      return "SKIPPED";
    case PerfResult::Status::kError:
      return "ERROR";
  }
  return "?";
}

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

PerfResult RunPerfWorkload(const PerfConfig& config, const PerfWorkloadRef& ref, Interner& interner,
                           const PerfRunOptions& opts) {
  PerfResult out;
  out.name = ref.name;
  out.threshold = config.Threshold(ref);
  Diagnostics diags;
  auto spec = config.Compile(ref, interner, diags);
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
  if (!run->result.failure.empty()) {
    out.status = PerfResult::Status::kError;
    out.message = run->result.failure;
    return out;
  }
  const PerfWindow& w = run->perf;
  out.attempt_ns = w.attempt_duration;
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
  out.message = fmt::format("{} {} {:.1f} {} {} threshold {:g}", t.metric, t.bucket, value, unit,
                            t.expect_lower ? (pass ? "≤" : ">") : (pass ? "≥" : "<"), t.value);
  return out;
}

std::string FormatPerfTable(const std::vector<PerfResult>& results) {
  std::vector<std::vector<std::string>> rows = {{"WORKLOAD", "PODS", "AVERAGE", "PERC50", "PERC90",
                                                 "PERC95", "PERC99", "ATTEMPT P99", "THRESHOLD",
                                                 "RESULT"}};
  for (const auto& r : results) {
    if (r.status == PerfResult::Status::kSkipped || r.status == PerfResult::Status::kError) {
      rows.push_back({r.name, "", "", "", "", "", "", "", "", PerfStatusName(r.status)});
      continue;
    }
    auto f = [&](double v) {
      return r.throughput.has_samples ? fmt::format("{:.1f}", v) : std::string("—");
    };
    rows.push_back(
        {r.name, Thousands(r.measured_scheduled),
         f(r.throughput.average) + (r.single_window ? "*" : ""), f(r.throughput.perc50),
         f(r.throughput.perc90), f(r.throughput.perc95), f(r.throughput.perc99),
         r.attempt_ns.empty() ? "—" : fmt::format("{:.3f}ms", Ms(r.attempt_ns.Percentile(99))),
         r.threshold.set ? fmt::format("{:g}", r.threshold.value) : "—", PerfStatusName(r.status)});
  }
  std::vector<size_t> w(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  }
  std::string s;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      bool right = i > 0 && i + 1 < row.size();
      std::string pad(w[i] - row[i].size(), ' ');
      line += right ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : "");
      if (i + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += line + "\n";
  }
  bool star = false;
  for (const auto& r : results) {
    if (!r.message.empty()) s += fmt::format("{}: {}\n", r.name, r.message);
    for (const auto& n : r.notes) s += fmt::format("{}: note: {}\n", r.name, n);
    star = star || r.single_window;
  }
  if (star) {
    s += "* the measured window was shorter than two 1 s samples (kube skips the first sample): "
         "one sample over the "
         "whole window\n";
  }
  std::string cost = results.empty() ? "measured" : results.front().cost_model;
  if (cost == "measured" || cost.empty()) {
    s += "throughput in pods/s of scheduler time (each scheduling cycle is charged its measured "
         "wall time)\n";
  } else {
    s += fmt::format("throughput in pods/s of virtual time (each scheduling cycle is charged {})\n",
                     cost);
  }
  return s;
}

std::string FormatPerfJson(const std::vector<PerfResult>& results) {
  using json = nlohmann::ordered_json;
  json items = json::array();
  for (const auto& r : results) {
    if (r.status == PerfResult::Status::kSkipped || r.status == PerfResult::Status::kError)
      continue;
    if (r.throughput.has_samples) {
      items.push_back({{"data",
                        {{"Average", r.throughput.average},
                         {"Perc50", r.throughput.perc50},
                         {"Perc90", r.throughput.perc90},
                         {"Perc95", r.throughput.perc95},
                         {"Perc99", r.throughput.perc99}}},
                       {"unit", "pods/s"},
                       {"labels", {{"Name", r.name}, {"Metric", "SchedulingThroughput"}}}});
    }
    if (!r.attempt_ns.empty()) {
      items.push_back(
          {{"data",
            {{"Average", r.attempt_ns.mean() / 1e6},
             {"Perc50", Ms(r.attempt_ns.Percentile(50))},
             {"Perc90", Ms(r.attempt_ns.Percentile(90))},
             {"Perc95", Ms(r.attempt_ns.Percentile(95))},
             {"Perc99", Ms(r.attempt_ns.Percentile(99))}}},
           {"unit", "ms"},
           {"labels",
            {{"Name", r.name}, {"Metric", "scheduler_scheduling_attempt_duration_seconds"}}}});
    }
  }
  json j = {{"version", "v1"}, {"dataItems", std::move(items)}};
  return j.dump(2) + "\n";
}

}  // namespace corral::sim
