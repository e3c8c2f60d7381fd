#include "corral/sim/input/fleet_objects.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/loader/fleet_loader.h"
#include "corral/sim/input/fleet_scenario.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim {

namespace {

// The objects' own problems, at their positions.
class At {
 public:
  At(Diagnostics& diags, const Interner& in) : diags_(diags), in_(in) {}
  void Error(const api::ObjectMeta& meta, std::string path, std::string msg) {
    diags_.Error(std::string(in_.Str(meta.source.file)), meta.source.line, std::move(path),
                 std::move(msg));
  }

 private:
  Diagnostics& diags_;
  const Interner& in_;
};

// A Go duration annotation within the virtual clock's range; `fallback` without it.
int64_t AnnotationDuration(const api::ObjectMeta& meta, std::string_view key, int64_t fallback,
                           Interner& in, At& at) {
  const std::string* v = meta.Annotation(in.Intern(key));
  if (v == nullptr) return fallback;
  Duration d{};
  const std::string path = fmt::format("metadata.annotations[{}]", key);
  if (!doc::ParseGoDuration(*v, d) || d.count() < 0) {
    at.Error(
        meta, path,
        fmt::format("invalid duration {:?} (want a Go duration such as \"30m\" or \"1h30m\")", *v));
    return fallback;
  }
  if (d.count() > kMaxVirtualNs) {
    at.Error(meta, path, VirtualRangeError(*v));
    return fallback;
  }
  return d.count();
}

std::string WorkName(const api::FleetWork& w, const Interner& in) {
  return std::string(in.Str(w.meta.name));
}

}  // namespace

void CompileFleetObjects(
    const FleetObjectsIn& in, SimSpec& spec, FleetSpec& out, Interner& interner,
    const std::string& base_dir, Diagnostics& diags,
    const std::function<void(const doc::Node*, std::string, std::string)>& error) {
  if (in.paths.empty()) return;
  std::vector<std::string> paths;
  for (size_t k = 0; k < in.paths.size(); ++k) {
    const auto& [p, node] = in.paths[k];
    std::string path = p;
    if (!base_dir.empty() && !std::filesystem::path(path).is_absolute())
      path = (std::filesystem::path(base_dir) / path).lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      error(node, fmt::format("fleet.objects[{}]", k),
            fmt::format("{:?}: no such file or directory", path));
      continue;
    }
    paths.push_back(std::move(path));
  }
  if (paths.empty()) return;
  loader::FleetLoadResult loaded = loader::LoadFleetPaths(paths, interner);
  diags.Merge(loaded.diagnostics);
  if (!loaded.ok()) return;
  loader::FleetObjects& objs = loaded.objects;
  const bool karmada = out.config.kind == fleet::FleetKind::kKarmada;
  At at(diags, interner);
  const std::map<std::string, uint32_t> index = ScenarioClusterIndex(spec);

  // The clusters.
  std::set<std::string> described(in.described.begin(), in.described.end());
  for (const api::Cluster& c : objs.clusters) {
    const bool karmada_cluster = c.source_kind == api::ClusterSourceKind::kKarmadaCluster;
    const std::string name(interner.Str(c.meta.name));
    if (karmada_cluster != karmada) {
      at.Error(c.meta, "kind",
               fmt::format("a {} applies to scheduler {}",
                           karmada_cluster ? "Cluster" : "MultiKueueCluster",
                           karmada_cluster ? "karmada" : "kueue"));
      continue;
    }
    auto it = index.find(name);
    if (it == index.end()) {
      at.Error(c.meta, "metadata.name",
               fmt::format("no scenario cluster is named {:?} (declared: {})", name,
                           ScenarioClusterNames(spec)));
      continue;
    }
    if (!described.insert(name).second) {
      at.Error(c.meta, "metadata.name",
               fmt::format("cluster {:?} is also described elsewhere (fleet.members or another "
                           "object)",
                           name));
      continue;
    }
    if (c.resource_summary.has_value()) {
      at.Error(c.meta, "status.resourceSummary",
               "the simulation computes a member's summary from its nodes and pods; drop it");
      continue;
    }
    if (!c.resource_models.empty()) {
      at.Error(c.meta, "spec.resourceModels",
               "not supported in corral simulate: allocatableModelings are not computed from a "
               "simulated member");
      continue;
    }
    api::Cluster& cl = out.clusters[it->second];
    cl.meta.labels = c.meta.labels;
    cl.provider = c.provider;
    cl.region = c.region;
    cl.zone = c.zone;
    cl.zones = c.zones;
    cl.taints = c.taints;
    if (!c.api_enablements.empty()) {
      cl.api_enablements = c.api_enablements;
      cl.complete_api_enablements = c.complete_api_enablements;
    }
    // A member the fleet sees not ready (inactive) stays so: reported that way, and lost.
    cl.ready = c.ready;
    cl.active = c.active;
    if (!c.ready || !c.active) out.outages.push_back({it->second, 0, kForeverNs});
  }

  // The MultiKueue configuration and the dispatcher profile.
  if (!objs.multikueue_configs.empty()) {
    const api::MultiKueueConfig& mk = objs.multikueue_configs.front();
    if (karmada) {
      at.Error(mk.meta, "kind", "a MultiKueueConfig applies to scheduler kueue");
    } else if (in.has_config_order) {
      at.Error(mk.meta, "kind", "fleet.configOrder gives the order already; give one or the other");
    } else if (objs.multikueue_configs.size() > 1) {
      at.Error(objs.multikueue_configs[1].meta, "kind",
               "a fleet has one MultiKueueConfig; this is the second");
    } else {
      for (size_t k = 0; k < mk.clusters.size(); ++k) {
        const std::string name(interner.Str(mk.clusters[k]));
        auto it = index.find(name);
        if (it == index.end()) {
          at.Error(mk.meta, fmt::format("spec.clusters[{}]", k),
                   fmt::format("no scenario cluster is named {:?} (declared: {})", name,
                               ScenarioClusterNames(spec)));
        } else if (std::find(out.config_order.begin(), out.config_order.end(), it->second) ==
                   out.config_order.end()) {
          out.config_order.push_back(it->second);
        }
      }
    }
  }
  if (!objs.profiles.empty()) {
    const api::DispatcherProfile& p = objs.profiles.front();
    if (karmada || out.config.dispatcher != fleet::KueueDispatcherKind::kComposable) {
      at.Error(p.meta, "kind", "a ClusterDispatcherProfile applies to dispatcher composable");
    } else if (in.has_profile) {
      at.Error(p.meta, "kind",
               "fleet.profilePath gives the profile already; give one or the other");
    } else if (objs.profiles.size() > 1) {
      at.Error(objs.profiles[1].meta, "kind",
               "a fleet has one dispatcher profile; this is the second");
    } else {
      out.config.profile = p;
    }
  }

  // The work items.
  std::set<std::string> taken;
  for (const Workload& w : spec.workloads) taken.insert(w.name);
  const Symbol ns_default = interner.Intern("default");
  for (const api::FleetWork& src : objs.works) {
    const bool kueue_work = src.source_kind == api::FleetWorkSourceKind::kKueue;
    const std::string name = WorkName(src, interner);
    if (kueue_work == karmada) {
      at.Error(src.meta, "kind",
               fmt::format("a {} applies to scheduler {}", kueue_work ? "Workload" : "binding",
                           kueue_work ? "kueue" : "karmada"));
      continue;
    }
    if (!src.clusters.empty()) {
      at.Error(src.meta, "spec.clusters",
               "a previous assignment cannot be honoured in corral simulate: the binding arrives "
               "new (drop spec.clusters)");
      continue;
    }
    if (!src.graceful_eviction_clusters.empty()) {
      at.Error(src.meta, "spec.gracefulEvictionTasks",
               "not supported in corral simulate: the binding arrives new");
      continue;
    }
    if (kueue_work && src.pod_sets.size() != 1) {
      at.Error(src.meta, "spec.podSets",
               fmt::format("a Workload of {} pod sets cannot be simulated yet (one pod set)",
                           src.pod_sets.size()));
      continue;
    }
    if (!taken.insert(name).second) {
      at.Error(src.meta, "metadata.name",
               fmt::format("a workload named {:?} exists already in the scenario", name));
      continue;
    }
    // The pod every replica is made of.
    api::Pod pod;
    if (kueue_work) {
      pod = *src.pod_sets.front().pod;
    } else if (src.replica_requirements.has_value() &&
               src.replica_requirements->pod_template != nullptr) {
      pod = *src.replica_requirements->pod_template;
    } else {
      api::Container c;
      c.name = interner.Intern("replica");
      if (src.replica_requirements.has_value()) {
        c.resources.requests = src.replica_requirements->resource_request;
        pod.priority_class_name = src.replica_requirements->priority_class_name;
      }
      pod.containers.push_back(std::move(c));
    }
    // The pods' priority, as kube's admission resolves it: the named class (declared in the
    // scenario's priorityClasses), else the global default class, else 0.
    const api::PriorityClass* pc = nullptr;
    for (const api::PriorityClass& cls : spec.objects.priority_classes) {
      if (pod.priority_class_name.empty() ? cls.global_default
                                          : cls.meta.name == pod.priority_class_name) {
        pc = &cls;
        break;
      }
    }
    if (!pod.priority_class_name.empty() && pc == nullptr) {
      at.Error(src.meta, "priorityClassName",
               fmt::format("pod priority class {:?} not found (declare it in the scenario's "
                           "priorityClasses)",
                           interner.Str(pod.priority_class_name)));
      continue;
    }
    Symbol ns = src.resource.namespace_;
    if (ns.empty()) ns = src.meta.namespace_;
    if (ns.empty()) ns = ns_default;
    pod.meta.name = interner.Intern(fmt::format("corral-fleet-template-{}", name));
    pod.meta.namespace_ = ns;
    pod.node_name = Symbol();
    if (pod.scheduler_name.empty()) pod.scheduler_name = api::wk::kDefaultScheduler;
    pod.priority = pc != nullptr ? pc->value : 0;
    if (pc != nullptr) {
      pod.priority_class_name = pc->meta.name;
      pod.preemption_policy = pc->preemption_policy;
    }

    const int64_t arrival_ns = AnnotationDuration(src.meta, kArrivalAnnotation, 0, interner, at);
    const int64_t duration_ns =
        AnnotationDuration(src.meta, kDurationAnnotation, kForeverNs, interner, at);

    api::FleetWork w = src;
    const std::string kind(interner.Str(src.resource.kind));
    Workload wk;
    wk.name = name;
    wk.group = std::string(interner.Str(ns));
    if (kueue_work) {
      w.replicas = src.pod_sets.front().count;
      wk.kind = w.replicas > 1 ? WorkloadKind::kGang : WorkloadKind::kPods;
      wk.pods_per_arrival = w.replicas;
    } else if (kind == "Job") {
      wk.kind = WorkloadKind::kJob;
      wk.pods_per_arrival = w.replicas;
    } else {
      wk.kind = WorkloadKind::kPods;
    }
    if (w.replicas <= 0) {
      at.Error(src.meta, "spec.replicas", "a work item without replicas has nothing to run");
      continue;
    }
    // Per-replica requirements, as the fleet section's own workloads carry them.
    api::ReplicaRequirements req;
    req.resource_request = FleetReplicaRequest(pod);
    req.namespace_ = ns;
    req.pod_template = std::make_shared<const api::Pod>(pod);
    w.replica_requirements = std::move(req);
    w.resource.namespace_ = ns;
    w.meta.namespace_ = ns;
    if (kueue_work) {
      w.resource.api_version = interner.Intern(w.replicas > 1 ? "batch/v1" : "apps/v1");
      w.resource.kind = interner.Intern(w.replicas > 1 ? "Job" : "Deployment");
    }

    PodTemplate t;
    t.name = fmt::format("{}/{}", interner.Str(ns), name);
    t.name_prefix = name + "-";
    t.pod = std::move(pod);
    wk.tmpl = static_cast<uint32_t>(spec.pod_templates.size());
    spec.pod_templates.push_back(std::move(t));
    wk.arrival.kind = Arrival::Kind::kExplicit;
    ExplicitArrival a;
    a.time_ns = arrival_ns;
    a.duration_ns = duration_ns;
    a.tmpl = wk.tmpl;
    wk.explicit_arrivals.push_back(a);
    wk.fleet_work = static_cast<uint32_t>(out.works.size());
    out.works.push_back(std::move(w));
    spec.workloads.push_back(std::move(wk));
  }
}

}  // namespace corral::sim
