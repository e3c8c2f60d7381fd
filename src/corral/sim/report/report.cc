#include "corral/sim/report/report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "corral/sim/report/fleet_output.h"
#include "corral/sim/report/output.h"
#include "corral/sim/report/svg.h"

namespace corral::sim {

namespace {

using svg::Escape;

constexpr std::string_view kCss = R"css(
:root { --fg:#1f2933; --muted:#6b7480; --line:#e3e7ec; --card:#ffffff; --bg:#f4f6f8; --accent:#4e79a7; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg);
       font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
header h1 { margin: 0 0 4px; font-size: 24px; letter-spacing: -0.01em; }
header .sub { margin: 0; font-size: 16px; color: var(--fg); }
header .meta { margin: 6px 0 0; color: var(--muted); font-size: 13px; }
.inputs { margin: 8px 0 0; font-size: 13px; color: var(--muted); }
.inputs pre { margin: 6px 0 0; font-size: 12px; color: var(--fg); white-space: pre-wrap; }
.failure { margin: 14px 0 0; padding: 10px 14px; border-radius: 8px; background:#fdecec; color:#9b1c1c; }
.kpis { display:grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: 12px; margin: 22px 0 8px; }
.kpi { background: var(--card); border:1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.kpi .v { font-size: 22px; font-weight: 650; letter-spacing: -0.01em; }
.kpi .l { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; }
.kpi .d { color: var(--muted); font-size: 12px; }
.card { background: var(--card); border:1px solid var(--line); border-radius: 10px; padding: 16px 18px 12px;
        margin: 16px 0; }
.card h2 { margin: 0 0 2px; font-size: 16px; }
.card .cap { margin: 0 0 10px; color: var(--muted); font-size: 13px; }
.grid2 { display:grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.grid2 .card { margin: 0; }
@media (max-width: 860px) { .grid2 { grid-template-columns: 1fr; } }
svg.chart { display:block; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 6px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.msg { text-align: left; white-space: normal; }
.tag { display:inline-block; padding: 1px 7px; border-radius: 9px; font-size: 11px; background:#eef2f7; color:#41536b; }
.tag.off { background:#f3f4f6; color:#8a939e; }
ul.notes { margin: 6px 0 0; padding-left: 18px; color: var(--muted); }
footer { margin-top: 28px; color: var(--muted); font-size: 12px; text-align: center; }
)css";

// Latency bins for histograms: [0], then decades up to hours.
struct Bin {
  int64_t lo, hi;  // [lo, hi) in ns
  const char* label;
};
constexpr int64_t kMs = 1'000'000, kS = 1'000'000'000;
constexpr Bin kBins[] = {
    {0, 1, "0"},
    {1, kMs, "<1ms"},
    {kMs, 10 * kMs, "1ms"},
    {10 * kMs, 100 * kMs, "10ms"},
    {100 * kMs, kS, "100ms"},
    {kS, 10 * kS, "1s"},
    {10 * kS, 60 * kS, "10s"},
    {60 * kS, 600 * kS, "1m"},
    {600 * kS, 3600 * kS, "10m"},
    {3600 * kS, 6 * 3600 * kS, "1h"},
    {6 * 3600 * kS, std::numeric_limits<int64_t>::max(), "6h+"},
};

std::vector<svg::Bar> Bins(const LogHistogram& h) {
  std::vector<svg::Bar> bars;
  for (const Bin& b : kBins) bars.push_back({b.label, 0});
  for (size_t k = 0; k < LogHistogram::kBuckets; ++k) {
    uint64_t n = h.bucket_count(k);
    if (n == 0) continue;
    int64_t lo = LogHistogram::BucketLow(k);
    for (size_t i = 0; i < std::size(kBins); ++i) {
      if (lo >= kBins[i].lo && lo < kBins[i].hi) {
        bars[i].value += static_cast<double>(n);
        break;
      }
    }
  }
  return bars;
}

std::string Kpi(std::string_view label, std::string_view value, std::string_view detail) {
  return fmt::format(
      R"(<div class="kpi"><div class="l">{}</div><div class="v">{}</div><div class="d">{}</div></div>)",
      Escape(label), Escape(value), Escape(detail));
}

std::string Pct(double v) {
  return fmt::format("{:.1f}%", v * 100);
}

std::string Card(std::string_view title, std::string_view caption, const std::string& body) {
  return fmt::format("<section class=\"card\"><h2>{}</h2><p class=\"cap\">{}</p>\n{}</section>\n",
                     Escape(title), Escape(caption), body);
}

// The node heat map of one resource: rows = nodes (or groups of nodes), columns = samples
// (or groups).
std::string HeatSection(const RunResult& r, size_t h) {
  const auto& per_sample = r.heat[h];
  if (per_sample.empty()) return "";
  // Node slots that ever held a node, ordered by pool (first appearance) then slot.
  std::vector<size_t> slots;
  std::map<std::string, size_t> pool_rank;
  for (size_t i = 0; i < r.slot_names.size(); ++i) {
    if (r.slot_names[i].empty()) continue;
    // Leave out nodes that never had any of this resource (CPU-only nodes in a GPU heat map).
    bool has = false;
    for (const auto& v : per_sample) has = has || (i < v.size() && v[i] < 254);
    if (!has) continue;
    slots.push_back(i);
    pool_rank.try_emplace(r.slot_pools[i], pool_rank.size());
  }
  if (slots.empty()) return "";
  std::stable_sort(slots.begin(), slots.end(), [&](size_t a, size_t b) {
    return pool_rank[r.slot_pools[a]] < pool_rank[r.slot_pools[b]];
  });
  constexpr size_t kMaxRows = 150, kMaxCols = 240;
  const size_t group = (slots.size() + kMaxRows - 1) / kMaxRows;
  // Rows never mix pools.
  struct Row {
    std::vector<size_t> slots;
  };
  std::vector<Row> rows;
  std::vector<svg::HeatRowGroup> labels;
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string& pool = r.slot_pools[slots[i]];
    bool new_pool = i == 0 || pool != r.slot_pools[slots[i - 1]];
    if (new_pool) labels.push_back({pool.empty() ? std::string("nodes") : pool, rows.size()});
    if (new_pool || rows.back().slots.size() >= group) rows.push_back({});
    rows.back().slots.push_back(slots[i]);
  }
  const size_t samples = per_sample.size();
  const size_t cgroup = (samples + kMaxCols - 1) / kMaxCols;
  const size_t cols = (samples + cgroup - 1) / cgroup;
  std::vector<std::vector<uint8_t>> cells(rows.size(), std::vector<uint8_t>(cols, 255));
  std::vector<double> x(cols);
  for (size_t c = 0; c < cols; ++c) {
    x[c] = static_cast<double>(r.samples[c * cgroup].t_ns) / 1e9;
    for (size_t row = 0; row < rows.size(); ++row) {
      double sum = 0;
      int n = 0;
      for (size_t k = c * cgroup; k < std::min(samples, (c + 1) * cgroup); ++k) {
        const auto& v = per_sample[k];
        for (size_t slot : rows[row].slots) {
          if (slot < v.size() && v[slot] < 254) {
            sum += v[slot];
            ++n;
          }
        }
      }
      if (n > 0) cells[row][c] = static_cast<uint8_t>(std::lround(sum / n));
    }
  }
  svg::HeatMapOptions o;
  o.id = fmt::format("heatmap-{}", r.heat_resources[h]);
  for (char& ch : o.id) {
    if (ch == '/' || ch == '.') ch = '-';
  }
  o.row_height = rows.size() <= 40 ? 8 : rows.size() <= 80 ? 4 : 3;
  std::string caption =
      group > 1
          ? fmt::format(
                "{} nodes, {} per row (mean); each column is {} of virtual time. Requested / "
                "allocatable {} per node.",
                slots.size(), group,
                HumanDuration(r.sample_interval_ns * static_cast<int64_t>(cgroup)),
                r.heat_resources[h])
          : fmt::format(
                "{} nodes, one per row; each column is {} of virtual time. Requested / allocatable "
                "{} "
                "per node.",
                slots.size(), HumanDuration(r.sample_interval_ns * static_cast<int64_t>(cgroup)),
                r.heat_resources[h]);
  return Card(fmt::format("Node heat map: {}", r.heat_resources[h]), caption,
              svg::HeatMap(cells, x, labels, o));
}

}  // namespace

// The panels of a run with several member clusters: one fleet-total panel (pending pods per
// cluster and their sum, the first resource's utilization per cluster), then one panel per cluster
// with its utilization and pending pods over time and its latency distribution. Each panel is a
// <section class="card cluster-panel"> with id "cluster-fleet" or "cluster-<index>" and the
// cluster's name in data-cluster, so a browser test can find every cluster's panel.
std::string ClusterSection(const RunResult& r, const std::vector<double>& x) {
  std::string h = "<div id=\"clusters\">\n";
  {
    std::vector<svg::Series> pending;
    svg::Series total{"fleet total", "#333333", {}, false};
    total.y.assign(r.samples.size(), 0.0);
    for (size_t c = 0; c < r.clusters.size(); ++c) {
      svg::Series s{
          r.clusters[c].name, std::string(svg::kPalette[c % std::size(svg::kPalette)]), {}, false};
      for (size_t i = 0; i < r.samples.size(); ++i) {
        double v = i < r.clusters[c].pending.size() ? static_cast<double>(r.clusters[c].pending[i])
                                                    : std::nan("");
        s.y.push_back(v);
        if (!std::isnan(v)) total.y[i] += v;
      }
      pending.push_back(std::move(s));
    }
    pending.push_back(std::move(total));
    std::vector<svg::Series> util;
    if (!r.resources.empty()) {
      for (size_t c = 0; c < r.clusters.size(); ++c) {
        svg::Series s{r.clusters[c].name,
                      std::string(svg::kPalette[c % std::size(svg::kPalette)]),
                      {},
                      false};
        for (size_t i = 0; i < r.samples.size(); ++i) {
          s.y.push_back(i < r.clusters[c].util.size() ? r.clusters[c].util[i][0] : std::nan(""));
        }
        util.push_back(std::move(s));
      }
    }
    std::string body = svg::LineChart(
        x, pending,
        {.width = 900, .height = 240, .y_label = "pending pods", .id = "chart-fleet-pending"});
    if (!util.empty()) {
      body +=
          svg::LineChart(x, util,
                         {.width = 900,
                          .height = 240,
                          .y_min = 0,
                          .y_max = 1,
                          .percent = true,
                          .y_label = fmt::format("{} requested / allocatable", r.resources[0].name),
                          .id = "chart-fleet-utilization"});
    }
    h += fmt::format(
        "<section class=\"card cluster-panel\" id=\"cluster-fleet\" data-cluster=\"\">"
        "<h2>Fleet total</h2><p class=\"cap\">{} member clusters on one virtual clock: pending "
        "pods per cluster and their sum, and {} utilization per cluster.</p>\n{}</section>\n",
        r.clusters.size(), r.resources.empty() ? "" : Escape(r.resources[0].name), body);
  }
  for (size_t c = 0; c < r.clusters.size(); ++c) {
    const ClusterResult& cr = r.clusters[c];
    std::vector<svg::Series> util;
    for (size_t k = 0; k < r.resources.size(); ++k) {
      svg::Series s{
          r.resources[k].name, std::string(svg::kPalette[k % std::size(svg::kPalette)]), {}, false};
      for (size_t i = 0; i < r.samples.size(); ++i) {
        s.y.push_back(i < cr.util.size() ? cr.util[i][k] : std::nan(""));
      }
      util.push_back(std::move(s));
    }
    svg::Series pending{"pending", "#f28e2b", {}, true};
    for (size_t i = 0; i < r.samples.size(); ++i) {
      pending.y.push_back(i < cr.pending.size() ? static_cast<double>(cr.pending[i])
                                                : std::nan(""));
    }
    std::string id = fmt::format("cluster-{}", c);
    std::string body = "<div class=\"grid2\">\n";
    body += svg::LineChart(x, util,
                           {.width = 600,
                            .height = 240,
                            .y_min = 0,
                            .y_max = 1,
                            .percent = true,
                            .y_label = "requested / allocatable",
                            .id = id + "-utilization"});
    body += svg::LineChart(x, {pending},
                           {.width = 600, .height = 240, .y_label = "pods", .id = id + "-pending"});
    body += "</div>\n";
    body += svg::BarChart(Bins(cr.latency), {.width = 900,
                                             .height = 200,
                                             .color = "#4e79a7",
                                             .y_label = "pods",
                                             .id = id + "-latency"});
    std::string cap = fmt::format(
        "{} nodes at the end, {} pods scheduled in {} cycles, {} running and {} pending at the "
        "end. Utilization and pending pods over time; arrival → bound latency{}.",
        Thousands(cr.nodes_end), Thousands(cr.pods_scheduled), Thousands(cr.cycles),
        Thousands(cr.pods_running_end), Thousands(cr.pods_pending_end),
        cr.latency.empty()
            ? " (no pod was bound)"
            : fmt::format(": p50 {}, p99 {}, max {}", HumanDuration(cr.latency.Percentile(50)),
                          HumanDuration(cr.latency.Percentile(99)),
                          HumanDuration(cr.latency.max())));
    h += fmt::format(
        "<section class=\"card cluster-panel\" id=\"{}\" data-cluster=\"{}\"><h2>Cluster "
        "{}</h2><p class=\"cap\">{}</p>\n{}</section>\n",
        id, Escape(cr.name), Escape(cr.name), cap, body);
  }
  h += "</div>\n";
  return h;
}

std::string RenderHtmlReport(const RunResult& r) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += fmt::format("<title>Corral simulation report — {}</title>\n", Escape(r.name));
  h += "<style>" + std::string(kCss) + "</style>\n</head>\n<body>\n<main id=\"report\">\n";

  // Header.
  h += "<header>\n<h1>Corral simulation report</h1>\n";
  h += fmt::format("<p class=\"sub\"><b>{}</b>{}{}</p>\n", Escape(r.name),
                   r.description.empty() ? "" : " — ", Escape(r.description));
  h += fmt::format(
      "<p class=\"meta\">{} simulated · {} nodes at the end (max {}) · seed {} · scheduling cost "
      "{} · bind latency {}{}"
      "</p>\n",
      HumanDuration(r.end_ns), Thousands(r.nodes_end), Thousands(r.nodes_max), r.seed,
      Escape(r.cost_model), Escape(r.bind_latency),
      r.source.empty() ? "" : " · " + Escape(r.source));
  if (!r.provenance.empty()) {
    // What the run was made of: the short form visible, every line on demand.
    const Provenance& p = r.provenance;
    std::string input = p.builtin_scenario ? "built-in default scenario" : "";
    for (const auto& in : p.inputs) input += (input.empty() ? "" : ", ") + in.path;
    std::string configs;
    for (const auto& sp : p.schedulers) {
      std::string c = sp.config_path.empty() ? "kube-scheduler defaults" : sp.config_path;
      if (!sp.cluster.empty()) c = sp.cluster + ": " + c;
      configs += (configs.empty() ? "" : "; ") + c;
    }
    std::string lines;
    for (const auto& line : ProvenanceLines(p)) lines += Escape(line) + "\n";
    h += fmt::format(
        "<details class=\"inputs\" id=\"provenance\"><summary>Inputs: {} · scheduler "
        "configuration {} · Corral {}</summary><pre>{}</pre></details>\n",
        Escape(input), Escape(configs), Escape(p.corral_version), lines);
  }
  if (r.partial) {
    h += fmt::format(
        "<p class=\"failure\" id=\"partial\">Partial: stopped by signal at virtual time {} ({}); "
        "every figure covers the run up to then.</p>\n",
        FormatClock(r.end_ns), Escape(r.partial_cause));
  }
  if (!r.failure.empty())
    h += fmt::format("<p class=\"failure\">Failed: {}</p>\n", Escape(r.failure));
  h += "</header>\n";

  // KPIs.
  h += "<section class=\"kpis\" id=\"kpis\">\n";
  h += Kpi("pods arrived", Thousands(r.pods_arrived),
           fmt::format("{} evicted (drain {}, node failure {}, gang restart {})",
                       Thousands(r.pods_evicted), Thousands(r.evictions.drain),
                       Thousands(r.evictions.node_failure), Thousands(r.evictions.gang_restart)));
  h += Kpi("pods scheduled", Thousands(r.pods_scheduled),
           fmt::format("{} cycles", Thousands(r.cycles)));
  h += Kpi("pending at end", Thousands(r.pods_pending_end),
           fmt::format("{} unschedulable", Thousands(r.pods_unschedulable_end)));
  if (r.pending_waits.count == 0) {
    h += Kpi(
        "latency p99",
        r.latency.empty() ? "no pod placed" : HumanDuration(r.latency.Percentile(99)),
        r.latency.empty() ? "" : fmt::format("p50 {}", HumanDuration(r.latency.Percentile(50))));
  } else {
    // Pods still pending count at their wait so far: the percentiles are lower bounds.
    h += Kpi("latency p99", "≥" + HumanDuration(r.latency_with_pending.Percentile(99)),
             fmt::format("with {} still pending (waited so far); bound pods: {}",
                         Thousands(r.pending_waits.count),
                         r.latency.empty() ? std::string("no pod placed")
                                           : "p99 " + HumanDuration(r.latency.Percentile(99))));
  }
  for (size_t k = 0; k < r.resources.size(); ++k) {
    if (r.resources[k].name == "pods") continue;
    h += Kpi(fmt::format("{} utilization", r.resources[k].name), Pct(r.mean_util[k]),
             fmt::format("mean; peak {}", Pct(r.peak_util[k])));
  }
  if (r.gangs_arrived > 0) {
    h += Kpi("gangs complete",
             fmt::format("{} / {}", Thousands(r.gangs_complete), Thousands(r.gangs_arrived)),
             r.waiting_gangs.count > 0
                 ? fmt::format("wait p90 ≥{} ({} still waiting)",
                               HumanDuration(r.gang_wait_with_waiting.Percentile(90)),
                               Thousands(r.waiting_gangs.count))
             : r.gang_wait.empty()
                 ? ""
                 : fmt::format("wait p90 {}", HumanDuration(r.gang_wait.Percentile(90))));
  }
  h += Kpi("preempted", r.preemption.available ? Thousands(r.pods_preempted) : "—",
           r.preemption.available ? fmt::format("{} preemptions", Thousands(r.preemptions))
                                  : "not available");
  if (r.batching.available) {
    double rate = r.pods_scheduled > 0
                      ? static_cast<double>(r.batched) / static_cast<double>(r.pods_scheduled)
                      : 0;
    h += Kpi("batching hit rate", fmt::format("{:.1f}%", rate * 100),
             fmt::format("{} hits", Thousands(r.batched)));
  }
  h += "</section>\n";

  std::vector<double> x;
  x.reserve(r.samples.size());
  for (const auto& s : r.samples) x.push_back(static_cast<double>(s.t_ns) / 1e9);

  // Utilization.
  {
    std::vector<svg::Series> series;
    for (size_t k = 0; k < r.resources.size(); ++k) {
      svg::Series s{
          r.resources[k].name, std::string(svg::kPalette[k % std::size(svg::kPalette)]), {}, false};
      for (const auto& smp : r.samples) s.y.push_back(smp.util[k]);
      series.push_back(std::move(s));
    }
    svg::LineChartOptions o{.y_min = 0,
                            .y_max = 1,
                            .percent = true,
                            .y_label = "requested / allocatable",
                            .id = "chart-utilization"};
    h += Card("Utilization over time",
              "Requested over allocatable, summed over all nodes, per resource.",
              svg::LineChart(x, series, o));
  }
  // Pods.
  {
    svg::Series running{"running (bound)", "#4e79a7", {}, true};
    svg::Series pending{"pending (in the scheduling queue)", "#f28e2b", {}, true};
    for (const auto& s : r.samples) {
      running.y.push_back(static_cast<double>(s.running));
      pending.y.push_back(static_cast<double>(s.pending));
    }
    h += "<div class=\"grid2\">\n";
    h += Card(
        "Running pods", "Pods bound to a node (including those still binding).",
        svg::LineChart(x, {running},
                       {.width = 600, .height = 240, .y_label = "pods", .id = "chart-running"}));
    h += Card(
        "Pending pods", "Pods in activeQ, backoffQ or the unschedulable pool (gated included).",
        svg::LineChart(x, {pending},
                       {.width = 600, .height = 240, .y_label = "pods", .id = "chart-pending"}));
    h += "</div>\n";
  }
  // Member clusters (runs with several): a fleet-total panel, then one panel per cluster.
  if (!r.clusters.empty()) h += ClusterSection(r, x);
  if (r.fleet != nullptr) h += FleetReportSection(*r.fleet, x);
  // Activity.
  {
    svg::Series arrivals{"arrivals", "#76b7b2", {}, false};
    svg::Series bindings{"bindings", "#4e79a7", {}, false};
    svg::Series completions{"completions", "#59a14f", {}, false};
    svg::Series evictions{"evictions", "#e15759", {}, false};
    std::vector<double> xa;
    // At most ~180 points: consecutive intervals are merged (rates over the merged span).
    const size_t step = std::max<size_t>(1, (r.samples.size() + 179) / 180);
    for (size_t i = step; i < r.samples.size(); i += step) {
      const Sample& a = r.samples[i - step];
      const Sample& b = r.samples[i];
      double minutes = static_cast<double>(b.t_ns - a.t_ns) / 60e9;
      if (minutes <= 0) continue;
      xa.push_back(static_cast<double>(b.t_ns) / 1e9);
      arrivals.y.push_back(static_cast<double>(b.arrived - a.arrived) / minutes);
      bindings.y.push_back(static_cast<double>(b.scheduled - a.scheduled) / minutes);
      completions.y.push_back(static_cast<double>(b.completed - a.completed) / minutes);
      evictions.y.push_back(static_cast<double>(b.evicted - a.evicted) / minutes);
    }
    h += Card(
        "Activity",
        step > 1
            ? fmt::format(
                  "Pod arrivals, bindings, completions and evictions per minute of virtual time "
                  "(averaged over {}).",
                  HumanDuration(r.sample_interval_ns * static_cast<int64_t>(step)))
            : std::string(
                  "Pod arrivals, bindings, completions and evictions per minute of virtual time."),
        svg::LineChart(xa, {arrivals, bindings, completions, evictions},
                       {.y_label = "pods / minute", .id = "chart-activity"}));
  }
  // Latency and gangs.
  h += "<div class=\"grid2\">\n";
  {
    svg::HistogramOptions o{
        .width = 600, .height = 240, .color = "#4e79a7", .y_label = "pods", .id = "chart-latency"};
    std::string cap =
        r.latency.empty()
            ? "No pod was bound."
            : fmt::format(
                  "Arrival → bound, per pod (bars start at the labelled bound): p50 {}, p90 {}, "
                  "p99 {}, max {}.",
                  HumanDuration(r.latency.Percentile(50)), HumanDuration(r.latency.Percentile(90)),
                  HumanDuration(r.latency.Percentile(99)), HumanDuration(r.latency.max()));
    h += Card("Scheduling latency distribution", cap, svg::BarChart(Bins(r.latency), o));
  }
  {
    svg::HistogramOptions o{.width = 600,
                            .height = 240,
                            .color = "#b07aa1",
                            .y_label = "gangs",
                            .id = "chart-gang-wait"};
    if (r.gangs_arrived == 0) {
      h += Card("Gang wait times", "Arrival → every pod of the gang bound.",
                svg::EmptyPanel("No gang workloads in this run",
                                "Add a workload with kind: Gang to see gang waits",
                                "chart-gang-wait", 200, 600));
    } else {
      // A restarted gang waits again, so the chart has one wait per placement of a whole gang:
      // gang_wait.count() ≥ gangs_complete.
      std::string cap = fmt::format(
          "Arrival → every pod of the gang bound; {} of {} gangs complete, {} waits (a gang "
          "restarted after losing a member waits again). {}",
          Thousands(r.gangs_complete), Thousands(r.gangs_arrived), Thousands(r.gang_wait.count()),
          r.gang_scheduling.available ? "" : "Gang plugin not active: pods bind one by one.");
      h += Card("Gang wait times", cap, svg::BarChart(Bins(r.gang_wait), o));
    }
  }
  h += "</div>\n";
  // Preemptions and batching.
  h += "<div class=\"grid2\">\n";
  {
    std::string body;
    if (!r.preemption.available) {
      body = svg::EmptyPanel("Preemption is not available", r.preemption.note, "chart-preemptions",
                             200, 600);
    } else {
      svg::Series victims{"victims per minute", "#e15759", {}, true};
      std::vector<double> xa;
      for (size_t i = 1; i < r.samples.size(); ++i) {
        double minutes = static_cast<double>(r.samples[i].t_ns - r.samples[i - 1].t_ns) / 60e9;
        if (minutes <= 0) continue;
        xa.push_back(static_cast<double>(r.samples[i].t_ns) / 1e9);
        victims.y.push_back(
            static_cast<double>(r.samples[i].preempted - r.samples[i - 1].preempted) / minutes);
      }
      body = svg::LineChart(
          xa, {victims},
          {.width = 600, .height = 240, .y_label = "victims / minute", .id = "chart-preemptions"});
    }
    h += Card("Preemptions over time",
              fmt::format("Pods evicted by preemption: {} victims of {} preemptions.",
                          Thousands(r.pods_preempted), Thousands(r.preemptions)),
              body);
  }
  {
    std::string body, cap;
    if (!r.batching.available) {
      body = svg::EmptyPanel("Batching is off", r.batching.note, "chart-batching", 200, 600);
      cap = "Opportunistic batching (KEP-5598).";
    } else {
      svg::Series hits{"hits per minute", "#59a14f", {}, false};
      svg::Series flushes{"flushes per minute", "#f28e2b", {}, false};
      std::vector<double> xa;
      for (size_t i = 1; i < r.samples.size(); ++i) {
        double minutes = static_cast<double>(r.samples[i].t_ns - r.samples[i - 1].t_ns) / 60e9;
        if (minutes <= 0) continue;
        xa.push_back(static_cast<double>(r.samples[i].t_ns) / 1e9);
        hits.y.push_back(static_cast<double>(r.samples[i].batched - r.samples[i - 1].batched) /
                         minutes);
        flushes.y.push_back(
            static_cast<double>(r.samples[i].batch_flushes - r.samples[i - 1].batch_flushes) /
            minutes);
      }
      body = svg::LineChart(
          xa, {hits, flushes},
          {.width = 600, .height = 240, .y_label = "per minute", .id = "chart-batching"});
      std::string reasons;
      for (const auto& [reason, n] : r.batch_flushes) {
        reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", reason, Thousands(n));
      }
      double rate = r.pods_scheduled > 0
                        ? static_cast<double>(r.batched) / static_cast<double>(r.pods_scheduled)
                        : 0;
      cap = fmt::format(
          "Opportunistic batching (KEP-5598): {} hits ({:.1f}% of bindings). Flushes: {}.",
          Thousands(r.batched), rate * 100, reasons.empty() ? "none" : reasons);
    }
    h += Card("Batching hits and flushes", cap, body);
  }
  h += "</div>\n";
  // Heat maps.
  for (size_t k = 0; k < r.heat_resources.size() && k < 3; ++k) h += HeatSection(r, k);

  // Workloads.
  {
    std::string t =
        "<table id=\"table-workloads\"><thead><tr><th>workload</th><th>kind</th><th>arrivals</th>"
        "<th>pods</th><th>scheduled</th><th>completed</th><th>evicted</th><th>preempted</th>"
        "<th>pending</th><th>wait p50</th><th>wait p99</th><th>group wait "
        "p99</th></tr></thead><tbody>\n";
    for (const auto& w : r.workloads) {
      t += fmt::format(
          "<tr><td>{}</td><td><span class=\"tag\">{}</span></td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          Escape(w.name), w.controller.empty() ? w.kind : w.controller, Thousands(w.arrivals),
          Thousands(w.pods_arrived), Thousands(w.pods_scheduled), Thousands(w.pods_completed),
          Thousands(w.pods_evicted), Thousands(w.pods_preempted), Thousands(w.pods_pending_end),
          w.latency.empty() ? "—" : HumanDuration(w.latency.Percentile(50)),
          w.latency.empty() ? "—" : HumanDuration(w.latency.Percentile(99)),
          w.kind == "pods"
              ? ""
              : (w.group_wait.empty() ? "—" : HumanDuration(w.group_wait.Percentile(99))));
    }
    t += "</tbody></table>\n";
    h += Card("Workloads", "Per workload stream; waits are arrival → bound.", t);
  }
  if (!r.pending_reasons.empty()) {
    std::string t =
        "<table id=\"table-pending\"><thead><tr><th>pods</th><th style=\"text-align:left\">last "
        "failure message</th></tr></thead><tbody>\n";
    size_t n = 0;
    for (const auto& [msg, count] : r.pending_reasons) {
      if (++n > 15) break;
      t += fmt::format("<tr><td>{}</td><td class=\"msg\">{}</td></tr>\n", Thousands(count),
                       Escape(msg));
    }
    t += "</tbody></table>\n";
    h += Card("Pending at the end", "Pods still waiting, grouped by the scheduler's last message.",
              t);
  }
  {
    std::string t = "<ul class=\"notes\">\n";
    for (const FeatureStatus* f : {&r.gang_scheduling, &r.preemption, &r.batching}) {
      t += fmt::format("<li><span class=\"tag{}\">{}</span> {}</li>\n", f->available ? "" : " off",
                       f->available ? "on" : "off", Escape(f->note));
    }
    for (const auto& note : r.notes) t += fmt::format("<li>{}</li>\n", Escape(note));
    t += "</ul>\n";
    h += Card("Notes", "What the numbers cover.", t);
  }
  h += "<footer>Generated by corral simulate. Same inputs and seed give this report byte for "
       "byte.</footer>\n";
  h += "</main>\n</body>\n</html>\n";
  return h;
}

}  // namespace corral::sim
