#include "corral/sim/perf.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/sim/report/output.h"

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

double Ms(int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace

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
  // The cost model of the first workload that ran (one that was skipped or failed to compile has
  // none); every workload of a command runs with the same one.
  std::string cost = "measured";
  for (const auto& r : results) {
    if (!r.cost_model.empty()) {
      cost = r.cost_model;
      break;
    }
  }
  if (cost == "measured-cpu") {
    s +=
        "throughput in pods/s of scheduler CPU time (each scheduling cycle is charged the CPU time "
        "its thread used)\n";
  } else if (cost == "measured" || cost.empty()) {
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
    for (const auto& [h, result] :
         {std::pair<const LogHistogram*, const char*>{&r.group_attempt_scheduled_ns, "scheduled"},
          {&r.group_attempt_unschedulable_ns, "unschedulable"}}) {
      if (h->empty()) continue;
      items.push_back({{"data",
                        {{"Average", h->mean() / 1e6},
                         {"Perc50", Ms(h->Percentile(50))},
                         {"Perc90", Ms(h->Percentile(90))},
                         {"Perc95", Ms(h->Percentile(95))},
                         {"Perc99", Ms(h->Percentile(99))}}},
                       {"unit", "ms"},
                       {"labels",
                        {{"Name", r.name},
                         {"Metric", "scheduler_podgroup_scheduling_attempt_duration_seconds"},
                         {"result", result}}}});
    }
  }
  json j = {{"version", "v1"}, {"dataItems", std::move(items)}};
  return j.dump(2) + "\n";
}

}  // namespace corral::sim
