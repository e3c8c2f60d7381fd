#include "corral/compare/compare_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/sim/report/output.h"
#include "corral/sim/report/svg.h"

namespace corral::compare {

namespace {

using sim::HumanDuration;
using sim::svg::Escape;

// Display width: code points (every character of these tables is one column wide).
size_t Width(std::string_view s) {
  size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// Left-aligned first column, right-aligned others, two spaces apart.
std::string Table(const std::vector<std::vector<std::string>>& rows, size_t indent) {
  std::vector<size_t> w;
  for (const auto& r : rows) {
    if (w.size() < r.size()) w.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], Width(r[i]));
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line(indent, ' ');
    for (size_t i = 0; i < r.size(); ++i) {
      size_t pad = w[i] - Width(r[i]);
      if (i > 0) line += "  ";
      if (i == 0) {
        line += r[i];
        if (i + 1 < r.size()) line += std::string(pad, ' ');
      } else {
        line += std::string(pad, ' ') + r[i];
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string Count(double v) {
  double r = std::round(v * 10) / 10;
  if (r == std::floor(r)) return sim::Thousands(static_cast<int64_t>(r));
  return fmt::format("{:.1f}", r);
}

std::string Value(MetricUnit u, double v) {
  switch (u) {
    case MetricUnit::kSeconds:
      return HumanDuration(std::llround(v * 1e9));
    case MetricUnit::kRatio:
      return fmt::format("{:.1f}%", v * 100);
    case MetricUnit::kCount:
      break;
  }
  return Count(v);
}

std::string Delta(MetricUnit u, double d) {
  if (std::fabs(d) < 1e-12) return "0";
  std::string sign = d > 0 ? "+" : "−";
  double a = std::fabs(d);
  switch (u) {
    case MetricUnit::kSeconds:
      return sign + HumanDuration(std::llround(a * 1e9));
    case MetricUnit::kRatio:
      return sign + fmt::format("{:.1f}pp", a * 100);
    case MetricUnit::kCount:
      break;
  }
  return sign + Count(a);
}

std::string WithSpread(MetricUnit u, const Spread& s, size_t seeds) {
  if (seeds < 2 || s.min == s.max) return Value(u, s.mean);
  return fmt::format("{} ({}–{})", Value(u, s.mean), Value(u, s.min), Value(u, s.max));
}

std::string Seeds(const std::vector<uint64_t>& seeds) {
  std::string out;
  for (uint64_t s : seeds) {
    if (!out.empty()) out += ", ";
    out += std::to_string(s);
  }
  return out;
}

std::string UnitWait(const UnitChange& c, size_t v) {
  std::string w = HumanDuration(c.wait_ns[v]);
  return c.complete[v] ? w : "≥" + w + " waiting";
}

constexpr std::string_view kBeyondNote =
    "* beyond seed spread: the variant's min–max range over the seeds does not overlap the "
    "baseline's";

}  // namespace

std::string FormatCompareText(const Comparison& c) {
  std::string s;
  for (size_t pi = 0; pi < c.points.size(); ++pi) {
    const PointComparison& p = c.points[pi];
    if (pi > 0) s += "\n";
    s += fmt::format("corral compare: {} — {} variants × {} seeds ({})\n", c.scenario,
                     p.variants.size(), p.seeds.size(), Seeds(p.seeds));
    if (!p.point.empty()) s += fmt::format("parameters: {}\n", p.point);
    for (size_t v = 0; v < p.variants.size(); ++v) {
      s += fmt::format("  {}{}: {}\n", p.variants[v], v == 0 ? " (baseline)" : "",
                       p.options[v].empty() ? "the scenario as written" : p.options[v]);
    }
    for (const auto& f : p.failures) s += fmt::format("FAILED: {}\n", f);
    s += fmt::format("\nMETRICS (mean over seeds, (min–max) when the seeds differ; Δ against {})\n",
                     p.variants[0]);
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head = {"metric", p.variants[0]};
    for (size_t v = 1; v < p.variants.size(); ++v) {
      head.push_back(p.variants[v]);
      head.push_back("Δ");
    }
    rows.push_back(head);
    for (const auto& m : p.metrics) {
      std::vector<std::string> row = {m.label, WithSpread(m.unit, m.values[0], p.seeds.size())};
      for (size_t v = 1; v < p.variants.size(); ++v) {
        row.push_back(WithSpread(m.unit, m.values[v], p.seeds.size()));
        row.push_back(Delta(m.unit, m.delta[v]) + (m.beyond[v] == 1 ? " *" : "  "));
      }
      rows.push_back(std::move(row));
    }
    s += Table(rows, 2);
    s += p.seeds.size() < 2
             ? "  (one seed: no spread to compare against; run more seeds with --seeds)\n"
             : fmt::format("  {}\n", kBeyondNote);

    s += "\nWHAT CHANGED: workloads (mean over seeds)\n";
    if (p.workloads.empty()) {
      s += "  no workload's wait, pending pods or preemptions changed\n";
    } else {
      std::vector<std::vector<std::string>> w = {
          {"workload", "kind", "variant", "wait mean", "Δ wait", "pending at end", "preempted"}};
      for (const auto& x : p.workloads) {
        for (size_t v = 0; v < p.variants.size(); ++v) {
          w.push_back(
              {v == 0 ? x.name : "", v == 0 ? x.kind : "", p.variants[v],
               HumanDuration(std::llround(x.wait_mean_s[v] * 1e9)),
               v == 0 ? "" : Delta(MetricUnit::kSeconds, x.wait_mean_s[v] - x.wait_mean_s[0]),
               Count(x.pending_end[v]), Count(x.preempted[v])});
        }
      }
      s += Table(w, 2);
    }
    s += "\nWHAT CHANGED: gang and Job instances (most changed first; wait, preemptions, members "
         "moved)\n";
    if (p.units.empty()) {
      s += "  no instance changed\n";
    } else {
      std::vector<std::vector<std::string>> u = {{"instance", "seed", "workload"}};
      for (const auto& name : p.variants) u[0].push_back(name);
      for (const auto& x : p.units) {
        std::vector<std::string> row = {x.id, std::to_string(x.seed), x.workload};
        for (size_t v = 0; v < p.variants.size(); ++v) {
          std::string cell = UnitWait(x, v);
          if (x.preempted[v] > 0) cell += fmt::format(", {} preempted", x.preempted[v]);
          if (v > 0 && x.moved[v] > 0) cell += fmt::format(", {} moved", x.moved[v]);
          row.push_back(cell);
        }
        u.push_back(std::move(row));
      }
      s += Table(u, 2);
    }
  }
  return s;
}

std::string FormatCompareJson(const Comparison& c) {
  using Json = nlohmann::ordered_json;
  auto round6 = [](double v) { return std::round(v * 1e6) / 1e6; };
  Json j;
  j["version"] = "corral.dev/compare/v1";
  j["scenario"] = c.scenario;
  j["spread"] = "min-max over seeds";
  Json points = Json::array();
  for (const auto& p : c.points) {
    Json jp;
    jp["parameters"] = p.point;
    Json vs = Json::array();
    for (size_t v = 0; v < p.variants.size(); ++v)
      vs.push_back({{"name", p.variants[v]}, {"options", p.options[v]}});
    jp["variants"] = vs;
    jp["baseline"] = p.variants[0];
    jp["seeds"] = p.seeds;
    jp["failures"] = p.failures;
    Json ms = Json::array();
    for (const auto& m : p.metrics) {
      Json jm;
      jm["key"] = m.key;
      jm["label"] = m.label;
      jm["unit"] = m.unit == MetricUnit::kSeconds ? "seconds"
                   : m.unit == MetricUnit::kRatio ? "ratio"
                                                  : "count";
      Json vals = Json::array();
      for (size_t v = 0; v < p.variants.size(); ++v) {
        Json x;
        x["variant"] = p.variants[v];
        x["mean"] = round6(m.values[v].mean);
        x["min"] = round6(m.values[v].min);
        x["max"] = round6(m.values[v].max);
        x["delta"] = round6(m.delta[v]);
        x["beyond_spread"] = m.beyond[v] < 0 ? Json(nullptr) : Json(m.beyond[v] == 1);
        vals.push_back(x);
      }
      jm["values"] = vals;
      ms.push_back(jm);
    }
    jp["metrics"] = ms;
    Json ws = Json::array();
    for (const auto& w : p.workloads) {
      Json x;
      x["workload"] = w.name;
      x["kind"] = w.kind;
      Json per = Json::array();
      for (size_t v = 0; v < p.variants.size(); ++v) {
        per.push_back({{"variant", p.variants[v]},
                       {"wait_mean_seconds", round6(w.wait_mean_s[v])},
                       {"pending_end", round6(w.pending_end[v])},
                       {"preempted", round6(w.preempted[v])}});
      }
      x["variants"] = per;
      ws.push_back(x);
    }
    jp["changed_workloads"] = ws;
    Json us = Json::array();
    for (const auto& u : p.units) {
      Json x;
      x["instance"] = u.id;
      x["workload"] = u.workload;
      x["seed"] = u.seed;
      Json per = Json::array();
      for (size_t v = 0; v < p.variants.size(); ++v) {
        per.push_back({{"variant", p.variants[v]},
                       {"wait_seconds", round6(static_cast<double>(u.wait_ns[v]) / 1e9)},
                       {"complete", static_cast<bool>(u.complete[v])},
                       {"preempted", u.preempted[v]},
                       {"moved", u.moved[v]}});
      }
      x["variants"] = per;
      us.push_back(x);
    }
    jp["changed_instances"] = us;
    points.push_back(jp);
  }
  j["comparisons"] = points;
  return j.dump(2) + "\n";
}

namespace {

constexpr std::string_view kCss = R"css(
:root { --fg:#1f2933; --muted:#6b7480; --line:#e3e7ec; --card:#ffffff; --bg:#f4f6f8; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg);
       font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { margin: 0 0 4px; font-size: 24px; }
.meta { margin: 4px 0 0; color: var(--muted); font-size: 13px; }
.failure { margin: 10px 0 0; padding: 8px 12px; border-radius: 8px; background:#fdecec; color:#9b1c1c; }
.card { background: var(--card); border:1px solid var(--line); border-radius: 10px; padding: 16px 18px 12px;
        margin: 16px 0; }
.card h2 { margin: 0 0 2px; font-size: 16px; }
.card .cap { margin: 0 0 10px; color: var(--muted); font-size: 13px; }
.swatch { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:6px; }
svg.chart { display:block; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 6px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.beyond { font-weight: 650; }
footer { margin-top: 28px; color: var(--muted); font-size: 12px; text-align: center; }
)css";

std::string ColorOf(size_t v) {
  constexpr size_t n = std::size(sim::svg::kPalette);
  return std::string(sim::svg::kPalette[v % n]);
}

}  // namespace

std::string RenderCompareHtml(const Comparison& c) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += fmt::format("<title>Corral comparison: {}</title>\n<style>{}</style></head>\n<body><main>\n",
                   Escape(c.scenario), kCss);
  h += fmt::format("<h1>Corral comparison report</h1>\n<p class=\"meta\">scenario {}</p>\n",
                   Escape(c.scenario));
  for (size_t pi = 0; pi < c.points.size(); ++pi) {
    const PointComparison& p = c.points[pi];
    h += fmt::format("<section class=\"point\" data-point=\"{}\">\n", Escape(p.point));
    if (!p.point.empty()) h += fmt::format("<h2>Parameters: {}</h2>\n", Escape(p.point));
    h += fmt::format(
        "<p class=\"meta\">{} variants × {} seeds ({}); spread = min–max over seeds; "
        "Δ against the baseline, {}</p>\n",
        p.variants.size(), p.seeds.size(), Seeds(p.seeds), Escape(p.variants[0]));
    h += "<div class=\"card\"><h2>Variants</h2><table class=\"variants\">\n"
         "<tr><th>variant</th><th>options</th></tr>\n";
    for (size_t v = 0; v < p.variants.size(); ++v) {
      h += fmt::format(
          "<tr><td><span class=\"swatch\" style=\"background:{}\"></span>{}</td><td>{}</td></tr>\n",
          ColorOf(v), Escape(p.variants[v]),
          Escape(p.options[v].empty() ? "the scenario as written" : p.options[v]));
    }
    h += "</table></div>\n";
    for (const auto& f : p.failures) h += fmt::format("<p class=\"failure\">{}</p>\n", Escape(f));
    // Metrics table.
    h += fmt::format(
        "<div class=\"card\"><h2>Metrics</h2><p class=\"cap\">mean (min–max) over "
        "seeds; <b>bold Δ</b>: beyond the seed spread</p>\n<table id=\"table-metrics-"
        "{}\">\n<tr><th>metric</th>",
        pi);
    for (size_t v = 0; v < p.variants.size(); ++v) {
      h += fmt::format("<th>{}</th>", Escape(p.variants[v]));
      if (v > 0) h += "<th>Δ</th>";
    }
    h += "</tr>\n";
    for (const auto& m : p.metrics) {
      h += fmt::format("<tr><td>{}</td>", Escape(m.label));
      for (size_t v = 0; v < p.variants.size(); ++v) {
        h += fmt::format("<td>{}</td>", Escape(WithSpread(m.unit, m.values[v], p.seeds.size())));
        if (v > 0) {
          h += fmt::format("<td{}>{}</td>", m.beyond[v] == 1 ? " class=\"beyond\"" : "",
                           Escape(Delta(m.unit, m.delta[v])));
        }
      }
      h += "</tr>\n";
    }
    h += "</table></div>\n";
    // Charts: one overlay per chart, every variant on the same axes.
    for (size_t ci = 0; ci < p.charts.size(); ++ci) {
      const ChartData& cd = p.charts[ci];
      std::vector<sim::svg::Series> series;
      for (size_t v = 0; v < cd.y.size(); ++v)
        series.push_back({.name = p.variants[v], .color = ColorOf(v), .y = cd.y[v], .area = false});
      sim::svg::LineChartOptions o;
      o.id = fmt::format("{}-{}", cd.id, pi);
      o.percent = cd.percent;
      o.y_label = cd.y_label;
      if (cd.percent) o.y_max = 1;
      h += fmt::format(
          "<div class=\"card\"><h2>{}</h2><p class=\"cap\">x: {}; one line per "
          "variant, same axes</p>\n",
          Escape(cd.title), cd.time_axis ? "virtual time" : "wait");
      h += sim::svg::LineChart(cd.x, series, o);
      h += "</div>\n";
    }
    // What changed.
    h += fmt::format(
        "<div class=\"card\"><h2>What changed: workloads</h2>\n<table "
        "id=\"table-workloads-{}\">\n<tr><th>workload</th><th>kind</th>",
        pi);
    for (const auto& name : p.variants) h += fmt::format("<th>{}</th>", Escape(name));
    h += "</tr>\n";
    for (const auto& w : p.workloads) {
      h += fmt::format("<tr><td>{}</td><td>{}</td>", Escape(w.name), Escape(w.kind));
      for (size_t v = 0; v < p.variants.size(); ++v) {
        h += fmt::format("<td>wait {} · pending {} · preempted {}</td>",
                         HumanDuration(std::llround(w.wait_mean_s[v] * 1e9)),
                         Count(w.pending_end[v]), Count(w.preempted[v]));
      }
      h += "</tr>\n";
    }
    h += "</table></div>\n";
    h += fmt::format(
        "<div class=\"card\"><h2>What changed: gang and Job instances</h2>\n<table "
        "id=\"table-instances-{}\">\n<tr><th>instance</th><th>seed</th>",
        pi);
    for (const auto& name : p.variants) h += fmt::format("<th>{}</th>", Escape(name));
    h += "</tr>\n";
    for (const auto& u : p.units) {
      h += fmt::format("<tr><td>{}</td><td>{}</td>", Escape(u.id), u.seed);
      for (size_t v = 0; v < p.variants.size(); ++v) {
        std::string cell = UnitWait(u, v);
        if (u.preempted[v] > 0) cell += fmt::format(", {} preempted", u.preempted[v]);
        if (v > 0 && u.moved[v] > 0) cell += fmt::format(", {} moved", u.moved[v]);
        h += fmt::format("<td>{}</td>", Escape(cell));
      }
      h += "</tr>\n";
    }
    h += "</table></div>\n</section>\n";
  }
  h += "<footer>Generated by corral compare</footer>\n</main></body></html>\n";
  return h;
}

}  // namespace corral::compare
