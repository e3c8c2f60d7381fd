#include "corral/compare/record.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/api/well_known.h"
#include "corral/app/simulate.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/input/scenario.h"

namespace corral::compare {

namespace {

constexpr std::string_view kRecordVersion = "corral.dev/compare-run/v1";
constexpr uint32_t kNoUnit = UINT32_MAX;

std::string_view FirstToken(std::string_view s) {
  return s.substr(0, s.find(' '));
}

// The value of ` key=value` in an event detail, or "".
std::string_view Attr(std::string_view detail, std::string_view key) {
  std::string pat = fmt::format(" {}=", key);
  size_t at = detail.find(pat);
  if (at == std::string_view::npos) return {};
  std::string_view rest = detail.substr(at + pat.size());
  return rest.substr(0, rest.find(' '));
}

// Nearest-rank percentile of sorted values (p in [0, 100]).
int64_t Percentile(const std::vector<int64_t>& sorted, int p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<size_t>(
      std::ceil(static_cast<double>(p) / 100.0 * static_cast<double>(sorted.size())));
  return sorted[rank == 0 ? 0 : rank - 1];
}

std::vector<int64_t> Quantiles(std::vector<int64_t> v) {
  std::vector<int64_t> q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  for (int p = 0; p <= 100; ++p) q.push_back(Percentile(v, p));
  return q;
}

double Mean(const std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (int64_t x : v) sum += static_cast<double>(x);
  return sum / static_cast<double>(v.size());
}

double Seconds(double ns) {
  return ns / 1e9;
}

// Collects, from the event log, every pod's arrival and first binding, the gang and Job instances
// they belong to, and preemption victims.
class DigestLog final : public sim::EventLog {
 public:
  explicit DigestLog(const sim::SimSpec& spec) {
    for (uint32_t i = 0; i < spec.workloads.size(); ++i) {
      const auto& w = spec.workloads[i];
      workloads_.emplace(w.name, i);
      grouped_.push_back(w.kind != sim::WorkloadKind::kPods);
      size_.push_back(std::max(1, w.pods_per_arrival));
    }
  }

  void Event(int64_t t_ns, std::string_view kind, std::string_view detail) override {
    if (kind == "arrive") {
      std::string pod(FirstToken(detail));
      auto wit = workloads_.find(std::string(Attr(detail, "workload")));
      if (wit == workloads_.end() || pods_.contains(pod)) return;
      Pod p{.arrival_ns = t_ns, .workload = wit->second};
      if (grouped_[wit->second]) {
        std::string group = pod.substr(0, pod.rfind('-'));
        auto [uit, fresh] = unit_index_.emplace(group, static_cast<uint32_t>(units_.size()));
        if (fresh) {
          Unit u;
          u.rec.id = group;
          u.rec.arrival_ns = t_ns;
          u.workload = wit->second;
          units_.push_back(std::move(u));
        }
        p.unit = uit->second;
      }
      pods_.emplace(std::move(pod), static_cast<uint32_t>(order_.size()));
      order_.push_back(p);
    } else if (kind == "bind") {
      auto it = pods_.find(std::string(FirstToken(detail)));
      if (it == pods_.end()) return;
      Pod& p = order_[it->second];
      if (p.bound_ns >= 0) return;
      p.bound_ns = t_ns;
      if (p.unit != kNoUnit) {
        Unit& u = units_[p.unit];
        u.bound.push_back(t_ns);
        u.rec.nodes.emplace_back(Attr(detail, "node"));
      }
    } else if (kind == "preempt") {
      auto it = pods_.find(std::string(FirstToken(detail)));
      if (it == pods_.end()) return;
      if (uint32_t u = order_[it->second].unit; u != kNoUnit) ++units_[u].rec.preempted;
    }
  }

  // Fills the record's waits, workloads' waits and units.
  void Finish(const sim::SimSpec& spec, const sim::RunResult& r, RunRecord& rec) const {
    std::vector<std::vector<int64_t>> per_workload(spec.workloads.size());
    std::vector<int64_t> pod_waits, gang_waits;
    pod_waits.reserve(order_.size());
    for (const Pod& p : order_) {
      int64_t wait = (p.bound_ns >= 0 ? p.bound_ns : r.end_ns) - p.arrival_ns;
      pod_waits.push_back(wait);
      per_workload[p.workload].push_back(wait);
    }
    for (const Unit& u : units_) {
      UnitRecord ur = u.rec;
      ur.workload = spec.workloads[u.workload].name;
      std::vector<int64_t> bound = u.bound;
      std::sort(bound.begin(), bound.end());
      const auto need = static_cast<size_t>(size_[u.workload]);
      ur.complete = bound.size() >= need;
      ur.wait_ns = (ur.complete ? bound[need - 1] : r.end_ns) - ur.arrival_ns;
      std::sort(ur.nodes.begin(), ur.nodes.end());
      if (spec.workloads[u.workload].kind == sim::WorkloadKind::kGang)
        gang_waits.push_back(ur.wait_ns);
      rec.units.push_back(std::move(ur));
    }
    for (const auto& ws : r.workloads) {
      WorkloadRecord w;
      w.name = ws.name;
      w.kind = ws.kind;
      w.pods_arrived = ws.pods_arrived;
      w.pods_scheduled = ws.pods_scheduled;
      w.pods_pending_end = ws.pods_pending_end;
      w.pods_preempted = ws.pods_preempted;
      w.pods_evicted = ws.pods_evicted;
      if (auto it = workloads_.find(ws.name); it != workloads_.end()) {
        std::vector<int64_t> v = per_workload[it->second];
        std::sort(v.begin(), v.end());
        w.wait_mean_ns = std::llround(Mean(v));
        w.wait_p99_ns = Percentile(v, 99);
      }
      rec.workloads.push_back(std::move(w));
    }
    rec.pod_wait_q = Quantiles(pod_waits);
    rec.gang_wait_q = Quantiles(gang_waits);
    int64_t gangs_complete = 0;
    for (const auto& u : rec.units) {
      if (u.complete && spec.workloads[workloads_.at(u.workload)].kind == sim::WorkloadKind::kGang)
        ++gangs_complete;
    }
    auto& m = rec.metrics;
    m.emplace_back("pods_arrived", static_cast<double>(r.pods_arrived));
    m.emplace_back("pods_scheduled", static_cast<double>(r.pods_scheduled));
    m.emplace_back("pods_pending_end", static_cast<double>(r.pods_pending_end));
    m.emplace_back("pod_wait_mean_s", Seconds(Mean(pod_waits)));
    m.emplace_back("pod_wait_p50_s",
                   Seconds(static_cast<double>(rec.pod_wait_q.empty() ? 0 : rec.pod_wait_q[50])));
    m.emplace_back("pod_wait_p99_s",
                   Seconds(static_cast<double>(rec.pod_wait_q.empty() ? 0 : rec.pod_wait_q[99])));
    m.emplace_back("gangs_arrived", static_cast<double>(gang_waits.size()));
    m.emplace_back("gangs_complete", static_cast<double>(gangs_complete));
    m.emplace_back("gang_wait_mean_s", Seconds(Mean(gang_waits)));
    m.emplace_back("gang_wait_p99_s",
                   Seconds(static_cast<double>(rec.gang_wait_q.empty() ? 0 : rec.gang_wait_q[99])));
    for (size_t i = 0; i < r.resources.size(); ++i) {
      if (r.resources[i].name == "pods") continue;
      m.emplace_back("util_" + r.resources[i].name, r.mean_util[i]);
    }
    m.emplace_back("preemptions", static_cast<double>(r.preemptions));
    m.emplace_back("pods_preempted", static_cast<double>(r.pods_preempted));
    m.emplace_back("pods_evicted", static_cast<double>(r.pods_evicted));
    m.emplace_back("nodes_max", static_cast<double>(r.nodes_max));
  }

 private:
  struct Pod {
    int64_t arrival_ns = 0;
    int64_t bound_ns = -1;
    uint32_t workload = 0;
    uint32_t unit = kNoUnit;
  };
  struct Unit {
    UnitRecord rec;
    uint32_t workload = 0;
    std::vector<int64_t> bound;
  };
  std::unordered_map<std::string, uint32_t> workloads_;
  std::vector<bool> grouped_;
  std::vector<int32_t> size_;
  std::unordered_map<std::string, uint32_t> pods_;
  std::vector<Pod> order_;
  std::unordered_map<std::string, uint32_t> unit_index_;
  std::vector<Unit> units_;
};

Result<sim::SimSpec> LoadSpec(const std::string& path, Interner& in, Diagnostics& diags,
                              const sim::ScenarioOptions& opts = {}) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error::NotFound(fmt::format("{}: cannot read file", path));
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (sim::LooksLikeScenario(text)) {
    return sim::ParseScenario(text, path, std::filesystem::path(path).parent_path().string(), in,
                              diags, opts);
  }
  if (!opts.absent_clusters.empty()) {
    return Error::Invalid(fmt::format(
        "clusters.{}=absent: {} is not a scenario (removing a member cluster applies to a "
        "scenario with `clusters:`)",
        opts.absent_clusters.front(), path));
  }
  return sim::LoadManifestsSpec({path}, in, diags, /*strict=*/false);
}

}  // namespace

double RunRecord::Metric(std::string_view key) const {
  for (const auto& [k, v] : metrics) {
    if (k == key) return v;
  }
  return 0;
}

Result<uint64_t> ScenarioSeed(const std::string& scenario_path) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadSpec(scenario_path, in, diags);
  if (!spec.ok()) return spec.error();
  return spec->seed;
}

Result<RunRecord> RunOne(const RunPlan& plan) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  Overrides o = plan.parameters;
  o.Merge(plan.variant.overrides);
  auto spec = LoadSpec(plan.scenario_path, in, diags, ScenarioOptionsOf(o));
  if (!spec.ok()) {
    if (o.absent_clusters.empty()) return spec.error();
    return Error{spec.error().code,
                 fmt::format("variant {}: {}", plan.variant.name, spec.error().message)};
  }
  sim::SimSpec& s = *spec;
  if (auto st = ApplyOverrides(o, s, in); !st.ok()) {
    return Error::Invalid(fmt::format("variant {}: {}", plan.variant.name, st.error().message));
  }
  s.seed = plan.seed;
  DigestLog log(s);
  app::RunRequest req;
  req.log = &log;
  if (s.cost.mode == sim::CostModel::Mode::kMeasured) {
    return Error::Invalid(
        "the scenario's scheduling cost is `measured` (wall time), which is not deterministic; "
        "comparisons need instant or a fixed cost");
  }
  auto out = app::RunSimulation(s, in, diags, req);
  if (!out.ok()) {
    return Error{out.error().code,
                 fmt::format("variant {}: {}", plan.variant.name, out.error().message)};
  }
  const sim::RunResult& r = out->result;
  RunRecord rec;
  rec.scenario = r.name;
  rec.variant = plan.variant.name;
  rec.options = plan.variant.overrides.Describe();
  rec.point = plan.point;
  rec.seed = plan.seed;
  rec.index = plan.index;
  rec.total = plan.total;
  rec.digest = plan.digest;
  rec.end_ns = r.end_ns;
  rec.failure = r.failure;
  for (const auto& smp : r.samples) {
    rec.t_s.push_back(static_cast<double>(smp.t_ns) / 1e9);
    rec.pending.push_back(static_cast<double>(smp.pending));
    rec.running.push_back(static_cast<double>(smp.running));
  }
  for (size_t i = 0; i < r.resources.size(); ++i) {
    if (r.resources[i].name == "pods") continue;
    std::vector<double> u;
    u.reserve(r.samples.size());
    for (const auto& smp : r.samples) u.push_back(std::round(smp.util[i] * 1e6) / 1e6);
    rec.util.emplace_back(r.resources[i].name, std::move(u));
  }
  log.Finish(s, r, rec);
  return rec;
}

std::string RecordToJson(const RunRecord& r) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["version"] = kRecordVersion;
  j["scenario"] = r.scenario;
  j["variant"] = r.variant;
  j["options"] = r.options;
  j["point"] = r.point;
  j["seed"] = r.seed;
  j["index"] = r.index;
  j["total"] = r.total;
  j["digest"] = r.digest;
  j["end_ns"] = r.end_ns;
  j["failure"] = r.failure;
  Json m = Json::array();
  for (const auto& [k, v] : r.metrics) m.push_back(Json::array({k, v}));
  j["metrics"] = m;
  j["t_s"] = r.t_s;
  j["pending"] = r.pending;
  j["running"] = r.running;
  Json u = Json::array();
  for (const auto& [k, v] : r.util) u.push_back(Json::array({k, v}));
  j["util"] = u;
  j["pod_wait_q"] = r.pod_wait_q;
  j["gang_wait_q"] = r.gang_wait_q;
  Json ws = Json::array();
  for (const auto& w : r.workloads) {
    ws.push_back(Json::array({w.name, w.kind, w.pods_arrived, w.pods_scheduled, w.pods_pending_end,
                              w.pods_preempted, w.pods_evicted, w.wait_mean_ns, w.wait_p99_ns}));
  }
  j["workloads"] = ws;
  Json us = Json::array();
  for (const auto& x : r.units) {
    us.push_back(
        Json::array({x.id, x.workload, x.arrival_ns, x.wait_ns, x.complete, x.preempted, x.nodes}));
  }
  j["units"] = us;
  return j.dump() + "\n";
}

Result<RunRecord> RecordFromJson(std::string_view text, std::string_view file) {
  using Json = nlohmann::json;
  RunRecord r;
  try {
    Json j = Json::parse(text);
    if (j.at("version").get<std::string>() != kRecordVersion) {
      return Error::Invalid(fmt::format("{}: not a {} result file", file, kRecordVersion));
    }
    r.scenario = j.at("scenario").get<std::string>();
    r.variant = j.at("variant").get<std::string>();
    r.options = j.at("options").get<std::string>();
    r.point = j.at("point").get<std::string>();
    r.seed = j.at("seed").get<uint64_t>();
    r.index = j.at("index").get<size_t>();
    r.total = j.at("total").get<size_t>();
    r.digest = j.at("digest").get<std::string>();
    r.end_ns = j.at("end_ns").get<int64_t>();
    r.failure = j.at("failure").get<std::string>();
    for (const auto& m : j.at("metrics"))
      r.metrics.emplace_back(m.at(0).get<std::string>(), m.at(1).get<double>());
    r.t_s = j.at("t_s").get<std::vector<double>>();
    r.pending = j.at("pending").get<std::vector<double>>();
    r.running = j.at("running").get<std::vector<double>>();
    for (const auto& u : j.at("util"))
      r.util.emplace_back(u.at(0).get<std::string>(), u.at(1).get<std::vector<double>>());
    r.pod_wait_q = j.at("pod_wait_q").get<std::vector<int64_t>>();
    r.gang_wait_q = j.at("gang_wait_q").get<std::vector<int64_t>>();
    for (const auto& w : j.at("workloads")) {
      WorkloadRecord x;
      x.name = w.at(0).get<std::string>();
      x.kind = w.at(1).get<std::string>();
      x.pods_arrived = w.at(2).get<int64_t>();
      x.pods_scheduled = w.at(3).get<int64_t>();
      x.pods_pending_end = w.at(4).get<int64_t>();
      x.pods_preempted = w.at(5).get<int64_t>();
      x.pods_evicted = w.at(6).get<int64_t>();
      x.wait_mean_ns = w.at(7).get<int64_t>();
      x.wait_p99_ns = w.at(8).get<int64_t>();
      r.workloads.push_back(std::move(x));
    }
    for (const auto& u : j.at("units")) {
      UnitRecord x;
      x.id = u.at(0).get<std::string>();
      x.workload = u.at(1).get<std::string>();
      x.arrival_ns = u.at(2).get<int64_t>();
      x.wait_ns = u.at(3).get<int64_t>();
      x.complete = u.at(4).get<bool>();
      x.preempted = u.at(5).get<int32_t>();
      x.nodes = u.at(6).get<std::vector<std::string>>();
      r.units.push_back(std::move(x));
    }
  } catch (const std::exception& e) {
    return Error::Invalid(fmt::format("{}: not a valid result file: {}", file, e.what()));
  }
  return r;
}

}  // namespace corral::compare
