// cluster.karmada.io/v1alpha1 Cluster; work.karmada.io/v1alpha2 ResourceBinding and
// ClusterResourceBinding with policy.karmada.io/v1alpha1 Placement.

#include <algorithm>

#include <fmt/format.h>

#include "corral/loader/internal/decode.h"
#include "corral/loader/internal/decode_fleet.h"

namespace corral::loader::internal {

namespace {

using api::Cluster;
using api::FleetWork;

// ---- Cluster ------------------------------------------------------------------------------------

const doc::Field<api::ResourceModelRange> kRangeFields[] = {
    {"name",
     [](Decoder& d, const Node& n, api::ResourceModelRange& r) { d.ReadSymbol(n, r.name); }},
    {"min",
     [](Decoder& d, const Node& n, api::ResourceModelRange& r) { d.ReadQuantity(n, r.min); }},
    {"max",
     [](Decoder& d, const Node& n, api::ResourceModelRange& r) { d.ReadQuantity(n, r.max); }},
};

const doc::Field<api::ResourceModel> kResourceModelFields[] = {
    {"grade",
     [](Decoder& d, const Node& n, api::ResourceModel& m) {
       int64_t g = 0;
       if (d.ReadInt64(n, g, 0, std::numeric_limits<uint32_t>::max())) {
         m.grade = static_cast<uint32_t>(g);
       }
     }},
    {"ranges",
     [](Decoder& d, const Node& n, api::ResourceModel& m) {
       d.ReadList(n, m.ranges, [&](const Node& item, api::ResourceModelRange& r) {
         d.Struct(item, r, kRangeFields);
         if (r.name.empty()) d.Required(item, "name");
       });
     }},
};

const doc::Field<Cluster> kClusterSpecFields[] = {
    {"provider", [](Decoder& d, const Node& n, Cluster& c) { d.ReadSymbol(n, c.provider); }},
    {"region", [](Decoder& d, const Node& n, Cluster& c) { d.ReadSymbol(n, c.region); }},
    {"zone", [](Decoder& d, const Node& n, Cluster& c) { d.ReadSymbol(n, c.zone); }},
    {"zones", [](Decoder& d, const Node& n, Cluster& c) { d.ReadSymbolList(n, c.zones); }},
    {"taints",
     [](Decoder& d, const Node& n, Cluster& c) {
       d.ReadList(n, c.taints, [&](const Node& item, api::Taint& t) { DecodeTaint(d, item, t); });
     }},
    {"resourceModels",
     [](Decoder& d, const Node& n, Cluster& c) {
       d.ReadList(n, c.resource_models, [&](const Node& item, api::ResourceModel& m) {
         d.Struct(item, m, kResourceModelFields);
       });
     }},
};
// Connection settings: they do not bear on placement.
constexpr std::string_view kClusterSpecIgnored[] = {"id",
                                                    "syncMode",
                                                    "apiEndpoint",
                                                    "secretRef",
                                                    "impersonatorSecretRef",
                                                    "insecureSkipTLSVerification",
                                                    "proxyURL",
                                                    "proxyHeader"};

struct ApiResourceIn {
  Symbol kind;
};
const doc::Field<ApiResourceIn> kApiResourceFields[] = {
    {"name",
     [](Decoder& d, const Node& n, ApiResourceIn&) {
       std::string_view s;
       d.ReadString(n, s);
     }},
    {"kind", [](Decoder& d, const Node& n, ApiResourceIn& r) { d.ReadSymbol(n, r.kind); }},
};

const doc::Field<api::ApiEnablement> kApiEnablementFields[] = {
    {"groupVersion",
     [](Decoder& d, const Node& n, api::ApiEnablement& e) { d.ReadSymbol(n, e.group_version); }},
    {"resources",
     [](Decoder& d, const Node& n, api::ApiEnablement& e) {
       std::vector<ApiResourceIn> resources;
       d.ReadList(n, resources, [&](const Node& item, ApiResourceIn& r) {
         d.Struct(item, r, kApiResourceFields);
       });
       for (const ApiResourceIn& r : resources) e.kinds.push_back(r.kind);
     }},
};

struct ConditionIn {
  Symbol type;
  Symbol status;
};
const doc::Field<ConditionIn> kConditionFields[] = {
    {"type", [](Decoder& d, const Node& n, ConditionIn& c) { d.ReadSymbol(n, c.type); }},
    {"status", [](Decoder& d, const Node& n, ConditionIn& c) { d.ReadSymbol(n, c.status); }},
};
constexpr std::string_view kConditionIgnored[] = {"reason", "message", "lastTransitionTime",
                                                  "observedGeneration", "lastHeartbeatTime"};

const doc::Field<api::AllocatableModeling> kModelingFields[] = {
    {"grade",
     [](Decoder& d, const Node& n, api::AllocatableModeling& m) {
       int64_t g = 0;
       if (d.ReadInt64(n, g, 0, std::numeric_limits<uint32_t>::max())) {
         m.grade = static_cast<uint32_t>(g);
       }
     }},
    {"count",
     [](Decoder& d, const Node& n, api::AllocatableModeling& m) { d.ReadInt64(n, m.count, 0); }},
};

const doc::Field<api::ResourceSummary> kSummaryFields[] = {
    {"allocatable",
     [](Decoder& d, const Node& n, api::ResourceSummary& s) {
       DecodeResourceList(d, n, s.allocatable, ResourceListUse::kNode);
     }},
    {"allocated",
     [](Decoder& d, const Node& n, api::ResourceSummary& s) {
       DecodeResourceList(d, n, s.allocated, ResourceListUse::kNode);
     }},
    {"allocating",
     [](Decoder& d, const Node& n, api::ResourceSummary& s) {
       DecodeResourceList(d, n, s.allocating, ResourceListUse::kNode);
     }},
    {"allocatableModelings",
     [](Decoder& d, const Node& n, api::ResourceSummary& s) {
       d.ReadList(n, s.allocatable_modelings, [&](const Node& item, api::AllocatableModeling& m) {
         d.Struct(item, m, kModelingFields);
       });
     }},
};

// Reads conditions and calls fn(type, status) for each.
template <class Fn>
void DecodeConditions(Decoder& d, const Node& n, Fn&& fn) {
  std::vector<ConditionIn> conditions;
  d.ReadList(n, conditions, [&](const Node& item, ConditionIn& c) {
    d.Struct(item, c, kConditionFields, kConditionIgnored);
  });
  for (const ConditionIn& c : conditions)
    fn(d.interner()->Str(c.type), d.interner()->Str(c.status));
}

const doc::Field<Cluster> kClusterStatusFields[] = {
    {"apiEnablements",
     [](Decoder& d, const Node& n, Cluster& c) {
       d.ReadList(n, c.api_enablements, [&](const Node& item, api::ApiEnablement& e) {
         d.Struct(item, e, kApiEnablementFields);
       });
     }},
    {"conditions",
     [](Decoder& d, const Node& n, Cluster& c) {
       DecodeConditions(d, n, [&](std::string_view type, std::string_view status) {
         if (type == "Ready") c.ready = status == "True";
         if (type == "CompleteAPIEnablements") c.complete_api_enablements = status == "True";
       });
     }},
    {"resourceSummary",
     [](Decoder& d, const Node& n, Cluster& c) {
       if (n.is_null()) return;
       c.resource_summary.emplace();
       d.Struct(n, *c.resource_summary, kSummaryFields);
     }},
};
constexpr std::string_view kClusterStatusIgnored[] = {"kubernetesVersion", "nodeSummary",
                                                      "remedyActions"};

const doc::Field<Cluster> kClusterFields[] = {
    {"apiVersion", [](Decoder&, const Node&, Cluster&) {}},
    {"kind", [](Decoder&, const Node&, Cluster&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    Cluster& c) { DecodeMeta(d, n, c.meta, {.namespaced = false}); }},
    {"spec", [](Decoder& d, const Node& n,
                Cluster& c) { d.Struct(n, c, kClusterSpecFields, kClusterSpecIgnored); }},
    {"status", [](Decoder& d, const Node& n,
                  Cluster& c) { d.Struct(n, c, kClusterStatusFields, kClusterStatusIgnored); }},
};

// ---- Placement ----------------------------------------------------------------------------------

constexpr doc::EnumName<api::NodeSelectorOp> kFieldOps[] = {
    {"In", api::NodeSelectorOp::kIn},
    {"NotIn", api::NodeSelectorOp::kNotIn},
};

const doc::Field<api::NodeSelectorRequirement> kFieldRequirementFields[] = {
    {"key",
     [](Decoder& d, const Node& n, api::NodeSelectorRequirement& r) {
       if (!d.ReadSymbol(n, r.key)) return;
       std::string_view key = d.interner()->Str(r.key);
       if (key != "provider" && key != "region" && key != "zone") {
         d.Error(n, fmt::format("unsupported key {:?}, must be provider, region, or zone", key));
       }
     }},
    {"operator",
     [](Decoder& d, const Node& n, api::NodeSelectorRequirement& r) {
       d.ReadEnum(n, kFieldOps, "operator", r.op);
     }},
    {"values", [](Decoder& d, const Node& n,
                  api::NodeSelectorRequirement& r) { d.ReadSymbolList(n, r.values); }},
};

struct FieldSelectorIn {
  std::vector<api::NodeSelectorRequirement> expressions;
};
const doc::Field<FieldSelectorIn> kFieldSelectorFields[] = {
    {"matchExpressions",
     [](Decoder& d, const Node& n, FieldSelectorIn& f) {
       d.ReadList(n, f.expressions, [&](const Node& item, api::NodeSelectorRequirement& r) {
         d.Struct(item, r, kFieldRequirementFields);
         if (r.key.empty()) d.Required(item, "key");
         if (item.Find("operator") == nullptr) d.Required(item, "operator", "In or NotIn");
         if (r.values.empty()) d.Required(item, "values");
       });
     }},
};

// The ClusterAffinity fields, shared by clusterAffinity, clusterAffinities[] (inline),
// overflowAffinities[] (inline) and staticWeightList[].targetCluster.

#define CORRAL_AFFINITY_FIELDS(T, member)                                                        \
  {"labelSelector",                                                                              \
   [](Decoder& d, const Node& n, T& o) { DecodeLabelSelector(d, n, o member.label_selector); }}, \
      {"fieldSelector",                                                                          \
       [](Decoder& d, const Node& n, T& o) {                                                     \
         if (n.is_null()) return;                                                                \
         FieldSelectorIn f;                                                                      \
         d.Struct(n, f, kFieldSelectorFields);                                                   \
         o member.field_selector = std::move(f.expressions);                                     \
       }},                                                                                       \
      {"clusterNames",                                                                           \
       [](Decoder& d, const Node& n, T& o) { d.ReadSymbolList(n, o member.cluster_names); }},    \
  {                                                                                              \
    "exclude", [](Decoder& d, const Node& n, T& o) { d.ReadSymbolList(n, o member.exclude); }    \
  }

const doc::Field<api::ClusterAffinity> kClusterAffinityFields[] = {
    CORRAL_AFFINITY_FIELDS(api::ClusterAffinity, ),
};

const doc::Field<api::ClusterAffinityTerm> kOverflowFields[] = {
    {"affinityName", [](Decoder& d, const Node& n,
                        api::ClusterAffinityTerm& t) { d.ReadSymbol(n, t.affinity_name); }},
    CORRAL_AFFINITY_FIELDS(api::ClusterAffinityTerm, .affinity),
};

const doc::Field<api::ClusterAffinityTerm> kAffinityTermFields[] = {
    {"affinityName", [](Decoder& d, const Node& n,
                        api::ClusterAffinityTerm& t) { d.ReadSymbol(n, t.affinity_name); }},
    CORRAL_AFFINITY_FIELDS(api::ClusterAffinityTerm, .affinity),
    {"overflowAffinities",
     [](Decoder& d, const Node& n, api::ClusterAffinityTerm& t) {
       d.ReadList(n, t.overflow, [&](const Node& item, api::ClusterAffinityTerm& o) {
         d.Struct(item, o, kOverflowFields);
         if (o.affinity_name.empty()) d.Required(item, "affinityName");
       });
     }},
};

#undef CORRAL_AFFINITY_FIELDS

constexpr doc::EnumName<api::SpreadByField> kSpreadFields[] = {
    {"cluster", api::SpreadByField::kCluster},
    {"region", api::SpreadByField::kRegion},
    {"zone", api::SpreadByField::kZone},
    {"provider", api::SpreadByField::kProvider},
};

const doc::Field<api::SpreadConstraint> kSpreadConstraintFields[] = {
    {"spreadByField",
     [](Decoder& d, const Node& n, api::SpreadConstraint& c) {
       d.ReadEnum(n, kSpreadFields, "spreadByField", c.spread_by_field);
     }},
    {"spreadByLabel",
     [](Decoder& d, const Node& n, api::SpreadConstraint& c) {
       if (d.ReadSymbol(n, c.spread_by_label)) {
         CheckQualifiedNameAt(d, n, "spreadByLabel", d.interner()->Str(c.spread_by_label));
       }
     }},
    {"maxGroups",
     [](Decoder& d, const Node& n, api::SpreadConstraint& c) { d.ReadInt32(n, c.max_groups); }},
    {"minGroups",
     [](Decoder& d, const Node& n, api::SpreadConstraint& c) { d.ReadInt32(n, c.min_groups); }},
};

const doc::Field<api::StaticClusterWeight> kStaticWeightFields[] = {
    {"targetCluster",
     [](Decoder& d, const Node& n, api::StaticClusterWeight& w) {
       d.Struct(n, w.target_cluster, kClusterAffinityFields);
     }},
    {"weight",
     [](Decoder& d, const Node& n, api::StaticClusterWeight& w) { d.ReadInt64(n, w.weight, 1); }},
};

constexpr doc::EnumName<bool> kDynamicWeights[] = {{"AvailableReplicas", true}};

const doc::Field<api::ClusterPreferences> kPreferenceFields[] = {
    {"staticWeightList",
     [](Decoder& d, const Node& n, api::ClusterPreferences& p) {
       d.ReadList(n, p.static_weight_list, [&](const Node& item, api::StaticClusterWeight& w) {
         d.Struct(item, w, kStaticWeightFields);
         if (item.is_map() && item.Find("weight") == nullptr) d.Required(item, "weight");
       });
     }},
    {"dynamicWeight",
     [](Decoder& d, const Node& n, api::ClusterPreferences& p) {
       d.ReadEnum(n, kDynamicWeights, "dynamicWeight", p.dynamic_weight_by_available_replicas);
     }},
};

constexpr doc::EnumName<api::ReplicaSchedulingType> kSchedulingTypes[] = {
    {"Duplicated", api::ReplicaSchedulingType::kDuplicated},
    {"Divided", api::ReplicaSchedulingType::kDivided},
};
constexpr doc::EnumName<api::ReplicaDivisionPreference> kDivisionPreferences[] = {
    {"Aggregated", api::ReplicaDivisionPreference::kAggregated},
    {"Weighted", api::ReplicaDivisionPreference::kWeighted},
};

const doc::Field<api::ReplicaSchedulingStrategy> kStrategyFields[] = {
    {"replicaSchedulingType",
     [](Decoder& d, const Node& n, api::ReplicaSchedulingStrategy& s) {
       d.ReadEnum(n, kSchedulingTypes, "replicaSchedulingType", s.type);
     }},
    {"replicaDivisionPreference",
     [](Decoder& d, const Node& n, api::ReplicaSchedulingStrategy& s) {
       d.ReadEnum(n, kDivisionPreferences, "replicaDivisionPreference", s.division_preference);
     }},
    {"weightPreference",
     [](Decoder& d, const Node& n, api::ReplicaSchedulingStrategy& s) {
       if (n.is_null()) return;
       s.weight_preference.emplace();
       d.Struct(n, *s.weight_preference, kPreferenceFields);
     }},
};

void ValidateSpreadConstraints(Decoder& d, const Node& n,
                               const std::vector<api::SpreadConstraint>& cs) {
  bool any_field = false;
  bool has_cluster = false;
  for (size_t i = 0; i < cs.size(); ++i) {
    const api::SpreadConstraint& c = cs[i];
    const Node& item = n.items()[i];
    auto s = d.Index(i);
    if (c.spread_by_field != api::SpreadByField::kNone && !c.spread_by_label.empty()) {
      d.Error(item, "spreadByLabel should not co-exist with spreadByField");
    }
    if (!c.spread_by_label.empty()) {
      d.Error(item,
              "spreadByLabel is not supported: Karmada's scheduler selects clusters by "
              "cluster and region spread constraints only");
    }
    if (c.min_groups < 0) d.Error(item, "minGroups lower than 0 is not allowed");
    if (c.max_groups < 0) d.Error(item, "maxGroups lower than 0 is not allowed");
    if (c.max_groups > 0 && c.max_groups < c.min_groups) {
      d.Error(item, "maxGroups lower than minGroups is not allowed");
    }
    if (c.spread_by_field != api::SpreadByField::kNone) {
      any_field = true;
      if (c.spread_by_field == api::SpreadByField::kCluster) has_cluster = true;
      for (size_t j = 0; j < i; ++j) {
        if (cs[j].spread_by_field == c.spread_by_field) {
          d.Error(item, fmt::format("multiple {} spread constraints are not allowed",
                                    kSpreadFields[static_cast<int>(c.spread_by_field) - 1].name));
          break;
        }
      }
    }
  }
  if (any_field && !has_cluster) {
    d.Error(n,
            "the cluster spread constraint must be enabled in one of the constraints in case of "
            "SpreadByField is enabled");
  }
}

const doc::Field<api::Placement> kPlacementFields[] = {
    {"clusterAffinity",
     [](Decoder& d, const Node& n, api::Placement& p) {
       if (n.is_null()) return;
       p.cluster_affinity.emplace();
       d.Struct(n, *p.cluster_affinity, kClusterAffinityFields);
     }},
    {"clusterAffinities",
     [](Decoder& d, const Node& n, api::Placement& p) {
       d.ReadList(n, p.cluster_affinities, [&](const Node& item, api::ClusterAffinityTerm& t) {
         d.Struct(item, t, kAffinityTermFields);
         if (t.affinity_name.empty()) d.Required(item, "affinityName");
       });
       for (size_t i = 0; i < p.cluster_affinities.size(); ++i) {
         for (size_t j = 0; j < i; ++j) {
           if (!p.cluster_affinities[i].affinity_name.empty() &&
               p.cluster_affinities[i].affinity_name == p.cluster_affinities[j].affinity_name) {
             auto s = d.Index(i);
             d.Error(n.items()[i],
                     fmt::format("duplicate affinityName {:?}",
                                 d.interner()->Str(p.cluster_affinities[i].affinity_name)));
             break;
           }
         }
       }
     }},
    {"clusterTolerations",
     [](Decoder& d, const Node& n, api::Placement& p) {
       d.ReadList(n, p.cluster_tolerations,
                  [&](const Node& item, api::Toleration& t) { DecodeToleration(d, item, t); });
     }},
    {"spreadConstraints",
     [](Decoder& d, const Node& n, api::Placement& p) {
       d.ReadList(n, p.spread_constraints, [&](const Node& item, api::SpreadConstraint& c) {
         d.Struct(item, c, kSpreadConstraintFields);
         // The webhook's SetDefaultSpreadConstraints: spread by cluster, minGroups 1.
         if (c.spread_by_field == api::SpreadByField::kNone && c.spread_by_label.empty()) {
           c.spread_by_field = api::SpreadByField::kCluster;
         }
         if (c.min_groups == 0) c.min_groups = 1;
       });
       if (n.is_sequence()) ValidateSpreadConstraints(d, n, p.spread_constraints);
     }},
    {"replicaScheduling",
     [](Decoder& d, const Node& n, api::Placement& p) {
       if (n.is_null()) return;
       api::ReplicaSchedulingStrategy s;
       s.type = api::ReplicaSchedulingType::kDivided;  // the CRD's default
       d.Struct(n, s, kStrategyFields);
       // The webhook's SetReplicaDivisionPreferenceWeighted.
       if (s.type == api::ReplicaSchedulingType::kDivided &&
           s.division_preference == api::ReplicaDivisionPreference::kNone) {
         s.division_preference = api::ReplicaDivisionPreference::kWeighted;
       }
       p.replica_scheduling = std::move(s);
     }},
    {"workloadAffinity",
     [](Decoder& d, const Node& n, api::Placement&) {
       if (!n.is_null()) {
         d.Error(n, "workload affinity (the alpha WorkloadAffinity feature) is not supported");
       }
     }},
};

void CheckPlacement(Decoder& d, const Node& n, const api::Placement& p) {
  if (p.cluster_affinity && !p.cluster_affinities.empty()) {
    d.Error(n, "clusterAffinities can not co-exist with clusterAffinity");
  }
}

// ---- ResourceBinding ----------------------------------------------------------------------------

const doc::Field<api::ObjectReference> kObjectReferenceFields[] = {
    {"apiVersion",
     [](Decoder& d, const Node& n, api::ObjectReference& r) { d.ReadSymbol(n, r.api_version); }},
    {"kind", [](Decoder& d, const Node& n, api::ObjectReference& r) { d.ReadSymbol(n, r.kind); }},
    {"namespace",
     [](Decoder& d, const Node& n, api::ObjectReference& r) { d.ReadSymbol(n, r.namespace_); }},
    {"name", [](Decoder& d, const Node& n, api::ObjectReference& r) { d.ReadSymbol(n, r.name); }},
    {"uid", [](Decoder& d, const Node& n, api::ObjectReference& r) { d.ReadSymbol(n, r.uid); }},
};
constexpr std::string_view kObjectReferenceIgnored[] = {"resourceVersion"};

const doc::Field<api::ReplicaRequirements> kReplicaRequirementsFields[] = {
    {"resourceRequest",
     [](Decoder& d, const Node& n, api::ReplicaRequirements& r) {
       DecodeResourceList(d, n, r.resource_request, ResourceListUse::kContainer);
     }},
    {"namespace",
     [](Decoder& d, const Node& n, api::ReplicaRequirements& r) { d.ReadSymbol(n, r.namespace_); }},
    {"priorityClassName",
     [](Decoder& d, const Node& n, api::ReplicaRequirements& r) {
       d.ReadSymbol(n, r.priority_class_name);
     }},
};
// nodeClaim (node affinity, selector and tolerations of the template) matters only to the
// accurate estimator, which reads the member's real nodes.
constexpr std::string_view kReplicaRequirementsIgnored[] = {"nodeClaim"};

const doc::Field<api::TargetCluster> kTargetClusterFields[] = {
    {"name", [](Decoder& d, const Node& n, api::TargetCluster& t) { d.ReadSymbol(n, t.name); }},
    {"replicas",
     [](Decoder& d, const Node& n, api::TargetCluster& t) { d.ReadInt32(n, t.replicas, 0); }},
};

struct EvictionTaskIn {
  Symbol from_cluster;
};
const doc::Field<EvictionTaskIn> kEvictionTaskFields[] = {
    {"fromCluster",
     [](Decoder& d, const Node& n, EvictionTaskIn& t) { d.ReadSymbol(n, t.from_cluster); }},
};
constexpr std::string_view kEvictionTaskIgnored[] = {"purgeMode",
                                                     "replicas",
                                                     "reason",
                                                     "message",
                                                     "producer",
                                                     "gracePeriodSeconds",
                                                     "suppressDeletion",
                                                     "preservedLabelState",
                                                     "creationTimestamp",
                                                     "clustersBeforeFailover"};

constexpr doc::EnumName<api::PreemptionPolicy> kPreemptionPolicies[] = {
    {"Never", api::PreemptionPolicy::kNever},
    {"PreemptLowerPriority", api::PreemptionPolicy::kPreemptLowerPriority},
};
const doc::Field<FleetWork> kSchedulePriorityFields[] = {
    {"priority", [](Decoder& d, const Node& n, FleetWork& w) { d.ReadInt32(n, w.priority); }},
    {"preemptionPolicy",
     [](Decoder& d, const Node& n, FleetWork& w) {
       api::PreemptionPolicy p = api::PreemptionPolicy::kNever;
       if (d.ReadEnum(n, kPreemptionPolicies, "preemptionPolicy", p)) w.preemption_policy = p;
     }},
};

struct SuspensionIn {};
const doc::Field<SuspensionIn> kSuspensionFields[] = {
    {"dispatching",
     [](Decoder& d, const Node& n, SuspensionIn&) {
       bool b = false;
       d.ReadBool(n, b);
     }},
    {"dispatchingOnClusters", [](Decoder&, const Node&, SuspensionIn&) {}},
    {"scheduling",
     [](Decoder& d, const Node& n, SuspensionIn&) {
       bool b = false;
       if (d.ReadBool(n, b) && b) d.Error(n, "suspended scheduling is not supported");
     }},
};

const doc::Field<FleetWork> kBindingSpecFields[] = {
    {"resource",
     [](Decoder& d, const Node& n, FleetWork& w) {
       d.Struct(n, w.resource, kObjectReferenceFields, kObjectReferenceIgnored);
       if (!n.is_map()) return;
       if (w.resource.api_version.empty()) d.Required(n, "apiVersion");
       if (w.resource.kind.empty()) d.Required(n, "kind");
       if (w.resource.name.empty()) d.Required(n, "name");
     }},
    {"replicas", [](Decoder& d, const Node& n, FleetWork& w) { d.ReadInt32(n, w.replicas, 0); }},
    {"replicaRequirements",
     [](Decoder& d, const Node& n, FleetWork& w) {
       if (n.is_null()) return;
       w.replica_requirements.emplace();
       d.Struct(n, *w.replica_requirements, kReplicaRequirementsFields,
                kReplicaRequirementsIgnored);
     }},
    {"clusters",
     [](Decoder& d, const Node& n, FleetWork& w) {
       d.ReadList(n, w.clusters, [&](const Node& item, api::TargetCluster& t) {
         d.Struct(item, t, kTargetClusterFields);
         if (t.name.empty()) d.Required(item, "name");
       });
     }},
    {"placement",
     [](Decoder& d, const Node& n, FleetWork& w) { DecodePlacement(d, n, w.placement); }},
    {"gracefulEvictionTasks",
     [](Decoder& d, const Node& n, FleetWork& w) {
       std::vector<EvictionTaskIn> tasks;
       d.ReadList(n, tasks, [&](const Node& item, EvictionTaskIn& t) {
         d.Struct(item, t, kEvictionTaskFields, kEvictionTaskIgnored);
         if (t.from_cluster.empty()) d.Required(item, "fromCluster");
       });
       for (const EvictionTaskIn& t : tasks) w.graceful_eviction_clusters.push_back(t.from_cluster);
     }},
    {"rescheduleTriggeredAt",
     [](Decoder& d, const Node& n, FleetWork& w) {
       TimePoint t;
       if (d.ReadTime(n, t)) w.reschedule_triggered_at = t;
     }},
    {"schedulePriority",
     [](Decoder& d, const Node& n, FleetWork& w) { d.Struct(n, w, kSchedulePriorityFields); }},
    {"suspension",
     [](Decoder& d, const Node& n, FleetWork&) {
       SuspensionIn s;
       d.Struct(n, s, kSuspensionFields);
     }},
    {"components",
     [](Decoder& d, const Node& n, FleetWork&) {
       if (!n.is_null()) {
         d.Error(n,
                 "multiple pod templates (components) are not supported; give replicas and "
                 "replicaRequirements");
       }
     }},
    {"schedulerName",
     [](Decoder& d, const Node& n, FleetWork&) { CheckKarmadaSchedulerName(d, n); }},
    {"workloadAffinityGroups",
     [](Decoder& d, const Node& n, FleetWork&) {
       if (!n.is_null()) {
         d.Error(n, "workload affinity (the alpha WorkloadAffinity feature) is not supported");
       }
     }},
};
// Dependencies, failover, conflict handling and deletion policy do not bear on placement.
constexpr std::string_view kBindingSpecIgnored[] = {
    "propagateDeps", "requiredBy", "failover", "conflictResolution", "preserveResourcesOnDeletion"};

const doc::Field<FleetWork> kBindingStatusFields[] = {
    {"schedulerObservingAffinityName",
     [](Decoder& d, const Node& n, FleetWork& w) {
       d.ReadSymbol(n, w.scheduler_observed_affinity_name);
     }},
    {"lastScheduledTime",
     [](Decoder& d, const Node& n, FleetWork& w) {
       TimePoint t;
       if (d.ReadTime(n, t)) w.last_scheduled_time = t;
     }},
};
constexpr std::string_view kBindingStatusIgnored[] = {"schedulerObservedGeneration", "conditions",
                                                      "aggregatedStatus"};

const doc::Field<FleetWork> kBindingFields[] = {
    {"apiVersion", [](Decoder&, const Node&, FleetWork&) {}},
    {"kind", [](Decoder&, const Node&, FleetWork&) {}},
    {"metadata",
     [](Decoder& d, const Node& n, FleetWork& w) {
       DecodeMeta(d, n, w.meta,
                  {.namespaced = w.source_kind == api::FleetWorkSourceKind::kResourceBinding});
     }},
    {"spec", [](Decoder& d, const Node& n,
                FleetWork& w) { d.Struct(n, w, kBindingSpecFields, kBindingSpecIgnored); }},
    {"status", [](Decoder& d, const Node& n,
                  FleetWork& w) { d.Struct(n, w, kBindingStatusFields, kBindingStatusIgnored); }},
};

}  // namespace

void CheckKarmadaSchedulerName(Decoder& d, const Node& n) {
  std::string name;
  if (!d.ReadString(n, name) || name.empty() || name == "default-scheduler") return;
  d.Error(n, fmt::format("scheduler {:?} is not Karmada's default-scheduler, which Corral models; "
                         "that scheduler would place this work",
                         name));
}

void DecodePlacement(Decoder& d, const Node& n, api::Placement& out) {
  d.Struct(n, out, kPlacementFields);
  if (n.is_map()) CheckPlacement(d, n, out);
}

void DecodeKarmadaCluster(Decoder& d, const Node& root, api::Cluster& out) {
  out.source_kind = api::ClusterSourceKind::kKarmadaCluster;
  d.Struct(root, out, kClusterFields);
  CheckMetaPresent(d, root, out.meta);
}

void DecodeResourceBinding(Decoder& d, const Node& root, bool cluster_scoped, api::FleetWork& out) {
  out.source_kind = cluster_scoped ? api::FleetWorkSourceKind::kClusterResourceBinding
                                   : api::FleetWorkSourceKind::kResourceBinding;
  d.Struct(root, out, kBindingFields);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) {
    d.Required(root, "spec");
  } else if (spec->is_map() && spec->Find("resource") == nullptr) {
    auto s = d.Field("spec");
    d.Required(*spec, "resource");
  }
}

}  // namespace corral::loader::internal
