#include "corral/compare/compact.h"

#include <algorithm>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/api/well_known.h"
#include "corral/doc/decoder.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/report/output.h"

namespace corral::compare {

namespace {

using sim::HumanDuration;

// The run's sizes for every pool and its absent clusters, and the seeds, as plans.
std::vector<RunPlan> Plans(const CompactRequest& req,
                           const std::vector<std::pair<std::string, int64_t>>& sizes,
                           const std::vector<std::string>& absent) {
  std::vector<RunPlan> plans;
  for (uint64_t seed : req.seeds) {
    RunPlan p;
    p.scenario_path = req.scenario_path;
    p.variant = req.variant;
    // The sizes win over the variant's own node counts (which set the starting sizes).
    Overrides o;
    for (const auto& [pool, n] : sizes) o.nodes.emplace_back(pool, n);
    o.absent_clusters = absent;
    p.variant.overrides.Merge(o);
    p.seed = seed;
    p.index = plans.size();
    p.total = req.seeds.size();
    plans.push_back(std::move(p));
  }
  return plans;
}

// Runs every seed with `absent` removed (and the pools at their sizes); true when every run meets
// every objective. Adds the runs made to `runs`.
Result<bool> ProbeAll(const CompactRequest& req,
                      const std::vector<std::pair<std::string, int64_t>>& sizes,
                      const std::vector<std::string>& absent, Probe& out, int64_t& runs);

Result<CompactResult> CompactClusters(const CompactRequest& req, const sim::SimSpec& spec);
// Bisection between a size `hi` that meets the objectives and a size `lo` that does not (or is
// below what may be run): the smallest size above `lo` that meets. `probe` runs one size
// (`Probe::nodes` is set), each probe is appended to `probes` in the order run.
Result<int64_t> SmallestMeeting(int64_t lo, int64_t hi, std::vector<Probe>& probes,
                                const std::function<Result<bool>(Probe&)>& probe);

}  // namespace

Result<Objective> ParseObjective(std::string_view text) {
  Objective o;
  o.text = std::string(text);
  if (text == "no-pending") {
    o.kind = Objective::Kind::kNoPending;
    return o;
  }
  auto limit = [&](std::string_view prefix, Objective::Kind kind) -> Result<Objective> {
    std::string_view v = text.substr(prefix.size());
    Duration d{};
    if (!doc::ParseGoDuration(v, d) || d.count() < 0) {
      return Error::Invalid(fmt::format("--objective {:?}: invalid duration {:?}", text, v));
    }
    o.kind = kind;
    o.limit_ns = d.count();
    return o;
  };
  if (text.starts_with("gang-wait<=")) return limit("gang-wait<=", Objective::Kind::kGangWait);
  if (text.starts_with("p99-wait<=")) return limit("p99-wait<=", Objective::Kind::kP99Wait);
  return Error::Invalid(fmt::format(
      "--objective {:?}: want no-pending, gang-wait<=DURATION or p99-wait<=DURATION", text));
}

bool Meets(const RunRecord& r, const Objective& o, std::string* why) {
  auto miss = [&](std::string msg) {
    if (why != nullptr) *why = fmt::format("seed {}: {}", r.seed, msg);
    return false;
  };
  if (!r.failure.empty()) return miss(fmt::format("run failed: {}", r.failure));
  switch (o.kind) {
    case Objective::Kind::kNoPending: {
      auto pending = static_cast<int64_t>(r.Metric("pods_pending_end"));
      if (pending > 0) return miss(fmt::format("{} pods pending at the end", pending));
      return true;
    }
    case Objective::Kind::kGangWait: {
      for (const auto& u : r.units) {
        if (u.wait_ns <= o.limit_ns) continue;
        bool gang = false;
        for (const auto& w : r.workloads) gang = gang || (w.name == u.workload && w.kind == "gang");
        if (!gang) continue;
        return miss(fmt::format("gang {} waited {}{} > {}", u.id, u.complete ? "" : "≥",
                                HumanDuration(u.wait_ns), HumanDuration(o.limit_ns)));
      }
      return true;
    }
    case Objective::Kind::kP99Wait: {
      int64_t p99 = r.pod_wait_q.empty() ? 0 : r.pod_wait_q[99];
      if (p99 > o.limit_ns) {
        return miss(
            fmt::format("pod wait p99 {} > {}", HumanDuration(p99), HumanDuration(o.limit_ns)));
      }
      return true;
    }
  }
  return true;
}

Result<CompactResult> Compact(const CompactRequest& req) {
  if (req.objectives.empty()) return Error::Invalid("--objective: at least one objective");
  if (req.seeds.empty()) return Error::Invalid("--seeds: at least one seed");
  // The pools and their sizes as the scenario (with the variant) has them.
  if (req.compact_clusters && !req.pools.empty()) {
    return Error::Invalid("--clusters and --pool: compact either member clusters or node pools");
  }
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec =
      sim::LoadScenarioFile(req.scenario_path, in, diags, ScenarioOptionsOf(req.variant.overrides));
  if (!spec.ok()) return spec.error();
  if (auto st = ApplyOverrides(req.variant.overrides, *spec, in); !st.ok()) return st.error();
  if (req.compact_clusters) return CompactClusters(req, *spec);
  std::vector<std::pair<std::string, int64_t>> sizes;
  for (const auto& p : spec->pools) {
    auto n = InitialPoolSize(*spec, p.name);
    if (!n.ok()) return n.error();
    sizes.emplace_back(p.name, *n);
  }
  std::vector<std::string> pools = req.pools;
  if (pools.empty()) {
    for (const auto& [name, n] : sizes) {
      if (n > 0) pools.push_back(name);
    }
  }
  for (const auto& p : pools) {
    if (std::none_of(sizes.begin(), sizes.end(), [&](const auto& s) { return s.first == p; })) {
      std::string known;
      for (const auto& [name, n] : sizes) known += (known.empty() ? "" : ", ") + name;
      return Error::Invalid(
          fmt::format("--pool: the scenario has no node pool {:?} (pools: {})", p, known));
    }
  }
  CompactResult res;
  res.scenario = spec->name;
  res.variant = req.variant.name;
  res.options = req.variant.overrides.Describe();
  res.seeds = req.seeds;
  for (const auto& o : req.objectives) res.objectives.push_back(o.text);

  // Runs every seed at `sizes`; true when every run meets every objective.
  auto probe = [&](Probe& out) { return ProbeAll(req, sizes, {}, out, res.runs); };
  Probe start;
  auto ok = probe(start);
  if (!ok.ok()) return ok.error();
  res.met_at_start = *ok;
  if (!*ok) {
    res.why_not = start.why;
    return res;
  }
  for (const auto& pool : pools) {
    auto it =
        std::find_if(sizes.begin(), sizes.end(), [&](const auto& s) { return s.first == pool; });
    PoolAnswer a;
    a.pool = pool;
    a.original = it->second;
    // The pool's size meets; nothing below it is known to fail yet (-1).
    a.probes.push_back({it->second, true, ""});
    auto answer = SmallestMeeting(-1, it->second, a.probes, [&](Probe& p) {
      it->second = p.nodes;
      return probe(p);
    });
    if (!answer.ok()) return answer.error();
    it->second = *answer;
    a.answer = *answer;
    res.pools.push_back(std::move(a));
  }
  return res;
}

namespace {

Result<bool> ProbeAll(const CompactRequest& req,
                      const std::vector<std::pair<std::string, int64_t>>& sizes,
                      const std::vector<std::string>& absent, Probe& out, int64_t& runs) {
  auto records = RunPlans(Plans(req, sizes, absent), req.run);
  if (!records.ok()) return records.error();
  runs += static_cast<int64_t>(records->size());
  for (const auto& r : *records) {
    for (const auto& o : req.objectives) {
      if (!Meets(r, o, &out.why)) {
        out.meets = false;
        return false;
      }
    }
  }
  out.meets = true;
  return true;
}

Result<int64_t> SmallestMeeting(int64_t lo, int64_t hi, std::vector<Probe>& probes,
                                const std::function<Result<bool>(Probe&)>& probe) {
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    Probe p;
    p.nodes = mid;
    auto m = probe(p);
    if (!m.ok()) return m.error();
    probes.push_back(p);
    if (*m) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

Result<CompactResult> CompactClusters(const CompactRequest& req, const sim::SimSpec& spec) {
  if (spec.clusters.empty()) {
    return Error::Invalid(
        "--clusters: the scenario declares no member clusters (cluster compaction applies to a "
        "scenario with `clusters:`; compact its node pools with --pool)");
  }
  std::string known;
  for (const auto& c : spec.clusters) known += (known.empty() ? "" : ", ") + c.name;
  std::vector<std::string> named = req.clusters;
  if (named.empty()) {
    for (const auto& c : spec.clusters) named.push_back(c.name);
  }
  for (size_t i = 0; i < named.size(); ++i) {
    if (std::none_of(spec.clusters.begin(), spec.clusters.end(),
                     [&](const sim::ClusterSpec& c) { return c.name == named[i]; })) {
      return Error::Invalid(fmt::format(
          "--clusters: the scenario has no member cluster {:?} (clusters: {})", named[i], known));
    }
    if (std::find(named.begin(), named.begin() + static_cast<std::ptrdiff_t>(i), named[i]) !=
        named.begin() + static_cast<std::ptrdiff_t>(i)) {
      return Error::Invalid(fmt::format("--clusters: cluster {:?} is named twice", named[i]));
    }
  }
  // A variant option on a cluster that compaction may remove would fail at the first probe
  // without it: named here instead.
  const size_t floor = named.size() == spec.clusters.size() ? 1 : 0;
  const Overrides& vo = req.variant.overrides;
  auto removable = [&](std::string_view cluster) {
    return std::find(named.begin() + static_cast<std::ptrdiff_t>(floor), named.end(), cluster) !=
           named.end();
  };
  auto on_removable = [&](const std::string& option, std::string_view cluster) {
    return Error::Invalid(fmt::format(
        "--clusters: the variant's {} changes cluster {:?}, which compaction may remove (name "
        "only clusters the variant does not change)",
        option, cluster));
  };
  for (const auto& [pool, n] : vo.nodes) {
    for (const auto& p : spec.pools) {
      if (p.name == pool && removable(spec.clusters[p.cluster].name))
        return on_removable("nodes." + pool, spec.clusters[p.cluster].name);
    }
  }
  for (const auto* kv : {&vo.cluster_configs, &vo.cluster_pools}) {
    for (const auto& [cluster, file] : *kv) {
      if (removable(cluster)) {
        return on_removable(
            fmt::format("{}.{}", kv == &vo.cluster_configs ? "config" : "pools", cluster), cluster);
      }
    }
  }
  CompactResult res;
  res.scenario = spec.name;
  res.variant = req.variant.name;
  res.options = req.variant.overrides.Describe();
  res.seeds = req.seeds;
  for (const auto& o : req.objectives) res.objectives.push_back(o.text);
  res.compact_clusters = true;
  ClusterAnswer& a = res.clusters;
  a.named = named;
  a.original = static_cast<int64_t>(named.size());
  a.floor = static_cast<int64_t>(floor);
  const std::vector<std::pair<std::string, int64_t>> no_sizes;
  auto absent_when = [&](int64_t kept) {
    return std::vector<std::string>(named.begin() + kept, named.end());
  };
  Probe start;
  start.nodes = a.original;
  auto ok = ProbeAll(req, no_sizes, {}, start, res.runs);
  if (!ok.ok()) return ok.error();
  res.met_at_start = *ok;
  if (!*ok) {
    res.why_not = start.why;
    return res;
  }
  a.probes.push_back(start);
  // The whole list meets; one below the floor is never run.
  auto answer = SmallestMeeting(a.floor - 1, a.original, a.probes, [&](Probe& p) {
    return ProbeAll(req, no_sizes, absent_when(p.nodes), p, res.runs);
  });
  if (!answer.ok()) return answer.error();
  a.answer = *answer;
  return res;
}

std::string SeedsAndObjectives(const CompactResult& r) {
  std::string seeds;
  for (uint64_t s : r.seeds) seeds += fmt::format("{}{}", seeds.empty() ? "" : ", ", s);
  std::string objectives;
  for (const auto& o : r.objectives) objectives += (objectives.empty() ? "" : ", ") + o;
  return fmt::format("corral compact: {} — objective {} on every seed ({})\n", r.scenario,
                     objectives, seeds);
}

std::string FormatClustersText(const CompactResult& r) {
  const ClusterAnswer& a = r.clusters;
  std::string fewer = "— (the fewest a run keeps)";
  for (const auto& pr : a.probes) {
    if (pr.nodes == a.answer - 1) fewer = pr.why.empty() ? "meets" : "misses: " + pr.why;
  }
  auto join = [](auto first, auto last) {
    std::string out;
    for (auto it = first; it != last; ++it) out += (out.empty() ? "" : ", ") + *it;
    return out.empty() ? std::string("none") : out;
  };
  double saved = a.original == 0 ? 0
                                 : 100.0 * static_cast<double>(a.original - a.answer) /
                                       static_cast<double>(a.original);
  std::string s = "\n  clusters  compacted   saved  one cluster fewer\n";
  s += fmt::format("  {:>8}  {:>9}  {:>6}  {}\n", a.original, a.answer,
                   fmt::format("{:.1f}%", saved), fewer);
  s += fmt::format("\n  kept:    {}\n", join(a.named.begin(), a.named.begin() + a.answer));
  s += fmt::format("  removed: {}\n", join(a.named.begin() + a.answer, a.named.end()));
  s += "\nPROBES (clusters kept: ✓ meets / ✗ misses)\n";
  std::string line;
  for (const auto& pr : a.probes)
    line += fmt::format("{}{} {}", line.empty() ? "" : ", ", pr.nodes, pr.meets ? "✓" : "✗");
  s += fmt::format("  {}\n", line);
  s += fmt::format("  {} runs\n", r.runs);
  return s;
}

}  // namespace

std::string FormatCompactText(const CompactResult& r) {
  std::string s = SeedsAndObjectives(r);
  s += fmt::format("variant {}: {}\n", r.variant,
                   r.options.empty() ? "the scenario as written" : r.options);
  if (!r.met_at_start) {
    s += fmt::format(
        "\nthe scenario misses the objective at its own size ({}): nothing to compact\n",
        r.why_not);
    return s;
  }
  if (r.compact_clusters) return s + FormatClustersText(r);
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : r.pools) {
    std::string fewer = "—";
    for (const auto& pr : p.probes) {
      if (pr.nodes == p.answer - 1) fewer = pr.why.empty() ? "meets" : "misses: " + pr.why;
    }
    double saved = p.original == 0 ? 0
                                   : 100.0 * static_cast<double>(p.original - p.answer) /
                                         static_cast<double>(p.original);
    rows.push_back({p.pool, std::to_string(p.original), std::to_string(p.answer),
                    fmt::format("{:.1f}%", saved), fewer});
  }
  size_t w0 = 4;
  for (const auto& row : rows) w0 = std::max(w0, row[0].size());
  s += fmt::format("\n  {:<{}}  nodes  compacted   saved  one node fewer\n", "pool", w0);
  for (const auto& row : rows) {
    s += fmt::format("  {:<{}}  {:>5}  {:>9}  {:>6}  {}\n", row[0], w0, row[1], row[2], row[3],
                     row[4]);
  }
  s += "\nPROBES (nodes: ✓ meets / ✗ misses)\n";
  for (const auto& p : r.pools) {
    std::string line;
    for (const auto& pr : p.probes)
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", pr.nodes, pr.meets ? "✓" : "✗");
    s += fmt::format("  {}: {}\n", p.pool, line);
  }
  s += fmt::format("  {} runs\n", r.runs);
  return s;
}

std::string FormatCompactJson(const CompactResult& r) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["version"] = "corral.dev/compact/v1";
  j["scenario"] = r.scenario;
  j["variant"] = {{"name", r.variant}, {"options", r.options}};
  j["seeds"] = r.seeds;
  j["objectives"] = r.objectives;
  j["met_at_start"] = r.met_at_start;
  if (!r.met_at_start) j["why_not"] = r.why_not;
  Json pools = Json::array();
  for (const auto& p : r.pools) {
    Json probes = Json::array();
    for (const auto& pr : p.probes) {
      Json x = {{"nodes", pr.nodes}, {"meets", pr.meets}};
      if (!pr.why.empty()) x["why"] = pr.why;
      probes.push_back(x);
    }
    pools.push_back(
        {{"pool", p.pool}, {"nodes", p.original}, {"compacted", p.answer}, {"probes", probes}});
  }
  if (r.compact_clusters) {
    const ClusterAnswer& a = r.clusters;
    Json probes = Json::array();
    for (const auto& pr : a.probes) {
      Json x = {{"kept", pr.nodes}, {"meets", pr.meets}};
      if (!pr.why.empty()) x["why"] = pr.why;
      probes.push_back(x);
    }
    Json c = {{"named", a.named}, {"clusters", a.original}, {"floor", a.floor}};
    if (r.met_at_start) {
      c["compacted"] = a.answer;
      c["kept"] = std::vector<std::string>(a.named.begin(), a.named.begin() + a.answer);
      c["removed"] = std::vector<std::string>(a.named.begin() + a.answer, a.named.end());
    }
    c["probes"] = probes;
    j["clusters"] = c;
  } else {
    j["pools"] = pools;
  }
  j["runs"] = r.runs;
  return j.dump(2) + "\n";
}

}  // namespace corral::compare
