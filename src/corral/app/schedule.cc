#include "corral/app/schedule.h"

#include <algorithm>
#include <optional>
#include <set>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/api/well_known.h"
#include "corral/app/load_errors.h"
#include "corral/config/scheduler_config.h"
#include "corral/doc/decoder.h"
#include "corral/loader/loader.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral::app {

namespace {

std::string PodKey(const Interner& in, const api::Pod& p) {
  return fmt::format("{}/{}", in.Str(p.meta.namespace_), in.Str(p.meta.name));
}

}  // namespace

ExplainOut MakeExplainOut(const Interner& in, const api::Pod& pod,
                          const scheduler::CycleExplain& ex) {
  ExplainOut e;
  e.pod = PodKey(in, pod);
  e.selected = std::string(in.Str(ex.selected));
  if (ex.pre_filter.has_value()) e.pre_filter = ex.pre_filter->Message();
  for (const auto& n : ex.nodes) {
    NodeOut no;
    no.node = std::string(in.Str(n.node));
    no.absent = n.absent;
    if (n.filter.has_value()) {
      no.passed = false;
      no.filter_plugin = std::string(n.filter->plugin());
      no.filter_code = std::string(framework::CodeName(n.filter->code()));
      for (auto r : n.filter->reasons()) no.filter_reasons.emplace_back(r);
    }
    for (const auto& s : n.scores) {
      no.scores.push_back({std::string(s.plugin), s.raw, s.normalized, s.weighted});
    }
    if (n.total.has_value()) {
      no.scored = true;
      no.total = *n.total;
    }
    e.nodes.push_back(std::move(no));
  }
  if (ex.from_nominated) e.selected_from = "nominated node";
  if (ex.from_hint) {
    e.selected_from = "batching hint";
    if (!ex.hint_source_name.empty()) {
      e.hint_source =
          fmt::format("{}/{}", in.Str(ex.hint_source_namespace), in.Str(ex.hint_source_name));
    }
  }
  e.candidates = static_cast<int64_t>(ex.num_candidates);
  e.evaluated = static_cast<int64_t>(ex.num_evaluated);
  e.num_to_find = ex.num_to_find;
  e.tied = static_cast<int64_t>(ex.num_tied);
  if (ex.post_filter.has_value()) {
    e.post_filter = true;
    e.preemption_message = ex.post_filter->message;
    e.nominated = std::string(in.Str(ex.post_filter->nominated));
    for (const auto& [ns, name] : ex.post_filter->victims) {
      e.victims.push_back(fmt::format("{}/{}", in.Str(ns), in.Str(name)));
    }
    const framework::PreemptionDryRun& d = ex.post_filter->dry_run;
    e.dry_run = d.ran;
    e.dry_potential = d.potential;
    e.dry_offset = d.offset;
    e.dry_wanted = d.num_candidates;
    e.dry_evaluated = d.evaluated;
    e.dry_found = d.found;
    e.dry_none_lower = d.none_lower;
  }
  e.fit_error = ex.fit_error;
  return e;
}

namespace {

class Collector : public scheduler::SchedulerObserver {
 public:
  Collector(const Interner& in, ScheduleOutcome& out) : in_(in), out_(out) {}
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view profile) override {
    out_.placements.push_back({PodKey(in_, pod), std::string(in_.Str(node)), std::string(profile)});
  }
  void OnExplain(const api::Pod& pod, const scheduler::CycleExplain& ex) override {
    ExplainOut e = MakeExplainOut(in_, pod, ex);
    attempts_[e.pod].push_back(std::move(e));
  }
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    ScheduleOutcome::Preemption out;
    out.pdb_violations = p.num_pdb_violations;
    if (p.group.empty()) {
      out.preemptor = PodKey(in_, *p.preemptor);
      out.priority = p.preemptor->priority;
      out.node = std::string(in_.Str(p.node));
      for (const auto& v : p.victims) {
        std::string reason =
            v.unit.empty()
                ? fmt::format("priority {} < {}; {} does not fit on {} with it", v.pod->priority,
                              p.preemptor->priority, out.preemptor, out.node)
                : fmt::format(
                      "priority {} < {}; evicted with its disruptionMode all group {}, "
                      "without which {} does not fit on {}",
                      v.priority, p.priority, v.unit, out.preemptor, out.node);
        if (v.violates_pdb) reason += "; violates a PodDisruptionBudget";
        out.victims.push_back({PodKey(in_, *v.pod), v.unit.empty() ? v.pod->priority : v.priority,
                               v.violates_pdb, std::move(reason), std::string(in_.Str(v.node)),
                               v.unit});
      }
    } else {
      // A pod group (KEP-5710): every nominated member, and victims from anywhere in the cluster.
      out.group = p.group;
      out.preemptor = "podgroup " + p.group;
      out.priority = p.priority;
      std::set<std::string> nodes;
      for (const auto& [pod, node] : p.nominations) {
        out.nominations.emplace_back(PodKey(in_, *pod), std::string(in_.Str(node)));
        nodes.insert(std::string(in_.Str(node)));
      }
      for (const auto& n : nodes) out.node += (out.node.empty() ? "" : ",") + n;
      for (const auto& v : p.victims) {
        std::string reason = fmt::format("priority {} < {}; gang {} needs {} members placed",
                                         v.priority, p.priority, p.group, p.min_count);
        if (!v.unit.empty())
          reason += fmt::format("; evicted with its disruptionMode all group {}", v.unit);
        if (v.violates_pdb) reason += "; violates a PodDisruptionBudget";
        out.victims.push_back({PodKey(in_, *v.pod), v.priority, v.violates_pdb, std::move(reason),
                               std::string(in_.Str(v.node)), v.unit});
      }
    }
    out_.preemptions.push_back(std::move(out));
  }
  void Finish() {
    for (auto& [pod, attempts] : attempts_) {
      const auto n = static_cast<int32_t>(attempts.size());
      for (int32_t i = 0; i < n; ++i) {
        attempts[static_cast<size_t>(i)].attempt = i + 1;
        attempts[static_cast<size_t>(i)].attempts = n;
        out_.explain.push_back(std::move(attempts[static_cast<size_t>(i)]));
      }
    }
  }

 private:
  const Interner& in_;
  ScheduleOutcome& out_;
  std::map<std::string, std::vector<ExplainOut>> attempts_;  // every attempt, in order
};

// Every --explain target names a pending pod: a name that matches no pod is an error with the
// closest pod's name, and a bound pod (never scheduled) is an error that says so.
Result<void> CheckExplainTargets(const std::vector<std::string>& targets,
                                 const api::ObjectSet& objects, const Interner& in) {
  if (targets.empty()) return {};
  std::vector<std::string> keys;
  keys.reserve(objects.pods.size());
  for (const api::Pod& p : objects.pods) keys.push_back(PodKey(in, p));
  for (const std::string& t : targets) {
    auto it = std::find(keys.begin(), keys.end(), t);
    if (it != keys.end()) {
      const api::Pod& p = objects.pods[static_cast<size_t>(it - keys.begin())];
      if (p.IsBound()) {
        return Error::Invalid(fmt::format(
            "--explain {}: the pod is bound to {} (spec.nodeName); only pending pods are "
            "scheduled and explained",
            t, in.Str(p.node_name)));
      }
      continue;
    }
    std::string msg = fmt::format("--explain {}: no such pod", t);
    if (t.find('/') == std::string::npos) msg += " (give NAMESPACE/NAME)";
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::string_view suggestion = doc::Suggest(t, views);
    for (std::string_view k : views) {
      if (suggestion.empty() && k.substr(k.find('/') + 1) == t) suggestion = k;
    }
    if (!suggestion.empty()) msg += fmt::format("; did you mean {:?}?", suggestion);
    return Error::Invalid(msg);
  }
  return {};
}

void CollectGroups(const Interner& in, scheduler::Scheduler& s, ScheduleOutcome& out) {
  absl::flat_hash_map<const api::Pod*, std::string> pending;
  for (const auto& [pod, msg] : s.PendingPods()) pending[pod] = msg;
  for (const auto& g : s.workloads().groups()) {
    ScheduleOutcome::Group row;
    row.group = scheduler::WorkloadManager::KeyString(in, g->key);
    framework::ResolvedPodGroup resolved;
    const bool known =
        !g->all.empty() && framework::ResolvePodGroup(s, *g->all.front()->pod, &resolved).ok();
    if (known) {
      row.policy = resolved.IsGang() ? "gang" : "basic";
      row.min_count = resolved.IsGang() ? resolved.policy.min_count : 0;
    }
    row.members = static_cast<int64_t>(g->all.size());
    std::string first_pending;
    for (const framework::PodInfo* p : g->all) {
      if (g->assigned.contains(p)) {
        ++row.scheduled;
      } else if (s.IsWaitingOnPermit(p->pod)) {
        ++row.waiting;
      } else {
        ++row.unschedulable;
        if (auto it = pending.find(p->pod); it != pending.end() && first_pending.empty())
          first_pending = it->second;
      }
    }
    row.domain = g->domain;
    const int64_t need = known ? std::max<int64_t>(resolved.MinCount(), 1) : 1;
    if (g->mixed_scheduler_names) {
      row.reason = "pods of the pod group have different schedulerNames";
    } else if (!known) {
      row.reason = first_pending;
    } else if (row.scheduled < need && !g->failure.empty()) {
      row.reason = g->failure;
    } else if (row.scheduled < need && row.waiting > 0) {
      row.reason = fmt::format("{} {}: {}/{} members fit, minCount {}", row.policy, row.group,
                               row.scheduled + row.waiting, row.members, need);
    } else if (row.scheduled < need || (row.unschedulable > 0 && row.scheduled < row.members)) {
      row.reason = first_pending;
    }
    out.groups.push_back(std::move(row));
  }
}

}  // namespace

Result<ScheduleOutcome> RunSchedule(const ScheduleRequest& req) {
  Interner in = api::NewInterner();
  loader::LoadResult loaded = loader::LoadPaths(
      req.inputs, in, {.strict = req.strict, .unknown_fields = req.unknown_fields});
  ScheduleOutcome out;
  if (!loaded.ok()) return Error::Invalid(LoadErrorText(loaded.diagnostics));
  out.diagnostics = loaded.diagnostics;

  ManualClock clock;
  scheduler::Scheduler::Options opts;
  if (!req.config_path.empty()) {
    auto cfg = config::LoadSchedulerConfig(req.config_path, in, req.gates, out.diagnostics,
                                           {.strict = req.strict});
    if (!cfg.ok()) return cfg.error();
    opts.config = std::move(cfg).value();
  }
  // Permit mode places members one by one and cannot keep a group in one topology domain; such a
  // group is never split silently (docs/gangs.md).
  if (!req.workload_cycle && req.gates.Enabled(framework::Feature::kCompositePodGroup)) {
    for (const api::CompositePodGroup& c : loaded.objects.composite_pod_groups) {
      return Error::Invalid(fmt::format(
          "--gang-mode permit: CompositePodGroup {}/{} needs its whole tree scheduled in one "
          "workload cycle, which permit mode does not run; use --gang-mode workload-cycle",
          in.Str(c.meta.namespace_), in.Str(c.meta.name)));
    }
  }
  if (!req.workload_cycle &&
      req.gates.Enabled(framework::Feature::kTopologyAwareWorkloadScheduling)) {
    for (const api::PodGroup& g : loaded.objects.pod_groups) {
      if (g.topology_keys.empty()) continue;
      return Error::Invalid(fmt::format(
          "--gang-mode permit: PodGroup {}/{} has spec.schedulingConstraints.topology, which "
          "permit "
          "mode cannot honour (members are placed one by one and could be split across domains); "
          "use --gang-mode workload-cycle",
          in.Str(g.meta.namespace_), in.Str(g.meta.name)));
    }
  }
  if (auto st = CheckExplainTargets(req.explain, loaded.objects, in); !st.ok()) return st.error();
  opts.gates = req.gates;
  opts.seed = req.seed;
  opts.workload_cycle = req.workload_cycle;
  std::set<std::string> explain(req.explain.begin(), req.explain.end());
  const bool all = req.explain_all;
  opts.explain = [&](const api::Pod& p) { return all || explain.contains(PodKey(in, p)); };
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto sched = scheduler::Scheduler::New(in, clock, std::move(opts), registry);
  if (!sched.ok()) return sched.error();
  scheduler::Scheduler& s = **sched;
  Collector collector(in, out);
  s.set_observer(&collector);
  s.SetClusterObjects(&loaded.objects);
  for (const auto& n : loaded.objects.nodes) s.AddNode(&n);
  for (const auto& p : loaded.objects.pods) {
    if (p.IsBound()) {
      s.AddPod(&p);
      ++out.pods_bound_initially;
    }
  }
  for (const auto& p : loaded.objects.pods) {
    if (!p.IsBound() && !s.AddPod(&p)) {
      out.ignored.push_back(
          {PodKey(in, p),
           fmt::format("schedulerName {:?} matches no profile; left to that scheduler",
                       std::string(in.Str(p.scheduler_name)))});
    }
  }
  s.RunUntilIdle();
  // Binding takes no time, but Permit timeouts (gangs waiting for their quorum) elapse on the
  // virtual clock: when nothing else can progress, jump to the next deadline and fire it. A round
  // that binds nothing would repeat forever (the same members re-form the same partial gang), so
  // the run stops there.
  constexpr int kMaxTimerRounds = 1000;
  for (int round = 0; round < kMaxTimerRounds; ++round) {
    std::optional<TimePoint> deadline = s.NextTimerDeadline();
    if (!deadline.has_value()) break;
    const int64_t before = s.stats().scheduled;
    if (*deadline > clock.Now()) clock.Set(*deadline);
    s.FireTimers();
    s.RunUntilIdle();
    if (s.stats().scheduled == before) break;
  }
  collector.Finish();
  CollectGroups(in, s, out);
  for (const auto& [pod, msg] : s.PendingPods())
    out.unschedulable.push_back({PodKey(in, *pod), msg});
  out.cycles = s.stats().cycles;
  out.batching = s.features().Enabled(framework::Feature::kOpportunisticBatching);
  out.batched = s.stats().batched;
  const scheduler::Scheduler::BatchTotals bt = s.batch_totals();
  out.batched_cross_node = bt.cross_node_pods;
  out.incremental_prescores = bt.incremental_prescores;
  out.rescore_hook_nodes = bt.hook_rescored_nodes;
  out.batch_flushes = scheduler::BatchFlushCounts(s.metrics());
  out.metrics_text = s.metrics().PrometheusText();
  out.metrics_json = s.metrics().ToJson().dump();
  return out;
}

namespace {
nlohmann::ordered_json BatchingJson(const ScheduleOutcome& out) {
  nlohmann::ordered_json flushes = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : out.batch_flushes) flushes[reason] = n;
  return {{"enabled", out.batching},
          {"pods_batched", out.batched},
          {"pods_batched_cross_node", out.batched_cross_node},
          {"incremental_prescores", out.incremental_prescores},
          {"rescore_hook_nodes", out.rescore_hook_nodes},
          {"flushes", flushes}};
}
}  // namespace

namespace {
nlohmann::ordered_json ExplainJson(const ExplainOut& e) {
  using json = nlohmann::ordered_json;
  json pe;
  pe["selected"] = e.selected.empty() ? json(nullptr) : json(e.selected);
  if (!e.pre_filter.empty()) pe["preFilter"] = e.pre_filter;
  if (!e.selected_from.empty()) pe["selectedFrom"] = e.selected_from;
  if (!e.hint_source.empty()) pe["batchHintFrom"] = e.hint_source;
  if (e.pre_filter.empty()) {
    pe["candidates"] = e.candidates;
    pe["evaluated"] = e.evaluated;
    pe["numFeasibleNodesToFind"] = e.num_to_find;
  }
  if (e.tied > 1) pe["tiedNodes"] = e.tied;
  json nodes = json::object();
  for (const auto& n : e.nodes) {
    json nj;
    if (n.passed) {
      nj["filter"] = nullptr;
    } else {
      nj["filter"] = {
          {"plugin", n.filter_plugin}, {"code", n.filter_code}, {"reasons", n.filter_reasons}};
    }
    if (n.absent) nj["excludedByPreFilter"] = true;
    if (n.scored) {
      json sc = json::object();
      for (const auto& s : n.scores) {
        sc[s.plugin] = {{"raw", s.raw}, {"normalized", s.normalized}, {"weighted", s.weighted}};
      }
      nj["scores"] = sc;
      nj["total"] = n.total;
    }
    nodes[n.node] = nj;
  }
  pe["nodes"] = nodes;
  if (e.post_filter) {
    pe["preemption"] = {
        {"nominatedNode", e.nominated.empty() ? json(nullptr) : json(e.nominated)},
        {"victims", e.victims},
        {"message", e.preemption_message.empty() ? json(nullptr) : json(e.preemption_message)}};
    if (e.dry_run) {
      pe["preemption"]["dryRun"] = {{"potentialNodes", e.dry_potential},
                                    {"offset", e.dry_offset},
                                    {"numCandidates", e.dry_wanted},
                                    {"evaluated", e.dry_evaluated},
                                    {"found", e.dry_found},
                                    {"noLowerPriorityPod", e.dry_none_lower}};
    } else {
      pe["preemption"]["dryRun"] = nullptr;
    }
  }
  pe["fitError"] = e.fit_error.empty() ? json(nullptr) : json(e.fit_error);
  return pe;
}
// Appends an aligned table: columns separated by two spaces, the last column unpadded.
void AppendTable(std::string& s, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(header.size());
  for (size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (const auto& r : rows) {
    for (size_t i = 0; i + 1 < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size(); ++i) {
      s += r[i];
      if (i + 1 < r.size()) s += std::string(w[i] - r[i].size() + 2, ' ');
    }
    s += '\n';
  };
  line(header);
  for (const auto& r : rows) line(r);
}

// The preemption dry run of an explained attempt, one line: kube's GetOffsetAndNumCandidates (the
// random offset into the potential nodes and the candidate count the walk stops at) and what the
// walk did.
std::string ExplainDryRun(const ExplainOut& e) {
  if (!e.dry_run) return "";
  if (e.dry_none_lower) {
    return fmt::format(
        "  preemption dry run: {} potential node(s) (filter status Unschedulable), offset {}, {} "
        "candidate(s) wanted; no node holds a pod of lower priority, so none was evaluated\n",
        e.dry_potential, e.dry_offset, e.dry_wanted);
  }
  return fmt::format(
      "  preemption dry run: {} potential node(s) (filter status Unschedulable), offset {}, {} "
      "candidate(s) wanted; {} node(s) evaluated, {} candidate(s) found\n",
      e.dry_potential, e.dry_offset, e.dry_wanted, e.dry_evaluated, e.dry_found);
}

}  // namespace

std::string FormatScheduleJson(const ScheduleOutcome& out) {
  using json = nlohmann::ordered_json;
  json j;
  j["placements"] = json::array();
  for (const auto& p : out.placements) {
    j["placements"].push_back({{"pod", p.pod}, {"node", p.node}, {"profile", p.profile}});
  }
  j["unschedulable"] = json::array();
  for (const auto& u : out.unschedulable) {
    j["unschedulable"].push_back({{"pod", u.pod}, {"message", u.message}});
  }
  if (!out.ignored.empty()) {
    j["ignored"] = json::array();
    for (const auto& u : out.ignored)
      j["ignored"].push_back({{"pod", u.pod}, {"reason", u.message}});
  }
  if (!out.groups.empty()) {
    j["groups"] = json::array();
    for (const auto& g : out.groups) {
      j["groups"].push_back({{"group", g.group},
                             {"policy", g.policy.empty() ? json(nullptr) : json(g.policy)},
                             {"minCount", g.min_count},
                             {"members", g.members},
                             {"scheduled", g.scheduled},
                             {"waiting", g.waiting},
                             {"unschedulable", g.unschedulable},
                             {"domain", g.domain.empty() ? json(nullptr) : json(g.domain)},
                             {"reason", g.reason.empty() ? json(nullptr) : json(g.reason)}});
    }
  }
  if (!out.preemptions.empty()) {
    j["preemptions"] = json::array();
    for (const auto& p : out.preemptions) {
      json victims = json::array();
      // A pod preemption that evicts a disruptionMode-all group names every victim's node.
      const bool any_unit = std::any_of(p.victims.begin(), p.victims.end(),
                                        [](const auto& v) { return !v.unit.empty(); });
      for (const auto& v : p.victims) {
        json jv = {{"pod", v.pod},
                   {"priority", v.priority},
                   {"violatesPdb", v.violates_pdb},
                   {"reason", v.reason}};
        if (!p.group.empty() || any_unit) {
          jv["node"] = v.node;
          jv["podGroup"] = v.unit.empty() ? json(nullptr) : json(v.unit);
        }
        victims.push_back(std::move(jv));
      }
      json jp = {{"preemptor", p.preemptor},
                 {"priority", p.priority},
                 {"nominatedNode", p.node},
                 {"pdbViolations", p.pdb_violations},
                 {"victims", victims}};
      if (!p.group.empty()) {
        jp["podGroup"] = p.group;
        json noms = json::array();
        for (const auto& [pod, node] : p.nominations)
          noms.push_back({{"pod", pod}, {"node", node}});
        jp["nominations"] = std::move(noms);
      }
      j["preemptions"].push_back(std::move(jp));
    }
  }
  json ex = json::object();
  for (size_t i = 0; i < out.explain.size(); ++i) {
    const ExplainOut& e = out.explain[i];
    json pe = ExplainJson(e);
    if (e.attempts > 1) {
      // The last attempt's fields, and every earlier attempt in order.
      json earlier = json::array();
      for (size_t k = i + 1 - static_cast<size_t>(e.attempt); k < i; ++k) {
        earlier.push_back(ExplainJson(out.explain[k]));
      }
      pe["earlierAttempts"] = std::move(earlier);
    }
    if (e.attempt == e.attempts) ex[e.pod] = std::move(pe);
  }
  j["explain"] = ex;
  j["stats"] = {{"pods_scheduled", out.placements.size()},
                {"pods_unschedulable", out.unschedulable.size()},
                {"pods_bound_initially", out.pods_bound_initially},
                {"cycles", out.cycles},
                {"batching", BatchingJson(out)},
                {"metrics", json::parse(out.metrics_json.empty() ? "{}" : out.metrics_json)}};
  return j.dump(2) + "\n";
}

std::string FormatExplainBody(const ExplainOut& e) {
  std::string s;
  if (!e.pre_filter.empty()) s += fmt::format("  PreFilter: {}\n", e.pre_filter);
  if (e.selected_from == "nominated node") {
    s += "  the pod's nominated node passed the filters first; no other node was evaluated\n";
  } else if (e.selected_from == "batching hint") {
    s += fmt::format(
        "  placed on the opportunistic-batching hint: the next node of the list scored for {}; "
        "no other node was evaluated\n",
        e.hint_source.empty() ? "an earlier pod" : e.hint_source);
  } else if (e.pre_filter.empty() && e.evaluated < e.candidates) {
    s += fmt::format(
        "  {} of {} candidate nodes never evaluated: the search stopped at {} feasible nodes "
        "(numFeasibleNodesToFind, percentageOfNodesToScore)\n",
        e.candidates - e.evaluated, e.candidates, e.num_to_find);
  }
  if (e.tied > 1) {
    s += fmt::format("  {} nodes tied for the top score; the tie was broken at random (--seed)\n",
                     e.tied);
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> absent;
  std::string absent_reason;
  for (const auto& n : e.nodes) {
    std::string detail;
    if (n.absent) {
      absent.push_back(n.node);
      absent_reason = fmt::format("{}", fmt::join(n.filter_reasons, ", "));
      continue;
    }
    if (!n.passed) {
      detail = fmt::format("{} {}: {}", n.filter_plugin, n.filter_code,
                           fmt::join(n.filter_reasons, ", "));
    } else if (n.scored) {
      std::vector<std::string> parts;
      for (const auto& sc : n.scores) parts.push_back(fmt::format("{}={}", sc.plugin, sc.weighted));
      detail = fmt::format("{}", fmt::join(parts, " "));
    } else {
      detail = "feasible";
    }
    rows.push_back({"  " + n.node, n.scored ? std::to_string(n.total) : "-", detail});
  }
  AppendTable(s, {"  NODE", "TOTAL", "DETAIL"}, rows);
  if (!absent.empty()) {
    s += fmt::format("  {} node(s) excluded by the PreFilter result, never evaluated ({}): {}\n",
                     absent.size(), absent_reason, fmt::join(absent, " "));
  }
  if (e.post_filter) {
    if (!e.nominated.empty()) {
      s += fmt::format(
          "  preemption: nominated to {}; victims: {}\n", e.nominated,
          e.victims.empty() ? std::string("none") : fmt::format("{}", fmt::join(e.victims, ", ")));
    } else {
      s += fmt::format("  preemption: {}\n",
                       e.preemption_message.empty() ? "no node nominated" : e.preemption_message);
    }
    s += ExplainDryRun(e);
  }
  if (!e.fit_error.empty()) s += fmt::format("  unschedulable: {}\n", e.fit_error);
  return s;
}

std::string FormatScheduleTable(const ScheduleOutcome& out) {
  std::string s;
  auto table = [&](const std::vector<std::string>& header,
                   const std::vector<std::vector<std::string>>& rows) {
    AppendTable(s, header, rows);
  };
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : out.placements) rows.push_back({p.pod, p.node, p.profile});
  if (!rows.empty()) table({"POD", "NODE", "PROFILE"}, rows);
  if (!out.unschedulable.empty()) {
    if (!rows.empty()) s += '\n';
    rows.clear();
    for (const auto& u : out.unschedulable) rows.push_back({u.pod, u.message});
    table({"UNSCHEDULABLE POD", "MESSAGE"}, rows);
  }
  if (!out.ignored.empty()) {
    s += '\n';
    rows.clear();
    for (const auto& u : out.ignored) rows.push_back({u.pod, u.message});
    table({"IGNORED POD", "REASON"}, rows);
  }
  if (!out.groups.empty()) {
    s += '\n';
    rows.clear();
    for (const auto& g : out.groups) {
      rows.push_back({g.group, g.policy.empty() ? "-" : g.policy, std::to_string(g.min_count),
                      fmt::format("{}/{}", g.scheduled, g.members), std::to_string(g.waiting),
                      std::to_string(g.unschedulable), g.domain.empty() ? "-" : g.domain,
                      g.reason.empty() ? "-" : g.reason});
    }
    table({"GROUP", "POLICY", "MIN", "SCHEDULED", "WAITING", "UNSCHEDULABLE", "DOMAIN", "REASON"},
          rows);
  }
  if (!out.preemptions.empty()) {
    s += '\n';
    rows.clear();
    for (const auto& p : out.preemptions) {
      for (const auto& v : p.victims) {
        rows.push_back({p.preemptor, std::to_string(p.priority), p.node, v.pod,
                        std::to_string(v.priority), v.reason});
      }
    }
    table({"PREEMPTOR", "PRIORITY", "NOMINATED NODE", "VICTIM", "VICTIM PRIORITY", "WHY"}, rows);
  }
  for (const auto& e : out.explain) {
    const std::string attempt =
        e.attempts > 1 ? fmt::format(" (attempt {} of {})", e.attempt, e.attempts) : std::string();
    s += fmt::format("\nexplain {}{}: selected {}\n", e.pod, attempt,
                     e.selected.empty() ? "<none>" : e.selected);
    s += FormatExplainBody(e);
  }
  s += fmt::format("\n{} scheduled, {} unschedulable, {} already bound, {} cycles\n",
                   out.placements.size(), out.unschedulable.size(), out.pods_bound_initially,
                   out.cycles);
  if (out.batching) {
    std::vector<std::string> parts;
    for (const auto& [reason, n] : out.batch_flushes)
      parts.push_back(fmt::format("{} {}", n, reason));
    s += fmt::format(
        "batching: {} pods batched, batch flushes: {}\n", out.batched,
        parts.empty() ? std::string("none") : fmt::format("{}", fmt::join(parts, ", ")));
    if (out.batched_cross_node > 0) {
      s += fmt::format(
          "cross-node batching: {} pods on batches rescored through Rescore hooks, {} incremental "
          "PreScores, {} nodes rescored by hooks\n",
          out.batched_cross_node, out.incremental_prescores, out.rescore_hook_nodes);
    }
  }
  return s;
}

}  // namespace corral::app
