// kueue.x-k8s.io MultiKueueCluster, MultiKueueConfig, Workload (with the placement annotations of
// the composable dispatcher KEP-8692) and ClusterDispatcherProfile.

#include <algorithm>

#include <fmt/format.h>

#include "corral/doc/parse.h"
#include "corral/framework/feature_gates.h"
#include "corral/framework/pod_info.h"
#include "corral/framework/resource.h"
#include "corral/loader/internal/decode.h"
#include "corral/loader/internal/decode_fleet.h"

namespace corral::loader::internal {

namespace {

using api::Cluster;
using api::FleetWork;

constexpr std::string_view kSelectorAnnotation = "kueue.x-k8s.io/cluster-selector";
constexpr std::string_view kAffinityAnnotation = "kueue.x-k8s.io/cluster-affinity";
constexpr std::string_view kTolerationsAnnotation = "kueue.x-k8s.io/cluster-tolerations";
constexpr std::string_view kDispatchModeAnnotation = "kueue.x-k8s.io/dispatch-mode";

struct ConditionIn {
  Symbol type;
  Symbol status;
};
const doc::Field<ConditionIn> kConditionFields[] = {
    {"type", [](Decoder& d, const Node& n, ConditionIn& c) { d.ReadSymbol(n, c.type); }},
    {"status", [](Decoder& d, const Node& n, ConditionIn& c) { d.ReadSymbol(n, c.status); }},
};
constexpr std::string_view kConditionIgnored[] = {"reason", "message", "lastTransitionTime",
                                                  "observedGeneration"};

// ---- MultiKueueCluster --------------------------------------------------------------------------

// ClusterTaintEffect: NoSchedule or PreferNoSchedule only.
constexpr doc::EnumName<api::TaintEffect> kClusterTaintEffects[] = {
    {"NoSchedule", api::TaintEffect::kNoSchedule},
    {"PreferNoSchedule", api::TaintEffect::kPreferNoSchedule},
};

const doc::Field<api::Taint> kClusterTaintFields[] = {
    {"key",
     [](Decoder& d, const Node& n, api::Taint& t) {
       if (d.ReadSymbol(n, t.key)) CheckQualifiedNameAt(d, n, "key", d.interner()->Str(t.key));
     }},
    {"value", [](Decoder& d, const Node& n, api::Taint& t) { d.ReadSymbol(n, t.value); }},
    {"effect", [](Decoder& d, const Node& n,
                  api::Taint& t) { d.ReadEnum(n, kClusterTaintEffects, "effect", t.effect); }},
};

const doc::Field<Cluster> kMkClusterSpecFields[] = {
    {"taints",
     [](Decoder& d, const Node& n, Cluster& c) {
       d.ReadList(n, c.taints, [&](const Node& item, api::Taint& t) {
         d.Struct(item, t, kClusterTaintFields);
         if (t.key.empty()) d.Required(item, "key");
         if (item.is_map() && item.Find("effect") == nullptr) {
           d.Required(item, "effect", "NoSchedule or PreferNoSchedule");
         }
       });
     }},
};
// How the manager connects to the worker does not bear on placement.
constexpr std::string_view kMkClusterSpecIgnored[] = {"kubeConfig", "clusterSource"};

const doc::Field<Cluster> kMkClusterStatusFields[] = {
    {"conditions",
     [](Decoder& d, const Node& n, Cluster& c) {
       std::vector<ConditionIn> conditions;
       d.ReadList(n, conditions, [&](const Node& item, ConditionIn& ci) {
         d.Struct(item, ci, kConditionFields, kConditionIgnored);
       });
       c.active = false;  // Active must be True
       for (const ConditionIn& ci : conditions) {
         if (d.interner()->Str(ci.type) == "Active")
           c.active = d.interner()->Str(ci.status) == "True";
       }
     }},
};

const doc::Field<Cluster> kMkClusterFields[] = {
    {"apiVersion", [](Decoder&, const Node&, Cluster&) {}},
    {"kind", [](Decoder&, const Node&, Cluster&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    Cluster& c) { DecodeMeta(d, n, c.meta, {.namespaced = false}); }},
    {"spec", [](Decoder& d, const Node& n,
                Cluster& c) { d.Struct(n, c, kMkClusterSpecFields, kMkClusterSpecIgnored); }},
    {"status",
     [](Decoder& d, const Node& n, Cluster& c) { d.Struct(n, c, kMkClusterStatusFields); }},
};

// ---- MultiKueueConfig ---------------------------------------------------------------------------

const doc::Field<api::MultiKueueConfig> kMkConfigSpecFields[] = {
    {"clusters",
     [](Decoder& d, const Node& n, api::MultiKueueConfig& c) { d.ReadSymbolList(n, c.clusters); }},
};

const doc::Field<api::MultiKueueConfig> kMkConfigFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::MultiKueueConfig&) {}},
    {"kind", [](Decoder&, const Node&, api::MultiKueueConfig&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::MultiKueueConfig& c) { DecodeMeta(d, n, c.meta, {.namespaced = false}); }},
    {"spec", [](Decoder& d, const Node& n,
                api::MultiKueueConfig& c) { d.Struct(n, c, kMkConfigSpecFields); }},
};

// ---- Workload placement fields (KEP-8692) -------------------------------------------------------

constexpr doc::EnumName<api::TolerationOp> kTolerationOps[] = {
    {"Equal", api::TolerationOp::kEqual},
    {"Exists", api::TolerationOp::kExists},
};

const doc::Field<api::Toleration> kClusterTolerationFields[] = {
    {"key", [](Decoder& d, const Node& n, api::Toleration& t) { d.ReadSymbol(n, t.key); }},
    {"operator", [](Decoder& d, const Node& n,
                    api::Toleration& t) { d.ReadEnum(n, kTolerationOps, "operator", t.op); }},
    {"value", [](Decoder& d, const Node& n, api::Toleration& t) { d.ReadSymbol(n, t.value); }},
    {"effect", [](Decoder& d, const Node& n,
                  api::Toleration& t) { d.ReadEnum(n, kClusterTaintEffects, "effect", t.effect); }},
};

void DecodeClusterTolerations(Decoder& d, const Node& n, std::vector<api::Toleration>& out) {
  d.ReadList(n, out, [&](const Node& item, api::Toleration& t) {
    d.Struct(item, t, kClusterTolerationFields);
    if (t.op == api::TolerationOp::kExists && !t.value.empty()) {
      d.Error(item, "value must be empty when operator is Exists");
    }
    if (t.op == api::TolerationOp::kEqual && t.key.empty()) {
      d.Error(item, "operator must be Exists when key is empty");
    }
  });
}

void DecodeClusterSelector(Decoder& d, const Node& n, api::LabelSet& out) {
  DecodeLabels(d, n, out);
}

const doc::Field<api::PreferredClusterTerm> kPreferredTermFields[] = {
    {"weight", [](Decoder& d, const Node& n,
                  api::PreferredClusterTerm& t) { d.ReadInt32(n, t.weight, 1, 100); }},
    {"preference",
     [](Decoder& d, const Node& n, api::PreferredClusterTerm& t) {
       std::optional<api::LabelSelector> s;
       DecodeLabelSelector(d, n, s);
       if (s) t.preference = std::move(*s);
     }},
};

struct RequiredIn {
  std::vector<api::LabelSelector> terms;
};
const doc::Field<RequiredIn> kRequiredFields[] = {
    {"clusterSelectorTerms",
     [](Decoder& d, const Node& n, RequiredIn& r) {
       d.ReadList(n, r.terms, [&](const Node& item, api::LabelSelector& s) {
         std::optional<api::LabelSelector> sel;
         DecodeLabelSelector(d, item, sel);
         if (sel) s = std::move(*sel);
       });
     }},
};

const doc::Field<api::KueueClusterAffinity> kClusterAffinityFields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution",
     [](Decoder& d, const Node& n, api::KueueClusterAffinity& a) {
       if (n.is_null()) return;
       RequiredIn r;
       d.Struct(n, r, kRequiredFields);
       a.required = std::move(r.terms);
     }},
    {"preferredDuringSchedulingIgnoredDuringExecution",
     [](Decoder& d, const Node& n, api::KueueClusterAffinity& a) {
       d.ReadList(n, a.preferred, [&](const Node& item, api::PreferredClusterTerm& t) {
         d.Struct(item, t, kPreferredTermFields);
         if (item.is_map() && item.Find("weight") == nullptr) d.Required(item, "weight", "1..100");
       });
     }},
};

void DecodeKueueAffinity(Decoder& d, const Node& n, std::optional<api::KueueClusterAffinity>& out) {
  if (n.is_null()) return;
  out.emplace();
  d.Struct(n, *out, kClusterAffinityFields);
}

// ---- Workload -----------------------------------------------------------------------------------

struct PodSetIn {
  Symbol name;
  int32_t count = 1;
  PodInput pod;
  bool has_template = false;
};

const doc::Field<PodSetIn> kPodSetFields[] = {
    {"name", [](Decoder& d, const Node& n, PodSetIn& p) { d.ReadSymbol(n, p.name); }},
    {"count", [](Decoder& d, const Node& n, PodSetIn& p) { d.ReadInt32(n, p.count, 0); }},
    {"template",
     [](Decoder& d, const Node& n, PodSetIn& p) {
       if (n.is_null()) return;
       p.has_template = true;
       DecodePod(d, n, p.pod, /*template_only=*/true);
     }},
};
// Partial admission and topology requests are the worker's business once the workload is there.
constexpr std::string_view kPodSetIgnored[] = {"minCount", "topologyRequest"};

struct WorkloadIn {
  FleetWork* work;
  std::vector<PodSetIn> pod_sets;
};

const doc::Field<WorkloadIn> kWorkloadSpecFields[] = {
    {"podSets",
     [](Decoder& d, const Node& n, WorkloadIn& w) {
       d.ReadList(n, w.pod_sets, [&](const Node& item, PodSetIn& p) {
         d.Struct(item, p, kPodSetFields, kPodSetIgnored);
         if (p.name.empty()) d.Required(item, "name");
         if (item.is_map() && !p.has_template) d.Required(item, "template");
       });
     }},
    {"priority",
     [](Decoder& d, const Node& n, WorkloadIn& w) { d.ReadInt32(n, w.work->priority); }},
    {"clusterSelector",
     [](Decoder& d, const Node& n, WorkloadIn& w) {
       DecodeClusterSelector(d, n, w.work->cluster_selector);
     }},
    {"clusterAffinity",
     [](Decoder& d, const Node& n, WorkloadIn& w) {
       DecodeKueueAffinity(d, n, w.work->kueue_cluster_affinity);
     }},
    {"clusterTolerations",
     [](Decoder& d, const Node& n, WorkloadIn& w) {
       DecodeClusterTolerations(d, n, w.work->placement.cluster_tolerations);
     }},
};
// Queueing fields: the manager's queues are not modelled by `corral dispatch`.
constexpr std::string_view kWorkloadSpecIgnored[] = {
    "queueName", "priorityClassName",          "priorityClassSource", "priorityClassRef",
    "active",    "maximumExecutionTimeSeconds"};

const doc::Field<WorkloadIn> kWorkloadFields[] = {
    {"apiVersion", [](Decoder&, const Node&, WorkloadIn&) {}},
    {"kind", [](Decoder&, const Node&, WorkloadIn&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    WorkloadIn& w) { DecodeMeta(d, n, w.work->meta, {.namespaced = true}); }},
    {"spec", [](Decoder& d, const Node& n,
                WorkloadIn& w) { d.Struct(n, w, kWorkloadSpecFields, kWorkloadSpecIgnored); }},
};
constexpr std::string_view kWorkloadIgnored[] = {"status"};

constexpr doc::EnumName<api::DispatchMode> kDispatchModes[] = {
    {"BestEffort", api::DispatchMode::kBestEffort},
    {"MustBeAdmitted", api::DispatchMode::kMustBeAdmitted},
};

// Decodes the JSON value of annotation `key` with `decode`, reporting each problem at the
// annotation's line as `metadata.annotations[key]: <path in the value>: message`.
template <class Fn>
void DecodeAnnotationJson(Decoder& d, const Node& annotation, std::string_view key,
                          std::string_view value, Fn&& decode) {
  Diagnostics inner;
  std::string pseudo = fmt::format("{}[{}]", d.file(), key);
  doc::Stream stream = doc::ParseJson(value, pseudo, inner);
  if (!inner.has_errors() && stream.documents().size() == 1) {
    Decoder sub(pseudo, inner, d.interner(), {.strict = true});
    decode(sub, stream.documents()[0]);
  } else if (!inner.has_errors()) {
    inner.Error(pseudo, 1, "", "expected one JSON value");
  }
  auto m = d.Field("metadata");
  auto a = d.Field("annotations");
  auto k = d.Key(key);
  for (const Diagnostic& diag : inner.items()) {
    std::string message =
        diag.path.empty() ? diag.message : fmt::format("{}: {}", diag.path, diag.message);
    if (diag.severity == Severity::kError) {
      d.Error(annotation, "invalid JSON value: " + message);
    } else {
      d.Warning(annotation, message);
    }
  }
}

void DecodePlacementAnnotations(Decoder& d, const Node& root, WorkloadIn& w) {
  const Node* meta = root.Find("metadata");
  const Node* annotations = meta != nullptr && meta->is_map() ? meta->Find("annotations") : nullptr;
  if (annotations == nullptr || !annotations->is_map()) return;
  FleetWork& work = *w.work;
  const Node* spec = root.Find("spec");
  auto in_spec = [&](std::string_view field) {
    return spec != nullptr && spec->is_map() && spec->Find(field) != nullptr;
  };
  for (size_t i = 0; i < annotations->size(); ++i) {
    const Node& knode = annotations->key(i);
    const Node& vnode = annotations->value(i);
    if (!vnode.is_string()) continue;  // DecodeMeta reported it
    std::string_view key = knode.text();
    std::string_view value = vnode.text();
    auto conflict = [&](std::string_view field) {
      if (!in_spec(field)) return false;
      auto m = d.Field("metadata");
      auto a = d.Field("annotations");
      auto k = d.Key(key);
      d.Error(vnode, fmt::format("conflicts with spec.{}; give one of them", field));
      return true;
    };
    if (key == kSelectorAnnotation) {
      if (conflict("clusterSelector")) continue;
      DecodeAnnotationJson(d, vnode, key, value, [&](Decoder& sub, const Node& n) {
        if (!n.is_map()) {
          sub.Error(n, "expected a JSON object of label keys to values");
          return;
        }
        DecodeClusterSelector(sub, n, work.cluster_selector);
      });
    } else if (key == kAffinityAnnotation) {
      if (conflict("clusterAffinity")) continue;
      DecodeAnnotationJson(d, vnode, key, value, [&](Decoder& sub, const Node& n) {
        if (!n.is_map()) {
          sub.Error(n, "expected a JSON ClusterAffinity object");
          return;
        }
        DecodeKueueAffinity(sub, n, work.kueue_cluster_affinity);
      });
    } else if (key == kTolerationsAnnotation) {
      if (conflict("clusterTolerations")) continue;
      DecodeAnnotationJson(d, vnode, key, value, [&](Decoder& sub, const Node& n) {
        if (!n.is_sequence()) {
          sub.Error(n, "expected a JSON array of ClusterTolerations");
          return;
        }
        DecodeClusterTolerations(sub, n, work.placement.cluster_tolerations);
      });
    } else if (key == kDispatchModeAnnotation) {
      auto m = d.Field("metadata");
      auto a = d.Field("annotations");
      auto k = d.Key(key);
      d.ReadEnum(vnode, kDispatchModes, "dispatch mode", work.dispatch_mode);
    }
  }
}

// The whole workload's request: the sum over pod sets of count × the pod's request (kube's
// PodRequests), as one replica dispatched whole.
api::ResourceList TotalRequest(const std::vector<PodSetIn>& pod_sets, Interner& interner) {
  framework::FeatureGates gates;
  framework::Resource total;
  for (const PodSetIn& p : pod_sets) {
    framework::Resource r = framework::ComputePodRequest(p.pod.pod, gates, &interner);
    for (int32_t i = 0; i < p.count; ++i) total.Add(r);
  }
  api::ResourceList out;
  auto put = [&](std::string_view name, api::Quantity q) {
    if (!q.IsZero()) out.emplace_back(interner.Intern(name), q);
  };
  put("cpu", api::Quantity::FromMilli(total.milli_cpu));
  put("memory", api::Quantity::FromInt(total.memory, api::Quantity::Format::kBinarySI));
  put("ephemeral-storage",
      api::Quantity::FromInt(total.ephemeral_storage, api::Quantity::Format::kBinarySI));
  for (const auto& [name, v] : total.scalar) {
    if (v != 0) out.emplace_back(name, api::Quantity::FromInt(v));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// ---- ClusterDispatcherProfile -------------------------------------------------------------------

constexpr std::string_view kFilterPlugins[] = {"ClusterHealth", "ClusterAffinity", "ClusterTaints",
                                               "ClusterFeasibility"};
constexpr std::string_view kScorePlugins[] = {"ClusterAffinityScore", "ClusterTaintScore",
                                              "CapacityScore"};
// Named by the KEP, not built yet.
constexpr std::string_view kPendingPlugins[] = {"LocalityScore"};

struct PluginRefIn {
  Symbol name;
  int64_t weight = 1;
};
const doc::Field<PluginRefIn> kFilterRefFields[] = {
    {"name", [](Decoder& d, const Node& n, PluginRefIn& p) { d.ReadSymbol(n, p.name); }},
};
const doc::Field<PluginRefIn> kScoreRefFields[] = {
    {"name", [](Decoder& d, const Node& n, PluginRefIn& p) { d.ReadSymbol(n, p.name); }},
    {"weight", [](Decoder& d, const Node& n, PluginRefIn& p) { d.ReadInt64(n, p.weight, 0); }},
};

struct PluginSetIn {
  std::vector<PluginRefIn> filter;
  std::vector<PluginRefIn> score;
  bool has_filter = false;
  bool has_score = false;
};

void CheckPluginNames(Decoder& d, const Node& list, const std::vector<PluginRefIn>& refs,
                      std::span<const std::string_view> known, std::string_view what) {
  for (size_t i = 0; i < refs.size(); ++i) {
    auto s = d.Index(i);
    const Node& item = list.items()[i];
    if (refs[i].name.empty()) {
      d.Required(item, "name");
      continue;
    }
    std::string_view name = d.interner()->Str(refs[i].name);
    if (std::find(known.begin(), known.end(), name) != known.end()) {
      for (size_t j = 0; j < i; ++j) {
        if (refs[j].name == refs[i].name) {
          d.Error(item, fmt::format("duplicate {} plugin {:?}", what, name));
          break;
        }
      }
      continue;
    }
    if (std::find(std::begin(kPendingPlugins), std::end(kPendingPlugins), name) !=
        std::end(kPendingPlugins)) {
      d.Error(item, fmt::format("{} plugin {:?} is not implemented yet", what, name));
    } else {
      d.Error(item,
              fmt::format("unknown {} plugin {:?} (want {})", what, name, fmt::join(known, ", ")));
    }
  }
}

const doc::Field<PluginSetIn> kPluginSetFields[] = {
    {"filter",
     [](Decoder& d, const Node& n, PluginSetIn& p) {
       p.has_filter = !n.is_null();
       d.ReadList(n, p.filter,
                  [&](const Node& item, PluginRefIn& r) { d.Struct(item, r, kFilterRefFields); });
       if (n.is_sequence()) CheckPluginNames(d, n, p.filter, kFilterPlugins, "filter");
     }},
    {"score",
     [](Decoder& d, const Node& n, PluginSetIn& p) {
       p.has_score = !n.is_null();
       d.ReadList(n, p.score,
                  [&](const Node& item, PluginRefIn& r) { d.Struct(item, r, kScoreRefFields); });
       if (n.is_sequence()) {
         CheckPluginNames(d, n, p.score, kScorePlugins, "score");
         bool positive = std::any_of(p.score.begin(), p.score.end(),
                                     [](const PluginRefIn& r) { return r.weight > 0; });
         if (!p.score.empty() && !positive) {
           d.Error(n, "at least one score plugin must have a weight greater than 0");
         }
       }
     }},
};

constexpr doc::EnumName<api::NominationMode> kNominationModes[] = {
    {"Top1", api::NominationMode::kTop1},
    {"TopK", api::NominationMode::kTopK},
};

struct ProfileIn {
  api::DispatcherProfile* profile;
  PluginSetIn plugins;
  bool has_top_k = false;
};

const doc::Field<ProfileIn> kProfileSpecFields[] = {
    {"plugins",
     [](Decoder& d, const Node& n, ProfileIn& p) { d.Struct(n, p.plugins, kPluginSetFields); }},
    {"nominationMode",
     [](Decoder& d, const Node& n, ProfileIn& p) {
       d.ReadEnum(n, kNominationModes, "nominationMode", p.profile->nomination);
     }},
    {"topK", [](Decoder& d, const Node& n,
                ProfileIn& p) { p.has_top_k = d.ReadInt32(n, p.profile->top_k, 1, 10); }},
};

const doc::Field<ProfileIn> kProfileFields[] = {
    {"apiVersion", [](Decoder&, const Node&, ProfileIn&) {}},
    {"kind", [](Decoder&, const Node&, ProfileIn&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    ProfileIn& p) { DecodeMeta(d, n, p.profile->meta, {.namespaced = false}); }},
    {"spec", [](Decoder& d, const Node& n, ProfileIn& p) { d.Struct(n, p, kProfileSpecFields); }},
};

}  // namespace

void DecodeMultiKueueCluster(Decoder& d, const Node& root, api::Cluster& out) {
  out.source_kind = api::ClusterSourceKind::kMultiKueueCluster;
  d.Struct(root, out, kMkClusterFields);
  CheckMetaPresent(d, root, out.meta);
}

void DecodeMultiKueueConfig(Decoder& d, const Node& root, api::MultiKueueConfig& out) {
  d.Struct(root, out, kMkConfigFields);
  CheckMetaPresent(d, root, out.meta);
}

void DecodeKueueWorkload(Decoder& d, const Node& root, api::FleetWork& out) {
  out.source_kind = api::FleetWorkSourceKind::kKueue;
  WorkloadIn in{&out, {}};
  d.Struct(root, in, kWorkloadFields, kWorkloadIgnored);
  CheckMetaPresent(d, root, out.meta);
  DecodePlacementAnnotations(d, root, in);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) {
    d.Required(root, "spec");
  } else if (spec->is_map() && in.pod_sets.empty()) {
    auto s = d.Field("spec");
    d.Required(*spec, "podSets", "at least one pod set");
  }
  // A Kueue workload is dispatched whole: one replica asking for all its pods' requests.
  out.replicas = 1;
  out.replica_requirements.emplace();
  out.replica_requirements->resource_request = TotalRequest(in.pod_sets, *d.interner());
  out.replica_requirements->namespace_ = out.meta.namespace_;
  for (const PodSetIn& p : in.pod_sets) {
    out.pod_sets.push_back({p.name, p.count, std::make_shared<const api::Pod>(p.pod.pod)});
  }
  out.resource.api_version = d.Intern("kueue.x-k8s.io/v1beta2");
  out.resource.kind = d.Intern("Workload");
  out.resource.namespace_ = out.meta.namespace_;
  out.resource.name = out.meta.name;
  out.resource.uid = out.meta.uid;
}

void DecodeDispatcherProfile(Decoder& d, const Node& root, api::DispatcherProfile& out) {
  ProfileIn in{&out, {}, false};
  d.Struct(root, in, kProfileFields);
  CheckMetaPresent(d, root, out.meta);
  // Defaults of the KEP: filters [ClusterHealth, ClusterAffinity, ClusterTaints], scores
  // [ClusterAffinityScore: 1]; ClusterHealth always runs first.
  out.filters.clear();
  out.filters.push_back(d.Intern("ClusterHealth"));
  if (in.plugins.filter.empty()) {
    out.filters.push_back(d.Intern("ClusterAffinity"));
    out.filters.push_back(d.Intern("ClusterTaints"));
  } else {
    for (const PluginRefIn& r : in.plugins.filter) {
      if (!r.name.empty() && d.interner()->Str(r.name) != "ClusterHealth") {
        out.filters.push_back(r.name);
      }
    }
  }
  if (in.plugins.score.empty()) {
    out.scores.emplace_back(d.Intern("ClusterAffinityScore"), 1);
  } else {
    for (const PluginRefIn& r : in.plugins.score) out.scores.emplace_back(r.name, r.weight);
  }
  if (in.has_top_k && out.nomination != api::NominationMode::kTopK) {
    const Node* spec = root.Find("spec");
    auto s = d.Field("spec");
    d.FieldError(*spec, "topK", "topK needs nominationMode: TopK");
  }
  if (out.nomination == api::NominationMode::kTop1) out.top_k = 1;
}

}  // namespace corral::loader::internal
