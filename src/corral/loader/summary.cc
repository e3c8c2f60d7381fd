#include "corral/loader/summary.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace corral::loader {

namespace {

int ResourceRank(std::string_view name) {
  if (name == "cpu") return 0;
  if (name == "memory") return 1;
  if (name == "ephemeral-storage") return 2;
  if (name == "pods") return 3;
  return 4;
}

// An aligned text table: two spaces between columns, numbers right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<bool> right)
      : right_(std::move(right)) {
    rows_.push_back(std::move(header));
  }
  void Row(std::vector<std::string> r) { rows_.push_back(std::move(r)); }
  std::string Render() const {
    std::vector<size_t> width(rows_[0].size(), 0);
    for (const auto& r : rows_) {
      for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
    }
    std::string out;
    for (const auto& r : rows_) {
      std::string line;
      for (size_t i = 0; i < r.size(); ++i) {
        if (i > 0) line += "  ";
        if (right_[i]) {
          line += fmt::format("{:>{}}", r[i], width[i]);
        } else {
          line += fmt::format("{:<{}}", r[i], width[i]);
        }
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line;
      out += '\n';
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> right_;
};

// A quantity for people: memory-like sizes in the largest binary unit with one decimal ("93.9Gi"),
// CPU in cores ("219.03"), everything else in kube's canonical form.
std::string Human(std::string_view name, const api::Quantity& q) {
  bool bytes = name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-") ||
               q.format() == api::Quantity::Format::kBinarySI;
  if (bytes) {
    int64_t v = q.Value();
    constexpr std::string_view kUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    size_t unit = 0;
    double x = static_cast<double>(v);
    while (unit + 1 < std::size(kUnits) && x >= 1024) {
      x /= 1024;
      ++unit;
    }
    if (unit == 0) return std::to_string(v);
    std::string out = fmt::format("{:.1f}", x);
    if (out.ends_with(".0")) out.resize(out.size() - 2);
    return out + std::string(kUnits[unit]);
  }
  if (name == "cpu") {
    int64_t m = q.MilliValue();
    std::string out = fmt::format("{}.{:03d}", m / 1000, m % 1000);
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
    return out;
  }
  if (q.MilliValue() % 1000 == 0) return std::to_string(q.Value());  // counts: 550000, not 550k
  return q.String();
}

std::string PolicyName(const api::PodGroupSchedulingPolicy& p) {
  return p.kind == api::PodGroupPolicyKind::kGang ? "gang" : "basic";
}

}  // namespace

Summary Summarize(const LoadResult& result, const Interner& in) {
  Summary s;
  s.counts = result.counts;
  s.errors = result.diagnostics.error_count();
  s.warnings = result.diagnostics.warning_count();
  const api::ObjectSet& o = result.objects;

  // Nodes and their allocatable resources.
  s.nodes = o.nodes.size();
  std::map<std::tuple<int, std::string>, api::Quantity> totals;
  for (const auto& n : o.nodes) {
    if (n.unschedulable) ++s.unschedulable_nodes;
    if (!n.taints.empty()) ++s.tainted_nodes;
    for (const auto& [name, q] : n.allocatable) {
      std::string key(in.Str(name));
      auto k = std::make_tuple(ResourceRank(key), key);
      auto it = totals.find(k);
      if (it == totals.end()) {
        totals.emplace(k, q);  // keep the first quantity's format (e.g. Gi) for the sum
      } else if (auto sum = it->second.Add(q); sum.ok()) {
        it->second = *sum;
      }
    }
  }
  for (const auto& [k, q] : totals) s.allocatable.push_back({std::get<1>(k), q});

  // Pods.
  std::map<std::string, size_t> pods_per_class;
  std::map<std::tuple<Symbol, Symbol, Symbol>, size_t> alpha_members;  // (ns, workload, podGroup)
  std::map<std::pair<Symbol, Symbol>, size_t> group_members;           // (ns, podGroup)
  for (const auto& p : o.pods) {
    ++s.pods;
    if (p.IsTerminating()) ++s.terminating;
    if (p.phase == api::PodPhase::kSucceeded || p.phase == api::PodPhase::kFailed) {
      ++s.finished;
    } else if (p.IsBound()) {
      ++s.bound;
    } else {
      ++s.pending;
      if (!p.scheduling_gates.empty()) ++s.gated;
    }
    ++pods_per_class[std::string(in.Str(p.priority_class_name))];
    if (p.workload_ref)
      ++alpha_members[{p.meta.namespace_, p.workload_ref->name, p.workload_ref->pod_group}];
    if (p.scheduling_group)
      ++group_members[{p.meta.namespace_, p.scheduling_group->pod_group_name}];
  }

  for (const auto& pc : o.priority_classes) {
    Summary::PriorityClassRow row;
    row.name = in.Str(pc.meta.name);
    row.value = pc.value;
    row.global_default = pc.global_default;
    row.builtin = pc.meta.source.file.empty();
    auto it = pods_per_class.find(row.name);
    row.pods = it == pods_per_class.end() ? 0 : it->second;
    s.priority_classes.push_back(std::move(row));
  }
  std::stable_sort(s.priority_classes.begin(), s.priority_classes.end(),
                   [](const auto& a, const auto& b) {
                     return std::tie(b.value, a.name) < std::tie(a.value, b.name);
                   });
  s.pods_without_class = pods_per_class.count("") ? pods_per_class.at("") : 0;

  for (const auto& w : o.workloads) {
    for (const auto& g : w.pod_groups) {
      Summary::Group row;
      row.workload = fmt::format("{}/{}", in.Str(w.meta.namespace_), in.Str(w.meta.name));
      row.api = w.generation == api::WorkloadApiGeneration::kV1Alpha1 ? "v1alpha1" : "current";
      row.group = in.Str(g.name);
      row.policy = PolicyName(g.policy);
      row.min_count = g.policy.min_count;
      if (w.generation == api::WorkloadApiGeneration::kV1Alpha1) {
        auto it = alpha_members.find({w.meta.namespace_, w.meta.name, g.name});
        row.pods = it == alpha_members.end() ? 0 : it->second;
      } else {
        // Current generation: members join PodGroups created from the template.
        for (const auto& pg : o.pod_groups) {
          if (pg.meta.namespace_ == w.meta.namespace_ && pg.template_workload_name == w.meta.name &&
              pg.template_name == g.name) {
            auto it = group_members.find({pg.meta.namespace_, pg.meta.name});
            if (it != group_members.end()) row.pods += it->second;
          }
        }
      }
      s.workload_groups.push_back(std::move(row));
    }
  }
  for (const auto& pg : o.pod_groups) {
    Summary::Group row;
    row.workload = fmt::format("{}/{}", in.Str(pg.meta.namespace_), in.Str(pg.meta.name));
    row.api =
        pg.template_workload_name.empty()
            ? ""
            : fmt::format("{}/{}", in.Str(pg.template_workload_name), in.Str(pg.template_name));
    row.policy = PolicyName(pg.policy);
    row.min_count = pg.policy.min_count;
    auto it = group_members.find({pg.meta.namespace_, pg.meta.name});
    row.pods = it == group_members.end() ? 0 : it->second;
    s.pod_groups.push_back(std::move(row));
  }
  return s;
}

std::string RenderTable(const Summary& s) {
  std::string out;
  out += fmt::format("{} files, {} documents, {} objects; {} errors, {} warnings\n", s.counts.files,
                     s.counts.documents, s.counts.objects, s.errors, s.warnings);
  if (s.counts.unknown_fields > 0) {
    // Without warnings the fields were ignored silently on request (--validate=ignore).
    out += fmt::format("{} unknown fields ignored ({})\n", s.counts.unknown_fields,
                       s.warnings > 0 ? "named in the warnings" : "--validate=ignore");
  }

  Table kinds({"KIND", "COUNT"}, {false, true});
  for (const auto& [kind, n] : s.counts.per_kind) {
    if (n > 0) kinds.Row({kind, std::to_string(n)});
  }
  out += '\n' + kinds.Render();
  if (!s.counts.skipped_kinds.empty()) {
    Table skipped({"SKIPPED KIND", "COUNT"}, {false, true});
    for (const auto& [kind, n] : s.counts.skipped_kinds) skipped.Row({kind, std::to_string(n)});
    out += '\n' + skipped.Render();
  }

  out += fmt::format("\nNODES {} ({} unschedulable, {} tainted)\n", s.nodes, s.unschedulable_nodes,
                     s.tainted_nodes);
  if (!s.allocatable.empty()) {
    Table res({"RESOURCE", "ALLOCATABLE"}, {false, true});
    for (const auto& r : s.allocatable) res.Row({r.name, Human(r.name, r.allocatable)});
    out += res.Render();
  }

  out += fmt::format("\nPODS {}\n", s.pods);
  Table pods({"STATE", "COUNT"}, {false, true});
  pods.Row({"bound", std::to_string(s.bound)});
  pods.Row({"pending", std::to_string(s.pending)});
  pods.Row({"  gated", std::to_string(s.gated)});
  pods.Row({"finished", std::to_string(s.finished)});
  pods.Row({"terminating", std::to_string(s.terminating)});
  out += pods.Render();

  Table pcs({"PRIORITY CLASS", "VALUE", "DEFAULT", "PODS"}, {false, true, false, true});
  for (const auto& pc : s.priority_classes) {
    pcs.Row({pc.builtin ? pc.name + " (built-in)" : pc.name, std::to_string(pc.value),
             pc.global_default ? "yes" : "", std::to_string(pc.pods)});
  }
  if (s.pods_without_class > 0)
    pcs.Row({"(none: priority 0)", "0", "", std::to_string(s.pods_without_class)});
  out += '\n' + pcs.Render();

  if (!s.workload_groups.empty()) {
    Table w({"WORKLOAD", "API", "POD GROUP", "POLICY", "MIN", "PODS"},
            {false, false, false, false, true, true});
    for (const auto& g : s.workload_groups) {
      w.Row({g.workload, g.api, g.group, g.policy,
             g.policy == "gang" ? std::to_string(g.min_count) : "-", std::to_string(g.pods)});
    }
    out += '\n' + w.Render();
  }
  if (!s.pod_groups.empty()) {
    Table g({"POD GROUP", "TEMPLATE", "POLICY", "MIN", "PODS"}, {false, false, false, true, true});
    for (const auto& r : s.pod_groups) {
      g.Row({r.workload, r.api.empty() ? "-" : r.api, r.policy,
             r.policy == "gang" ? std::to_string(r.min_count) : "-", std::to_string(r.pods)});
    }
    out += '\n' + g.Render();
  }
  return out;
}

std::string RenderJson(const Summary& s, const Diagnostics& diags) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["valid"] = s.errors == 0;
  j["files"] = s.counts.files;
  j["documents"] = s.counts.documents;
  j["objects"] = s.counts.objects;
  j["errors"] = s.errors;
  j["warnings"] = s.warnings;
  j["kinds"] = Json::object();
  for (const auto& [kind, n] : s.counts.per_kind) {
    if (n > 0) j["kinds"][kind] = n;
  }
  j["skippedKinds"] = Json::object();
  for (const auto& [kind, n] : s.counts.skipped_kinds) j["skippedKinds"][kind] = n;
  j["unknownFields"] = s.counts.unknown_fields;
  j["rejectedObjects"] = s.counts.rejected;
  Json nodes;
  nodes["count"] = s.nodes;
  nodes["unschedulable"] = s.unschedulable_nodes;
  nodes["tainted"] = s.tainted_nodes;
  nodes["allocatable"] = Json::object();
  for (const auto& r : s.allocatable) nodes["allocatable"][r.name] = r.allocatable.String();
  j["nodes"] = nodes;
  j["pods"] = {{"count", s.pods},  {"bound", s.bound},       {"pending", s.pending},
               {"gated", s.gated}, {"finished", s.finished}, {"terminating", s.terminating}};
  j["podsWithoutPriorityClass"] = s.pods_without_class;
  j["priorityClasses"] = Json::array();
  for (const auto& pc : s.priority_classes) {
    j["priorityClasses"].push_back({{"name", pc.name},
                                    {"value", pc.value},
                                    {"globalDefault", pc.global_default},
                                    {"builtin", pc.builtin},
                                    {"pods", pc.pods}});
  }
  j["workloads"] = Json::array();
  for (const auto& g : s.workload_groups) {
    j["workloads"].push_back({{"workload", g.workload},
                              {"api", g.api},
                              {"podGroup", g.group},
                              {"policy", g.policy},
                              {"minCount", g.min_count},
                              {"pods", g.pods}});
  }
  j["podGroups"] = Json::array();
  for (const auto& g : s.pod_groups) {
    j["podGroups"].push_back({{"podGroup", g.workload},
                              {"template", g.api},
                              {"policy", g.policy},
                              {"minCount", g.min_count},
                              {"pods", g.pods}});
  }
  j["diagnostics"] = Json::array();
  for (const auto& d : diags.items()) {
    j["diagnostics"].push_back({{"severity", d.severity == Severity::kError ? "error" : "warning"},
                                {"file", d.file},
                                {"line", d.line},
                                {"path", d.path},
                                {"message", d.message}});
  }
  return j.dump(2) + "\n";
}

}  // namespace corral::loader
