#include "corral/sim/report/output.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/sim/report/fleet_output.h"

namespace corral::sim {

std::string Thousands(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  std::string out;
  int n = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (n > 0 && n % 3 == 0) out += ',';
    out += *it;
    ++n;
  }
  if (v < 0) out += '-';
  std::reverse(out.begin(), out.end());
  return out;
}

std::string HumanDuration(int64_t ns) {
  if (ns <= 0) return "0s";
  constexpr int64_t kMs = 1'000'000, kS = 1'000'000'000;
  if (ns < kMs) return fmt::format("{}µs", ns / 1000);
  if (ns < kS) return fmt::format("{}ms", ns / kMs);
  if (ns < 60 * kS) {
    double s = static_cast<double>(ns) / 1e9;
    return s < 10 ? fmt::format("{:.2f}s", s) : fmt::format("{:.1f}s", s);
  }
  int64_t secs = ns / kS;
  if (secs < 3600) return fmt::format("{}m{:02}s", secs / 60, secs % 60);
  if (secs < 86400) return fmt::format("{}h{:02}m", secs / 3600, (secs / 60) % 60);
  return fmt::format("{}d{:02}h", secs / 86400, (secs / 3600) % 24);
}

namespace {

std::string Pct(double v) {
  return fmt::format("{:.1f}%", v * 100.0);
}

std::string Table(const std::vector<std::vector<std::string>>& rows, size_t indent,
                  const std::vector<bool>& right = {}) {
  std::vector<size_t> w;
  for (const auto& r : rows) {
    if (w.size() < r.size()) w.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) {
      // Column width in code points (µ and — are multi-byte).
      size_t len = 0;
      for (unsigned char c : r[i]) len += (c & 0xC0) != 0x80;
      w[i] = std::max(w[i], len);
    }
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line(indent, ' ');
    for (size_t i = 0; i < r.size(); ++i) {
      size_t len = 0;
      for (unsigned char c : r[i]) len += (c & 0xC0) != 0x80;
      bool ra = i < right.size() && right[i];
      std::string pad(w[i] - len, ' ');
      line += ra ? pad + r[i] : r[i] + (i + 1 < r.size() ? pad : "");
      if (i + 1 < r.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string LatencyLine(const LogHistogram& h, std::string_view empty = "—") {
  if (h.empty()) return std::string(empty);
  return fmt::format("p50 {}  p90 {}  p99 {}  max {}  mean {}", HumanDuration(h.Percentile(50)),
                     HumanDuration(h.Percentile(90)), HumanDuration(h.Percentile(99)),
                     HumanDuration(h.max()), HumanDuration(static_cast<int64_t>(h.mean())));
}

// Percentiles of a distribution that holds censored observations: no mean, since the
// censored values are lower bounds.
std::string LowerBoundLine(const LogHistogram& h) {
  return fmt::format("p50 {}  p90 {}  p99 {}  max {}", HumanDuration(h.Percentile(50)),
                     HumanDuration(h.Percentile(90)), HumanDuration(h.Percentile(99)),
                     HumanDuration(h.max()));
}

// "  key            value  note": the rows of a section with censored observations.
std::string KeyLine(std::string_view key, std::string_view value, std::string_view note = "") {
  std::string line = fmt::format("  {:<15}{}", key, value);
  if (!note.empty()) line += fmt::format("  {}", note);
  return line + "\n";
}

// "<count> <what>, waited so far: ..."; `what` is the singular noun.
std::string CensoredLine(const CensoredWaits& c, std::string_view what) {
  return fmt::format("{} {}{}, waited so far: min {}  median {}  max {}", Thousands(c.count), what,
                     c.count == 1 ? "" : "s", HumanDuration(c.waited.min()),
                     HumanDuration(c.waited.Percentile(50)), HumanDuration(c.waited.max()));
}

// A workload's wait percentile over bound and still-pending pods: "≥" marks a lower bound.
std::string WaitCell(const LogHistogram& with_pending, int64_t censored, double p) {
  if (with_pending.empty()) return "—";
  return (censored > 0 ? "≥" : "") + HumanDuration(with_pending.Percentile(p));
}

std::string EvictionNote(const Evictions& e) {
  return fmt::format(
      "drain {}, node failure {}, gang restart {}; recreated unless the workload says not",
      Thousands(e.drain), Thousands(e.node_failure), Thousands(e.gang_restart));
}

}  // namespace

std::string FormatSummary(const RunResult& r) {
  std::string s;
  s += fmt::format("corral simulate: {} — {} nodes (max {}), {} simulated, seed {}\n", r.name,
                   Thousands(r.nodes_end), Thousands(r.nodes_max), HumanDuration(r.end_ns), r.seed);
  if (!r.description.empty()) s += fmt::format("{}\n", r.description);
  if (r.partial) {
    s += fmt::format(
        "partial: stopped by signal at virtual time {} ({}); every figure covers the run up to "
        "then\n",
        FormatClock(r.end_ns), r.partial_cause);
  }
  if (!r.failure.empty()) s += fmt::format("\nFAILED: {}\n", r.failure);

  s += "\nPODS\n";
  std::vector<std::vector<std::string>> rows = {
      {"arrived", Thousands(r.pods_arrived), ""},
      {"scheduled", Thousands(r.pods_scheduled),
       fmt::format("{} scheduling cycles, {} unschedulable attempts, {} errors",
                   Thousands(r.cycles), Thousands(r.unschedulable_attempts), Thousands(r.errors))},
      {"completed", Thousands(r.pods_completed), ""},
      {"evicted", Thousands(r.pods_evicted), EvictionNote(r.evictions)},
      {"running at end", Thousands(r.pods_running_end), ""},
      {"pending at end", Thousands(r.pods_pending_end),
       fmt::format("{} of them failed at least one attempt", Thousands(r.pods_unschedulable_end))},
      {"preempted", r.preemption.available ? Thousands(r.pods_preempted) : "—",
       r.preemption.available
           ? fmt::format("victims of {} preemptions; deleted after their grace period, "
                         "recreated unless the workload says not",
                         Thousands(r.preemptions))
           : r.preemption.note},
  };
  s += Table(rows, 2, {false, true, false});

  s += "\nUTILIZATION (requested / allocatable)\n";
  rows = {{"resource", "mean", "peak", "end"}};
  for (size_t k = 0; k < r.resources.size(); ++k) {
    double end = r.samples.empty() ? 0 : r.samples.back().util[k];
    rows.push_back({r.resources[k].name, Pct(r.mean_util[k]), Pct(r.peak_util[k]), Pct(end)});
  }
  s += Table(rows, 2, {false, true, true, true});

  if (r.pending_waits.count == 0) {
    s += "\nSCHEDULING LATENCY (arrival → bound)\n";
    s += "  " + LatencyLine(r.latency, "no pod placed") + "\n";
  } else {
    // Pods still pending are censored observations: they count at their wait so far.
    s += "\nSCHEDULING LATENCY (arrival → bound; pods still pending count at their wait so far)\n";
    s += KeyLine(
        "all pods", LowerBoundLine(r.latency_with_pending),
        fmt::format("({} pods; lower bounds: {} still pending)",
                    Thousands(r.latency_with_pending.count()), Thousands(r.pending_waits.count)));
    s += KeyLine("bound pods", LatencyLine(r.latency, "no pod placed"),
                 r.latency.empty() ? "" : fmt::format("({} pods)", Thousands(r.latency.count())));
    s += KeyLine("still pending", CensoredLine(r.pending_waits, "pod"));
  }

  if (!r.clusters.empty()) {
    // Per member cluster; the sections above are the fleet's totals.
    s += "\nCLUSTERS (the sections above are the fleet total)\n";
    rows = {{"cluster", "nodes", "scheduled", "running", "pending", "cycles"}};
    for (size_t k = 0; k < r.resources.size(); ++k)
      rows[0].push_back(r.resources[k].name + " mean");
    rows[0].push_back("latency");
    for (const auto& c : r.clusters) {
      std::vector<std::string> row = {c.name,
                                      Thousands(c.nodes_end),
                                      Thousands(c.pods_scheduled),
                                      Thousands(c.pods_running_end),
                                      Thousands(c.pods_pending_end),
                                      Thousands(c.cycles)};
      for (size_t k = 0; k < r.resources.size(); ++k) row.push_back(Pct(c.mean_util[k]));
      row.push_back(c.pending_waits.count == 0
                        ? LatencyLine(c.latency, "no pod placed")
                        : fmt::format("{}  (with {} still pending: p99 ≥{})",
                                      LatencyLine(c.latency, "no pod placed"),
                                      Thousands(c.pending_waits.count),
                                      HumanDuration(c.latency_with_pending.Percentile(99))));
      rows.push_back(std::move(row));
    }
    std::vector<bool> right(rows[0].size(), true);
    right.front() = false;
    right.back() = false;
    s += Table(rows, 2, right);
  }
  if (r.fleet != nullptr) s += FormatFleetSummary(*r.fleet);

  s += "\nWORKLOADS\n";
  rows = {{"name", "kind", "arrivals", "pods", "scheduled", "completed", "evicted", "preempted",
           "pending", "wait p50", "wait p99", "group wait p99"}};
  for (const auto& w : r.workloads) {
    rows.push_back(
        {w.name, w.controller.empty() ? w.kind : w.controller, Thousands(w.arrivals),
         Thousands(w.pods_arrived), Thousands(w.pods_scheduled), Thousands(w.pods_completed),
         Thousands(w.pods_evicted), Thousands(w.pods_preempted), Thousands(w.pods_pending_end),
         WaitCell(w.latency_with_pending, w.pending_waits.count, 50),
         WaitCell(w.latency_with_pending, w.pending_waits.count, 99),
         w.kind == "pods" ? "" : WaitCell(w.group_wait_with_waiting, w.waiting_groups.count, 99)});
  }
  s += Table(rows, 2, {false, false, true, true, true, true, true, true, true, true, true, true});
  bool lower_bounds = false;
  for (const auto& w : r.workloads)
    lower_bounds = lower_bounds || w.pending_waits.count > 0 || w.waiting_groups.count > 0;
  if (lower_bounds) {
    s +=
        "  waits count pods and groups still waiting at their wait so far; ≥ marks a lower bound\n";
  }

  s += "\nGANGS (arrival → every pod bound)\n";
  if (r.gangs_arrived == 0) {
    s += "  no gang workloads\n";
  } else {
    if (r.waiting_gangs.count == 0) {
      s += fmt::format("  arrived {}  complete {}  restarted {}  wait {}\n",
                       Thousands(r.gangs_arrived), Thousands(r.gangs_complete),
                       Thousands(r.gang_restarts), LatencyLine(r.gang_wait, "no gang complete"));
    } else {
      s += fmt::format("  arrived {}  complete {}  restarted {}  still waiting {}\n",
                       Thousands(r.gangs_arrived), Thousands(r.gangs_complete),
                       Thousands(r.gang_restarts), Thousands(r.waiting_gangs.count));
      s += KeyLine(
          "all gangs", LowerBoundLine(r.gang_wait_with_waiting),
          fmt::format("(lower bounds: {} still waiting)", Thousands(r.waiting_gangs.count)));
      s += KeyLine("complete", LatencyLine(r.gang_wait, "no gang complete"));
      s += KeyLine("still waiting", CensoredLine(r.waiting_gangs, "gang"));
    }
  }
  if (!r.gang_scheduling.available) s += fmt::format("  note: {}\n", r.gang_scheduling.note);

  s += "\nBATCHING (opportunistic batching, KEP-5598)\n";
  if (r.batching.available) {
    double rate = r.pods_scheduled > 0
                      ? static_cast<double>(r.batched) / static_cast<double>(r.pods_scheduled)
                      : 0;
    s += fmt::format("  hits {} ({:.1f}% of bindings)", Thousands(r.batched), rate * 100);
    int64_t flushes = 0;
    for (const auto& [reason, n] : r.batch_flushes) flushes += n;
    s += fmt::format("  flushes {}", Thousands(flushes));
    if (!r.batch_flushes.empty()) {
      s += ":";
      for (const auto& [reason, n] : r.batch_flushes)
        s += fmt::format(" {} {}", reason, Thousands(n));
    }
    s += "\n";
  } else {
    s += fmt::format("  hit rate —  ({})\n", r.batching.note);
  }

  s += "\nTHROUGHPUT (scheduled pods per virtual second; kube's collector: 1 s samples, first "
       "skipped, idle merged)\n";
  if (r.pods_scheduled == 0) {
    s += "  no pod placed\n";
  } else if (r.throughput.has_samples) {
    s += fmt::format("  average {:.2f}  p50 {:.2f}  p90 {:.2f}  p99 {:.2f}  ({} samples)\n",
                     r.throughput.average, r.throughput.perc50, r.throughput.perc90,
                     r.throughput.perc99, r.throughput.samples);
  } else {
    s += "  — (fewer than two 1 s samples with scheduled pods)\n";
  }
  s += fmt::format("  scheduling cost: {}{}\n", r.cost_model,
                   r.cost_model == "instant"
                       ? " (virtual throughput follows arrivals; use --scheduling-cost measured "
                         "or `corral perf` to measure the scheduler)"
                       : "");

  if (!r.pending_reasons.empty()) {
    s += "\nPENDING AT END (most frequent reasons)\n";
    size_t n = 0;
    for (const auto& [msg, count] : r.pending_reasons) {
      if (++n > 8) {
        s += fmt::format("  … {} more reasons\n", r.pending_reasons.size() - 8);
        break;
      }
      s += fmt::format("  {:>7}  {}\n", Thousands(count), msg);
    }
  }
  if (!r.notes.empty()) {
    s += "\nNOTES\n";
    for (const auto& n : r.notes) s += "  " + n + "\n";
  }
  if (!r.provenance.empty()) {
    s += "\nINPUTS\n";
    for (const auto& line : ProvenanceLines(r.provenance)) s += "  " + line + "\n";
  }
  return s;
}

namespace {

using json = nlohmann::ordered_json;

json Hist(const LogHistogram& h, double scale = 1e-9) {
  if (h.empty()) return json{{"count", 0}};
  return json{{"count", h.count()},
              {"p50", static_cast<double>(h.Percentile(50)) * scale},
              {"p90", static_cast<double>(h.Percentile(90)) * scale},
              {"p99", static_cast<double>(h.Percentile(99)) * scale},
              {"max", static_cast<double>(h.max()) * scale},
              {"mean", h.mean() * scale}};
}

double Round6(double v) {
  return std::round(v * 1e6) / 1e6;
}

// Censored observations: {count, min, p50, max} of the time waited so far, in seconds.
json Censored(const CensoredWaits& c) {
  if (c.count == 0) return json{{"count", 0}};
  return json{{"count", c.count},
              {"min", static_cast<double>(c.waited.min()) * 1e-9},
              {"p50", static_cast<double>(c.waited.Percentile(50)) * 1e-9},
              {"max", static_cast<double>(c.waited.max()) * 1e-9}};
}

// A histogram that includes censored observations, with their number.
json WithCensored(const LogHistogram& h, int64_t censored) {
  json j = Hist(h);
  j["censored"] = censored;
  return j;
}

json EvictionsJson(const Evictions& e) {
  return json{{"drain", e.drain},
              {"node_failure", e.node_failure},
              {"gang_restart", e.gang_restart},
              {"preemption", e.preemption},
              {"total", e.total()}};
}
}  // namespace

std::string FormatJson(const RunResult& r) {
  json j;
  j["version"] = "corral.dev/sim/v1";
  j["partial"] = r.partial;
  if (r.partial) {
    j["partial_cause"] = r.partial_cause;
    j["partial_at_seconds"] = static_cast<double>(r.end_ns) / 1e9;
  }
  j["scenario"] = {{"name", r.name},
                   {"description", r.description},
                   {"source", r.source},
                   {"seed", r.seed},
                   {"scheduling_cost", r.cost_model},
                   {"bind_latency", r.bind_latency},
                   {"end_seconds", static_cast<double>(r.end_ns) / 1e9},
                   {"sample_interval_seconds", static_cast<double>(r.sample_interval_ns) / 1e9}};
  if (!r.provenance.empty()) j["provenance"] = ProvenanceJson(r.provenance);
  if (!r.failure.empty()) j["failure"] = r.failure;
  j["nodes"] = {{"end", r.nodes_end}, {"max", r.nodes_max}};
  j["pods"] = {{"arrived", r.pods_arrived},
               {"scheduled", r.pods_scheduled},
               {"completed", r.pods_completed},
               {"evicted", r.pods_evicted},
               {"running_end", r.pods_running_end},
               {"pending_end", r.pods_pending_end},
               {"unschedulable_end", r.pods_unschedulable_end},
               {"preempted", r.preemption.available ? json(r.pods_preempted) : json(nullptr)},
               {"evictions", EvictionsJson(r.evictions)}};
  j["scheduler"] = {{"cycles", r.cycles},
                    {"unschedulable_attempts", r.unschedulable_attempts},
                    {"errors", r.errors}};
  json util = json::object();
  for (size_t k = 0; k < r.resources.size(); ++k) {
    util[r.resources[k].name] = {
        {"mean", Round6(r.mean_util[k])},
        {"peak", Round6(r.peak_util[k])},
        {"end", r.samples.empty() ? 0.0 : Round6(r.samples.back().util[k])}};
  }
  j["utilization"] = util;
  j["latency_seconds"] = Hist(r.latency);
  j["latency_with_pending_seconds"] = WithCensored(r.latency_with_pending, r.pending_waits.count);
  j["pending_wait_seconds"] = Censored(r.pending_waits);
  if (!r.clusters.empty()) {
    json clusters = json::array();
    for (const auto& c : r.clusters) {
      json cu = json::object();
      for (size_t k = 0; k < r.resources.size(); ++k)
        cu[r.resources[k].name] = {{"mean", Round6(c.mean_util[k])}};
      json ctl = json::array();
      for (size_t i = 0; i < c.pending.size() && i < r.samples.size(); ++i) {
        json u = json::object();
        for (size_t k = 0; k < r.resources.size(); ++k)
          u[r.resources[k].name] = Round6(c.util[i][k]);
        ctl.push_back({{"t", static_cast<double>(r.samples[i].t_ns) / 1e9},
                       {"pending", c.pending[i]},
                       {"utilization", std::move(u)}});
      }
      clusters.push_back({{"name", c.name},
                          {"nodes", c.nodes_end},
                          {"pods",
                           {{"scheduled", c.pods_scheduled},
                            {"running_end", c.pods_running_end},
                            {"pending_end", c.pods_pending_end}}},
                          {"cycles", c.cycles},
                          {"utilization", std::move(cu)},
                          {"latency_seconds", Hist(c.latency)},
                          {"latency_with_pending_seconds",
                           WithCensored(c.latency_with_pending, c.pending_waits.count)},
                          {"pending_wait_seconds", Censored(c.pending_waits)},
                          {"timeline", std::move(ctl)}});
    }
    j["clusters"] = std::move(clusters);
  }
  j["gangs"] = {
      {"available", r.gang_scheduling.available},
      {"note", r.gang_scheduling.note},
      {"arrived", r.gangs_arrived},
      {"complete", r.gangs_complete},
      {"restarted", r.gang_restarts},
      {"wait_seconds", Hist(r.gang_wait)},
      {"waiting_end", r.waiting_gangs.count},
      {"wait_with_waiting_seconds", WithCensored(r.gang_wait_with_waiting, r.waiting_gangs.count)},
      {"waiting_wait_seconds", Censored(r.waiting_gangs)}};
  json waits = json::array();
  for (const auto& [arrival, wait] : r.gang_waits) {
    waits.push_back(
        json::array({static_cast<double>(arrival) / 1e9, static_cast<double>(wait) / 1e9}));
  }
  j["gangs"]["waits"] = std::move(waits);
  j["preemption"] = {{"available", r.preemption.available},
                     {"note", r.preemption.note},
                     {"preemptions", r.preemption.available ? json(r.preemptions) : json(nullptr)},
                     {"victims", r.preemption.available ? json(r.pods_preempted) : json(nullptr)}};
  if (r.batching.available) {
    json flushes = json::object();
    for (const auto& [reason, n] : r.batch_flushes) flushes[reason] = n;
    j["batching"] = {
        {"available", true},
        {"note", r.batching.note},
        {"hits", r.batched},
        {"hit_rate", r.pods_scheduled > 0 ? Round6(static_cast<double>(r.batched) /
                                                   static_cast<double>(r.pods_scheduled))
                                          : 0.0},
        {"flushes", std::move(flushes)}};
  } else {
    j["batching"] = {{"available", false},
                     {"note", r.batching.note},
                     {"hits", nullptr},
                     {"hit_rate", nullptr},
                     {"flushes", nullptr}};
  }
  if (r.pods_ignored > 0) j["pods"]["ignored"] = r.pods_ignored;
  if (r.throughput.has_samples) {
    j["throughput"] = {{"unit", "pods/s (virtual)"},
                       {"Average", Round6(r.throughput.average)},
                       {"Perc50", Round6(r.throughput.perc50)},
                       {"Perc90", Round6(r.throughput.perc90)},
                       {"Perc95", Round6(r.throughput.perc95)},
                       {"Perc99", Round6(r.throughput.perc99)},
                       {"samples", r.throughput.samples}};
  } else {
    j["throughput"] = nullptr;
  }
  json wls = json::array();
  for (const auto& w : r.workloads) {
    json wj = {{"name", w.name},
               {"kind", w.kind},
               {"arrivals", w.arrivals},
               {"pods_arrived", w.pods_arrived},
               {"pods_scheduled", w.pods_scheduled},
               {"pods_completed", w.pods_completed},
               {"pods_evicted", w.pods_evicted},
               {"pods_preempted", w.pods_preempted},
               {"pods_pending_end", w.pods_pending_end},
               {"latency_seconds", Hist(w.latency)},
               {"evictions", EvictionsJson(w.evictions)},
               {"latency_with_pending_seconds",
                WithCensored(w.latency_with_pending, w.pending_waits.count)},
               {"pending_wait_seconds", Censored(w.pending_waits)}};
    if (w.kind != "pods") {
      wj["groups_complete"] = w.groups_complete;
      wj["group_wait_seconds"] = Hist(w.group_wait);
      wj["groups_waiting_end"] = w.waiting_groups.count;
      wj["group_wait_with_waiting_seconds"] =
          WithCensored(w.group_wait_with_waiting, w.waiting_groups.count);
    }
    wls.push_back(std::move(wj));
  }
  j["workloads"] = std::move(wls);
  json reasons = json::array();
  for (const auto& [msg, n] : r.pending_reasons) reasons.push_back({{"message", msg}, {"pods", n}});
  j["pending_reasons"] = std::move(reasons);
  json tl = json::array();
  for (const auto& s : r.samples) {
    json u = json::object();
    for (size_t k = 0; k < r.resources.size(); ++k) u[r.resources[k].name] = Round6(s.util[k]);
    tl.push_back({{"t", static_cast<double>(s.t_ns) / 1e9},
                  {"nodes", s.nodes},
                  {"nodes_schedulable", s.nodes_schedulable},
                  {"pending", s.pending},
                  {"running", s.running},
                  {"arrived", s.arrived},
                  {"scheduled", s.scheduled},
                  {"completed", s.completed},
                  {"evicted", s.evicted},
                  {"unschedulable_attempts", s.unschedulable_attempts},
                  {"cycles", s.cycles},
                  {"preempted", r.preemption.available ? json(s.preempted) : json(nullptr)},
                  {"batched", r.batching.available ? json(s.batched) : json(nullptr)},
                  {"batch_flushes", r.batching.available ? json(s.batch_flushes) : json(nullptr)},
                  {"utilization", std::move(u)}});
  }
  j["timeline"] = std::move(tl);
  if (r.fleet != nullptr) j["fleet"] = FleetJson(*r.fleet);
  j["notes"] = r.notes;
  return j.dump(2) + "\n";
}

std::string FormatCsv(const RunResult& r) {
  // Provenance and the partial marker first, as '#' comment lines (pandas: comment='#').
  std::string s;
  for (const auto& line : ProvenanceLines(r.provenance)) {
    if (r.provenance.empty()) break;
    s += "# " + line + "\n";
  }
  if (r.partial) {
    s += fmt::format("# partial: stopped by signal at virtual time {} ({})\n",
                     FormatClock(r.end_ns), r.partial_cause);
  }
  s += "t_seconds,nodes,nodes_schedulable,pending,running,arrived,scheduled,completed,evicted,"
       "unschedulable_attempts,cycles,preempted,batched,batch_flushes";
  for (const auto& res : r.resources) s += ",util_" + res.name;
  // Runs with several clusters: per cluster, its pending pods and utilization per resource.
  for (const auto& c : r.clusters) {
    s += fmt::format(",{}_pending", c.name);
    for (const auto& res : r.resources) s += fmt::format(",{}_util_{}", c.name, res.name);
  }
  s += "\n";
  for (const auto& x : r.samples) {
    s += fmt::format("{:.3f},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                     static_cast<double>(x.t_ns) / 1e9, x.nodes, x.nodes_schedulable, x.pending,
                     x.running, x.arrived, x.scheduled, x.completed, x.evicted,
                     x.unschedulable_attempts, x.cycles, x.preempted, x.batched, x.batch_flushes);
    for (size_t k = 0; k < r.resources.size(); ++k) s += fmt::format(",{:.6f}", x.util[k]);
    const size_t i = static_cast<size_t>(&x - r.samples.data());
    for (const auto& c : r.clusters) {
      if (i < c.pending.size()) {
        s += fmt::format(",{}", c.pending[i]);
      } else {
        s += ",";
      }
      for (size_t k = 0; k < r.resources.size(); ++k) {
        if (i < c.util.size()) {
          s += fmt::format(",{:.6f}", c.util[i][k]);
        } else {
          s += ",";
        }
      }
    }
    s += "\n";
  }
  return s;
}

namespace {
std::string Esc(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}
void Summary(std::string& s, std::string_view name, std::string_view help, const LogHistogram& h,
             std::string_view labels = "") {
  s += fmt::format("# HELP {} {}\n# TYPE {} summary\n", name, help, name);
  std::string sep = labels.empty() ? "" : ",";
  for (double q : {0.5, 0.9, 0.99}) {
    s += fmt::format("{}{{{}{}quantile=\"{}\"}} {}\n", name, labels, sep, q,
                     static_cast<double>(h.Percentile(q * 100)) / 1e9);
  }
  std::string lb = labels.empty() ? "" : fmt::format("{{{}}}", labels);
  s += fmt::format("{}_sum{} {}\n{}_count{} {}\n", name, lb,
                   h.mean() * static_cast<double>(h.count()) / 1e9, name, lb, h.count());
}
}  // namespace

std::string FormatPrometheus(const RunResult& r) {
  std::string s;
  if (!r.provenance.empty()) {
    for (const auto& line : ProvenanceLines(r.provenance)) s += "# corral input: " + line + "\n";
    const Provenance& p = r.provenance;
    std::string inputs;
    for (const auto& in : p.inputs) inputs += (inputs.empty() ? "" : ",") + in.path;
    std::string configs, hashes;
    for (const auto& sp : p.schedulers) {
      configs += (configs.empty() ? "" : ",") + sp.config_path;
      hashes += (hashes.empty() ? "" : ",") + sp.config_hash;
    }
    s += "# HELP corral_sim_run_info What the run was made of (always 1).\n"
         "# TYPE corral_sim_run_info gauge\n";
    s += fmt::format(
        "corral_sim_run_info{{corral_version=\"{}\",scenario=\"{}\",seed=\"{}\","
        "scheduler_config=\"{}\",scheduler_config_hash=\"{}\"}} 1\n",
        Esc(p.corral_version), Esc(p.builtin_scenario ? "built-in default" : inputs), p.seed,
        Esc(configs), Esc(hashes));
  }
  s += "# HELP corral_sim_partial 1 when the run was stopped before its end (by a signal).\n"
       "# TYPE corral_sim_partial gauge\n";
  s += fmt::format("corral_sim_partial {}\n", r.partial ? 1 : 0);
  s += "# HELP corral_sim_pods_total Pods by lifecycle event over the run.\n# TYPE "
       "corral_sim_pods_total counter\n";
  for (auto [ev, v] : {std::pair<const char*, int64_t>{"arrived", r.pods_arrived},
                       {"scheduled", r.pods_scheduled},
                       {"completed", r.pods_completed},
                       {"evicted", r.pods_evicted}}) {
    s += fmt::format("corral_sim_pods_total{{event=\"{}\"}} {}\n", ev, v);
  }
  for (const auto& c : r.clusters) {
    s += fmt::format("corral_sim_pods_total{{cluster=\"{}\",event=\"scheduled\"}} {}\n",
                     Esc(c.name), c.pods_scheduled);
  }
  s +=
      "# HELP corral_sim_pods Pods by state at the end of the run.\n# TYPE corral_sim_pods gauge\n";
  s += fmt::format("corral_sim_pods{{state=\"running\"}} {}\n", r.pods_running_end);
  s += fmt::format("corral_sim_pods{{state=\"pending\"}} {}\n", r.pods_pending_end);
  s += fmt::format("corral_sim_pods{{state=\"unschedulable\"}} {}\n", r.pods_unschedulable_end);
  for (const auto& c : r.clusters) {
    s += fmt::format("corral_sim_pods{{cluster=\"{}\",state=\"running\"}} {}\n", Esc(c.name),
                     c.pods_running_end);
    s += fmt::format("corral_sim_pods{{cluster=\"{}\",state=\"pending\"}} {}\n", Esc(c.name),
                     c.pods_pending_end);
  }
  if (r.fleet != nullptr) s += FormatFleetPrometheus(*r.fleet);
  s += "# HELP corral_sim_nodes Nodes at the end of the run.\n# TYPE corral_sim_nodes gauge\n";
  s += fmt::format("corral_sim_nodes {}\n", r.nodes_end);
  for (const auto& c : r.clusters) {
    s += fmt::format("corral_sim_nodes{{cluster=\"{}\"}} {}\n", Esc(c.name), c.nodes_end);
  }
  s += "# HELP corral_sim_virtual_seconds Virtual time simulated.\n# TYPE "
       "corral_sim_virtual_seconds gauge\n";
  s += fmt::format("corral_sim_virtual_seconds {}\n", static_cast<double>(r.end_ns) / 1e9);
  s += "# HELP corral_sim_evictions_total Pods deleted and recreated, by cause.\n"
       "# TYPE corral_sim_evictions_total counter\n";
  for (auto [cause, v] : {std::pair<const char*, int64_t>{"drain", r.evictions.drain},
                          {"node_failure", r.evictions.node_failure},
                          {"gang_restart", r.evictions.gang_restart},
                          {"preemption", r.evictions.preemption}}) {
    s += fmt::format("corral_sim_evictions_total{{cause=\"{}\"}} {}\n", cause, v);
  }
  s += "# HELP corral_sim_pending_end_waited_seconds Pods pending at the end: time waited so far.\n"
       "# TYPE corral_sim_pending_end_waited_seconds gauge\n";
  for (auto [stat, v] : {std::pair<const char*, int64_t>{"min", r.pending_waits.waited.min()},
                         {"median", r.pending_waits.waited.Percentile(50)},
                         {"max", r.pending_waits.waited.max()}}) {
    s += fmt::format("corral_sim_pending_end_waited_seconds{{stat=\"{}\"}} {}\n", stat,
                     static_cast<double>(v) / 1e9);
  }
  s += "# HELP corral_sim_preemption_victims_total Pods evicted by preemption.\n"
       "# TYPE corral_sim_preemption_victims_total counter\n";
  s += fmt::format("corral_sim_preemption_victims_total {}\n", r.pods_preempted);
  s +=
      "# HELP corral_sim_utilization_ratio Requested over allocatable, by resource and statistic.\n"
      "# TYPE corral_sim_utilization_ratio gauge\n";
  for (size_t k = 0; k < r.resources.size(); ++k) {
    double end = r.samples.empty() ? 0 : r.samples.back().util[k];
    for (auto [stat, v] : {std::pair<const char*, double>{"mean", r.mean_util[k]},
                           {"peak", r.peak_util[k]},
                           {"end", end}}) {
      s += fmt::format("corral_sim_utilization_ratio{{resource=\"{}\",stat=\"{}\"}} {:.6f}\n",
                       Esc(r.resources[k].name), stat, v);
    }
  }
  for (const auto& c : r.clusters) {
    for (size_t k = 0; k < r.resources.size(); ++k) {
      double end = c.util.empty() ? 0 : c.util.back()[k];
      for (auto [stat, v] :
           {std::pair<const char*, double>{"mean", c.mean_util[k]}, {"end", end}}) {
        s += fmt::format(
            "corral_sim_utilization_ratio{{cluster=\"{}\",resource=\"{}\",stat=\"{}\"}} {:.6f}\n",
            Esc(c.name), Esc(r.resources[k].name), stat, v);
      }
    }
  }
  Summary(s, "corral_sim_pod_scheduling_latency_seconds",
          "Virtual time from a pod's arrival until it is bound.", r.latency);
  for (const auto& c : r.clusters) {
    // Samples of the same family, labelled with their cluster (no second HELP/TYPE).
    const std::string name = "corral_sim_pod_scheduling_latency_seconds";
    const std::string label = fmt::format("cluster=\"{}\"", Esc(c.name));
    for (double q : {0.5, 0.9, 0.99}) {
      s += fmt::format("{}{{{},quantile=\"{}\"}} {}\n", name, label, q,
                       static_cast<double>(c.latency.Percentile(q * 100)) / 1e9);
    }
    s += fmt::format("{}_sum{{{}}} {}\n{}_count{{{}}} {}\n", name, label,
                     c.latency.mean() * static_cast<double>(c.latency.count()) / 1e9, name, label,
                     c.latency.count());
  }
  if (!r.clusters.empty()) {
    s += "# HELP corral_sim_scheduling_cycles_total Scheduling cycles run, by member cluster.\n"
         "# TYPE corral_sim_scheduling_cycles_total counter\n";
    for (const auto& c : r.clusters) {
      s += fmt::format("corral_sim_scheduling_cycles_total{{cluster=\"{}\"}} {}\n", Esc(c.name),
                       c.cycles);
    }
  }
  Summary(s, "corral_sim_gang_wait_seconds",
          "Virtual time from a gang's arrival until all its pods are bound.", r.gang_wait);
  s += "# HELP corral_sim_workload_pods_total Pods by workload and lifecycle event.\n"
       "# TYPE corral_sim_workload_pods_total counter\n";
  for (const auto& w : r.workloads) {
    for (auto [ev, v] : {std::pair<const char*, int64_t>{"arrived", w.pods_arrived},
                         {"scheduled", w.pods_scheduled},
                         {"completed", w.pods_completed},
                         {"evicted", w.pods_evicted}}) {
      s += fmt::format("corral_sim_workload_pods_total{{workload=\"{}\",event=\"{}\"}} {}\n",
                       Esc(w.name), ev, v);
    }
  }
  s += "# HELP corral_sim_preemptions_total Preemptors that evicted at least one victim.\n"
       "# TYPE corral_sim_preemptions_total counter\n";
  s += fmt::format("corral_sim_preemptions_total {}\n", r.preemptions);
  s += "# HELP corral_sim_gangs_total Gangs by event.\n# TYPE corral_sim_gangs_total counter\n";
  for (auto [ev, v] : {std::pair<const char*, int64_t>{"arrived", r.gangs_arrived},
                       {"complete", r.gangs_complete},
                       {"restarted", r.gang_restarts}}) {
    s += fmt::format("corral_sim_gangs_total{{event=\"{}\"}} {}\n", ev, v);
  }
  if (r.batching.available) {
    s += "# HELP corral_sim_batched_pods_total Pods placed on an opportunistic-batching hint.\n"
         "# TYPE corral_sim_batched_pods_total counter\n";
    s += fmt::format("corral_sim_batched_pods_total {}\n", r.batched);
  }
  if (r.throughput.has_samples) {
    s += "# HELP corral_sim_scheduling_throughput_pods_per_second Scheduled pods per virtual "
         "second (kube's "
         "scheduler_perf collector).\n# TYPE corral_sim_scheduling_throughput_pods_per_second "
         "gauge\n";
    for (auto [stat, v] : {std::pair<const char*, double>{"Average", r.throughput.average},
                           {"Perc50", r.throughput.perc50},
                           {"Perc90", r.throughput.perc90},
                           {"Perc95", r.throughput.perc95},
                           {"Perc99", r.throughput.perc99}}) {
      s += fmt::format("corral_sim_scheduling_throughput_pods_per_second{{stat=\"{}\"}} {:.6f}\n",
                       stat, v);
    }
  }
  if (!r.batching.available) s += "# scheduler_batch_*: " + r.batching.note + "\n";
  // The scheduler's own registry, with kube-scheduler's metric names.
  s += r.scheduler_metrics;
  return s;
}

void JsonLinesEventLog::Event(int64_t t_ns, std::string_view kind, std::string_view detail) {
  // Virtual time in whole milliseconds, printed as seconds with three decimals (as the text log).
  const int64_t ms = t_ns / 1'000'000;
  line_.clear();
  fmt::format_to(std::back_inserter(line_), "{{\"t\": {}.{:03}, \"kind\": {}, \"detail\": {}}}\n",
                 ms / 1000, ms % 1000, nlohmann::json(kind).dump(), nlohmann::json(detail).dump());
  std::fwrite(line_.data(), 1, line_.size(), f_);
}

}  // namespace corral::sim
