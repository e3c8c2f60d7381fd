#include "corral/sim/report/fleet_output.h"

#include <cmath>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "corral/sim/report/output.h"
#include "corral/sim/report/svg.h"

namespace corral::sim {

namespace {

using json = nlohmann::ordered_json;

// Nearest-rank percentile of sorted values.
int64_t Percentile(const std::vector<int64_t>& sorted, int p) {
  if (sorted.empty()) return 0;
  size_t rank = (sorted.size() * static_cast<size_t>(p) + 99) / 100;
  if (rank == 0) rank = 1;
  return sorted[rank - 1];
}

double Mean(const std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (int64_t x : v) sum += static_cast<double>(x);
  return sum / static_cast<double>(v.size());
}

constexpr const char* kAttemptResults[] = {"preempting", "blocked", "no_victims", "not_applicable",
                                           "eviction_failed"};
constexpr const char* kClaimStates[] = {"active",          "scheduled", "deleted",
                                        "eviction_failed", "expired",   "replaced"};

int64_t AttemptCount(const FleetResult& f, std::string_view result) {
  for (const auto& [name, n] : f.preemption_attempts) {
    if (name == result) return n;
  }
  return 0;
}

// A claim's end as a metric label ("" is still active).
std::string ClaimState(const FleetPreemptionResult& p) {
  if (p.claim_end.empty()) return "active";
  std::string s = p.claim_end;
  for (char& c : s) c = c == ' ' ? '_' : c;
  return s;
}

int64_t ClaimCount(const FleetResult& f, std::string_view state) {
  int64_t n = 0;
  for (const FleetPreemptionResult& p : f.preemptions) n += ClaimState(p) == state;
  return n;
}

std::string Replicas(int32_t n) {
  return fmt::format("{} replica{}", n, n == 1 ? "" : "s");
}

std::string VictimGone(const FleetVictimResult& v) {
  return v.gone_ns >= 0 ? fmt::format("pods gone at {} ({})", HumanDuration(v.gone_ns), v.gone_how)
                        : std::string("pods still on the member at the end");
}

std::string ClaimLife(const FleetPreemptionResult& p) {
  if (p.claim_end_ns < 0)
    return fmt::format("set {}, active at the end", HumanDuration(p.claim_set_ns));
  return fmt::format("set {}, {} {} ({})", HumanDuration(p.claim_set_ns),
                     p.claim_end == "expired" ? "expired" : "cleared",
                     HumanDuration(p.claim_end_ns), p.claim_end);
}

// The preemption flavour: Karmada's own, or the mode and victim selection fleet.preemption chose.
std::string PreemptionFlavour(const FleetResult& f) {
  if (f.preemption_mode == "karmada" && !f.preemption_simulated_victims)
    return "Karmada binding preemption";
  return fmt::format("{} binding preemption, victims {}",
                     f.preemption_mode == "fleetwide" ? "fleet-wide" : "Karmada",
                     f.preemption_simulated_victims ? "by simulation on the member (Phase 2)"
                                                    : "from summaries (Phase 1)");
}

// One weighed cluster's cost tuple (kube's node-pick order), or why it was not weighed.
std::string ClusterCost(const FleetClusterCost& c) {
  if (!c.feasible) return fmt::format("{}: not a candidate: {}", c.cluster, c.reason);
  return fmt::format(
      "{}: highest victim priority {}, priority sum {}, {} evicted in {} binding(s){}", c.cluster,
      c.highest_victim_priority, c.priority_sum, Replicas(c.victim_replicas), c.victim_bindings,
      c.chosen ? "  (chosen)" : "");
}

std::string FleetPreemptionSummary(const FleetResult& f) {
  std::string s = fmt::format("\nFLEET PREEMPTION ({}; graceful eviction after {}, claim TTL {})\n",
                              PreemptionFlavour(f), HumanDuration(f.preemption_grace_ns),
                              HumanDuration(fleet::kClaimTtl.count()));
  std::string attempts;
  int64_t total = 0;
  for (const char* r : kAttemptResults) {
    const int64_t n = AttemptCount(f, r);
    total += n;
    if (n > 0) attempts += fmt::format("  {} {}", r, n);
  }
  std::string claims;
  for (const char* st : kClaimStates) {
    const int64_t n = ClaimCount(f, st);
    if (n > 0) claims += fmt::format("  {} {}", st, n);
  }
  s += fmt::format("  attempts {}{}  victims evicted {}\n", total, attempts, f.preemption_victims);
  if (!claims.empty()) s += fmt::format("  claims{}\n", claims);
  for (const FleetPreemptionResult& p : f.preemptions) {
    s += fmt::format(
        "  {} (priority {}) on {} at {}: {}, {} victim(s); cluster available {}, deficit {}\n",
        p.preemptor, p.priority, p.cluster, HumanDuration(p.at_ns), p.result, p.victims.size(),
        p.cluster_available, p.deficit);
    s += fmt::format("      why that cluster: {}\n", p.why);
    for (const FleetClusterCost& c : p.considered) {
      s += fmt::format("      weighed    {}\n", ClusterCost(c));
    }
    if (p.simulated) s += "      victims chosen by simulating on the member's nodes\n";
    for (const FleetVictimResult& v : p.victims) {
      s += fmt::format("      victim     {} (priority {}, {})  {}\n", v.name, v.priority,
                       Replicas(v.replicas), VictimGone(v));
    }
    for (const FleetVictimResult& v : p.gang_victims) {
      s += fmt::format("      gang       {} on {} (priority {}, {}; its gang leaves whole)  {}\n",
                       v.name, v.cluster, v.priority, Replicas(v.replicas), VictimGone(v));
    }
    for (const FleetVictimResult& v : p.reprieved) {
      s += fmt::format("      reprieved  {} (priority {}, {})\n", v.name, v.priority,
                       Replicas(v.replicas));
    }
    s += fmt::format("      claim      {}\n", ClaimLife(p));
    s += fmt::format(
        "      {}: {}\n",
        p.result == "preempting" ? "Scheduled=False, Reason=Preempting" : "eviction failed",
        p.message);
  }
  if (f.preemptions.empty()) s += "  no preemption\n";
  return s;
}

json VictimsJson(const std::vector<FleetVictimResult>& vs, bool evicted) {
  json out = json::array();
  for (const FleetVictimResult& v : vs) {
    json j = {{"name", v.name}, {"priority", v.priority}, {"replicas", v.replicas}};
    if (evicted) {
      j["gone_seconds"] =
          v.gone_ns >= 0 ? json(static_cast<double>(v.gone_ns) / 1e9) : json(nullptr);
      j["gone_how"] = v.gone_how;
    }
    out.push_back(std::move(j));
  }
  return out;
}

json EstimateCountsJson(const FleetResult::EstimateCounts& c) {
  return {{"asked", c.asked},
          {"computed", c.computed},
          {"memoized", c.memoized},
          {"refused", c.refused}};
}

// The estimators' answers: the general estimator's, and the accurate one's with its per-member
// counts when the dispatcher used it.
json EstimatesJson(const FleetResult& f) {
  json out = {{"general", EstimateCountsJson(f.general_estimates)}};
  if (!f.accurate) return out;
  json accurate = EstimateCountsJson(f.accurate_estimates);
  json members = json::array();
  for (size_t i = 0; i < f.accurate_member_estimates.size(); ++i) {
    json m = {{"name", i < f.members.size() ? f.members[i].name : std::string()}};
    m.update(EstimateCountsJson(f.accurate_member_estimates[i]));
    members.push_back(std::move(m));
  }
  accurate["members"] = std::move(members);
  out["accurate"] = std::move(accurate);
  return out;
}

// The per-member table (what the fleet sent where) and the dispatch latency histogram.
std::string FleetMembersAndLatency(const FleetResult& f) {
  std::string h =
      "<table id=\"table-fleet-members\"><thead><tr><th>member</th><th>copies</th>"
      "<th>replicas</th><th>withdrawn</th></tr></thead><tbody>\n";
  for (const FleetMemberResult& m : f.members) {
    h += fmt::format(
        "<tr data-member=\"{0}\"><td>{0}</td><td>{1}</td><td>{2}</td><td>{3}</td></tr>\n",
        svg::Escape(m.name), m.copies, m.replicas, m.withdrawn);
  }
  h += "</tbody></table>\n";
  if (f.dispatch_latency_ns.empty()) {
    return h +
           svg::EmptyPanel("Dispatch latency", "no work item was placed", "chart-fleet-latency");
  }
  // Arrival → placed, in buckets by upper bound.
  static constexpr std::pair<int64_t, const char*> kBuckets[] = {{0, "0s"},
                                                                 {1'000'000'000, "≤1s"},
                                                                 {10'000'000'000, "≤10s"},
                                                                 {60'000'000'000, "≤1m"},
                                                                 {600'000'000'000, "≤10m"},
                                                                 {3'600'000'000'000, "≤1h"},
                                                                 {INT64_MAX, ">1h"}};
  std::vector<svg::Bar> bars;
  for (const auto& [bound, label] : kBuckets) bars.push_back({label, 0});
  for (int64_t l : f.dispatch_latency_ns) {
    size_t b = 0;
    while (l > kBuckets[b].first) ++b;
    bars[b].value += 1;
  }
  h += "<h3>Dispatch latency (arrival → placed)</h3>\n";
  h += svg::BarChart(
      bars, {.width = 900, .height = 200, .y_label = "work items", .id = "chart-fleet-latency"});
  return h;
}

}  // namespace

std::string FleetReportSection(const FleetResult& f, const std::vector<double>& x) {
  auto series = [&](const char* name, const char* color, const std::vector<int64_t>& v) {
    svg::Series s{name, color, {}, false};
    for (size_t i = 0; i < x.size(); ++i)
      s.y.push_back(i < v.size() ? static_cast<double>(v[i]) : std::nan(""));
    return s;
  };
  std::string h = fmt::format(
      "<section class=\"card\" id=\"fleet\"><h2>Fleet dispatching</h2><p class=\"cap\">{}, "
      "{}; cluster status every {}. {} work items, {} placed, {} retries; dispatch latency p50 "
      "{}.</p>\n",
      svg::Escape(f.scheduler), svg::Escape(f.dispatcher), HumanDuration(f.refresh_interval_ns),
      f.items, f.placed, f.retries,
      f.dispatch_latency_ns.empty() ? std::string("—")
                                    : HumanDuration(Percentile(f.dispatch_latency_ns, 50)));
  h += svg::LineChart(x,
                      {series("nominations", "#4e79a7", f.sample_nominations),
                       series("retries", "#e15759", f.sample_retries),
                       series("queued items", "#76b7b2", f.sample_queued)},
                      {.width = 900, .height = 240, .y_label = "work items", .id = "chart-fleet"});
  h += FleetMembersAndLatency(f);
  h += "<table id=\"table-fleet-items\"><thead><tr><th>item</th><th>phase</th><th>clusters</th>"
       "<th>wait</th><th>attempts</th><th>retries</th><th style=\"text-align:left\">why not the "
       "other clusters (last attempt)</th></tr></thead><tbody>\n";
  for (const FleetItemResult& it : f.items_detail) {
    std::string why;
    for (const auto& [cluster, reason] : it.why_not)
      why += fmt::format("{}<b>{}</b>: {}", why.empty() ? "" : "<br>", svg::Escape(cluster),
                         svg::Escape(reason));
    if (!it.last_error.empty())
      why += fmt::format("{}last: {}", why.empty() ? "" : "<br>", svg::Escape(it.last_error));
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td style=\"text-align:left\">{}</td></tr>\n",
        svg::Escape(it.name), svg::Escape(it.phase), svg::Escape(it.clusters),
        it.placed_ns >= 0 ? HumanDuration(it.placed_ns - it.arrival_ns) : std::string("—"),
        it.attempts, it.retries, why);
  }
  h += "</tbody></table>\n";
  if (f.preemption_enabled) {
    h += fmt::format(
        "<h3>Fleet preemption</h3><p class=\"cap\">{}: {} attempt(s), {} "
        "victim(s) evicted after a {} grace period; claims live {}.</p>\n",
        PreemptionFlavour(f),
        [&] {
          int64_t n = 0;
          for (const auto& [r, c] : f.preemption_attempts) n += c;
          return n;
        }(),
        f.preemption_victims, HumanDuration(f.preemption_grace_ns),
        HumanDuration(fleet::kClaimTtl.count()));
    h += "<table id=\"table-fleet-preemptions\"><thead><tr><th>preemptor</th><th>priority</th>"
         "<th>cluster</th><th>at</th><th>result</th><th style=\"text-align:left\">victims</th>"
         "<th style=\"text-align:left\">reprieved</th><th style=\"text-align:left\">claim</th>"
         "<th style=\"text-align:left\">why that cluster</th></tr></thead><tbody>\n";
    for (const FleetPreemptionResult& p : f.preemptions) {
      std::string victims, reprieved;
      for (const FleetVictimResult& v : p.victims)
        victims += fmt::format("{}{} (priority {}): {}", victims.empty() ? "" : "<br>",
                               svg::Escape(v.name), v.priority, svg::Escape(VictimGone(v)));
      for (const FleetVictimResult& v : p.gang_victims)
        victims +=
            fmt::format("<br>{} on {} (priority {}, gang leaves whole): {}", svg::Escape(v.name),
                        svg::Escape(v.cluster), v.priority, svg::Escape(VictimGone(v)));
      std::string why = svg::Escape(p.why);
      for (const FleetClusterCost& c : p.considered) why += "<br>" + svg::Escape(ClusterCost(c));
      for (const FleetVictimResult& v : p.reprieved)
        reprieved += fmt::format("{}{} (priority {})", reprieved.empty() ? "" : "<br>",
                                 svg::Escape(v.name), v.priority);
      h += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td style=\"text-align:left\">{}</td><td style=\"text-align:left\">{}</td>"
          "<td style=\"text-align:left\">{}</td><td style=\"text-align:left\">{}</td></tr>\n",
          svg::Escape(p.preemptor), p.priority, svg::Escape(p.cluster), HumanDuration(p.at_ns),
          svg::Escape(p.result), victims, reprieved, svg::Escape(ClaimLife(p)), why);
    }
    h += "</tbody></table>\n";
  }
  h += "</section>\n";
  return h;
}

std::string FormatFleetSummary(const FleetResult& f) {
  std::string s = fmt::format("\nFLEET ({}, {}; cluster status every {})\n", f.scheduler,
                              f.dispatcher, HumanDuration(f.refresh_interval_ns));
  s += fmt::format(
      "  work items {}  placed {}  finished {}  queued at end {}  waiting for admission at end "
      "{}\n",
      Thousands(f.items), Thousands(f.placed), Thousands(f.finished), Thousands(f.queued_end),
      Thousands(f.pending_end));
  s += fmt::format(
      "  attempts {}  nominations {}  copies {} (withdrawn {})  retries {}  unschedulable {}\n",
      Thousands(f.attempts), Thousands(f.nominations), Thousands(f.copies_created),
      Thousands(f.copies_withdrawn), Thousands(f.retries), Thousands(f.unschedulable));
  if (f.accurate) {
    s += fmt::format("  accurate estimates {} computed, {} from the memo\n",
                     Thousands(f.accurate_estimates.computed),
                     Thousands(f.accurate_estimates.memoized));
  }
  const auto& l = f.dispatch_latency_ns;
  if (l.empty()) {
    s += "  dispatch latency (arrival → placed): no item placed\n";
  } else {
    s += fmt::format(
        "  dispatch latency (arrival → placed): p50 {}  p90 {}  p99 {}  max {}  mean {}\n",
        HumanDuration(Percentile(l, 50)), HumanDuration(Percentile(l, 90)),
        HumanDuration(Percentile(l, 99)), HumanDuration(l.back()),
        HumanDuration(static_cast<int64_t>(Mean(l))));
  }
  if (f.preemption_enabled) s += FleetPreemptionSummary(f);
  if (f.items_detail.empty()) return s;
  s += fmt::format("\nWORK ITEMS ({}; why not the other clusters, at the last attempt)\n",
                   f.items_detail.size() < static_cast<size_t>(f.items)
                       ? fmt::format("the first {}", f.items_detail.size())
                       : std::string("all"));
  for (const FleetItemResult& it : f.items_detail) {
    s += fmt::format("  {}  {}  arrived {}  {}", it.name, it.phase, HumanDuration(it.arrival_ns),
                     it.placed_ns >= 0 ? fmt::format("placed after {}",
                                                     HumanDuration(it.placed_ns - it.arrival_ns))
                                       : std::string("never placed"));
    if (!it.clusters.empty()) s += "  on " + it.clusters;
    s += fmt::format("  attempts {}  retries {}\n", it.attempts, it.retries);
    if (!it.last_error.empty()) s += fmt::format("      last: {}\n", it.last_error);
    for (const auto& [cluster, why] : it.why_not) s += fmt::format("      {}: {}\n", cluster, why);
  }
  return s;
}

json FleetJson(const FleetResult& f) {
  const auto& l = f.dispatch_latency_ns;
  json lat = {{"count", l.size()}};
  if (!l.empty()) {
    lat["p50"] = static_cast<double>(Percentile(l, 50)) * 1e-9;
    lat["p90"] = static_cast<double>(Percentile(l, 90)) * 1e-9;
    lat["p99"] = static_cast<double>(Percentile(l, 99)) * 1e-9;
    lat["max"] = static_cast<double>(l.back()) * 1e-9;
    lat["mean"] = Mean(l) * 1e-9;
  }
  json items = json::array();
  for (const FleetItemResult& it : f.items_detail) {
    json why = json::object();
    for (const auto& [cluster, reason] : it.why_not) why[cluster] = reason;
    items.push_back(
        {{"name", it.name},
         {"workload", it.workload},
         {"phase", it.phase},
         {"arrival_seconds", static_cast<double>(it.arrival_ns) * 1e-9},
         {"placed_seconds",
          it.placed_ns >= 0 ? json(static_cast<double>(it.placed_ns) * 1e-9) : json(nullptr)},
         {"clusters", it.clusters},
         {"attempts", it.attempts},
         {"nominations", it.nominations},
         {"retries", it.retries},
         {"last_error", it.last_error},
         {"why_not", std::move(why)}});
  }
  json out{{"scheduler", f.scheduler},
           {"dispatcher", f.dispatcher},
           {"refresh_interval_seconds", static_cast<double>(f.refresh_interval_ns) * 1e-9},
           {"items", f.items},
           {"placed", f.placed},
           {"finished", f.finished},
           {"queued_end", f.queued_end},
           {"pending_end", f.pending_end},
           {"attempts", f.attempts},
           {"nominations", f.nominations},
           {"copies_created", f.copies_created},
           {"copies_withdrawn", f.copies_withdrawn},
           {"retries", f.retries},
           {"unschedulable", f.unschedulable},
           {"dispatch_latency_seconds", std::move(lat)},
           {"estimates", EstimatesJson(f)},
           {"timeline",
            {{"nominations", f.sample_nominations},
             {"retries", f.sample_retries},
             {"queued", f.sample_queued}}},
           {"work_items", std::move(items)}};
  if (!f.preemption_enabled) return out;
  json attempts = json::object();
  for (const char* r : kAttemptResults) attempts[r] = AttemptCount(f, r);
  json claims = json::object();
  for (const char* st : kClaimStates) claims[st] = ClaimCount(f, st);
  json preemptions = json::array();
  for (const FleetPreemptionResult& p : f.preemptions) {
    preemptions.push_back(
        {{"preemptor", p.preemptor},
         {"priority", p.priority},
         {"cluster", p.cluster},
         {"why", p.why},
         {"at_seconds", static_cast<double>(p.at_ns) / 1e9},
         {"result", p.result},
         {"message", p.message},
         {"cluster_available", p.cluster_available},
         {"deficit", p.deficit},
         {"victims", VictimsJson(p.victims, true)},
         {"reprieved", VictimsJson(p.reprieved, false)},
         {"claim",
          {{"set_seconds", static_cast<double>(p.claim_set_ns) / 1e9},
           {"end_seconds",
            p.claim_end_ns >= 0 ? json(static_cast<double>(p.claim_end_ns) / 1e9) : json(nullptr)},
           {"state", ClaimState(p)}}}});
    if (!p.mode.empty() || p.simulated || !p.gang_victims.empty()) {
      json& j = preemptions.back();
      j["mode"] = p.mode.empty() ? "karmada" : p.mode;
      j["victim_selection"] = p.simulated ? "simulation" : "summary";
      j["gang_victims"] = json::array();
      for (const FleetVictimResult& v : p.gang_victims) {
        json g = VictimsJson({v}, true).front();
        g["cluster"] = v.cluster;
        j["gang_victims"].push_back(std::move(g));
      }
      j["considered"] = json::array();
      for (const FleetClusterCost& c : p.considered) {
        json cj = {{"cluster", c.cluster}, {"feasible", c.feasible}, {"chosen", c.chosen}};
        if (c.feasible) {
          cj["cost"] = {{"pdb_violations", 0},
                        {"highest_victim_priority", c.highest_victim_priority},
                        {"priority_sum", c.priority_sum},
                        {"victim_replicas", c.victim_replicas},
                        {"victim_bindings", c.victim_bindings}};
        } else {
          cj["reason"] = c.reason;
        }
        j["considered"].push_back(std::move(cj));
      }
    }
  }
  out["preemption"] = {{"grace_period_seconds", static_cast<double>(f.preemption_grace_ns) / 1e9},
                       {"claim_ttl_seconds", static_cast<double>(fleet::kClaimTtl.count()) / 1e9},
                       {"attempts", std::move(attempts)},
                       {"victims", f.preemption_victims},
                       {"claims", std::move(claims)}};
  if (f.preemption_mode != "karmada" || f.preemption_simulated_victims) {
    out["preemption"]["mode"] = f.preemption_mode;
    out["preemption"]["victim_selection"] =
        f.preemption_simulated_victims ? "simulation" : "summary";
  }
  out["deleted"] = f.deleted;
  out["preemptions"] = std::move(preemptions);
  return out;
}

std::string FormatFleetPrometheus(const FleetResult& f) {
  std::string s;
  s += "# HELP corral_sim_fleet_events_total Fleet dispatching events over the run.\n# TYPE "
       "corral_sim_fleet_events_total counter\n";
  for (auto [ev, v] : {std::pair<const char*, int64_t>{"arrived", f.items},
                       {"attempt", f.attempts},
                       {"nomination", f.nominations},
                       {"copy", f.copies_created},
                       {"withdrawn", f.copies_withdrawn},
                       {"retry", f.retries},
                       {"unschedulable", f.unschedulable},
                       {"placed", f.placed},
                       {"finished", f.finished}}) {
    s += fmt::format("corral_sim_fleet_events_total{{event=\"{}\"}} {}\n", ev, v);
  }
  s += "# HELP corral_sim_fleet_dispatch_latency_seconds Arrival to placement of work items.\n"
       "# TYPE corral_sim_fleet_dispatch_latency_seconds summary\n";
  for (int q : {50, 90, 99}) {
    s += fmt::format("corral_sim_fleet_dispatch_latency_seconds{{quantile=\"0.{}\"}} {}\n", q,
                     static_cast<double>(Percentile(f.dispatch_latency_ns, q)) * 1e-9);
  }
  s += fmt::format("corral_sim_fleet_dispatch_latency_seconds_count {}\n",
                   f.dispatch_latency_ns.size());
  std::vector<std::pair<const char*, const FleetResult::EstimateCounts*>> estimators = {
      {"general", &f.general_estimates}};
  if (f.accurate) estimators.emplace_back("accurate", &f.accurate_estimates);
  s += "# HELP corral_fleet_estimate_requests_total Cluster answers asked of each fleet "
       "estimator.\n# TYPE corral_fleet_estimate_requests_total counter\n";
  for (const auto& [name, c] : estimators) {
    s += fmt::format("corral_fleet_estimate_requests_total{{estimator=\"{}\"}} {}\n", name,
                     c->asked);
  }
  s += "# HELP corral_fleet_estimates_total Cluster answers of each fleet estimator by result "
       "(computed, memo, refused).\n# TYPE corral_fleet_estimates_total counter\n";
  for (const auto& [name, c] : estimators) {
    for (auto [result, n] : {std::pair<const char*, int64_t>{"computed", c->computed},
                             {"memo", c->memoized},
                             {"refused", c->refused}}) {
      s += fmt::format("corral_fleet_estimates_total{{estimator=\"{}\",result=\"{}\"}} {}\n", name,
                       result, n);
    }
  }
  if (!f.preemption_enabled) return s;
  s += "# HELP corral_fleet_preemption_attempts_total Karmada binding preemption attempts by "
       "result.\n# TYPE corral_fleet_preemption_attempts_total counter\n";
  for (const char* r : kAttemptResults) {
    s += fmt::format("corral_fleet_preemption_attempts_total{{result=\"{}\"}} {}\n", r,
                     AttemptCount(f, r));
  }
  s += "# HELP corral_fleet_preemption_victims_total Bindings evicted by fleet preemption.\n"
       "# TYPE corral_fleet_preemption_victims_total counter\n";
  s += fmt::format("corral_fleet_preemption_victims_total {}\n", f.preemption_victims);
  s += "# HELP corral_fleet_preemption_claims Preemption claims at the end of the run, by state "
       "(active, or how they ended).\n# TYPE corral_fleet_preemption_claims gauge\n";
  for (const char* st : kClaimStates) {
    s += fmt::format("corral_fleet_preemption_claims{{state=\"{}\"}} {}\n", st, ClaimCount(f, st));
  }
  return s;
}

}  // namespace corral::sim
