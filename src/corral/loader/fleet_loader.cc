#include "corral/loader/fleet_loader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/doc/decoder.h"
#include "corral/doc/input.h"
#include "corral/doc/parse.h"
#include "corral/loader/internal/decode.h"
#include "corral/loader/internal/decode_fleet.h"

namespace corral::loader {

namespace {

namespace fs = std::filesystem;
using doc::Decoder;
using doc::Node;

enum class FleetKind {
  kKarmadaCluster,
  kResourceBinding,
  kClusterResourceBinding,
  kMultiKueueCluster,
  kMultiKueueConfig,
  kWorkload,
  kDispatcherProfile,
  kPropagationPolicy,
  kClusterPropagationPolicy,
  kTemplate,
  kPriorityClass,
};

struct FleetKindEntry {
  std::string_view api_version;
  std::string_view kind;
  FleetKind which;
};

constexpr FleetKindEntry kFleetKinds[] = {
    {"cluster.karmada.io/v1alpha1", "Cluster", FleetKind::kKarmadaCluster},
    {"work.karmada.io/v1alpha2", "ResourceBinding", FleetKind::kResourceBinding},
    {"work.karmada.io/v1alpha2", "ClusterResourceBinding", FleetKind::kClusterResourceBinding},
    {"kueue.x-k8s.io/v1beta1", "MultiKueueCluster", FleetKind::kMultiKueueCluster},
    {"kueue.x-k8s.io/v1beta2", "MultiKueueCluster", FleetKind::kMultiKueueCluster},
    {"kueue.x-k8s.io/v1beta1", "MultiKueueConfig", FleetKind::kMultiKueueConfig},
    {"kueue.x-k8s.io/v1beta2", "MultiKueueConfig", FleetKind::kMultiKueueConfig},
    {"kueue.x-k8s.io/v1beta1", "Workload", FleetKind::kWorkload},
    {"kueue.x-k8s.io/v1beta2", "Workload", FleetKind::kWorkload},
    {"kueue.x-k8s.io/v1beta2", "ClusterDispatcherProfile", FleetKind::kDispatcherProfile},
    {"policy.karmada.io/v1alpha1", "PropagationPolicy", FleetKind::kPropagationPolicy},
    {"policy.karmada.io/v1alpha1", "ClusterPropagationPolicy",
     FleetKind::kClusterPropagationPolicy},
    {"apps/v1", "Deployment", FleetKind::kTemplate},
    {"apps/v1", "StatefulSet", FleetKind::kTemplate},
    {"batch/v1", "Job", FleetKind::kTemplate},
    {"scheduling.k8s.io/v1", "PriorityClass", FleetKind::kPriorityClass},
};

std::string_view TextOf(const Node* n) {
  return n != nullptr && n->is_string() ? n->text() : "";
}

class FleetLoader {
 public:
  explicit FleetLoader(Interner& interner, FleetLoadOptions opts = {})
      : in_(interner), opts_(opts) {}

  void AddPath(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> files;
      for (auto it = fs::recursive_directory_iterator(path, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path& p = it->path();
        if (p.filename().string().starts_with(".")) {
          if (it->is_directory(ec)) it.disable_recursion_pending();
          continue;
        }
        if (it->is_directory(ec)) continue;
        std::string ext = p.extension().string();
        if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(p.string());
      }
      std::sort(files.begin(), files.end());
      for (const std::string& f : files) AddFile(f);
      return;
    }
    AddFile(path);
  }

  void AddFile(const std::string& path) {
    Result<doc::InputBuffer> input = doc::InputBuffer::ReadFile(path);
    if (!input.ok()) {
      result_.diagnostics.Error(path, 0, "", input.error().message);
      return;
    }
    bool json = fs::path(path).extension() == ".json" || doc::LooksLikeJson(input->text());
    Add(std::move(*input), path, json);
  }

  void AddString(std::string_view content, std::string_view filename) {
    bool json = fs::path(filename).extension() == ".json" || doc::LooksLikeJson(content);
    Add(doc::InputBuffer::Copy(content), filename, json);
  }

  FleetLoadResult Finish() {
    MatchTemplates();
    CheckDuplicates();
    SortDiagnostics();
    return std::move(result_);
  }

 private:
  void Add(doc::InputBuffer content, std::string_view filename, bool json) {
    doc::Stream stream = json ? doc::ParseJsonAdopt(std::move(content), filename, Diags())
                              : doc::ParseYamlAdopt(std::move(content), filename, Diags());
    // Strict unless unknown fields are relaxed; the decoder's only other warnings are inside JSON
    // annotation values, which their own strict decoder reports as errors.
    const bool strict = opts_.unknown_fields == doc::FieldValidation::kStrict;
    Decoder d(filename, Diags(), &in_, {.strict = strict, .unknown_fields = opts_.unknown_fields});
    for (const Node& root : stream.documents()) {
      if (root.is_null()) continue;
      Decode(d, root);
    }
  }

  Diagnostics& Diags() { return result_.diagnostics; }

  // Orders each file's diagnostics by line (files in load order), as the manifest loader does.
  void SortDiagnostics() {
    const auto& items = result_.diagnostics.items();
    std::vector<std::string> files;
    auto rank = [&](const std::string& f) {
      auto it = std::find(files.begin(), files.end(), f);
      if (it == files.end()) {
        files.push_back(f);
        return files.size() - 1;
      }
      return static_cast<size_t>(it - files.begin());
    };
    std::vector<std::pair<std::pair<size_t, uint32_t>, size_t>> order;
    for (size_t i = 0; i < items.size(); ++i)
      order.push_back({{rank(items[i].file), items[i].line}, i});
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Diagnostics sorted;
    for (const auto& [key, i] : order) sorted.Add(items[i]);
    result_.diagnostics = std::move(sorted);
  }

  void Decode(Decoder& d, const Node& root) {
    if (!root.is_map()) {
      d.Error(root, fmt::format("expected an object (a map with apiVersion and kind), got {}",
                                Decoder::Describe(root)));
      return;
    }
    std::string_view api_version = TextOf(root.Find("apiVersion"));
    std::string_view kind = TextOf(root.Find("kind"));
    if (kind == "List" || (kind.ends_with("List") && root.Find("items") != nullptr)) {
      const Node* items = root.Find("items");
      if (items == nullptr || !items->is_sequence()) {
        d.Required(root, "items");
        return;
      }
      for (size_t i = 0; i < items->size(); ++i) {
        auto r = d.Root(fmt::format("items[{}]", i));
        Decode(d, items->items()[i]);
      }
      return;
    }
    if (kind.empty()) {
      d.Required(root, "kind");
      return;
    }
    if (api_version.empty()) {
      d.Required(root, "apiVersion");
      return;
    }
    const FleetKindEntry* entry = nullptr;
    for (const FleetKindEntry& k : kFleetKinds) {
      if (k.api_version == api_version && k.kind == kind) entry = &k;
    }
    if (entry == nullptr) {
      d.Error(root, fmt::format("unsupported kind {:?} of apiVersion {:?} for the fleet (want "
                                "Karmada Cluster, ResourceBinding, ClusterResourceBinding, "
                                "PropagationPolicy, ClusterPropagationPolicy with Deployment, "
                                "StatefulSet, Job templates and PriorityClasses; Kueue "
                                "MultiKueueCluster, MultiKueueConfig, Workload, "
                                "ClusterDispatcherProfile)",
                                kind, api_version));
      return;
    }
    size_t errors = d.error_count();
    FleetObjects& o = result_.objects;
    const api::SourceRef source{in_.Intern(d.file()), root.line()};
    switch (entry->which) {
      case FleetKind::kKarmadaCluster: {
        api::Cluster c;
        internal::DecodeKarmadaCluster(d, root, c);
        c.meta.source = source;
        if (d.error_count() == errors) o.clusters.push_back(std::move(c));
        break;
      }
      case FleetKind::kMultiKueueCluster: {
        api::Cluster c;
        internal::DecodeMultiKueueCluster(d, root, c);
        c.meta.source = source;
        if (d.error_count() == errors) o.clusters.push_back(std::move(c));
        break;
      }
      case FleetKind::kResourceBinding:
      case FleetKind::kClusterResourceBinding: {
        api::FleetWork w;
        internal::DecodeResourceBinding(d, root, entry->which == FleetKind::kClusterResourceBinding,
                                        w);
        w.meta.source = source;
        if (d.error_count() == errors) o.works.push_back(std::move(w));
        break;
      }
      case FleetKind::kWorkload: {
        api::FleetWork w;
        internal::DecodeKueueWorkload(d, root, w);
        w.meta.source = source;
        if (d.error_count() == errors) o.works.push_back(std::move(w));
        break;
      }
      case FleetKind::kMultiKueueConfig: {
        api::MultiKueueConfig c;
        internal::DecodeMultiKueueConfig(d, root, c);
        if (d.error_count() == errors) o.multikueue_configs.push_back(std::move(c));
        break;
      }
      case FleetKind::kPropagationPolicy:
      case FleetKind::kClusterPropagationPolicy: {
        internal::PropagationPolicy p;
        internal::DecodePropagationPolicy(d, root,
                                          entry->which == FleetKind::kClusterPropagationPolicy, p);
        p.meta.source = source;
        if (d.error_count() == errors) policies_.push_back(std::move(p));
        break;
      }
      case FleetKind::kTemplate: {
        internal::ResourceTemplate t;
        t.api_version = in_.Intern(api_version);
        internal::DecodeResourceTemplate(d, root, kind, t);
        t.meta.source = source;
        if (d.error_count() == errors) templates_.push_back(std::move(t));
        break;
      }
      case FleetKind::kPriorityClass: {
        api::PriorityClass pc;
        internal::DecodePriorityClass(d, root, pc);
        if (d.error_count() == errors) priority_classes_.push_back(std::move(pc));
        break;
      }
      case FleetKind::kDispatcherProfile: {
        api::DispatcherProfile p;
        internal::DecodeDispatcherProfile(d, root, p);
        if (d.error_count() == errors) o.profiles.push_back(std::move(p));
        break;
      }
    }
  }

  // Cluster names are unique among Karmada Clusters and among MultiKueueClusters (one member may
  // be seen by both control planes under one name); work items by namespace/name.
  void CheckDuplicates() {
    auto& cs = result_.objects.clusters;
    for (size_t i = 0; i < cs.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (cs[i].meta.name == cs[j].meta.name && cs[i].source_kind == cs[j].source_kind) {
          result_.diagnostics.Error(
              std::string(in_.Str(cs[i].meta.source.file)), cs[i].meta.source.line, "metadata.name",
              fmt::format("duplicate cluster {:?}", in_.Str(cs[i].meta.name)));
          cs.erase(cs.begin() + static_cast<ptrdiff_t>(i));
          --i;
          break;
        }
      }
    }
  }

  // util.ResourceSelectorPriority: 3 by name, 2 by label selector, 1 for a selector of the kind
  // alone, 0 for no match.
  static int SelectorPriority(const internal::ResourceSelector& s,
                              const internal::ResourceTemplate& t) {
    if (s.api_version != t.api_version || s.kind != t.kind) return 0;
    if (!s.namespace_.empty() && s.namespace_ != t.meta.namespace_) return 0;
    if (!s.name.empty()) return s.name == t.meta.name ? 3 : 0;
    if (!s.label_selector) return 1;
    return api::Matches(*s.label_selector, t.meta.labels) ? 2 : 0;
  }

  // getHighestPriority(Cluster)PropagationPolicy: the highest explicit priority, then the highest
  // implicit priority, then the smaller name.
  const internal::PropagationPolicy* BestPolicy(const internal::ResourceTemplate& t,
                                                bool cluster_scoped) const {
    const internal::PropagationPolicy* best = nullptr;
    int best_implicit = 0;
    for (const internal::PropagationPolicy& p : policies_) {
      if (p.cluster_scoped != cluster_scoped) continue;
      if (!cluster_scoped && p.meta.namespace_ != t.meta.namespace_) continue;
      int implicit = 0;
      for (const internal::ResourceSelector& s : p.selectors) {
        implicit = std::max(implicit, SelectorPriority(s, t));
      }
      if (implicit == 0) continue;
      if (best == nullptr || p.priority > best->priority) {
        best = &p;
        best_implicit = implicit;
      } else if (p.priority == best->priority) {
        if (implicit > best_implicit) {
          best = &p;
          best_implicit = implicit;
        } else if (implicit == best_implicit && in_.Str(p.meta.name) < in_.Str(best->meta.name)) {
          best = &p;
        }
      }
    }
    return best;
  }

  // Each template becomes the ResourceBinding Karmada's detector would create from the policy that
  // claims it (a PropagationPolicy of its namespace before any ClusterPropagationPolicy).
  void MatchTemplates() {
    for (const internal::ResourceTemplate& t : templates_) {
      const internal::PropagationPolicy* p = BestPolicy(t, false);
      if (p == nullptr) p = BestPolicy(t, true);
      if (p == nullptr) {
        result_.diagnostics.Warning(
            std::string(in_.Str(t.meta.source.file)), t.meta.source.line, "",
            fmt::format(
                "no PropagationPolicy or ClusterPropagationPolicy matches {} {}/{}; Karmada "
                "would not propagate it",
                in_.Str(t.kind), in_.Str(t.meta.namespace_), in_.Str(t.meta.name)));
        continue;
      }
      api::FleetWork w;
      w.source_kind = api::FleetWorkSourceKind::kPolicyMatch;
      std::string binding = fmt::format("{}-{}", in_.Str(t.meta.name), in_.Str(t.kind));
      std::transform(binding.begin(), binding.end(), binding.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      w.meta.name = in_.Intern(binding);
      w.meta.namespace_ = t.meta.namespace_;
      w.meta.source = t.meta.source;
      w.resource = {t.api_version, t.kind, t.meta.namespace_, t.meta.name, t.meta.uid};
      w.replicas = t.replicas;
      w.replica_requirements.emplace();
      w.replica_requirements->resource_request = t.request;
      w.replica_requirements->namespace_ = t.meta.namespace_;
      w.replica_requirements->priority_class_name = t.priority_class_name;
      w.replica_requirements->pod_template = t.pod;
      w.placement = p->placement;
      if (!p->priority_class_name.empty()) {
        // The detector's KubePriorityClass: its value, and mapPreemptionPolicy (a PriorityClass
        // as the API server holds it always has preemptionPolicy, defaulted
        // to PreemptLowerPriority).
        auto pc = std::find_if(
            priority_classes_.begin(), priority_classes_.end(),
            [&](const api::PriorityClass& c) { return c.meta.name == p->priority_class_name; });
        if (pc == priority_classes_.end()) {
          result_.diagnostics.Error(
              std::string(in_.Str(p->meta.source.file)), p->priority_class_line,
              "spec.schedulePriority.priorityClassName",
              fmt::format("PriorityClass {:?} not found (give it as a scheduling.k8s.io/v1 "
                          "PriorityClass)",
                          in_.Str(p->priority_class_name)));
          continue;
        }
        w.priority = pc->value;
        w.preemption_policy = pc->preemption_policy == api::PreemptionPolicy::kPreemptLowerPriority
                                  ? api::PreemptionPolicy::kPreemptLowerPriority
                                  : api::PreemptionPolicy::kNever;
      }
      w.claimed_by = p->cluster_scoped
                         ? p->meta.name
                         : in_.Intern(fmt::format("{}/{}", in_.Str(p->meta.namespace_),
                                                  in_.Str(p->meta.name)));
      result_.objects.works.push_back(std::move(w));
    }
  }

  Interner& in_;
  FleetLoadResult result_;
  std::vector<internal::PropagationPolicy> policies_;
  std::vector<internal::ResourceTemplate> templates_;
  std::vector<api::PriorityClass> priority_classes_;
  FleetLoadOptions opts_;
};

}  // namespace

FleetLoadResult LoadFleetPaths(std::span<const std::string> paths, Interner& interner,
                               const FleetLoadOptions& opts) {
  FleetLoader l(interner, opts);
  for (const std::string& p : paths) l.AddPath(p);
  return l.Finish();
}

FleetLoadResult LoadFleetString(std::string_view content, std::string_view filename,
                                Interner& interner) {
  FleetLoader l(interner);
  l.AddString(content, filename);
  return l.Finish();
}

}  // namespace corral::loader
