#include "corral/app/dispatch.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/api/well_known.h"
#include "corral/app/dispatch_members.h"
#include "corral/app/dispatch_preemption.h"
#include "corral/app/load_errors.h"
#include "corral/fleet/estimator.h"
#include "corral/fleet/preemption_fleetwide.h"
#include "corral/loader/fleet_loader.h"

namespace corral::app {

namespace {

std::string ItemName(const api::ObjectMeta& m, const Interner& in) {
  if (m.namespace_.empty()) return std::string(in.Str(m.name));
  return fmt::format("{}/{}", in.Str(m.namespace_), in.Str(m.name));
}

std::string_view KindName(const api::FleetWork& w, const Interner& in) {
  switch (w.source_kind) {
    case api::FleetWorkSourceKind::kResourceBinding:
      return "ResourceBinding";
    case api::FleetWorkSourceKind::kClusterResourceBinding:
      return "ClusterResourceBinding";
    case api::FleetWorkSourceKind::kKueue:
      return "Workload";
    case api::FleetWorkSourceKind::kPolicyMatch:
      break;
  }
  return in.Str(w.resource.kind);  // a template claimed by a (Cluster)PropagationPolicy
}

std::string Split(const std::vector<fleet::TargetReplicas>& clusters) {
  std::vector<std::string> parts;
  for (const fleet::TargetReplicas& t : clusters)
    parts.push_back(fmt::format("{}:{}", t.name, t.replicas));
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, " "));
}

// The victims leave: each gets a graceful eviction task for the cluster it leaves.
void MarkEvicting(const fleet::PreemptionOutcome& p, std::vector<api::FleetWork>& works,
                  Interner& in) {
  if (!p.preempting) return;
  auto mark = [&](const std::string& name, const std::string& cluster) {
    for (api::FleetWork& w : works) {
      if (ItemName(w.meta, in) == name) w.graceful_eviction_clusters.push_back(in.Intern(cluster));
    }
  };
  for (const fleet::Victim& v : p.victims) mark(v.name, p.cluster);
  for (const fleet::GangEviction& g : p.gang_evictions) mark(g.victim.name, g.cluster);
}

}  // namespace

Result<DispatchOutcome> RunDispatch(const DispatchRequest& request) {
  if (request.estimator != "general" && request.estimator != "accurate") {
    return Error::Invalid(
        fmt::format("--estimator {}: must be general or accurate", request.estimator));
  }
  auto mode = fleet::ParsePreemptionMode(request.preemption);
  if (!mode.ok()) return Error::Invalid("--preemption " + mode.error().message);
  if (request.preemption_victims != "summary" && request.preemption_victims != "simulation") {
    return Error::Invalid(fmt::format("--preemption-victims {}: must be summary or simulation",
                                      request.preemption_victims));
  }
  Interner in = api::NewInterner();
  auto inputs = SplitDispatchInputs(request.inputs);
  if (!inputs.ok()) return inputs.error();
  loader::FleetLoadResult loaded =
      loader::LoadFleetPaths(inputs->fleet_files, in, {.unknown_fields = request.unknown_fields});
  if (!loaded.ok()) return Error::Invalid(LoadErrorText(loaded.diagnostics));
  Members members(in);
  Diagnostics member_warnings;
  if (auto r = members.Load(inputs->member_dirs, request.member_configs, request.unknown_fields,
                            &member_warnings);
      !r.ok())
    return r.error();
  if (auto r = members.Attach(loaded.objects.clusters); !r.ok()) return r.error();
  if (request.estimator == "accurate" && members.size() == 0) {
    return Error::Invalid(
        "--estimator accurate: no member cluster is given as a folder of its nodes and pods, so "
        "the accurate estimator has no member scheduler to ask");
  }
  if (request.preemption_victims == "simulation" && members.size() == 0) {
    return Error::Invalid(
        "--preemption-victims simulation: no member cluster is given as a folder of its nodes and "
        "pods, so there is no member to simulate on");
  }
  for (const api::FleetWork& w : loaded.objects.works) {
    if (w.source_kind == api::FleetWorkSourceKind::kKueue) continue;
    if (auto g = fleet::ReadGang(w, in); !g.ok()) {
      return Error::Invalid(fmt::format("{}:{}: {}", in.Str(w.meta.source.file), w.meta.source.line,
                                        g.error().message));
    }
  }
  DispatchOutcome out;
  out.preemption = request.preemption;
  out.preemption_victims = request.preemption_victims;
  out.diagnostics = loaded.diagnostics;
  out.diagnostics.Merge(member_warnings);
  out.members = members.size();
  out.estimator = request.estimator;
  std::vector<api::Cluster> karmada;
  std::vector<api::Cluster> kueue;
  for (const api::Cluster& c : loaded.objects.clusters) {
    (c.source_kind == api::ClusterSourceKind::kKarmadaCluster ? karmada : kueue).push_back(c);
  }
  if (!loaded.objects.multikueue_configs.empty()) {
    // The config's clusters, in its order.
    std::vector<api::Cluster> ordered;
    for (Symbol name : loaded.objects.multikueue_configs[0].clusters) {
      for (const api::Cluster& c : kueue) {
        if (c.meta.name == name) ordered.push_back(c);
      }
    }
    kueue = std::move(ordered);
  }
  out.karmada_clusters = karmada.size();
  out.kueue_clusters = kueue.size();
  api::DispatcherProfile profile = loaded.objects.profiles.empty()
                                       ? fleet::DefaultDispatcherProfile(in)
                                       : loaded.objects.profiles[0];
  out.profile = std::string(in.Str(profile.meta.name));
  auto gates = fleet::ParseFeatureGates(request.feature_gates);
  if (!gates.ok()) return Error::Invalid("--feature-gates: " + gates.error().message);
  fleet::GeneralEstimator general(in);
  AccurateEstimator accurate(members);
  MemberVictimSimulator simulator(members);
  fleet::PreemptionOptions preemption{*mode, nullptr};
  if (request.preemption_victims == "simulation") preemption.simulator = &simulator;
  std::vector<const fleet::ReplicaEstimator*> estimators = {&general};
  std::vector<const fleet::WorkloadEstimator*> workload_estimators = {&general};
  if (request.estimator == "accurate") {
    estimators.push_back(&accurate);
    workload_estimators.push_back(&accurate);
  }
  // One pass is one instant: the claims' clock does not move.
  ManualClock clock;
  fleet::ClaimStore claims(clock);
  std::vector<api::FleetWork> karmada_works;
  for (const api::FleetWork& w : loaded.objects.works) {
    if (w.source_kind != api::FleetWorkSourceKind::kKueue) karmada_works.push_back(w);
  }
  std::vector<bool> explained(request.explain.size(), false);
  for (const api::FleetWork& w : loaded.objects.works) {
    DispatchItem item;
    item.name = ItemName(w.meta, in);
    item.kind = std::string(KindName(w, in));
    item.replicas = w.replicas;
    for (size_t i = 0; i < request.explain.size(); ++i) {
      if (request.explain[i] == item.name || request.explain[i] == in.Str(w.meta.name)) {
        item.explain = true;
        explained[i] = true;
      }
    }
    if (w.source_kind == api::FleetWorkSourceKind::kKueue) {
      item.karmada = false;
      item.nomination = fleet::Nominate(w, kueue, profile, in, workload_estimators);
    } else {
      if (!gates->PreemptionEnabled()) {
        item.binding = fleet::ScheduleBinding(w, karmada, estimators, in);
      } else {
        // withClaimDeductions over the general estimator, then tryPreempt on failure.
        fleet::ClaimDeductingEstimator deducting(general, claims, fleet::BindingKey(w, in),
                                                 w.priority, in);
        fleet::ClaimDeductingEstimator deducting_accurate(accurate, claims,
                                                          fleet::BindingKey(w, in), w.priority, in);
        std::vector<const fleet::ReplicaEstimator*> with_claims = {&deducting};
        if (request.estimator == "accurate") with_claims.push_back(&deducting_accurate);
        item.binding = fleet::ScheduleBinding(w, karmada, with_claims, in);
        if (!item.binding.ok()) {
          item.preemption = fleet::TryPreempt(w, item.binding, karmada, estimators, karmada_works,
                                              claims, *gates, in, preemption);
          MarkEvicting(item.preemption, karmada_works, in);
        } else {
          claims.Clear(fleet::BindingKey(w, in));
        }
      }
    }
    out.items.push_back(std::move(item));
  }
  for (size_t i = 0; i < request.explain.size(); ++i) {
    if (!explained[i]) {
      return Error::Invalid(fmt::format("--explain {}: no such work item (give ns/name or name)",
                                        request.explain[i]));
    }
  }
  return out;
}

std::string FormatDispatchTable(const DispatchOutcome& out) {
  std::string s = fmt::format("{} Karmada cluster(s), {} MultiKueue cluster(s), {} work item(s)\n",
                              out.karmada_clusters, out.kueue_clusters, out.items.size());
  if (out.members > 0) {
    s += fmt::format("{} member(s) given as folders of their nodes and pods; {} estimator\n",
                     out.members, out.estimator);
  }
  if (out.preemption != "karmada" || out.preemption_victims != "summary") {
    s += fmt::format("preemption: {} cluster choice, victims by {}\n", out.preemption,
                     out.preemption_victims == "simulation"
                         ? "simulation on the members (Phase 2) where they are folders"
                         : "resource summaries (Phase 1)");
  }
  s += "\n";
  size_t w = 4;
  for (const DispatchItem& i : out.items) w = std::max(w, i.name.size());
  s += fmt::format("{:<{}}  {:<22}  {:>8}  {}\n", "WORK", w, "KIND", "REPLICAS", "RESULT");
  for (const DispatchItem& i : out.items) {
    std::string result;
    if (i.preemption.preempting) {
      result = "Scheduled=False Preempting: " + i.preemption.condition_message;
    } else if (!i.ok()) {
      result = i.karmada ? i.binding.error : i.nomination.error;
    } else if (i.karmada) {
      result = Split(i.binding.result);
      if (!i.binding.affinity_name.empty()) {
        result += fmt::format(" (clusterAffinities term {:?})", i.binding.affinity_name);
      }
    } else {
      result = fmt::format("nominated {}", fmt::join(i.nomination.nominated, " "));
    }
    s += fmt::format("{:<{}}  {:<22}  {:>8}  {}\n", i.name, w, i.kind, i.replicas, result);
  }
  bool heading = false;
  for (const DispatchItem& i : out.items) {
    const fleet::PreemptionOutcome& p = i.preemption;
    if (!p.preempting) continue;
    if (!heading) s += "\nPreemptions:\n";
    heading = true;
    s += fmt::format("  {} (priority {}) on cluster {}: {}; {} replica(s) available, deficit {}\n",
                     i.name, p.claim_priority, p.cluster, p.why, p.cluster_available, p.deficit);
    for (const fleet::Victim& v : p.victims) {
      s += fmt::format("    victim {}  priority {}  {} replica(s)\n", v.name, v.priority,
                       v.replicas);
    }
    for (const fleet::Victim& v : p.reprieved) {
      s += fmt::format("    reprieved {}  priority {}  {} replica(s): {}\n", v.name, v.priority,
                       v.replicas,
                       p.simulated ? "the preemptor still fits on the member's nodes with it back"
                                   : "the victims cover the deficit without it");
    }
    for (const fleet::GangEviction& g : p.gang_evictions) {
      s += fmt::format("    victim {}  priority {}  {} replica(s) on {}: its gang leaves whole\n",
                       g.victim.name, g.victim.priority, g.victim.replicas, g.cluster);
    }
    if (p.simulated) {
      s += "    victims chosen by simulating on the member's nodes (Phase 2)\n";
    }
    for (const fleet::ClusterConsidered& c : p.considered) {
      if (!c.feasible) {
        s += fmt::format("    considered {}: {}\n", c.cluster, c.reason);
        continue;
      }
      s += fmt::format(
          "    considered {}: {} victim(s), {} replica(s), highest priority {}, priority sum "
          "{}{}\n",
          c.cluster, c.victim_bindings, c.victim_replicas, c.highest_victim_priority,
          c.priority_sum, c.chosen ? "  <- chosen" : "");
    }
    s += fmt::format("    claim: {} replica(s) at priority {} on {} for {} min\n", p.claim_replicas,
                     p.claim_priority, p.cluster,
                     std::chrono::duration_cast<std::chrono::minutes>(fleet::kClaimTtl).count());
    for (const std::string& e : p.events) s += fmt::format("    event {}\n", e);
  }
  for (const DispatchItem& i : out.items) {
    if (!i.explain) continue;
    s += fmt::format("\n{} ({}):\n", i.name, i.kind);
    if (i.karmada) {
      s += fmt::format("  {:<16}  {:<40}  {:>5}  {:>11}  {:>9}  {}\n", "CLUSTER", "FILTER", "SCORE",
                       "ALLOCATABLE", "AVAILABLE", "SELECTED");
      for (const fleet::ClusterVerdict& v : i.binding.clusters) {
        std::string filter = v.deleting ? "skipped: being deleted"
                             : v.passed ? "passed"
                                        : fmt::format("{}: {}", v.filter_plugin, v.reason);
        if (!v.passed) {
          s += fmt::format("  {:<16}  {}\n", v.name, filter);
          continue;
        }
        s += fmt::format("  {:<16}  {:<40}  {:>5}  {:>11}  {:>9}  {}\n", v.name, filter, v.score,
                         v.allocatable_replicas, v.available_replicas, v.selected ? "yes" : "no");
      }
    } else {
      s += fmt::format("  profile {:?}\n", out.profile);
      for (const fleet::NominationVerdict& v : i.nomination.clusters) {
        if (!v.passed) {
          s += fmt::format("  {:<16}  {}: {}\n", v.name, v.filter_plugin, v.reason);
          continue;
        }
        std::vector<std::string> parts;
        for (const fleet::PluginScore& p : v.scores) {
          parts.push_back(fmt::format("{} {}/{}/{}", p.plugin, p.raw, p.normalized, p.weighted));
        }
        s += fmt::format("  {:<16}  passed  total {}  ({}; raw/normalized/weighted){}\n", v.name,
                         v.total, fmt::join(parts, ", "), v.nominated ? "  nominated" : "");
      }
    }
  }
  return s;
}

std::string FormatDispatchJson(const DispatchOutcome& out) {
  using json = nlohmann::ordered_json;
  json items = json::array();
  for (const DispatchItem& i : out.items) {
    json j;
    j["name"] = i.name;
    j["kind"] = i.kind;
    j["replicas"] = i.replicas;
    if (i.karmada) {
      json clusters = json::array();
      for (const fleet::TargetReplicas& t : i.binding.result) {
        clusters.push_back({{"name", t.name}, {"replicas", t.replicas}});
      }
      j["clusters"] = clusters;
      if (!i.binding.affinity_name.empty())
        j["schedulerObservingAffinityName"] = i.binding.affinity_name;
      if (!i.binding.ok()) j["error"] = i.binding.error;
      const fleet::PreemptionOutcome& p = i.preemption;
      if (p.preempting) {
        json victims = json::array();
        for (const fleet::Victim& v : p.victims) {
          victims.push_back({{"name", v.name}, {"replicas", v.replicas}, {"priority", v.priority}});
        }
        json reprieved = json::array();
        for (const fleet::Victim& v : p.reprieved) {
          reprieved.push_back(
              {{"name", v.name}, {"replicas", v.replicas}, {"priority", v.priority}});
        }
        j["preemption"] = {
            {"cluster", p.cluster},
            {"why", p.why},
            {"availableReplicas", p.cluster_available},
            {"deficit", p.deficit},
            {"victims", victims},
            {"reprieved", reprieved},
            {"claim",
             {{"cluster", p.cluster},
              {"priority", p.claim_priority},
              {"replicas", p.claim_replicas},
              {"ttlSeconds",
               std::chrono::duration_cast<std::chrono::seconds>(fleet::kClaimTtl).count()}}},
            {"condition",
             {{"type", "Scheduled"},
              {"status", "False"},
              {"reason", "Preempting"},
              {"message", p.condition_message}}},
            {"events", p.events}};
        if (!p.gang_evictions.empty()) {
          json gang = json::array();
          for (const fleet::GangEviction& g : p.gang_evictions) {
            gang.push_back({{"cluster", g.cluster},
                            {"name", g.victim.name},
                            {"replicas", g.victim.replicas},
                            {"priority", g.victim.priority}});
          }
          j["preemption"]["gangEvictions"] = gang;
        }
        if (p.simulated) j["preemption"]["victimSelection"] = "simulation";
        if (!p.considered.empty()) {
          json considered = json::array();
          for (const fleet::ClusterConsidered& c : p.considered) {
            json k = {{"cluster", c.cluster}, {"feasible", c.feasible}};
            if (!c.feasible) {
              k["reason"] = c.reason;
            } else {
              k["victims"] = c.victim_bindings;
              k["victimReplicas"] = c.victim_replicas;
              k["highestVictimPriority"] = c.highest_victim_priority;
              k["prioritySum"] = c.priority_sum;
              k["chosen"] = c.chosen;
            }
            considered.push_back(k);
          }
          j["preemption"]["considered"] = considered;
        }
      } else if (!p.skipped.empty()) {
        j["preemptionSkipped"] = p.skipped;
      }
    } else {
      j["nominatedClusterNames"] = i.nomination.nominated;
      if (!i.nomination.ok()) j["error"] = i.nomination.error;
    }
    if (i.explain) {
      json clusters = json::array();
      if (i.karmada) {
        for (const fleet::ClusterVerdict& v : i.binding.clusters) {
          json c = {{"name", v.name}, {"passed", v.passed}};
          if (v.deleting) c["deleting"] = true;
          if (!v.passed && !v.deleting) {
            c["plugin"] = v.filter_plugin;
            c["reason"] = v.reason;
          }
          if (v.passed) {
            c["scores"] = {{"ClusterAffinity", v.affinity_score},
                           {"ClusterLocality", v.locality_score}};
            c["score"] = v.score;
            c["allocatableReplicas"] = v.allocatable_replicas;
            c["availableReplicas"] = v.available_replicas;
            c["selected"] = v.selected;
          }
          clusters.push_back(c);
        }
      } else {
        for (const fleet::NominationVerdict& v : i.nomination.clusters) {
          json c = {{"name", v.name}, {"passed", v.passed}};
          if (!v.passed) {
            c["plugin"] = v.filter_plugin;
            c["reason"] = v.reason;
          } else {
            json scores = json::array();
            for (const fleet::PluginScore& p : v.scores) {
              scores.push_back({{"plugin", p.plugin},
                                {"raw", p.raw},
                                {"normalized", p.normalized},
                                {"weighted", p.weighted}});
            }
            c["scores"] = scores;
            c["total"] = v.total;
            c["nominated"] = v.nominated;
          }
          clusters.push_back(c);
        }
      }
      j["explain"] = {{"clusters", clusters}};
    }
    items.push_back(j);
  }
  json root = {{"items", items}};
  return root.dump(2) + "\n";
}

}  // namespace corral::app
