#include "corral/compare/comparison.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace corral::compare {

namespace {

constexpr size_t kGrid = 240;

struct MetricName {
  std::string_view key, label;
};

constexpr MetricName kLabels[] = {
    {"pods_arrived", "pods arrived"},
    {"pods_scheduled", "pods scheduled (bindings)"},
    {"pods_pending_end", "pods pending at end"},
    {"pod_wait_mean_s", "pod wait mean (pending included)"},
    {"pod_wait_p50_s", "pod wait p50"},
    {"pod_wait_p99_s", "pod wait p99"},
    {"gangs_arrived", "gangs arrived"},
    {"gangs_complete", "gangs complete"},
    {"gang_wait_mean_s", "gang wait mean (waiting included)"},
    {"gang_wait_p99_s", "gang wait p99"},
    {"preemptions", "preemptions"},
    {"pods_preempted", "preemption victims"},
    {"pods_evicted", "pods evicted"},
    {"nodes_max", "nodes (max)"},
};

std::string LabelOf(const std::string& key) {
  for (const auto& l : kLabels) {
    if (l.key == key) return std::string(l.label);
  }
  if (key.starts_with("util_")) return fmt::format("{} utilization (mean)", key.substr(5));
  return key;
}

MetricUnit UnitOf(const std::string& key) {
  if (key.starts_with("util_")) return MetricUnit::kRatio;
  if (key.ends_with("_s")) return MetricUnit::kSeconds;
  return MetricUnit::kCount;
}

Spread SpreadOf(const std::vector<double>& v) {
  Spread s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// The value of a run's series at time t: the last sample at or before t (NaN after the run's end).
double StepAt(const std::vector<double>& t, const std::vector<double>& y, double at) {
  if (t.empty() || at > t.back() + 1e-9) return std::numeric_limits<double>::quiet_NaN();
  auto it = std::upper_bound(t.begin(), t.end(), at + 1e-9);
  if (it == t.begin()) return y.empty() ? 0 : y.front();
  size_t i = static_cast<size_t>(it - t.begin()) - 1;
  return i < y.size() ? y[i] : std::numeric_limits<double>::quiet_NaN();
}

// Mean over runs, ignoring NaN; NaN when every run is NaN.
double MeanFinite(const std::vector<double>& v) {
  double sum = 0;
  size_t n = 0;
  for (double x : v) {
    if (std::isfinite(x)) {
      sum += x;
      ++n;
    }
  }
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(n);
}

// Fraction of observations ≤ x from percentiles 0..100.
double CdfAt(const std::vector<int64_t>& q, double x_ns) {
  if (q.empty()) return std::numeric_limits<double>::quiet_NaN();
  int best = -1;
  for (int p = 0; p <= 100; ++p) {
    if (static_cast<double>(q[static_cast<size_t>(p)]) <= x_ns) best = p;
  }
  return best < 0 ? 0 : best / 100.0;
}

int32_t Moved(const std::vector<std::string>& base, const std::vector<std::string>& other) {
  // Both sorted: members of `other` not matched by a node of `base`.
  size_t i = 0, j = 0;
  int32_t common = 0;
  while (i < base.size() && j < other.size()) {
    if (base[i] == other[j]) {
      ++common;
      ++i;
      ++j;
    } else if (base[i] < other[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return static_cast<int32_t>(other.size()) - common;
}

using Runs = std::vector<std::vector<const RunRecord*>>;  // [variant][seed]

void BuildMetrics(const Runs& runs, PointComparison& pc) {
  std::vector<std::string> keys;
  bool gangs = false;
  for (const auto& per_variant : runs) {
    for (const RunRecord* r : per_variant) {
      for (const auto& [k, v] : r->metrics) {
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
      }
      gangs = gangs || r->Metric("gangs_arrived") > 0;
    }
  }
  const bool one_seed = pc.seeds.size() < 2;
  for (const auto& key : keys) {
    if (!gangs && key.starts_with("gang")) continue;
    MetricRow row;
    row.key = key;
    row.label = LabelOf(key);
    row.unit = UnitOf(key);
    for (const auto& per_variant : runs) {
      std::vector<double> v;
      for (const RunRecord* r : per_variant) v.push_back(r->Metric(key));
      row.values.push_back(SpreadOf(v));
    }
    const Spread& base = row.values[0];
    for (const Spread& s : row.values) {
      row.delta.push_back(s.mean - base.mean);
      if (one_seed) {
        row.beyond.push_back(-1);
      } else {
        row.beyond.push_back(s.min > base.max || s.max < base.min ? 1 : 0);
      }
    }
    pc.metrics.push_back(std::move(row));
  }
}

void BuildWorkloadChanges(const Runs& runs, PointComparison& pc) {
  std::vector<WorkloadChange> all;
  for (const auto& w : runs[0][0]->workloads) {
    WorkloadChange c;
    c.name = w.name;
    c.kind = w.kind;
    for (const auto& per_variant : runs) {
      double wait = 0, pending = 0, preempted = 0;
      for (const RunRecord* r : per_variant) {
        for (const auto& x : r->workloads) {
          if (x.name != w.name) continue;
          wait += static_cast<double>(x.wait_mean_ns) / 1e9;
          pending += static_cast<double>(x.pods_pending_end);
          preempted += static_cast<double>(x.pods_preempted);
        }
      }
      auto n = static_cast<double>(per_variant.size());
      c.wait_mean_s.push_back(wait / n);
      c.pending_end.push_back(pending / n);
      c.preempted.push_back(preempted / n);
    }
    all.push_back(std::move(c));
  }
  auto score = [](const WorkloadChange& c) {
    std::array<double, 3> s{};
    for (size_t v = 1; v < c.wait_mean_s.size(); ++v) {
      s[0] = std::max(s[0], std::fabs(c.wait_mean_s[v] - c.wait_mean_s[0]));
      s[1] = std::max(s[1], std::fabs(c.pending_end[v] - c.pending_end[0]));
      s[2] = std::max(s[2], std::fabs(c.preempted[v] - c.preempted[0]));
    }
    return s;
  };
  std::erase_if(all, [&](const WorkloadChange& c) {
    auto s = score(c);
    return s[0] == 0 && s[1] == 0 && s[2] == 0;
  });
  std::stable_sort(all.begin(), all.end(), [&](const WorkloadChange& a, const WorkloadChange& b) {
    return score(a) > score(b);
  });
  if (all.size() > kTopChanges) all.resize(kTopChanges);
  pc.workloads = std::move(all);
}

void BuildUnitChanges(const Runs& runs, PointComparison& pc) {
  std::vector<UnitChange> all;
  for (size_t s = 0; s < pc.seeds.size(); ++s) {
    const RunRecord& base = *runs[0][s];
    std::vector<std::map<std::string, const UnitRecord*>> by_id(runs.size());
    for (size_t v = 1; v < runs.size(); ++v) {
      for (const auto& u : runs[v][s]->units) by_id[v].emplace(u.id, &u);
    }
    for (const auto& u : base.units) {
      UnitChange c;
      c.id = u.id;
      c.workload = u.workload;
      c.seed = pc.seeds[s];
      bool everywhere = true;
      for (size_t v = 0; v < runs.size(); ++v) {
        const UnitRecord* x = &u;
        if (v > 0) {
          auto it = by_id[v].find(u.id);
          if (it == by_id[v].end()) {
            everywhere = false;
            break;
          }
          x = it->second;
        }
        c.wait_ns.push_back(x->wait_ns);
        c.complete.push_back(x->complete);
        c.preempted.push_back(x->preempted);
        // Moved is a placement difference: only when the baseline placed the instance too.
        c.moved.push_back(v == 0 || u.nodes.empty() ? 0 : Moved(u.nodes, x->nodes));
      }
      if (everywhere) all.push_back(std::move(c));
    }
  }
  auto score = [](const UnitChange& c) {
    std::array<int64_t, 4> s{};
    for (size_t v = 1; v < c.wait_ns.size(); ++v) {
      s[0] = std::max<int64_t>(s[0], std::llabs(c.wait_ns[v] - c.wait_ns[0]));
      s[1] = std::max<int64_t>(s[1], c.complete[v] != c.complete[0] ? 1 : 0);
      s[2] = std::max<int64_t>(s[2], std::abs(c.preempted[v] - c.preempted[0]));
      s[3] = std::max<int64_t>(s[3], c.moved[v]);
    }
    return s;
  };
  std::erase_if(all, [&](const UnitChange& c) { return score(c) == std::array<int64_t, 4>{}; });
  std::stable_sort(all.begin(), all.end(),
                   [&](const UnitChange& a, const UnitChange& b) { return score(a) > score(b); });
  if (all.size() > kTopChanges) all.resize(kTopChanges);
  pc.units = std::move(all);
}

void BuildCharts(const Runs& runs, PointComparison& pc) {
  double t_end = 0;
  int64_t wait_max = 0, gang_max = 0;
  for (const auto& per_variant : runs) {
    for (const RunRecord* r : per_variant) {
      if (!r->t_s.empty()) t_end = std::max(t_end, r->t_s.back());
      if (!r->pod_wait_q.empty()) wait_max = std::max(wait_max, r->pod_wait_q.back());
      if (!r->gang_wait_q.empty()) gang_max = std::max(gang_max, r->gang_wait_q.back());
    }
  }
  std::vector<double> grid;
  for (size_t i = 0; i <= kGrid; ++i)
    grid.push_back(t_end * static_cast<double>(i) / static_cast<double>(kGrid));
  auto series_chart = [&](std::string id, std::string title, std::string y_label, bool percent,
                          auto pick) {
    ChartData c{.id = std::move(id),
                .title = std::move(title),
                .y_label = std::move(y_label),
                .percent = percent,
                .time_axis = true,
                .x = grid,
                .y = {}};
    for (const auto& per_variant : runs) {
      std::vector<double> y;
      for (double t : grid) {
        std::vector<double> at;
        for (const RunRecord* r : per_variant) {
          const std::vector<double>* s = pick(*r);
          at.push_back(s == nullptr ? std::numeric_limits<double>::quiet_NaN()
                                    : StepAt(r->t_s, *s, t));
        }
        y.push_back(MeanFinite(at));
      }
      c.y.push_back(std::move(y));
    }
    pc.charts.push_back(std::move(c));
  };
  series_chart("chart-pending", "Pending pods over time (mean over seeds)", "pods", false,
               [](const RunRecord& r) { return &r.pending; });
  series_chart("chart-running", "Running pods over time (mean over seeds)", "pods", false,
               [](const RunRecord& r) { return &r.running; });
  std::vector<std::string> resources;
  for (const auto& [name, v] : runs[0][0]->util) resources.push_back(name);
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string res = resources[i];
    series_chart(fmt::format("chart-util-{}", i),
                 fmt::format("{} utilization over time (mean over seeds)", res), "requested", true,
                 [res](const RunRecord& r) -> const std::vector<double>* {
                   for (const auto& [name, v] : r.util) {
                     if (name == res) return &v;
                   }
                   return nullptr;
                 });
  }
  auto cdf_chart = [&](std::string id, std::string title, int64_t max_ns, auto pick) {
    ChartData c{.id = std::move(id),
                .title = std::move(title),
                .y_label = "fraction waited ≤ x",
                .percent = true,
                .time_axis = false,
                .x = {},
                .y = {}};
    for (size_t i = 0; i <= kGrid; ++i) {
      c.x.push_back(static_cast<double>(max_ns) / 1e9 * static_cast<double>(i) /
                    static_cast<double>(kGrid));
    }
    for (const auto& per_variant : runs) {
      std::vector<double> y;
      for (double x : c.x) {
        std::vector<double> at;
        for (const RunRecord* r : per_variant) at.push_back(CdfAt(pick(*r), x * 1e9));
        y.push_back(MeanFinite(at));
      }
      c.y.push_back(std::move(y));
    }
    pc.charts.push_back(std::move(c));
  };
  cdf_chart("chart-pod-wait", "Pod wait, cumulative distribution (pending pods included)", wait_max,
            [](const RunRecord& r) -> const std::vector<int64_t>& { return r.pod_wait_q; });
  if (gang_max > 0 || std::any_of(runs[0].begin(), runs[0].end(),
                                  [](const RunRecord* r) { return !r->gang_wait_q.empty(); })) {
    cdf_chart("chart-gang-wait", "Gang wait, cumulative distribution (waiting gangs included)",
              gang_max,
              [](const RunRecord& r) -> const std::vector<int64_t>& { return r.gang_wait_q; });
  }
}

}  // namespace

Result<Comparison> Compare(std::vector<RunRecord> records) {
  if (records.empty()) return Error::Invalid("no runs to compare");
  std::stable_sort(records.begin(), records.end(),
                   [](const RunRecord& a, const RunRecord& b) { return a.index < b.index; });
  Comparison cmp;
  cmp.scenario = records[0].scenario;
  std::vector<std::string> points;
  for (const auto& r : records) {
    if (std::find(points.begin(), points.end(), r.point) == points.end()) points.push_back(r.point);
  }
  for (const auto& point : points) {
    PointComparison pc;
    pc.point = point;
    for (const auto& r : records) {
      if (r.point != point) continue;
      if (std::find(pc.variants.begin(), pc.variants.end(), r.variant) == pc.variants.end()) {
        pc.variants.push_back(r.variant);
        pc.options.push_back(r.options);
      }
      if (std::find(pc.seeds.begin(), pc.seeds.end(), r.seed) == pc.seeds.end())
        pc.seeds.push_back(r.seed);
    }
    Runs runs(pc.variants.size(), std::vector<const RunRecord*>(pc.seeds.size(), nullptr));
    for (const auto& r : records) {
      if (r.point != point) continue;
      size_t v = static_cast<size_t>(std::find(pc.variants.begin(), pc.variants.end(), r.variant) -
                                     pc.variants.begin());
      size_t s = static_cast<size_t>(std::find(pc.seeds.begin(), pc.seeds.end(), r.seed) -
                                     pc.seeds.begin());
      runs[v][s] = &r;
      if (!r.failure.empty())
        pc.failures.push_back(fmt::format("{} seed {}: {}", r.variant, r.seed, r.failure));
    }
    for (size_t v = 0; v < runs.size(); ++v) {
      for (size_t s = 0; s < runs[v].size(); ++s) {
        if (runs[v][s] == nullptr) {
          return Error::Invalid(fmt::format("{}variant {} has no run with seed {}",
                                            point.empty() ? "" : point + ": ", pc.variants[v],
                                            pc.seeds[s]));
        }
      }
    }
    BuildMetrics(runs, pc);
    BuildWorkloadChanges(runs, pc);
    BuildUnitChanges(runs, pc);
    BuildCharts(runs, pc);
    cmp.points.push_back(std::move(pc));
  }
  return cmp;
}

}  // namespace corral::compare
