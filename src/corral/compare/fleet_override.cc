#include "corral/compare/fleet_override.h"

#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/fleet/dispatch_loop.h"
#include "corral/loader/fleet_loader.h"
#include "corral/sim/fleet_spec.h"
#include "corral/sim/spec.h"

namespace corral::compare {

namespace {

using fleet::FleetKind;
using fleet::KueueDispatcherKind;

std::string KindName(FleetKind k) {
  return k == FleetKind::kKarmada ? "karmada" : "kueue";
}

std::string DispatcherName(KueueDispatcherKind k) {
  switch (k) {
    case KueueDispatcherKind::kComposable:
      return "composable";
    case KueueDispatcherKind::kAllAtOnce:
      return "allAtOnce";
    case KueueDispatcherKind::kIncremental:
      return "incremental";
  }
  return "composable";
}

bool PlacementSet(const api::Placement& p) {
  return p.cluster_affinity.has_value() || !p.cluster_affinities.empty() ||
         !p.spread_constraints.empty() || p.replica_scheduling.has_value();
}

// The fleet workload that work item `w` is made from ("" when none refers to it).
std::string WorkloadOf(const sim::SimSpec& spec, uint32_t w) {
  for (const auto& wk : spec.workloads) {
    if (wk.fleet_work == w) return wk.name;
  }
  return "";
}

// Moves a compiled fleet from one scheduler to the other, or names the first setting that only
// the old scheduler reads.
Result<void> SwitchScheduler(FleetKind to, const sim::SimSpec& spec, sim::FleetSpec& f,
                             Interner& interner) {
  const std::string from = KindName(f.config.kind);
  const std::string target = KindName(to);
  auto inapplicable = [&](const std::string& what) {
    return Error::Invalid(fmt::format(
        "fleet.scheduler={}: {} applies to scheduler {} only (drop it from the scenario, or "
        "compare without switching the fleet scheduler)",
        target, what, from));
  };
  for (uint32_t w = 0; w < f.works.size(); ++w) {
    const api::FleetWork& work = f.works[w];
    const std::string name = WorkloadOf(spec, w);
    if (to == FleetKind::kKarmada) {
      if (!work.cluster_selector.empty())
        return inapplicable(fmt::format("workload {:?}'s fleet.clusterSelector", name));
      if (!work.placement.cluster_tolerations.empty())
        return inapplicable(fmt::format("workload {:?}'s fleet.clusterTolerations", name));
      if (work.dispatch_mode == api::DispatchMode::kMustBeAdmitted)
        return inapplicable(fmt::format("workload {:?}'s dispatchMode MustBeAdmitted", name));
    } else {
      if (PlacementSet(work.placement))
        return inapplicable(fmt::format("workload {:?}'s fleet.placement", name));
      for (const auto& wk : spec.workloads) {
        if (wk.fleet_work == w && wk.kind == sim::WorkloadKind::kJob) {
          return Error::Invalid(fmt::format(
              "fleet.scheduler=kueue: workload {:?} is kind Job, and a Kueue fleet admits a "
              "workload whole (use kind Gang or Pods)",
              name));
        }
      }
    }
  }
  if (to == FleetKind::kKarmada && !f.config_order.empty()) {
    return inapplicable("fleet.configOrder (MultiKueueConfig order)");
  }
  f.config.kind = to;
  const bool karmada = to == FleetKind::kKarmada;
  for (api::FleetWork& work : f.works) {
    work.source_kind =
        karmada ? api::FleetWorkSourceKind::kResourceBinding : api::FleetWorkSourceKind::kKueue;
  }
  for (api::Cluster& cl : f.clusters) {
    cl.source_kind = karmada ? api::ClusterSourceKind::kKarmadaCluster
                             : api::ClusterSourceKind::kMultiKueueCluster;
  }
  (void)interner;
  return Result<void>::Ok();
}

Result<api::DispatcherProfile> LoadProfile(const std::string& path, Interner& interner) {
  const std::string paths[] = {path};
  loader::FleetLoadResult loaded = loader::LoadFleetPaths(paths, interner);
  if (!loaded.ok()) {
    std::string first;
    for (const auto& d : loaded.diagnostics.items()) {
      if (d.severity == Severity::kError) {
        first = d.ToString();
        break;
      }
    }
    return Error::Invalid(fmt::format("fleet.profile: {}", first));
  }
  const auto& objs = loaded.objects;
  if (objs.profiles.size() != 1 || !objs.clusters.empty() || !objs.works.empty() ||
      !objs.multikueue_configs.empty()) {
    return Error::Invalid(
        fmt::format("fleet.profile: {:?} must hold exactly one ClusterDispatcherProfile", path));
  }
  return objs.profiles.front();
}

}  // namespace

bool FleetOverrides::empty() const {
  return scheduler.empty() && dispatcher.empty() && nomination.empty() && top_k == 0 &&
         profile.empty();
}

void FleetOverrides::Merge(const FleetOverrides& other) {
  if (!other.scheduler.empty()) scheduler = other.scheduler;
  if (!other.dispatcher.empty()) dispatcher = other.dispatcher;
  if (!other.nomination.empty()) nomination = other.nomination;
  if (other.top_k != 0) top_k = other.top_k;
  if (!other.profile.empty()) profile = other.profile;
}

std::string FleetOverrides::Describe() const {
  std::vector<std::string> parts;
  if (!scheduler.empty()) parts.push_back("fleet.scheduler=" + scheduler);
  if (!dispatcher.empty()) parts.push_back("fleet.dispatcher=" + dispatcher);
  if (!nomination.empty()) parts.push_back("fleet.nomination=" + nomination);
  if (top_k != 0) parts.push_back(fmt::format("fleet.topK={}", top_k));
  if (!profile.empty()) parts.push_back("fleet.profile=" + profile);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ";") + p;
  return out;
}

Result<void> ParseFleetOverride(std::string_view key, std::string_view value, FleetOverrides& o) {
  const std::string k(key);
  const std::string v(value);
  if (k == "scheduler") {
    if (v != "karmada" && v != "kueue")
      return Error::Invalid(fmt::format("fleet.scheduler: want karmada or kueue, got {:?}", v));
    o.scheduler = v;
  } else if (k == "dispatcher") {
    if (v != "composable" && v != "allAtOnce" && v != "incremental") {
      return Error::Invalid(
          fmt::format("fleet.dispatcher: want composable, allAtOnce or incremental, got {:?}", v));
    }
    o.dispatcher = v;
  } else if (k == "nomination") {
    if (v != "Top1" && v != "TopK")
      return Error::Invalid(fmt::format("fleet.nomination: want Top1 or TopK, got {:?}", v));
    o.nomination = v;
  } else if (k == "topK") {
    int32_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n < 1 || n > 10)
      return Error::Invalid(fmt::format("fleet.topK: want 1..10, got {:?}", v));
    o.top_k = n;
  } else if (k == "profile") {
    o.profile = v;
  } else {
    return Error::Invalid(fmt::format(
        "unknown option \"fleet.{}\" (want fleet.scheduler, fleet.dispatcher, fleet.nomination, "
        "fleet.topK or fleet.profile)",
        k));
  }
  return Result<void>::Ok();
}

Result<void> ApplyFleetOverrides(const FleetOverrides& o, sim::SimSpec& spec, Interner& interner) {
  if (o.empty()) return Result<void>::Ok();
  if (spec.fleet == nullptr) {
    const std::string first = o.Describe().substr(0, o.Describe().find('='));
    return Error::Invalid(
        fmt::format("{}: the scenario has no fleet section (fleet options apply to a scenario with "
                    "`fleet:`)",
                    first));
  }
  auto f = std::make_shared<sim::FleetSpec>(*spec.fleet);
  fleet::DispatchLoopConfig& c = f->config;
  if (!o.scheduler.empty()) {
    const FleetKind to = o.scheduler == "karmada" ? FleetKind::kKarmada : FleetKind::kKueue;
    if (to != c.kind) {
      if (auto st = SwitchScheduler(to, spec, *f, interner); !st.ok()) return st;
    }
  }
  const bool karmada = c.kind == FleetKind::kKarmada;
  for (const auto& [set, name] :
       {std::pair{!o.dispatcher.empty(), "fleet.dispatcher"},
        std::pair{!o.nomination.empty(), "fleet.nomination"}, std::pair{o.top_k != 0, "fleet.topK"},
        std::pair{!o.profile.empty(), "fleet.profile"}}) {
    if (set && karmada) {
      return Error::Invalid(fmt::format(
          "{}: applies to scheduler kueue (MultiKueue); Corral runs Karmada's default plugin "
          "set, which has no profile to change",
          name));
    }
  }
  if (!o.dispatcher.empty()) {
    c.dispatcher = o.dispatcher == "composable"  ? KueueDispatcherKind::kComposable
                   : o.dispatcher == "allAtOnce" ? KueueDispatcherKind::kAllAtOnce
                                                 : KueueDispatcherKind::kIncremental;
  }
  const bool composable = c.dispatcher == KueueDispatcherKind::kComposable;
  for (const auto& [set, name] :
       {std::pair{!o.nomination.empty(), "fleet.nomination"}, std::pair{o.top_k != 0, "fleet.topK"},
        std::pair{!o.profile.empty(), "fleet.profile"}}) {
    if (set && !composable) {
      return Error::Invalid(fmt::format("{}: applies to dispatcher composable (the fleet's is {})",
                                        name, DispatcherName(c.dispatcher)));
    }
  }
  if (!o.profile.empty()) {
    if (!o.nomination.empty() || o.top_k != 0) {
      return Error::Invalid(
          "fleet.profile: a profile sets its own nominationMode and topK (drop fleet.nomination "
          "and fleet.topK)");
    }
    auto p = LoadProfile(o.profile, interner);
    if (!p.ok()) return p.error();
    c.profile = std::move(p).value();
    f->profile_path = o.profile;
  }
  if (!o.nomination.empty()) {
    c.profile.nomination =
        o.nomination == "TopK" ? api::NominationMode::kTopK : api::NominationMode::kTop1;
    if (c.profile.nomination == api::NominationMode::kTop1) {
      if (o.top_k != 0) return Error::Invalid("fleet.topK: applies to nomination TopK");
      c.profile.top_k = 1;
    } else if (o.top_k == 0) {
      return Error::Invalid("fleet.nomination=TopK: needs fleet.topK=1..10");
    }
  }
  if (o.top_k != 0) {
    if (c.profile.nomination != api::NominationMode::kTopK) {
      return Error::Invalid(
          "fleet.topK: applies to nomination TopK (the fleet's is Top1; add "
          "fleet.nomination=TopK)");
    }
    c.profile.top_k = o.top_k;
  }
  spec.fleet = std::move(f);
  return Result<void>::Ok();
}

}  // namespace corral::compare
