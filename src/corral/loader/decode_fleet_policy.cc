// policy.karmada.io/v1alpha1 PropagationPolicy and ClusterPropagationPolicy; apps/v1 Deployment and
// StatefulSet and batch/v1 Job as the resource templates they propagate.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "corral/loader/internal/decode.h"
#include "corral/loader/internal/decode_fleet.h"

namespace corral::loader::internal {

namespace {

const doc::Field<ResourceSelector> kSelectorFields[] = {
    {"apiVersion",
     [](Decoder& d, const Node& n, ResourceSelector& s) { d.ReadSymbol(n, s.api_version); }},
    {"kind", [](Decoder& d, const Node& n, ResourceSelector& s) { d.ReadSymbol(n, s.kind); }},
    {"namespace",
     [](Decoder& d, const Node& n, ResourceSelector& s) { d.ReadSymbol(n, s.namespace_); }},
    {"name", [](Decoder& d, const Node& n, ResourceSelector& s) { d.ReadSymbol(n, s.name); }},
    {"labelSelector", [](Decoder& d, const Node& n,
                         ResourceSelector& s) { DecodeLabelSelector(d, n, s.label_selector); }},
};

constexpr doc::EnumName<bool> kPreemption[] = {{"Never", false}, {"Always", true}};

enum class PriorityClassSource { kFederated, kKube, kPod };
constexpr doc::EnumName<PriorityClassSource> kPriorityClassSources[] = {
    {"FederatedPriorityClass", PriorityClassSource::kFederated},
    {"KubePriorityClass", PriorityClassSource::kKube},
    {"PodPriorityClass", PriorityClassSource::kPod},
};
struct SchedulePriorityIn {
  PriorityClassSource source = PriorityClassSource::kKube;
  const Node* source_node = nullptr;
  const Node* name_node = nullptr;
  Symbol name;
};
// policy.karmada.io SchedulePriority: only KubePriorityClass is read; Karmada's detector rejects
// PodPriorityClass and has no FederatedPriorityClass yet.
const doc::Field<SchedulePriorityIn> kSchedulePriorityFields[] = {
    {"priorityClassSource",
     [](Decoder& d, const Node& n, SchedulePriorityIn& s) {
       s.source_node = &n;
       d.ReadEnum(n, kPriorityClassSources, "priorityClassSource", s.source);
     }},
    {"priorityClassName",
     [](Decoder& d, const Node& n, SchedulePriorityIn& s) {
       s.name_node = &n;
       d.ReadSymbol(n, s.name);
     }},
};

const doc::Field<PropagationPolicy> kPolicySpecFields[] = {
    {"schedulerName",
     [](Decoder& d, const Node& n, PropagationPolicy&) { CheckKarmadaSchedulerName(d, n); }},
    {"resourceSelectors",
     [](Decoder& d, const Node& n, PropagationPolicy& p) {
       d.ReadList(n, p.selectors, [&](const Node& item, ResourceSelector& s) {
         d.Struct(item, s, kSelectorFields);
         if (s.api_version.empty()) d.Required(item, "apiVersion");
         if (s.kind.empty()) d.Required(item, "kind");
       });
     }},
    {"placement",
     [](Decoder& d, const Node& n, PropagationPolicy& p) { DecodePlacement(d, n, p.placement); }},
    {"priority",
     [](Decoder& d, const Node& n, PropagationPolicy& p) { d.ReadInt32(n, p.priority); }},
    {"schedulePriority",
     [](Decoder& d, const Node& n, PropagationPolicy& p) {
       SchedulePriorityIn s;
       d.Struct(n, s, kSchedulePriorityFields);
       if (s.source_node == nullptr) d.Required(n, "priorityClassSource");
       if (s.name_node == nullptr || s.name.empty()) {
         d.Required(n, "priorityClassName");
         return;
       }
       if (s.source == PriorityClassSource::kPod) {
         d.Error(*s.source_node,
                 "priority class source is PodPriorityClass, but PodPriorityClass is not "
                 "supported yet");
       } else if (s.source == PriorityClassSource::kFederated) {
         d.Error(*s.source_node, "FederatedPriorityClass is not supported yet");
       }
       p.priority_class_name = s.name;
       p.priority_class_line = s.name_node->line();
     }},
    {"preemption",
     [](Decoder& d, const Node& n, PropagationPolicy&) {
       bool always = false;
       if (d.ReadEnum(n, kPreemption, "preemption", always) && always) {
         d.Error(n, "policy preemption (Always) is not supported yet");
       }
     }},
};
// Dependencies, failover, conflict handling, suspension, overrides and deletion policy do not
// bear on placement.
constexpr std::string_view kPolicySpecIgnored[] = {
    "association",        "propagateDeps",
    "dependentOverrides", "failover",
    "conflictResolution", "activationPreference",
    "suspension",         "preserveResourcesOnDeletion"};

const doc::Field<PropagationPolicy> kPolicyFields[] = {
    {"apiVersion", [](Decoder&, const Node&, PropagationPolicy&) {}},
    {"kind", [](Decoder&, const Node&, PropagationPolicy&) {}},
    {"metadata",
     [](Decoder& d, const Node& n, PropagationPolicy& p) {
       DecodeMeta(d, n, p.meta, {.namespaced = !p.cluster_scoped});
     }},
    {"spec", [](Decoder& d, const Node& n,
                PropagationPolicy& p) { d.Struct(n, p, kPolicySpecFields, kPolicySpecIgnored); }},
};
constexpr std::string_view kPolicyIgnored[] = {"status"};

// Karmada's AddPodTemplateRequest: the sum of the containers' requests, raised to each init
// container's, plus the overhead (requests already default to limits).
api::ResourceList TemplateRequest(const api::Pod& pod) {
  std::map<Symbol, api::Quantity> total;
  for (const api::Container& c : pod.containers) {
    for (const auto& [name, q] : c.resources.requests) {
      Result<api::Quantity> sum = total[name].Add(q);
      if (sum.ok()) total[name] = *sum;
    }
  }
  for (const api::Container& c : pod.init_containers) {
    for (const auto& [name, q] : c.resources.requests) {
      if (total[name] < q) total[name] = q;
    }
  }
  for (const auto& [name, q] : pod.overhead) {
    Result<api::Quantity> sum = total[name].Add(q);
    if (sum.ok()) total[name] = *sum;
  }
  api::ResourceList out;
  for (const auto& [name, q] : total) {
    if (!q.IsZero()) out.emplace_back(name, q);
  }
  return out;
}

struct TemplateIn {
  ResourceTemplate* out;
  bool job = false;
  std::optional<int32_t> replicas;
  std::optional<int32_t> parallelism;
  std::optional<int32_t> completions;
  PodInput pod;
  bool has_template = false;
};

const doc::Field<TemplateIn> kTemplateSpecFields[] = {
    {"replicas",
     [](Decoder& d, const Node& n, TemplateIn& t) {
       int32_t v = 0;
       if (t.job) {
         d.Error(n, "unknown field \"replicas\" (a Job has parallelism and completions)");
       } else if (d.ReadInt32(n, v, 0)) {
         t.replicas = v;
       }
     }},
    {"parallelism",
     [](Decoder& d, const Node& n, TemplateIn& t) {
       int32_t v = 0;
       if (d.ReadInt32(n, v, 0)) t.parallelism = v;
     }},
    {"completions",
     [](Decoder& d, const Node& n, TemplateIn& t) {
       int32_t v = 0;
       if (d.ReadInt32(n, v, 0)) t.completions = v;
     }},
    {"template",
     [](Decoder& d, const Node& n, TemplateIn& t) {
       if (n.is_null()) return;
       t.has_template = true;
       DecodePod(d, n, t.pod, /*template_only=*/true);
     }},
};
// The rollout and pod-management settings do not bear on placement.
constexpr std::string_view kTemplateSpecIgnored[] = {"selector",
                                                     "strategy",
                                                     "minReadySeconds",
                                                     "revisionHistoryLimit",
                                                     "progressDeadlineSeconds",
                                                     "paused",
                                                     "serviceName",
                                                     "podManagementPolicy",
                                                     "updateStrategy",
                                                     "volumeClaimTemplates",
                                                     "persistentVolumeClaimRetentionPolicy",
                                                     "ordinals",
                                                     "activeDeadlineSeconds",
                                                     "backoffLimit",
                                                     "backoffLimitPerIndex",
                                                     "maxFailedIndexes",
                                                     "completionMode",
                                                     "manualSelector",
                                                     "podFailurePolicy",
                                                     "podReplacementPolicy",
                                                     "successPolicy",
                                                     "suspend",
                                                     "ttlSecondsAfterFinished",
                                                     "managedBy"};

const doc::Field<TemplateIn> kTemplateFields[] = {
    {"apiVersion", [](Decoder&, const Node&, TemplateIn&) {}},
    {"kind", [](Decoder&, const Node&, TemplateIn&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    TemplateIn& t) { DecodeMeta(d, n, t.out->meta, {.namespaced = true}); }},
    {"spec", [](Decoder& d, const Node& n,
                TemplateIn& t) { d.Struct(n, t, kTemplateSpecFields, kTemplateSpecIgnored); }},
};
constexpr std::string_view kTemplateIgnored[] = {"status"};

}  // namespace

void DecodePropagationPolicy(Decoder& d, const Node& root, bool cluster_scoped,
                             PropagationPolicy& out) {
  out.cluster_scoped = cluster_scoped;
  d.Struct(root, out, kPolicyFields, kPolicyIgnored);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) {
    d.Required(root, "spec");
  } else if (spec->is_map() && out.selectors.empty()) {
    auto s = d.Field("spec");
    d.Required(*spec, "resourceSelectors", "at least one resource selector");
  }
}

void DecodeResourceTemplate(Decoder& d, const Node& root, std::string_view kind,
                            ResourceTemplate& out) {
  TemplateIn in{&out, kind == "Job", {}, {}, {}, {}, false};
  d.Struct(root, in, kTemplateFields, kTemplateIgnored);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) {
    d.Required(root, "spec");
  } else if (spec->is_map() && !in.has_template) {
    auto s = d.Field("spec");
    d.Required(*spec, "template");
  }
  out.kind = d.Intern(kind);
  if (in.job) {
    // The API server defaults parallelism to 1; Karmada's jobReplica caps it by completions.
    int32_t replicas = in.parallelism.value_or(1);
    replicas = std::min(replicas, in.completions.value_or(replicas));
    out.replicas = replicas;
  } else {
    out.replicas = in.replicas.value_or(1);  // the API server's default
  }
  out.request = TemplateRequest(in.pod.pod);
  out.priority_class_name = in.pod.pod.priority_class_name;
  out.pod = std::make_shared<const api::Pod>(in.pod.pod);
}

}  // namespace corral::loader::internal
