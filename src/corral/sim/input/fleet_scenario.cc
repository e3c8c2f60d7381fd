#include "corral/sim/input/fleet_scenario.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "corral/fleet/kueue_dispatcher.h"
#include "corral/loader/fleet_loader.h"
#include "corral/loader/internal/decode.h"
#include "corral/loader/internal/decode_fleet.h"
#include "corral/sim/fleet_estimate.h"
#include "corral/sim/input/fleet_objects.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim {

namespace {

using doc::Decoder;
using doc::Node;

// A positive duration within the virtual clock's range.
void ReadPositiveDuration(Decoder& d, const Node& n, int64_t& out) {
  Duration v{};
  if (!d.ReadDuration(n, v)) return;
  if (v.count() <= 0) {
    d.Error(n, "must be positive");
  } else if (v.count() > kMaxVirtualNs) {
    d.Error(n, VirtualRangeError(n.text()));
  } else {
    out = v.count();
  }
}

const doc::EnumName<api::DispatchMode> kModes[] = {
    {"BestEffort", api::DispatchMode::kBestEffort},
    {"MustBeAdmitted", api::DispatchMode::kMustBeAdmitted}};

const doc::Field<FleetMemberIn> kMemberFields[] = {
    {"name",
     [](Decoder& d, const Node& n, FleetMemberIn& o) {
       o.name_node = &n;
       d.ReadString(n, o.name);
     }},
    {"labels",
     [](Decoder& d, const Node& n, FleetMemberIn& o) {
       std::vector<std::pair<Symbol, Symbol>> kv;
       if (d.ReadSymbolMap(n, kv)) o.cluster.meta.labels = api::LabelSet(std::move(kv));
     }},
    {"provider",
     [](Decoder& d, const Node& n, FleetMemberIn& o) { d.ReadSymbol(n, o.cluster.provider); }},
    {"region",
     [](Decoder& d, const Node& n, FleetMemberIn& o) { d.ReadSymbol(n, o.cluster.region); }},
    {"zone", [](Decoder& d, const Node& n, FleetMemberIn& o) { d.ReadSymbol(n, o.cluster.zone); }},
    {"zones",
     [](Decoder& d, const Node& n, FleetMemberIn& o) { d.ReadSymbolList(n, o.cluster.zones); }},
    {"taints",
     [](Decoder& d, const Node& n, FleetMemberIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         api::Taint t;
         loader::internal::DecodeTaint(d, item, t);
         o.cluster.taints.push_back(std::move(t));
       });
     }},
};

const doc::Field<FleetOutageIn> kOutageFields[] = {
    {"cluster",
     [](Decoder& d, const Node& n, FleetOutageIn& o) {
       o.cluster_node = &n;
       d.ReadString(n, o.cluster);
     }},
    {"at",
     [](Decoder& d, const Node& n, FleetOutageIn& o) {
       Duration v{};
       if (!d.ReadDuration(n, v)) return;
       if (v.count() < 0 || v.count() > kMaxVirtualNs) {
         d.Error(n, v.count() < 0 ? "must not be negative" : VirtualRangeError(n.text()));
         return;
       }
       o.at_ns = v.count();
     }},
    {"duration", [](Decoder& d, const Node& n,
                    FleetOutageIn& o) { ReadPositiveDuration(d, n, o.duration_ns); }},
};

const doc::Field<fleet::FeatureGates> kGateFields[] = {
    {"PriorityBasedScheduling",
     [](Decoder& d, const Node& n, fleet::FeatureGates& o) {
       d.ReadBool(n, o.priority_based_scheduling);
     }},
    {"PriorityBasedPreemptiveScheduling",
     [](Decoder& d, const Node& n, fleet::FeatureGates& o) {
       d.ReadBool(n, o.priority_based_preemptive_scheduling);
     }},
};

const doc::Field<FleetIn> kPreemptionFields[] = {
    {"mode",
     [](Decoder& d, const Node& n, FleetIn& o) {
       static const doc::EnumName<fleet::PreemptionMode> kPreemptionModes[] = {
           {"karmada", fleet::PreemptionMode::kKarmada},
           {"fleetwide", fleet::PreemptionMode::kFleetwide}};
       d.ReadEnum(n, kPreemptionModes, "preemption mode", o.preemption_mode);
     }},
    {"victims",
     [](Decoder& d, const Node& n, FleetIn& o) {
       static const doc::EnumName<bool> kVictims[] = {{"summary", false}, {"simulation", true}};
       d.ReadEnum(n, kVictims, "victim selection", o.simulate_victims);
     }},
};

const doc::Field<FleetIn> kFleetFields[] = {
    {"preemption",
     [](Decoder& d, const Node& n, FleetIn& o) {
       o.preemption_node = &n;
       d.Struct(n, o, kPreemptionFields);
     }},
    {"featureGates",
     [](Decoder& d, const Node& n, FleetIn& o) {
       o.gates_node = &n;
       d.Struct(n, o.gates, kGateFields);
     }},
    {"preemptionGracePeriod",
     [](Decoder& d, const Node& n, FleetIn& o) {
       ReadPositiveDuration(d, n, o.preemption_grace_ns);
     }},
    {"scheduler",
     [](Decoder& d, const Node& n, FleetIn& o) {
       static const doc::EnumName<fleet::FleetKind> kKinds[] = {
           {"karmada", fleet::FleetKind::kKarmada}, {"kueue", fleet::FleetKind::kKueue}};
       o.kind_set = d.ReadEnum(n, kKinds, "fleet scheduler", o.kind);
     }},
    {"dispatcher",
     [](Decoder& d, const Node& n, FleetIn& o) {
       static const doc::EnumName<fleet::KueueDispatcherKind> kDispatchers[] = {
           {"composable", fleet::KueueDispatcherKind::kComposable},
           {"allAtOnce", fleet::KueueDispatcherKind::kAllAtOnce},
           {"incremental", fleet::KueueDispatcherKind::kIncremental}};
       o.dispatcher_node = &n;
       d.ReadEnum(n, kDispatchers, "dispatcher", o.dispatcher);
     }},
    {"nomination",
     [](Decoder& d, const Node& n, FleetIn& o) {
       static const doc::EnumName<api::NominationMode> kNominations[] = {
           {"Top1", api::NominationMode::kTop1}, {"TopK", api::NominationMode::kTopK}};
       o.nomination_node = &n;
       d.ReadEnum(n, kNominations, "nomination mode", o.nomination);
     }},
    {"topK", [](Decoder& d, const Node& n, FleetIn& o) { d.ReadInt32(n, o.top_k, 1, 10); }},
    {"dispatchMode", [](Decoder& d, const Node& n,
                        FleetIn& o) { d.ReadEnum(n, kModes, "dispatch mode", o.dispatch_mode); }},
    {"workerLostTimeout", [](Decoder& d, const Node& n,
                             FleetIn& o) { ReadPositiveDuration(d, n, o.worker_lost_timeout_ns); }},
    {"refreshInterval", [](Decoder& d, const Node& n,
                           FleetIn& o) { ReadPositiveDuration(d, n, o.refresh_interval_ns); }},
    {"roundTimeout",
     [](Decoder& d, const Node& n, FleetIn& o) { ReadPositiveDuration(d, n, o.round_timeout_ns); }},
    {"stepSize",
     [](Decoder& d, const Node& n, FleetIn& o) {
       o.step_node = &n;
       d.ReadInt32(n, o.step_size, 1, 1000);
     }},
    {"configOrder",
     [](Decoder& d, const Node& n, FleetIn& o) {
       o.config_order_node = &n;
       d.ForEachItem(n, [&](const Node& item) {
         std::string s;
         if (d.ReadString(item, s)) o.config_order.push_back({s, &item});
       });
     }},
    {"estimator",
     [](Decoder& d, const Node& n, FleetIn& o) {
       static const doc::EnumName<FleetEstimatorKind> kEstimators[] = {
           {"general", FleetEstimatorKind::kGeneral}, {"accurate", FleetEstimatorKind::kAccurate}};
       o.estimator_node = &n;
       d.ReadEnum(n, kEstimators, "estimator", o.estimator);
     }},
    {"objects",
     [](Decoder& d, const Node& n, FleetIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         std::string s;
         if (d.ReadString(item, s)) o.objects.push_back({s, &item});
       });
     }},
    {"profilePath",
     [](Decoder& d, const Node& n, FleetIn& o) {
       o.profile_node = &n;
       d.ReadString(n, o.profile_path);
     }},
    {"members",
     [](Decoder& d, const Node& n, FleetIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         FleetMemberIn m;
         m.self = &item;
         d.Struct(item, m, kMemberFields);
         if (item.is_map() && m.name.empty()) d.Required(item, "name");
         o.members.push_back(std::move(m));
       });
     }},
    {"outages",
     [](Decoder& d, const Node& n, FleetIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         FleetOutageIn out;
         out.self = &item;
         auto seen = d.Struct(item, out, kOutageFields);
         if (item.is_map()) {
           if (!seen.has("cluster")) d.Required(item, "cluster");
           if (!seen.has("at")) d.Required(item, "at");
         }
         o.outages.push_back(std::move(out));
       });
     }},
};

const doc::Field<FleetWorkloadIn> kSchedulePriorityFields[] = {
    {"priorityClassSource",
     [](Decoder& d, const Node& n, FleetWorkloadIn&) {
       std::string_view s;
       if (!d.ReadString(n, s)) return;
       if (s == "PodPriorityClass" || s == "FederatedPriorityClass") {
         d.Error(n, fmt::format("priorityClassSource {:?} is not supported yet (use "
                                "KubePriorityClass)",
                                s));
       } else if (s != "KubePriorityClass") {
         d.Error(n, fmt::format("unknown priorityClassSource {:?} (want KubePriorityClass)", s));
       }
     }},
    {"priorityClassName",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) { d.ReadString(n, o.priority_class); }},
};

const doc::Field<FleetWorkloadIn> kFleetWorkloadFields[] = {
    {"schedulePriority",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       o.schedule_priority_node = &n;
       auto seen = d.Struct(n, o, kSchedulePriorityFields);
       if (n.is_map()) {
         if (!seen.has("priorityClassSource")) d.Required(n, "priorityClassSource");
         if (!seen.has("priorityClassName")) d.Required(n, "priorityClassName");
       }
     }},
    {"priority", [](Decoder& d, const Node& n,
                    FleetWorkloadIn& o) { d.ReadInt32(n, o.priority, -2147483648, 1000000000); }},
    {"replicas",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       o.replicas_node = &n;
       d.ReadInt32(n, o.replicas, 1, 100000);
     }},
    {"dispatchMode",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       api::DispatchMode m{};
       if (d.ReadEnum(n, kModes, "dispatch mode", m)) o.dispatch_mode = m;
     }},
    {"preemptionPolicy",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       static const doc::EnumName<api::PreemptionPolicy> kPolicies[] = {
           {"PreemptLowerPriority", api::PreemptionPolicy::kPreemptLowerPriority},
           {"Never", api::PreemptionPolicy::kNever}};
       o.policy_node = &n;
       api::PreemptionPolicy p{};
       if (d.ReadEnum(n, kPolicies, "preemption policy", p)) o.preemption_policy = p;
     }},
    {"minMember",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       o.min_member_node = &n;
       d.ReadInt32(n, o.min_member, 1, 100000);
     }},
    {"disruptionMode",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       static const char* kNames[] = {"All", "Single"};
       o.disruption_mode_node = &n;
       std::string s;
       if (!d.ReadString(n, s)) return;
       if (std::find(std::begin(kNames), std::end(kNames), s) == std::end(kNames)) {
         d.Error(n, fmt::format("unknown disruption mode {:?} (want All or Single)", s));
         return;
       }
       o.disruption_mode = s;
     }},
    {"deadline",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       o.deadline_node = &n;
       ReadPositiveDuration(d, n, o.deadline_ns);
     }},
    {"clusterSelector",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) { d.ReadSymbolMap(n, o.cluster_selector); }},
    {"clusterTolerations",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         api::Toleration t;
         loader::internal::DecodeToleration(d, item, t);
         o.cluster_tolerations.push_back(std::move(t));
       });
     }},
    {"placement",
     [](Decoder& d, const Node& n, FleetWorkloadIn& o) {
       o.placement_node = &n;
       o.placement.emplace();
       loader::internal::DecodePlacement(d, n, *o.placement);
     }},
};

// Kueue's Topology Aware Scheduling annotations on a fleet workload's pod template: the node
// label within one value of which the whole gang must run (podset-required-topology), or empty.
// The preferred and unconstrained annotations are errors: the members' scheduler has no preferred
// topology to honour them with.
Symbol FleetTopologyKey(const api::Pod& pod, const Workload& wk, bool karmada, const SimSpec& spec,
                        Interner& interner, const Node* at, const std::string& path,
                        const FleetErrorFn& error) {
  static constexpr std::string_view kRequired = "kueue.x-k8s.io/podset-required-topology";
  static constexpr std::string_view kOthers[] = {"kueue.x-k8s.io/podset-preferred-topology",
                                                 "kueue.x-k8s.io/podset-unconstrained-topology"};
  auto field = [&](std::string_view key) {
    return fmt::format("{}.template.metadata.annotations[{}]", path, key);
  };
  for (std::string_view other : kOthers) {
    if (pod.meta.Annotation(interner.Intern(other)) != nullptr) {
      error(at, field(other),
            fmt::format("not supported in corral simulate: the members' scheduler places a gang "
                        "within one domain only when it is required (use {})",
                        kRequired));
    }
  }
  const std::string* value = pod.meta.Annotation(interner.Intern(kRequired));
  if (value == nullptr) return Symbol();
  if (value->empty()) {
    error(at, field(kRequired), "must name a node label (the topology level), e.g. a rack label");
    return Symbol();
  }
  if (karmada) {
    error(at, field(kRequired),
          "applies to scheduler kueue (a Kueue Topology Aware Scheduling annotation)");
    return Symbol();
  }
  if (wk.kind != WorkloadKind::kGang) {
    error(at, field(kRequired), "applies to kind Gang (the whole gang runs within one domain)");
    return Symbol();
  }
  for (const ClusterSpec& c : spec.clusters) {
    if (!c.gates.Enabled(framework::Feature::kTopologyAwareWorkloadScheduling)) {
      error(at, field(kRequired),
            fmt::format("cluster {:?} must enable featureGates.TopologyAwareWorkloadScheduling "
                        "(its scheduler places the gang within one domain)",
                        c.name));
      return Symbol();
    }
  }
  return interner.Intern(*value);
}

}  // namespace

api::ResourceList FleetReplicaRequest(const api::Pod& pod) {
  std::map<Symbol, int64_t> milli;
  std::vector<Symbol> order;
  auto add = [&](Symbol s, int64_t v, bool max) {
    auto [it, fresh] = milli.emplace(s, 0);
    if (fresh) order.push_back(s);
    it->second = max ? std::max(it->second, v) : it->second + v;
  };
  for (const auto& c : pod.containers) {
    for (const auto& [s, q] : c.resources.requests) add(s, q.MilliValue(), false);
  }
  for (const auto& c : pod.init_containers) {
    for (const auto& [s, q] : c.resources.requests) add(s, q.MilliValue(), true);
  }
  for (const auto& [s, q] : pod.overhead) add(s, q.MilliValue(), false);
  api::ResourceList out;
  for (Symbol s : order) out.push_back({s, api::Quantity::FromMilli(milli[s])});
  return out;
}

void DecodeFleet(Decoder& d, const Node& n, FleetIn& out) {
  out.self = &n;
  auto seen = d.Struct(n, out, kFleetFields);
  if (n.is_map() && !seen.has("scheduler")) d.Required(n, "scheduler", "karmada or kueue");
}

void DecodeFleetWorkload(Decoder& d, const Node& n, FleetWorkloadIn& out) {
  out.self = &n;
  d.Struct(n, out, kFleetWorkloadFields);
}

std::map<std::string, uint32_t> ScenarioClusterIndex(const SimSpec& spec) {
  std::map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < spec.clusters.size(); ++i) index.emplace(spec.clusters[i].name, i);
  return index;
}

std::string ScenarioClusterNames(const SimSpec& spec) {
  std::string s;
  for (const ClusterSpec& c : spec.clusters) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

std::shared_ptr<const FleetSpec> CompileFleet(const FleetIn& in,
                                              std::span<const FleetWorkloadRef> refs, SimSpec& spec,
                                              Interner& interner, const std::string& base_dir,
                                              Diagnostics& diags, const FleetErrorFn& error) {
  if (in.self == nullptr) {
    for (const FleetWorkloadRef& r : refs) {
      if (r.fleet != nullptr && r.fleet->self != nullptr) {
        error(r.fleet->self, r.path + ".fleet",
              "the scenario declares no fleet (add a fleet section, or drop the field)");
      }
    }
    return nullptr;
  }
  auto out = std::make_shared<FleetSpec>();
  const bool karmada = in.kind == fleet::FleetKind::kKarmada;
  if (spec.clusters.empty()) {
    error(in.self, "fleet", "a fleet dispatches to the scenario's clusters: declare clusters");
  }
  const std::map<std::string, uint32_t> index = ScenarioClusterIndex(spec);

  // The dispatcher.
  fleet::DispatchLoopConfig& c = out->config;
  c.kind = in.kind;
  c.dispatcher = in.dispatcher;
  c.profile = fleet::DefaultDispatcherProfile(interner);
  c.profile.nomination = in.nomination;
  c.profile.top_k = in.nomination == api::NominationMode::kTopK ? in.top_k : 1;
  c.step_size = in.step_size;
  c.round_timeout_ns = in.round_timeout_ns;
  c.worker_lost_timeout_ns = in.worker_lost_timeout_ns;
  out->refresh_interval_ns = in.refresh_interval_ns;
  out->gates = in.gates;
  out->preemption_grace_ns = in.preemption_grace_ns;
  if (!karmada) {
    for (const char* f : {"featureGates", "preemptionGracePeriod"}) {
      if (const Node* at = in.self->Find(f)) {
        error(at, fmt::format("fleet.{}", f), "applies to scheduler karmada");
      }
    }
  }
  out->preemption_mode = in.preemption_mode;
  out->simulate_victims = in.simulate_victims;
  if (in.preemption_node != nullptr && (!karmada || !in.gates.PreemptionEnabled())) {
    error(in.preemption_node, "fleet.preemption",
          karmada ? "applies when featureGates enable PriorityBasedScheduling and "
                    "PriorityBasedPreemptiveScheduling"
                  : "applies to scheduler karmada");
  }
  if (karmada && in.self->Find("preemptionGracePeriod") != nullptr &&
      !in.gates.PreemptionEnabled()) {
    error(in.self->Find("preemptionGracePeriod"), "fleet.preemptionGracePeriod",
          "applies when featureGates enable PriorityBasedScheduling and "
          "PriorityBasedPreemptiveScheduling");
  }
  out->estimator = in.estimator;
  if (karmada) {
    for (const char* f : {"dispatcher", "nomination", "topK", "stepSize", "roundTimeout",
                          "configOrder", "dispatchMode", "profilePath"}) {
      if (const Node* at = in.self->Find(f)) {
        error(at, fmt::format("fleet.{}", f), "applies to scheduler kueue (MultiKueue)");
      }
    }
  } else {
    const bool composable = in.dispatcher == fleet::KueueDispatcherKind::kComposable;
    if (!composable && in.nomination_node != nullptr) {
      error(in.nomination_node, "fleet.nomination", "applies to dispatcher composable");
    }
    if (in.nomination == api::NominationMode::kTopK && in.top_k == 0) {
      error(in.nomination_node, "fleet.topK", "missing required field \"topK\" (1..10) for TopK");
    }
    if (in.nomination != api::NominationMode::kTopK && in.self->Find("topK") != nullptr) {
      error(in.self->Find("topK"), "fleet.topK", "applies to nomination TopK");
    }
    if (in.profile_node != nullptr) {
      // A ClusterDispatcherProfile file, read and checked by the fleet loader; its nomination
      // mode is the profile's.
      if (!composable) {
        error(in.profile_node, "fleet.profilePath", "applies to dispatcher composable");
      } else if (in.nomination_node != nullptr || in.self->Find("topK") != nullptr) {
        error(in.profile_node, "fleet.profilePath",
              "a profile sets its own nominationMode and topK (drop fleet.nomination and "
              "fleet.topK)");
      } else if (!in.profile_path.empty()) {
        std::string path = in.profile_path;
        if (!base_dir.empty() && !std::filesystem::path(path).is_absolute())
          path = (std::filesystem::path(base_dir) / path).lexically_normal().string();
        const std::string paths[] = {path};
        loader::FleetLoadResult loaded = loader::LoadFleetPaths(paths, interner);
        diags.Merge(loaded.diagnostics);
        const auto& objs = loaded.objects;
        if (loaded.ok() && (objs.profiles.size() != 1 || !objs.clusters.empty() ||
                            !objs.works.empty() || !objs.multikueue_configs.empty())) {
          error(in.profile_node, "fleet.profilePath",
                fmt::format("{:?} must hold exactly one ClusterDispatcherProfile", path));
        } else if (loaded.ok()) {
          c.profile = objs.profiles.front();
          out->profile_path = path;
        }
      }
    }
    if (in.dispatcher != fleet::KueueDispatcherKind::kIncremental) {
      for (const char* f : {"stepSize", "roundTimeout"}) {
        if (const Node* at = in.self->Find(f))
          error(at, fmt::format("fleet.{}", f), "applies to dispatcher incremental");
      }
    }
  }

  // The clusters as the dispatcher sees them.
  out->clusters.resize(spec.clusters.size());
  for (uint32_t i = 0; i < spec.clusters.size(); ++i) {
    api::Cluster& cl = out->clusters[i];
    cl.meta.name = interner.Intern(spec.clusters[i].name);
  }
  std::vector<uint8_t> described(spec.clusters.size(), 0);
  for (size_t k = 0; k < in.members.size(); ++k) {
    const FleetMemberIn& m = in.members[k];
    const std::string path = fmt::format("fleet.members[{}].name", k);
    auto it = index.find(m.name);
    if (m.name.empty()) continue;
    if (it == index.end()) {
      error(m.name_node, path,
            fmt::format("unknown cluster {:?} (declared: {})", m.name, ScenarioClusterNames(spec)));
      continue;
    }
    if (described[it->second]++) {
      error(m.name_node, path, fmt::format("cluster {:?} is described twice", m.name));
      continue;
    }
    api::Cluster cl = m.cluster;
    cl.meta.name = interner.Intern(m.name);
    out->clusters[it->second] = std::move(cl);
  }
  for (api::Cluster& cl : out->clusters) {
    cl.source_kind = karmada ? api::ClusterSourceKind::kKarmadaCluster
                             : api::ClusterSourceKind::kMultiKueueCluster;
    // A member serves the kinds the fleet's workloads are made of.
    cl.api_enablements = {{interner.Intern("apps/v1"), {interner.Intern("Deployment")}},
                          {interner.Intern("batch/v1"), {interner.Intern("Job")}}};
    cl.complete_api_enablements = true;
  }
  for (size_t k = 0; k < in.config_order.size(); ++k) {
    const auto& [name, at] = in.config_order[k];
    auto it = index.find(name);
    if (it == index.end()) {
      error(at, fmt::format("fleet.configOrder[{}]", k),
            fmt::format("unknown cluster {:?} (declared: {})", name, ScenarioClusterNames(spec)));
    } else if (std::find(out->config_order.begin(), out->config_order.end(), it->second) !=
               out->config_order.end()) {
      error(at, fmt::format("fleet.configOrder[{}]", k),
            fmt::format("duplicate cluster {:?}", name));
    } else {
      out->config_order.push_back(it->second);
    }
  }
  for (size_t k = 0; k < in.outages.size(); ++k) {
    const FleetOutageIn& o = in.outages[k];
    if (o.cluster.empty()) continue;
    auto it = index.find(o.cluster);
    if (it == index.end()) {
      error(o.cluster_node, fmt::format("fleet.outages[{}].cluster", k),
            fmt::format("unknown cluster {:?} (declared: {})", o.cluster,
                        ScenarioClusterNames(spec)));
      continue;
    }
    out->outages.push_back({it->second, o.at_ns, o.duration_ns});
  }

  // The workloads that arrive at the fleet: those without `cluster:`.
  const Symbol ns_default = interner.Intern("default");
  for (size_t i = 0; i < refs.size() && i < spec.workloads.size(); ++i) {
    const FleetWorkloadRef& r = refs[i];
    Workload& wk = spec.workloads[i];
    const FleetWorkloadIn* f = r.fleet != nullptr && r.fleet->self != nullptr ? r.fleet : nullptr;
    if (r.has_cluster) {
      if (f != nullptr) {
        error(f->self, r.path + ".fleet",
              "a workload placed by the fleet has no cluster (drop cluster or fleet)");
      }
      continue;
    }
    if (!karmada && wk.kind == WorkloadKind::kJob) {
      error(r.self, r.path + ".kind",
            "a Kueue fleet admits a workload whole: use kind Gang (or Pods), not Job");
    }
    if (f != nullptr && f->replicas_node != nullptr && wk.kind != WorkloadKind::kPods) {
      error(f->replicas_node, r.path + ".fleet.replicas",
            "applies to kind Pods (Job and Gang use parallelism)");
    }
    if (f != nullptr && karmada &&
        (!f->cluster_selector.empty() || !f->cluster_tolerations.empty() ||
         f->dispatch_mode.has_value())) {
      const char* field = !f->cluster_selector.empty()      ? "clusterSelector"
                          : !f->cluster_tolerations.empty() ? "clusterTolerations"
                                                            : "dispatchMode";
      error(f->self->Find(field), fmt::format("{}.fleet.{}", r.path, field),
            "applies to scheduler kueue (Karmada reads placement)");
    }
    if (f != nullptr && !karmada &&
        (f->policy_node != nullptr || f->deadline_node != nullptr ||
         f->schedule_priority_node != nullptr)) {
      const char* field = f->policy_node != nullptr     ? "preemptionPolicy"
                          : f->deadline_node != nullptr ? "deadline"
                                                        : "schedulePriority";
      error(f->self->Find(field), fmt::format("{}.fleet.{}", r.path, field),
            "applies to scheduler karmada");
    }
    if (f != nullptr && !karmada && f->placement_node != nullptr) {
      error(f->placement_node, r.path + ".fleet.placement",
            "applies to scheduler karmada (MultiKueue reads clusterSelector and "
            "clusterTolerations)");
    }
    api::FleetWork w;
    const api::Pod& pod = spec.pod_templates[wk.tmpl].pod;
    w.source_kind =
        karmada ? api::FleetWorkSourceKind::kResourceBinding : api::FleetWorkSourceKind::kKueue;
    const bool pods = wk.kind == WorkloadKind::kPods;
    w.resource.api_version = interner.Intern(pods ? "apps/v1" : "batch/v1");
    w.resource.kind = interner.Intern(pods ? "Deployment" : "Job");
    w.resource.namespace_ = pod.meta.namespace_.empty() ? ns_default : pod.meta.namespace_;
    w.resource.name = interner.Intern(wk.name);
    w.meta.namespace_ = w.resource.namespace_;
    w.replicas = pods ? (f != nullptr && f->replicas > 0 ? f->replicas : 1) : wk.pods_per_arrival;
    api::ReplicaRequirements req;
    req.resource_request = FleetReplicaRequest(pod);
    req.namespace_ = w.resource.namespace_;
    req.priority_class_name = pod.priority_class_name;
    // The pods' template: the accurate estimator places one replica as the member would.
    req.pod_template = std::make_shared<const api::Pod>(pod);
    w.replica_requirements = std::move(req);
    w.priority = f != nullptr ? f->priority : 0;
    if (f != nullptr && f->preemption_policy) {
      // schedulePriority is set only under PriorityBasedScheduling (the detector's gate check).
      if (!in.gates.priority_based_scheduling) {
        error(f->policy_node, r.path + ".fleet.preemptionPolicy",
              "applies when featureGates.PriorityBasedScheduling is on");
      }
      w.preemption_policy = f->preemption_policy;
    }
    if (karmada && !in.gates.priority_based_scheduling && f != nullptr &&
        f->self->Find("priority") != nullptr) {
      error(f->self->Find("priority"), r.path + ".fleet.priority",
            "applies when featureGates.PriorityBasedScheduling is on");
    }
    if (f != nullptr && f->schedule_priority_node != nullptr && karmada) {
      // The detector's KubePriorityClass source: the class's value and preemptionPolicy.
      const Node* at = f->schedule_priority_node;
      if (f->policy_node != nullptr || f->self->Find("priority") != nullptr) {
        error(at, r.path + ".fleet.schedulePriority",
              "set either schedulePriority or priority and preemptionPolicy");
      } else if (!in.gates.priority_based_scheduling) {
        error(at, r.path + ".fleet.schedulePriority",
              "applies when featureGates.PriorityBasedScheduling is on");
      } else if (!f->priority_class.empty()) {
        const api::PriorityClass* pc = nullptr;
        for (const api::PriorityClass& cls : spec.objects.priority_classes) {
          if (interner.Str(cls.meta.name) == f->priority_class) pc = &cls;
        }
        if (pc == nullptr) {
          error(at->Find("priorityClassName"), r.path + ".fleet.schedulePriority.priorityClassName",
                fmt::format("priority class {:?} not found (declare it in priorityClasses)",
                            f->priority_class));
        } else {
          w.priority = pc->value;
          w.preemption_policy = pc->preemption_policy;
        }
      }
    }
    if (f != nullptr && (f->min_member_node != nullptr || f->disruption_mode_node != nullptr)) {
      // Gang annotations, checked as fleet/preemption_fleetwide.h's ReadGang reads them.
      const Node* at = f->min_member_node != nullptr ? f->min_member_node : f->disruption_mode_node;
      const std::string field = f->min_member_node != nullptr ? "minMember" : "disruptionMode";
      if (!karmada || !in.gates.PreemptionEnabled()) {
        error(at, fmt::format("{}.fleet.{}", r.path, field),
              karmada ? "applies when featureGates enable PriorityBasedScheduling and "
                        "PriorityBasedPreemptiveScheduling"
                      : "applies to scheduler karmada");
      }
      if (f->min_member_node != nullptr) {
        w.meta.annotations.push_back(
            {interner.Intern(fleet::kMinMemberAnnotation), std::to_string(f->min_member)});
      }
      if (!f->disruption_mode.empty()) {
        w.meta.annotations.push_back(
            {interner.Intern(fleet::kDisruptionModeAnnotation), f->disruption_mode});
      }
      if (auto g = fleet::ReadGang(w, interner); !g.ok()) {
        // "metadata.annotations[corral.dev/min-member]: ..." → the scenario's field.
        std::string msg = g.error().message;
        if (auto colon = msg.find("]: "); colon != std::string::npos) msg = msg.substr(colon + 3);
        error(at, fmt::format("{}.fleet.{}", r.path, field), msg);
      }
    }
    if (in.simulate_victims && karmada) {
      if (std::string why = EstimatePodProblem(pod); !why.empty()) {
        error(r.self, r.path,
              fmt::format("victims: simulation tries the preemptor's copies on the member's nodes, "
                          "where they contend only for node resources and pod slots; this "
                          "workload's pods have {} (use victims: summary)",
                          why));
      }
    }
    out->work_deadline_ns.push_back(f != nullptr ? f->deadline_ns : -1);
    w.dispatch_mode = f != nullptr && f->dispatch_mode ? *f->dispatch_mode : in.dispatch_mode;
    if (f != nullptr) {
      if (f->placement) w.placement = *f->placement;
      w.cluster_selector = api::LabelSet(f->cluster_selector);
      w.placement.cluster_tolerations.insert(w.placement.cluster_tolerations.end(),
                                             f->cluster_tolerations.begin(),
                                             f->cluster_tolerations.end());
    }
    out->work_topology_key.push_back(
        FleetTopologyKey(pod, wk, karmada, spec, interner, r.self, r.path, error));
    wk.fleet_work = static_cast<uint32_t>(out->works.size());
    out->works.push_back(std::move(w));
  }

  // Karmada's and Kueue's own objects.
  FleetObjectsIn objects;
  objects.paths = in.objects;
  objects.has_config_order = in.config_order_node != nullptr;
  objects.has_profile = in.profile_node != nullptr;
  for (const FleetMemberIn& m : in.members) objects.described.push_back(m.name);
  CompileFleetObjects(objects, spec, *out, interner, base_dir, diags, error);

  if (!karmada && in.estimator == FleetEstimatorKind::kAccurate) {
    // The accurate estimator answers Kueue's ClusterFeasibility filter, nothing else.
    const bool composable = in.dispatcher == fleet::KueueDispatcherKind::kComposable;
    const bool asks = composable && std::any_of(c.profile.filters.begin(), c.profile.filters.end(),
                                                [&](Symbol f) {
                                                  return interner.Str(f) == "ClusterFeasibility";
                                                });
    if (!asks) {
      error(in.estimator_node != nullptr ? in.estimator_node : in.self, "fleet.estimator",
            "the accurate estimator answers the ClusterFeasibility filter of the composable "
            "dispatcher, and no filter here asks it (give a profile that filters with "
            "ClusterFeasibility, or use general)");
    }
  }
  return out;
}

}  // namespace corral::sim
