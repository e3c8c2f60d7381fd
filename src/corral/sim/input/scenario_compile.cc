#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/doc/decoder.h"
#include "corral/sim/controllers/compile.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/input/object_set.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/input/scenario_input.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim::scenario_internal {

using doc::Decoder;

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPauseImage = "registry.k8s.io/pause:3.10";

class Compiler {
 public:
  Compiler(ScenarioIn& in, std::string_view file, const std::string& base_dir, Interner& interner,
           Diagnostics& diags, const ScenarioOptions& opts)
      : in_(in),
        file_(file),
        base_(base_dir),
        interner_(interner),
        diags_(diags),
        objects_(interner, std::string(file), opts.strict, /*controllers=*/true) {}

  Result<SimSpec> Compile();

 private:
  void Error(const Node* at, std::string path, std::string msg) {
    diags_.Error(std::string(file_), at != nullptr ? at->line() : 0, std::move(path),
                 std::move(msg));
  }
  std::string Resolve(const std::string& p) const {
    if (p.empty() || fs::path(p).is_absolute() || base_.empty()) return p;
    return (fs::path(base_) / p).lexically_normal().string();
  }
  void AddPriorityClasses();
  void AddNamespaces();
  size_t AddPool(size_t i);
  size_t AddWorkloadTemplate(size_t i);

  ScenarioIn& in_;
  std::string_view file_;
  std::string base_;
  Interner& interner_;
  Diagnostics& diags_;
  ObjectBuilder objects_;
  std::map<std::string, const Node*> declared_ns_;
  std::map<std::string, std::string> priority_names_;
};

void Compiler::AddPriorityClasses() {
  if (in_.priority_classes == nullptr) return;
  const Node& seq = *in_.priority_classes;
  for (size_t i = 0; i < seq.size(); ++i) {
    const Node& item = seq.items()[i];
    std::string path = fmt::format("priorityClasses[{}]", i);
    if (!item.is_map()) {
      Error(&item, path, "want a map {name, value, globalDefault, preemptionPolicy, description}");
      continue;
    }
    std::string json = R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass")";
    const Node* name = item.Find("name");
    json += ",\"metadata\":{\"name\":" + (name != nullptr ? NodeToJson(*name) : "null") + "}";
    if (name != nullptr) priority_names_[std::string(name->text())] = path;
    for (size_t k = 0; k < item.size(); ++k) {
      if (item.key(k).text() == "name") continue;
      json += "," + JsonString(item.key(k).text()) + ":" + NodeToJson(item.value(k));
    }
    json += "}";
    objects_.Add(json, {{"metadata.name", name, path + ".name"}, {"", &item, path}}, item.line());
  }
}

void Compiler::AddNamespaces() {
  if (in_.namespaces != nullptr) {
    const Node& seq = *in_.namespaces;
    for (size_t i = 0; i < seq.size(); ++i) {
      const Node& item = seq.items()[i];
      std::string path = fmt::format("namespaces[{}]", i);
      const Node* name = item.is_map() ? item.Find("name") : &item;
      const Node* labels = item.is_map() ? item.Find("labels") : nullptr;
      if (name == nullptr) {
        Error(&item, path, "missing required field \"name\"");
        continue;
      }
      std::string json =
          R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":)" + NodeToJson(*name);
      if (labels != nullptr) json += ",\"labels\":" + NodeToJson(*labels);
      json += "}}";
      std::vector<PathMapping> m = {{"metadata.name", name, item.is_map() ? path + ".name" : path}};
      if (labels != nullptr) m.push_back({"metadata.labels", labels, path + ".labels"});
      m.push_back({"", &item, path});
      objects_.Add(json, std::move(m), item.line());
      declared_ns_[std::string(name->text())] = &item;
    }
  }
  // Namespaces that pods use without declaring them.
  std::set<std::string> used;
  for (const auto& w : in_.workloads) {
    std::string ns = w.ns;
    if (w.tmpl != nullptr) {
      if (const Node* m = w.tmpl->Find("metadata")) {
        if (const Node* n = m->Find("namespace"); n != nullptr && n->is_string())
          ns = std::string(n->text());
      }
    }
    if (!ns.empty() && !declared_ns_.contains(ns)) used.insert(ns);
  }
  for (const auto& ns : used) {
    objects_.Add(
        R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":)" + JsonString(ns) + "}}", {},
        0);
  }
}

size_t Compiler::AddPool(size_t i) {
  PoolIn& p = in_.pools[i];
  const std::string& path = p.path;
  std::string tmpl_name = fmt::format("corral-pool-template-{}", i);
  if (p.tmpl != nullptr) {
    const Node& t = *p.tmpl;
    std::string json = "{";
    if (const Node* k = t.Find("kind"); k != nullptr && k->text() != "Node") {
      Error(k, path + ".template.kind",
            fmt::format("a node pool template must be a Node, got kind {:?}", k->text()));
    }
    bool has_api = t.Find("apiVersion") != nullptr, has_kind = t.Find("kind") != nullptr;
    if (!has_api) json += R"("apiVersion":"v1",)";
    if (!has_kind) json += R"("kind":"Node",)";
    json += "\"metadata\":{\"name\":" + JsonString(tmpl_name);
    if (const Node* m = t.Find("metadata"); m != nullptr && m->is_map()) {
      for (size_t k = 0; k < m->size(); ++k) {
        std::string_view key = m->key(k).text();
        if (key == "name" || key == "generateName") continue;
        json += "," + JsonString(key) + ":" + NodeToJson(m->value(k));
      }
    }
    json += "}";
    for (size_t k = 0; k < t.size(); ++k) {
      if (t.key(k).text() == "metadata") continue;
      json += "," + JsonString(t.key(k).text()) + ":" + NodeToJson(t.value(k));
    }
    json += "}";
    return objects_.Add(json, {{"", &t, path + ".template"}}, t.line(), tmpl_name,
                        fmt::format("(pool {})", p.name));
  }
  std::string json =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":)" + JsonString(tmpl_name);
  std::vector<PathMapping> m;
  if (p.labels != nullptr) {
    json += ",\"labels\":" + NodeToJson(*p.labels);
    m.push_back({"metadata.labels", p.labels, path + ".labels"});
  }
  json += "},\"spec\":{";
  if (p.taints != nullptr) {
    json += "\"taints\":" + NodeToJson(*p.taints);
    m.push_back({"spec.taints", p.taints, path + ".taints"});
  }
  json += "},\"status\":{";
  if (p.resources != nullptr) {
    std::string res = NodeToJson(*p.resources);
    // The kubelet reports 110 pods when nothing else is configured; the shorthand does the same.
    if (p.resources->is_map() && p.resources->Find("pods") == nullptr && res.size() > 2) {
      res.insert(res.size() - 1, ",\"pods\":\"110\"");
    } else if (p.resources->is_map() && p.resources->Find("pods") == nullptr) {
      res = "{\"pods\":\"110\"}";
    }
    json += "\"capacity\":" + res + ",\"allocatable\":" + res + ",";
    m.push_back({"status.capacity", p.resources, path + ".resources"});
    m.push_back({"status.allocatable", p.resources, path + ".resources"});
  }
  json += R"("conditions":[{"type":"Ready","status":"True"}]}})";
  m.push_back({"", p.self, path});
  return objects_.Add(json, std::move(m), p.self->line(), tmpl_name,
                      fmt::format("(pool {})", p.name));
}

size_t Compiler::AddWorkloadTemplate(size_t i) {
  WorkloadIn& w = in_.workloads[i];
  std::string path = fmt::format("workloads[{}]", i);
  std::string tmpl_name = fmt::format("corral-workload-template-{}", i);
  if (w.tmpl != nullptr) {
    const Node& t = *w.tmpl;
    if (const Node* k = t.Find("kind"); k != nullptr && k->text() != "Pod") {
      Error(k, path + ".template.kind",
            fmt::format("a workload template must be a Pod, got kind {:?}", k->text()));
    }
    std::string json = "{";
    if (t.Find("apiVersion") == nullptr) json += R"("apiVersion":"v1",)";
    if (t.Find("kind") == nullptr) json += R"("kind":"Pod",)";
    json += "\"metadata\":{\"name\":" + JsonString(tmpl_name);
    bool has_ns = false;
    if (const Node* m = t.Find("metadata"); m != nullptr && m->is_map()) {
      for (size_t k = 0; k < m->size(); ++k) {
        std::string_view key = m->key(k).text();
        if (key == "name" || key == "generateName") continue;
        if (key == "namespace") has_ns = true;
        json += "," + JsonString(key) + ":" + NodeToJson(m->value(k));
      }
    }
    if (!has_ns) json += ",\"namespace\":" + JsonString(w.ns);
    json += "}";
    bool has_prio = false;
    for (size_t k = 0; k < t.size(); ++k) {
      std::string_view key = t.key(k).text();
      if (key == "metadata") continue;
      if (key == "spec" && !w.priority_class.empty() && t.value(k).is_map()) {
        // priorityClassName from the workload, unless the template sets one.
        const Node& spec = t.value(k);
        json += ",\"spec\":{";
        for (size_t j = 0; j < spec.size(); ++j) {
          if (j > 0) json += ",";
          if (spec.key(j).text() == "priorityClassName") has_prio = true;
          json += JsonString(spec.key(j).text()) + ":" + NodeToJson(spec.value(j));
        }
        if (!has_prio)
          json += std::string(spec.size() > 0 ? "," : "") +
                  "\"priorityClassName\":" + JsonString(w.priority_class);
        json += "}";
        continue;
      }
      json += "," + JsonString(key) + ":" + NodeToJson(t.value(k));
    }
    json += "}";
    std::vector<PathMapping> m = {{"", &t, path + ".template"}};
    if (w.priority_node != nullptr)
      m.push_back({"spec.priorityClassName", w.priority_node, path + ".priorityClassName"});
    return objects_.Add(json, std::move(m), t.line(), tmpl_name,
                        fmt::format("(workload {})", w.name));
  }
  std::vector<PathMapping> m;
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":)" +
                     JsonString(tmpl_name) + ",\"namespace\":" + JsonString(w.ns);
  if (w.ns_node != nullptr) m.push_back({"metadata.namespace", w.ns_node, path + ".namespace"});
  std::string labels_json;
  if (w.labels != nullptr) {
    labels_json = NodeToJson(*w.labels);
    json += ",\"labels\":" + labels_json;
    m.push_back({"metadata.labels", w.labels, path + ".labels"});
  }
  json += "},\"spec\":{";
  std::vector<std::string> parts;
  if (!w.priority_class.empty()) {
    parts.push_back("\"priorityClassName\":" + JsonString(w.priority_class));
    m.push_back({"spec.priorityClassName", w.priority_node, path + ".priorityClassName"});
  }
  if (w.scheduler_name != nullptr) {
    parts.push_back("\"schedulerName\":" + NodeToJson(*w.scheduler_name));
    m.push_back({"spec.schedulerName", w.scheduler_name, path + ".schedulerName"});
  }
  if (w.node_selector != nullptr) {
    parts.push_back("\"nodeSelector\":" + NodeToJson(*w.node_selector));
    m.push_back({"spec.nodeSelector", w.node_selector, path + ".nodeSelector"});
  }
  if (w.tolerations != nullptr) {
    parts.push_back("\"tolerations\":" + NodeToJson(*w.tolerations));
    m.push_back({"spec.tolerations", w.tolerations, path + ".tolerations"});
  }
  if (w.affinity != nullptr) {
    parts.push_back("\"affinity\":" + NodeToJson(*w.affinity));
    m.push_back({"spec.affinity", w.affinity, path + ".affinity"});
  }
  if (w.spread != nullptr) {
    // Constraints without a labelSelector select the workload's own pods (its labels).
    std::string s = "\"topologySpreadConstraints\":[";
    for (size_t k = 0; k < w.spread->size(); ++k) {
      const Node& c = w.spread->items()[k];
      if (k > 0) s += ",";
      if (c.is_map() && c.Find("labelSelector") == nullptr && !labels_json.empty()) {
        std::string inner = NodeToJson(c);
        inner.pop_back();  // '}'
        s += inner + (c.size() > 0 ? "," : "") +
             "\"labelSelector\":{\"matchLabels\":" + labels_json + "}}";
      } else {
        s += NodeToJson(c);
      }
    }
    s += "]";
    parts.push_back(std::move(s));
    m.push_back({"spec.topologySpreadConstraints", w.spread, path + ".topologySpread"});
  }
  // Requests; extended resources and hugepages cannot be overcommitted, so they get equal limits.
  std::string res = w.resources != nullptr ? NodeToJson(*w.resources) : "{}";
  std::string limits;
  if (w.resources != nullptr && w.resources->is_map()) {
    for (size_t k = 0; k < w.resources->size(); ++k) {
      std::string_view key = w.resources->key(k).text();
      if (key.find('/') == std::string_view::npos && !key.starts_with("hugepages-")) continue;
      limits +=
          (limits.empty() ? "" : ",") + JsonString(key) + ":" + NodeToJson(w.resources->value(k));
    }
  }
  parts.push_back(R"("containers":[{"name":"main","image":")" + std::string(kPauseImage) +
                  R"(","resources":{"requests":)" + res +
                  (limits.empty() ? "" : ",\"limits\":{" + limits + "}") + "}}]");
  if (w.resources != nullptr) {
    m.push_back({"spec.containers[0].resources.requests", w.resources, path + ".resources"});
    m.push_back({"spec.containers[0].resources.limits", w.resources, path + ".resources"});
    m.push_back({"spec.containers[0].resources", w.resources, path + ".resources"});
  }
  for (size_t k = 0; k < parts.size(); ++k) json += (k > 0 ? "," : "") + parts[k];
  json += "}}";
  m.push_back({"", w.self, path});
  return objects_.Add(json, std::move(m), w.self->line(), tmpl_name,
                      fmt::format("(workload {})", w.name));
}

Result<SimSpec> Compiler::Compile() {
  SimSpec spec;
  spec.name = in_.name.empty() ? fs::path(std::string(file_)).stem().string() : in_.name;
  spec.description = in_.description;
  spec.source = std::string(file_);
  spec.seed = in_.seed;
  spec.duration_ns = in_.duration;
  spec.sample_interval_ns = in_.sample_interval;
  spec.bind_latency = in_.scheduler.bind_latency;
  spec.cost = in_.scheduler.cost;
  spec.gang_workload_cycle = in_.scheduler.workload_cycle;

  // Feature gates.
  if (const Node* g = in_.scheduler.gates) {
    for (size_t k = 0; k < g->size(); ++k) {
      const Node& v = g->value(k);
      std::string path = fmt::format("scheduler.featureGates[{}]", g->key(k).text());
      if (v.kind() != doc::Kind::kBool) {
        Error(&v, path, fmt::format("want true or false, got {}", Decoder::Describe(v)));
        continue;
      }
      if (auto st = spec.gates.Set(g->key(k).text(), v.bool_value()); !st.ok()) {
        Error(&v, path, st.error().message);
      } else {
        spec.explicit_gates.push_back(
            fmt::format("{}={}", g->key(k).text(), v.bool_value() ? "true" : "false"));
      }
    }
  }
  if (!in_.scheduler.config_path.empty()) {
    spec.scheduler_config_path = Resolve(in_.scheduler.config_path);
    std::error_code ec;
    if (!fs::is_regular_file(spec.scheduler_config_path, ec)) {
      Error(in_.scheduler.config_node, "scheduler.configPath",
            fmt::format("file {:?} does not exist", spec.scheduler_config_path));
    }
  }

  // Member clusters: unique names, each with its own scheduler settings.
  std::map<std::string, size_t> cluster_idx;
  std::string cluster_names;
  if (!in_.clusters.empty() && in_.top_pools_node != nullptr) {
    Error(in_.top_pools_node, "nodePools",
          "a scenario with clusters declares its node pools per cluster (clusters[].nodePools)");
  }
  if (!in_.clusters.empty() &&
      (in_.scheduler.gates != nullptr || in_.scheduler.config_node != nullptr)) {
    const Node* at =
        in_.scheduler.gates != nullptr ? in_.scheduler.gates : in_.scheduler.config_node;
    Error(at, in_.scheduler.gates != nullptr ? "scheduler.featureGates" : "scheduler.configPath",
          "a scenario with clusters sets feature gates and configPath per cluster "
          "(clusters[].scheduler)");
  }
  for (size_t c = 0; c < in_.clusters.size(); ++c) {
    const ClusterIn& ci = in_.clusters[c];
    std::string path =
        fmt::format("clusters[{}]", ci.index >= 0 ? static_cast<size_t>(ci.index) : c);
    ClusterSpec cs;
    cs.name = ci.name;
    if (!ci.name.empty()) {
      if (!cluster_idx.emplace(ci.name, c).second) {
        Error(ci.name_node, path + ".name", fmt::format("duplicate cluster name {:?}", ci.name));
      } else {
        cluster_names += (cluster_names.empty() ? "" : ", ") + ci.name;
      }
    }
    if (const Node* g = ci.scheduler.gates) {
      for (size_t k = 0; k < g->size(); ++k) {
        const Node& v = g->value(k);
        std::string gpath = fmt::format("{}.scheduler.featureGates[{}]", path, g->key(k).text());
        if (v.kind() != doc::Kind::kBool) {
          Error(&v, gpath, fmt::format("want true or false, got {}", Decoder::Describe(v)));
          continue;
        }
        if (auto st = cs.gates.Set(g->key(k).text(), v.bool_value()); !st.ok()) {
          Error(&v, gpath, st.error().message);
        } else {
          cs.explicit_gates.push_back(
              fmt::format("{}={}", g->key(k).text(), v.bool_value() ? "true" : "false"));
        }
      }
    }
    if (!ci.scheduler.config_path.empty()) {
      cs.scheduler_config_path = Resolve(ci.scheduler.config_path);
      std::error_code ec;
      if (!fs::is_regular_file(cs.scheduler_config_path, ec)) {
        Error(ci.scheduler.config_node, path + ".scheduler.configPath",
              fmt::format("file {:?} does not exist", cs.scheduler_config_path));
      }
    }
    spec.clusters.push_back(std::move(cs));
  }
  if (in_.clusters_node != nullptr && in_.clusters.empty()) {
    Error(in_.clusters_node, "clusters", "must declare at least one cluster");
  }

  // Names must be unique.
  std::map<std::string, size_t> pool_idx, wl_idx;
  for (size_t i = 0; i < in_.pools.size(); ++i) {
    if (in_.pools[i].name.empty()) continue;
    if (!pool_idx.emplace(in_.pools[i].name, i).second) {
      Error(in_.pools[i].self->Find("name"), in_.pools[i].path + ".name",
            fmt::format("duplicate pool name {:?}", in_.pools[i].name));
    }
  }
  for (size_t i = 0; i < in_.workloads.size(); ++i) {
    if (in_.workloads[i].name.empty()) continue;
    if (!wl_idx.emplace(in_.workloads[i].name, i).second) {
      Error(in_.workloads[i].self->Find("name"), fmt::format("workloads[{}].name", i),
            fmt::format("duplicate workload name {:?}", in_.workloads[i].name));
    }
  }

  AddPriorityClasses();
  AddNamespaces();
  std::vector<size_t> pool_piece(in_.pools.size()), wl_piece(in_.workloads.size());
  for (size_t i = 0; i < in_.pools.size(); ++i) pool_piece[i] = AddPool(i);
  for (size_t i = 0; i < in_.workloads.size(); ++i) wl_piece[i] = AddWorkloadTemplate(i);
  for (size_t i = 0; i < in_.manifests.size(); ++i) {
    objects_.AddPath(Resolve(in_.manifests[i]));
    spec.manifest_paths.push_back(Resolve(in_.manifests[i]));
  }

  api::ObjectSet objs = objects_.Finish(diags_);
  std::vector<api::Controller> controllers = objects_.TakeControllers();

  // Map loaded templates back to their pieces.
  std::map<size_t, const api::Node*> node_by_piece;
  std::map<size_t, const api::Pod*> pod_by_piece;
  for (const auto& n : objs.nodes) {
    if (auto k = ObjectBuilder::PieceOf(interner_, n.meta)) {
      node_by_piece[*k] = &n;
    } else {
      spec.initial_nodes.push_back(n);
    }
  }
  std::vector<const api::Pod*> manifest_pods;
  for (const auto& p : objs.pods) {
    if (auto k = ObjectBuilder::PieceOf(interner_, p.meta)) {
      pod_by_piece[*k] = &p;
    } else {
      manifest_pods.push_back(&p);
    }
  }

  for (size_t i = 0; i < in_.pools.size(); ++i) {
    const PoolIn& p = in_.pools[i];
    NodePool pool;
    pool.name = p.name;
    pool.name_prefix = p.prefix.empty() ? p.name + "-" : p.prefix;
    pool.initial_count = p.count;
    pool.zones = p.zones;
    pool.racks_per_zone = p.racks;
    pool.cluster = p.cluster;
    if (auto it = node_by_piece.find(pool_piece[i]); it != node_by_piece.end()) {
      pool.tmpl = *it->second;
      pool.tmpl.meta.labels.Set(interner_.Intern("corral.dev/pool"), interner_.Intern(p.name));
    }
    spec.pools.push_back(std::move(pool));
  }
  for (size_t i = 0; i < in_.workloads.size(); ++i) {
    const WorkloadIn& w = in_.workloads[i];
    std::string path = fmt::format("workloads[{}]", i);
    PodTemplate t;
    t.name = w.name;
    t.name_prefix = w.name + "-";
    if (auto it = pod_by_piece.find(wl_piece[i]); it != pod_by_piece.end()) t.pod = *it->second;
    spec.pod_templates.push_back(std::move(t));
    Workload wk;
    wk.name = w.name;
    wk.kind = w.kind == "Job"    ? WorkloadKind::kJob
              : w.kind == "Gang" ? WorkloadKind::kGang
                                 : WorkloadKind::kPods;
    wk.tmpl = static_cast<uint32_t>(i);
    wk.pods_per_arrival = w.kind == "Pods" ? 1 : w.parallelism;
    wk.min_count = w.kind == "Gang" ? (w.min_count > 0 ? w.min_count : w.parallelism) : 0;
    wk.arrival = w.arrival;
    wk.arrival.count = w.count;
    wk.duration = w.duration;
    wk.recreate_on_evict = w.recreate;
    if (!in_.clusters.empty()) {
      if (w.cluster_node == nullptr) {
        if (in_.fleet.self == nullptr)  // else it arrives at the fleet (CompileFleet)
          Error(w.self, path,
                "missing required field \"cluster\" (a scenario with clusters places every "
                "workload in one of them)");
      } else if (auto it = cluster_idx.find(w.cluster); it == cluster_idx.end()) {
        Error(w.cluster_node, path + ".cluster",
              fmt::format("unknown cluster {:?} (declared: {})", w.cluster, cluster_names));
      } else {
        wk.cluster = static_cast<uint32_t>(it->second);
      }
    } else if (w.cluster_node != nullptr) {
      Error(w.cluster_node, path + ".cluster",
            "the scenario declares no clusters (add a clusters list, or drop the field)");
    }
    if (wk.arrival.kind == Arrival::Kind::kBurst && w.count < 0) {
      Error(w.self, path, "missing required field \"count\" (a burst needs a count)");
    }
    if (wk.arrival.kind != Arrival::Kind::kBurst && w.count < 0 &&
        w.arrival.stop_ns == kForeverNs && in_.duration == 0) {
      Error(w.self->Find("arrival"), path + ".arrival",
            "arrivals never end: set count or stop on the workload, or the scenario's duration");
    }
    if (wk.kind == WorkloadKind::kGang && !w.priority_class.empty()) {
      // A PodGroup for documentation of the gang's policy would go here once the scheduler
      // takes them.
    }
    if (!w.priority_class.empty() && !priority_names_.contains(w.priority_class)) {
      // The loader reports unknown classes on the template; nothing to add.
    }
    spec.workloads.push_back(std::move(wk));
  }

  // Before the fleet, whose work items may take their schedulePriority from a PriorityClass.
  spec.objects.priority_classes = std::move(objs.priority_classes);
  std::vector<FleetWorkloadRef> fleet_refs;
  for (size_t i = 0; i < in_.workloads.size(); ++i) {
    const WorkloadIn& w = in_.workloads[i];
    fleet_refs.push_back(
        {w.self, fmt::format("workloads[{}]", i), &w.fleet, w.cluster_node != nullptr});
  }
  spec.fleet = CompileFleet(in_.fleet, fleet_refs, spec, interner_, base_, diags_,
                            [&](const Node* at, std::string path, std::string msg) {
                              Error(at, std::move(path), std::move(msg));
                            });
  // The work items of fleet.objects, appended after the scenario's workloads.
  const size_t fleet_objects_first = in_.workloads.size();
  const size_t fleet_objects_end = spec.workloads.size();

  // Program: pool creation, then workload starts and user ops merged by time.
  for (size_t i = 0; i < in_.pools.size(); ++i) {
    if (in_.pools[i].count <= 0) continue;
    Op op;
    op.kind = Op::Kind::kCreateNodes;
    op.pool = static_cast<uint32_t>(i);
    op.count = in_.pools[i].count;
    op.line = in_.pools[i].self->line();
    op.describe = fmt::format("createNodes pool={} count={}", in_.pools[i].name, op.count);
    spec.program.push_back(std::move(op));
  }
  struct Timed {
    int64_t t;
    int order;  // workload starts (0) before user ops (1) at the same time
    size_t seq;
    Op op;
  };
  std::vector<Timed> timed;
  for (size_t i = 0; i < in_.workloads.size(); ++i) {
    Op op;
    op.kind = Op::Kind::kStartWorkload;
    op.workload = static_cast<uint32_t>(i);
    if (in_.workloads[i].start > 0) op.at_ns = in_.workloads[i].start;
    op.line = in_.workloads[i].self->line();
    op.describe = fmt::format("startWorkload workload={}", in_.workloads[i].name);
    timed.push_back({in_.workloads[i].start, 0, i, std::move(op)});
  }
  int64_t effective = 0;
  for (size_t i = 0; i < in_.ops.size(); ++i) {
    const OpIn& o = in_.ops[i];
    std::string path = fmt::format("ops[{}]", i);
    Op op;
    op.at_ns = o.at;
    if (o.at.has_value()) effective = std::max(effective, *o.at);
    op.line = o.self->line();
    op.count = o.count;
    op.remove = o.remove;
    auto need_pool = [&](bool required) {
      if (o.pool.empty()) {
        if (required) Error(o.self, path, "missing required field \"pool\"");
        return;
      }
      auto it = pool_idx.find(o.pool);
      if (it == pool_idx.end()) {
        Error(o.pool_node, path + ".pool", fmt::format("unknown pool {:?}", o.pool));
        return;
      }
      op.pool = static_cast<uint32_t>(it->second);
    };
    auto need_workload = [&]() {
      auto it = wl_idx.find(o.workload);
      if (o.workload.empty()) {
        Error(o.self, path, "missing required field \"workload\"");
      } else if (it == wl_idx.end()) {
        Error(o.workload_node, path + ".workload",
              fmt::format("unknown workload {:?}", o.workload));
      } else {
        op.workload = static_cast<uint32_t>(it->second);
      }
    };
    const std::string& k = o.op;
    std::string target = o.pool.empty() ? "all" : o.pool;
    std::string count = o.count < 0 ? "all" : std::to_string(o.count);
    if (k == "createNodes" || k == "addNodes") {
      op.kind = Op::Kind::kCreateNodes;
      need_pool(true);
      if (o.count < 0) Error(o.self, path, "missing required field \"count\"");
      op.describe = fmt::format("createNodes pool={} count={}", o.pool, o.count);
    } else if (k == "deleteNodes") {
      op.kind = Op::Kind::kDeleteNodes;
      need_pool(false);
      op.describe = fmt::format("deleteNodes pool={} count={}", target, count);
    } else if (k == "cordon") {
      op.kind = Op::Kind::kCordon;
      need_pool(false);
      op.describe = fmt::format("cordon pool={} count={}", target, count);
    } else if (k == "uncordon") {
      op.kind = Op::Kind::kUncordon;
      need_pool(false);
      op.describe = fmt::format("uncordon pool={} count={}", target, count);
    } else if (k == "drain") {
      op.kind = Op::Kind::kDrain;
      need_pool(false);
      op.describe =
          fmt::format("drain pool={} count={}{}", target, count, o.remove ? " remove" : "");
    } else if (k == "startWorkload" || k == "stopWorkload") {
      op.kind = k == "startWorkload" ? Op::Kind::kStartWorkload : Op::Kind::kStopWorkload;
      need_workload();
      op.describe = fmt::format("{} workload={}", k, o.workload);
    } else if (k == "setPriority") {
      op.kind = Op::Kind::kSetPriority;
      if (o.priority_class.empty()) {
        Error(o.self, path, "missing required field \"priorityClass\"");
      } else if (!priority_names_.contains(o.priority_class)) {
        Error(o.class_node, path + ".priorityClass",
              fmt::format("unknown priority class {:?} (declare it under priorityClasses)",
                          o.priority_class));
      }
      if (!o.has_value) Error(o.self, path, "missing required field \"value\"");
      op.priority_class = interner_.Intern(o.priority_class);
      op.priority_value = o.value;
      op.describe = fmt::format("setPriority priorityClass={} value={}", o.priority_class, o.value);
    } else if (k == "barrier") {
      op.kind = Op::Kind::kBarrier;
      op.namespaces = o.namespaces;
      op.attempted_only = o.stage == "Attempted";
      op.describe = fmt::format("barrier stage={}", o.stage);
    } else if (k == "sleep") {
      op.kind = Op::Kind::kSleep;
      if (!o.has_duration) Error(o.self, path, "missing required field \"duration\"");
      op.duration_ns = o.duration;
      op.describe = fmt::format("sleep duration={}", FormatGoDuration(o.duration));
    } else if (k == "createPods") {
      // A burst of `count` arrivals of a workload's template (its kind, parallelism, duration), as
      // a workload of its own so that `wait` can block on exactly these pods.
      need_workload();
      if (o.count < 0) Error(o.self, path, "missing required field \"count\"");
      if (op.workload != kNone && o.count >= 0) {
        Workload wk = spec.workloads[op.workload];
        wk.name = fmt::format("{}-op{}", wk.name, i);
        wk.arrival = Arrival{};
        wk.arrival.kind = Arrival::Kind::kBurst;
        wk.arrival.count = o.count;
        wk.wait = o.wait;
        spec.workloads.push_back(std::move(wk));
        op.workload = static_cast<uint32_t>(spec.workloads.size() - 1);
      }
      op.kind = Op::Kind::kStartWorkload;
      op.describe = fmt::format("createPods workload={} count={}{}", o.workload, o.count,
                                o.wait ? " wait" : "");
    } else if (k == "scale") {
      // A workload controller of the manifests gets a new replica count (a Job: parallelism).
      op.kind = Op::Kind::kScale;
      if (o.controller_kind.empty() || o.controller_name.empty() || o.replicas < 0) {
        Error(o.self, path, "scale needs kind, name and replicas");
      } else {
        for (size_t c = 0; c < controllers.size(); ++c) {
          if (api::ControllerKindName(controllers[c].kind) == o.controller_kind &&
              interner_.Str(controllers[c].meta.name) == o.controller_name &&
              interner_.Str(controllers[c].meta.namespace_) == o.controller_namespace) {
            op.controller = static_cast<uint32_t>(c);
          }
        }
        if (op.controller == kNone) {
          Error(o.controller_node, path + ".name",
                fmt::format("no {} {}/{} in the manifests", o.controller_kind,
                            o.controller_namespace, o.controller_name));
        }
        op.count = o.replicas;
      }
      op.describe = fmt::format("scale {} {}/{} replicas={}", o.controller_kind,
                                o.controller_namespace, o.controller_name, o.replicas);
    } else if (k == "churn") {
      // scheduler_perf's churn op on a pool's nodes and/or a Pods workload's pods.
      op.kind = Op::Kind::kChurn;
      need_pool(false);
      if (!o.workload.empty()) need_workload();
      if (o.pool.empty() && o.workload.empty())
        Error(o.self, path, "churn needs a pool, a workload or both");
      op.churn.mode = o.mode == "recreate" ? ChurnSpec::Mode::kRecreate : ChurnSpec::Mode::kCreate;
      // Scenario churn in create mode has no tick limit (number counts the recreate ring only).
      op.churn.number = op.churn.mode == ChurnSpec::Mode::kRecreate ? o.number : 0;
      op.churn.interval_ns = o.interval;
      if (o.has_duration) op.churn.stop_ns = effective + o.duration;
      if (op.pool != kNone) op.churn.node_pools.push_back(op.pool);
      if (op.workload != kNone) {
        if (spec.workloads[op.workload].kind != WorkloadKind::kPods) {
          Error(o.workload_node, path + ".workload",
                "churn creates single pods: the workload must be of kind Pods");
        }
        op.churn.workloads.push_back(op.workload);
      }
      op.describe = fmt::format("churn mode={}{}{} number={} interval={}", o.mode,
                                o.pool.empty() ? "" : " pool=" + o.pool,
                                o.workload.empty() ? "" : " workload=" + o.workload, o.number,
                                FormatGoDuration(o.interval));
    } else if (k == "deletePods") {
      op.kind = Op::Kind::kDeletePods;
      op.namespaces = o.namespaces;
      op.rate_per_s = o.rate;
      op.describe = "deletePods";
    } else if (!k.empty()) {
      Error(
          o.self->Find("op"), path + ".op",
          fmt::format(
              "unknown op {:?} (want createNodes, deleteNodes, cordon, uncordon, drain, "
              "createPods, "
              "startWorkload, stopWorkload, setPriority, churn, barrier, sleep, deletePods, scale)",
              k));
    }
    timed.push_back({effective, 1, in_.workloads.size() + i, std::move(op)});
  }
  std::stable_sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) {
    return a.t != b.t ? a.t < b.t : a.order != b.order ? a.order < b.order : a.seq < b.seq;
  });
  // Fleet objects start with the pools and arrive on their own schedule (fleet_objects.h).
  for (size_t i = fleet_objects_first; i < fleet_objects_end; ++i) {
    Op op;
    op.kind = Op::Kind::kStartWorkload;
    op.workload = static_cast<uint32_t>(i);
    op.describe = fmt::format("startWorkload workload={}", spec.workloads[i].name);
    spec.program.push_back(std::move(op));
  }
  for (auto& t : timed) spec.program.push_back(std::move(t.op));

  // Manifests: nodes at time 0, pods as an explicit workload.
  if (!manifest_pods.empty()) {
    AddManifestPods(manifest_pods, interner_, spec, diags_);
  }

  // Cluster objects other than nodes and pods.
  spec.objects.namespaces = std::move(objs.namespaces);
  spec.objects.pod_disruption_budgets = std::move(objs.pod_disruption_budgets);
  spec.objects.selector_owners = std::move(objs.selector_owners);
  spec.objects.workloads = std::move(objs.workloads);
  spec.objects.pod_groups = std::move(objs.pod_groups);
  spec.objects.composite_pod_groups = std::move(objs.composite_pod_groups);
  spec.objects.storage = std::move(objs.storage);
  spec.objects.resources = std::move(objs.resources);
  // Workload controllers of the manifests start after the initial nodes and manifest pods.
  size_t first = 0;
  while (first < spec.program.size() && !spec.program[first].at_ns.has_value() &&
         (spec.program[first].kind == Op::Kind::kCreateNodes ||
          (spec.program[first].kind == Op::Kind::kStartWorkload &&
           spec.workloads[spec.program[first].workload].name == "manifests"))) {
    ++first;
  }
  AddControllers(std::move(controllers), interner_, spec, diags_, first);

  if (diags_.has_errors()) return Error::Invalid(DiagnosticsMessage(diags_));
  return spec;
}

}  // namespace

Result<SimSpec> CompileScenario(ScenarioIn& in, std::string_view file, const std::string& base_dir,
                                Interner& interner, Diagnostics& diags,
                                const ScenarioOptions& opts) {
  if (!opts.fleet_estimator.empty()) {
    if (in.fleet.self == nullptr) {
      diags.Error(std::string(file), 0, "--estimator",
                  "applies to a scenario with a fleet section");
    } else if (opts.fleet_estimator == "accurate" || opts.fleet_estimator == "general") {
      in.fleet.estimator = opts.fleet_estimator == "accurate" ? FleetEstimatorKind::kAccurate
                                                              : FleetEstimatorKind::kGeneral;
    } else {
      diags.Error(
          std::string(file), 0, "--estimator",
          fmt::format("unknown estimator {:?} (want general or accurate)", opts.fleet_estimator));
    }
  }
  if (!opts.absent_clusters.empty()) {
    RemoveAbsentClusters(in, file, interner, diags, opts);
    if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  }
  Compiler c(in, file, base_dir, interner, diags, opts);
  return c.Compile();
}

}  // namespace corral::sim::scenario_internal
