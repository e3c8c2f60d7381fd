#include "corral/app/dispatch_members.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/config/scheduler_config.h"
#include "corral/framework/pod_info.h"
#include "corral/loader/loader.h"
#include "corral/plugins/registry.h"

namespace corral::app {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMemberConfigFile = "scheduler-config.yaml";

bool IsManifest(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// Whether `file` holds a Node or NodeList document (a top-level `kind: Node` line, or a JSON
// "kind": "Node").
bool HoldsNodes(const fs::path& file) {
  static const std::regex kYaml(R"(^kind:[ \t]*["']?Node(List)?["']?[ \t]*$)");
  static const std::regex kJson(R"("kind"[ \t]*:[ \t]*"Node(List)?")");
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, kYaml) || std::regex_search(line, kJson)) return true;
  }
  return false;
}

bool IsMemberDir(const fs::path& dir) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && IsManifest(e.path()) && HoldsNodes(e.path())) return true;
  }
  return false;
}

// Walks `dir` in path order: member folders whole, other manifests one by one.
void Walk(const fs::path& dir, DispatchInputs& out) {
  if (IsMemberDir(dir)) {
    out.member_dirs.push_back(dir.string());
    return;
  }
  std::vector<fs::path> entries;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  for (const fs::path& p : entries) {
    if (fs::is_directory(p)) {
      Walk(p, out);
    } else if (IsManifest(p)) {
      out.fleet_files.push_back(p.string());
    }
  }
}

api::ResourceList ToList(const framework::Resource& r, int64_t pods) {
  api::ResourceList out;
  out.emplace_back(api::wk::kCpu, api::Quantity::FromMilli(r.milli_cpu));
  out.emplace_back(api::wk::kMemory,
                   api::Quantity::FromInt(r.memory, api::Quantity::Format::kBinarySI));
  out.emplace_back(api::wk::kEphemeralStorage,
                   api::Quantity::FromInt(r.ephemeral_storage, api::Quantity::Format::kBinarySI));
  out.emplace_back(api::wk::kPods, api::Quantity::FromInt(pods));
  for (const auto& [name, v] : r.scalar) out.emplace_back(name, api::Quantity::FromInt(v));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::string MemoKey(const api::ReplicaRequirements* r, Symbol member, const Interner& in) {
  std::string key = std::to_string(member.id());
  if (r == nullptr) return key;
  key += fmt::format("|{}|{}|{}", r->namespace_.id(), r->priority_class_name.id(),
                     reinterpret_cast<uintptr_t>(r->pod_template.get()));
  for (const auto& [name, q] : r->resource_request) {
    key += fmt::format("|{}={}", in.Str(name), q.MilliValue());
  }
  return key;
}

}  // namespace

Result<DispatchInputs> SplitDispatchInputs(std::span<const std::string> inputs) {
  DispatchInputs out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::exists(in, ec))
      return Error::Invalid(fmt::format("{}: no such file or directory", in));
    if (fs::is_directory(in, ec)) {
      Walk(in, out);
    } else {
      out.fleet_files.push_back(in);
    }
  }
  return out;
}

Members::Members(Interner& interner)
    : interner_(interner), registry_(plugins::NewInTreeRegistry()) {}
Members::~Members() = default;

Result<MemberCluster*> Members::Add(Symbol name, std::string path, api::ObjectSet objects,
                                    std::optional<framework::SchedulerConfig> config) {
  if (const MemberCluster* other = Find(name)) {
    return Error::Invalid(fmt::format("{}: member cluster {:?} is given twice (folder {})", path,
                                      interner_.Str(name), other->path));
  }
  auto m = std::make_unique<MemberCluster>();
  m->name = name;
  m->path = std::move(path);
  m->objects = std::move(objects);
  if (config.has_value()) m->options.config = std::move(*config);
  auto s = scheduler::Scheduler::New(interner_, clock_, m->options, registry_);
  if (!s.ok()) return s.error();
  m->scheduler = std::move(s).value();
  m->scheduler->SetClusterObjects(&m->objects);
  for (const api::Node& n : m->objects.nodes) m->scheduler->AddNode(&n);
  for (const api::Pod& p : m->objects.pods) {
    if (p.IsBound()) m->scheduler->AddPod(&p);
  }
  members_.push_back(std::move(m));
  return members_.back().get();
}

Result<void> Members::Load(std::span<const std::string> dirs, std::span<const std::string> configs,
                           doc::FieldValidation unknown_fields, Diagnostics* warnings) {
  const bool strict = unknown_fields == doc::FieldValidation::kStrict;
  std::string errors;
  auto fail = [&](std::string msg) {
    if (!errors.empty()) errors += "\n";
    errors += std::move(msg);
  };
  // NAME=PATH, each member at most once.
  std::map<std::string, std::string> given;
  for (const std::string& c : configs) {
    const size_t eq = c.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == c.size()) {
      fail(fmt::format("--member-config {:?}: want NAME=PATH", c));
    } else if (!given.emplace(c.substr(0, eq), c.substr(eq + 1)).second) {
      fail(fmt::format("--member-config {:?}: member {:?} is given a configuration twice", c,
                       c.substr(0, eq)));
    }
  }
  std::set<std::string> used;
  for (const std::string& dir : dirs) {
    std::string base = fs::path(dir).lexically_normal().filename().string();
    if (base.empty()) base = fs::path(dir).lexically_normal().parent_path().filename().string();
    // The member's own scheduler configuration: given by name, else scheduler-config.yaml in its
    // folder, which is then not one of its manifests.
    const fs::path own = fs::path(dir) / kMemberConfigFile;
    std::string config_path;
    if (auto it = given.find(base); it != given.end()) {
      config_path = it->second;
      used.insert(base);
    } else if (fs::is_regular_file(own)) {
      config_path = own.string();
    }
    std::vector<std::string> paths;
    std::vector<fs::path> entries;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
      entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const fs::path& p : entries) {
      if (p.filename() == kMemberConfigFile && fs::is_regular_file(p)) continue;
      paths.push_back(p.string());
    }
    loader::LoadResult loaded =
        loader::LoadPaths(paths, interner_, {.strict = strict, .unknown_fields = unknown_fields});
    // Relaxed, the loader reports its other warnings as warnings too: they stay errors here.
    auto relaxed = [](const Diagnostic& d) {
      return d.severity == Severity::kWarning && d.message.starts_with("unknown field ");
    };
    bool failed = !loaded.ok();
    for (const Diagnostic& d : loaded.diagnostics.items()) failed = failed || !relaxed(d);
    if (failed) {
      for (const Diagnostic& d : loaded.diagnostics.items()) {
        if (!relaxed(d)) fail(d.ToString());
      }
      continue;
    }
    if (warnings != nullptr) {
      for (const Diagnostic& d : loaded.diagnostics.items())
        warnings->Warning(d.file, d.line, d.path, d.message);
    }
    std::optional<framework::SchedulerConfig> config;
    if (!config_path.empty()) {
      Diagnostics diags;
      auto cfg =
          config::LoadSchedulerConfig(config_path, interner_, framework::FeatureGates(), diags);
      if (!cfg.ok()) {
        if (diags.has_errors()) {
          for (const Diagnostic& d : diags.items()) fail(d.ToString());
        } else {
          fail(fmt::format("{}: {}", config_path, cfg.error().message));
        }
        continue;
      }
      config = std::move(cfg).value();
    }
    auto added = Add(interner_.Intern(base), dir, std::move(loaded.objects), std::move(config));
    if (!added.ok()) return added.error();
    (*added)->config_path = config_path;
  }
  for (const auto& [name, path] : given) {
    if (!used.contains(name)) {
      fail(fmt::format("--member-config {}={}: no member folder is named {:?}", name, path, name));
    }
  }
  if (!errors.empty()) return Error::Invalid(errors);
  return {};
}

Result<void> Members::Attach(std::vector<api::Cluster>& clusters) const {
  for (const auto& m : members_) {
    bool named = false;
    for (api::Cluster& c : clusters) {
      if (c.meta.name != m->name) continue;
      named = true;
      const std::string where =
          fmt::format("{}:{}", interner_.Str(c.meta.source.file), c.meta.source.line);
      if (c.resource_summary.has_value()) {
        return Error::Invalid(fmt::format(
            "{}: status.resourceSummary: cluster {:?} is also given as the member folder {}, "
            "whose summary is computed from its nodes and pods; give one or the other",
            where, interner_.Str(m->name), m->path));
      }
      if (!c.resource_models.empty()) {
        return Error::Invalid(fmt::format(
            "{}: spec.resourceModels: not supported for a member given as a folder ({}): "
            "allocatableModelings are not computed from its nodes",
            where, m->path));
      }
      c.resource_summary = MemberResourceSummary(m->objects, interner_);
    }
    if (named) continue;
    api::Cluster c;
    c.meta.name = m->name;
    c.meta.source.file = interner_.Intern(m->path);
    c.source_kind = api::ClusterSourceKind::kKarmadaCluster;
    c.complete_api_enablements = true;
    auto api = [&](std::string_view gv, std::initializer_list<std::string_view> kinds) {
      api::ApiEnablement e;
      e.group_version = interner_.Intern(gv);
      for (std::string_view k : kinds) e.kinds.push_back(interner_.Intern(k));
      c.api_enablements.push_back(std::move(e));
    };
    api("apps/v1", {"DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"});
    api("batch/v1", {"CronJob", "Job"});
    api("v1", {"ConfigMap", "Pod", "Secret", "Service"});
    c.resource_summary = MemberResourceSummary(m->objects, interner_);
    clusters.push_back(std::move(c));
  }
  return {};
}

const MemberCluster* Members::Find(Symbol name) const {
  for (const auto& m : members_) {
    if (m->name == name) return m.get();
  }
  return nullptr;
}

MemberCluster* Members::Find(Symbol name) {
  return const_cast<MemberCluster*>(std::as_const(*this).Find(name));
}

api::ResourceSummary MemberResourceSummary(const api::ObjectSet& objects,
                                           const Interner& interner) {
  api::ResourceSummary s;
  framework::Resource allocatable;
  for (const api::Node& n : objects.nodes) {
    allocatable.Add(framework::Resource::FromList(n.allocatable));
  }
  s.allocatable = ToList(allocatable, allocatable.allowed_pod_number);
  framework::FeatureGates gates;
  framework::Resource allocated, allocating;
  int64_t bound = 0, pending = 0;
  for (const api::Pod& p : objects.pods) {
    if (p.IsBound()) {
      if (p.phase == api::PodPhase::kSucceeded || p.phase == api::PodPhase::kFailed) continue;
      allocated.Add(framework::ComputePodRequest(p, gates, &interner));
      ++bound;
    } else {
      allocating.Add(framework::ComputePodRequest(p, gates, &interner));
      ++pending;
    }
  }
  s.allocated = ToList(allocated, bound);
  s.allocating = ToList(allocating, pending);
  return s;
}

api::Pod ReplicaPod(const api::ReplicaRequirements& requirements, Symbol name,
                    const api::ObjectSet& member, Interner& interner) {
  api::Pod pod;
  if (requirements.pod_template != nullptr) {
    pod = *requirements.pod_template;
  } else {
    api::Container c;
    c.name = interner.Intern("replica");
    c.resources.requests = requirements.resource_request;
    pod.containers.push_back(std::move(c));
    pod.priority_class_name = requirements.priority_class_name;
  }
  pod.meta.name = name;
  pod.meta.namespace_ =
      requirements.namespace_.empty() ? api::wk::kDefaultNamespace : requirements.namespace_;
  if (pod.scheduler_name.empty()) pod.scheduler_name = api::wk::kDefaultScheduler;
  pod.node_name = Symbol();
  pod.priority = 0;
  for (const api::PriorityClass& pc : member.priority_classes) {
    if (pc.meta.name == pod.priority_class_name) pod.priority = pc.value;
  }
  return pod;
}

std::vector<int32_t> AccurateEstimator::MaxAvailableReplicas(
    std::span<const api::Cluster* const> clusters,
    const api::ReplicaRequirements* requirements) const {
  std::vector<int32_t> out;
  out.reserve(clusters.size());
  Interner& in = members_.interner();
  for (const api::Cluster* c : clusters) {
    MemberCluster* m = members_.Find(c->meta.name);
    if (m == nullptr) {
      out.push_back(fleet::kUnauthenticReplica);
      continue;
    }
    std::string key = MemoKey(requirements, m->name, in);
    if (auto it = memo_.find(key); it != memo_.end()) {
      ++hits_;
      out.push_back(it->second);
      continue;
    }
    ++computed_;
    api::ReplicaRequirements none;
    api::Pod pod = ReplicaPod(requirements != nullptr ? *requirements : none, in.Intern("replica"),
                              m->objects, in);
    // At most every free pod slot of the member can be taken.
    int64_t slots = 0;
    for (const api::Node& n : m->objects.nodes) {
      slots += framework::Resource::FromList(n.allocatable).allowed_pod_number;
    }
    for (const api::Pod& p : m->objects.pods) slots -= p.IsBound() ? 1 : 0;
    const auto max =
        static_cast<int32_t>(std::clamp<int64_t>(slots, 0, std::numeric_limits<int32_t>::max()));
    const scheduler::MemberSource source{&in, &m->objects, &m->options, &members_.registry()};
    auto n = scheduler::EstimateReplicas(*m->scheduler, source, pod, max);
    // Karmada's estimator client treats a failed estimate as no answer.
    const int32_t answer = n.ok() ? *n : fleet::kUnauthenticReplica;
    memo_.emplace(std::move(key), answer);
    out.push_back(answer);
  }
  return out;
}

std::optional<bool> AccurateEstimator::FitsWhole(const api::Cluster& cluster,
                                                 const api::FleetWork& work) const {
  MemberCluster* m = members_.Find(cluster.meta.name);
  if (m == nullptr) return std::nullopt;
  Interner& in = members_.interner();
  std::vector<api::Pod> pods;
  pods.reserve(work.pod_sets.size());
  for (const api::PodSetTemplate& s : work.pod_sets) {
    api::ReplicaRequirements r;
    r.namespace_ = work.meta.namespace_;
    r.pod_template = s.pod;
    pods.push_back(ReplicaPod(r, work.meta.name, m->objects, in));
  }
  std::vector<scheduler::PodSetRequest> sets;
  for (size_t i = 0; i < pods.size(); ++i) sets.push_back({&pods[i], work.pod_sets[i].count});
  const scheduler::MemberSource source{&in, &m->objects, &m->options, &members_.registry()};
  auto fits = scheduler::GangFits(*m->scheduler, source, sets);
  if (!fits.ok()) return std::nullopt;
  return *fits;
}

}  // namespace corral::app
