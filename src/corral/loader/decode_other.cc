// v1 Node, Namespace, Service, ReplicationController; apps/v1 ReplicaSet, StatefulSet;
// scheduling.k8s.io/v1 PriorityClass; policy/v1 PodDisruptionBudget.

#include <algorithm>

#include <fmt/format.h>

#include "corral/loader/internal/decode.h"
#include "corral/loader/validation.h"

namespace corral::loader::internal {

namespace {

Interner& In(Decoder& d) {
  return *d.interner();
}

constexpr std::string_view kStatus[] = {"status"};

// ---- Node ---------------------------------------------------------------------------------------

const doc::Field<api::Node> kNodeSpecFields[] = {
    {"unschedulable",
     [](Decoder& d, const Node& n, api::Node& o) { d.ReadBool(n, o.unschedulable); }},
    {"taints",
     [](Decoder& d, const Node& n, api::Node& o) {
       d.ReadList(n, o.taints, [&](const Node& item, api::Taint& t) { DecodeTaint(d, item, t); });
       // Taints are unique by (key, effect).
       for (size_t i = 0; i < o.taints.size(); ++i) {
         for (size_t j = 0; j < i; ++j) {
           if (o.taints[i].key == o.taints[j].key && o.taints[i].effect == o.taints[j].effect &&
               !o.taints[i].key.empty()) {
             auto s = d.Index(i);
             d.Error(n.items()[i],
                     fmt::format("taints must be unique by key and effect pair: {:?} repeats "
                                 "taints[{}]",
                                 In(d).Str(o.taints[i].key), j));
             break;
           }
         }
       }
     }},
};
constexpr std::string_view kNodeSpecIgnored[] = {"podCIDR", "podCIDRs", "providerID",
                                                 "configSource", "externalID"};

const doc::Field<api::ContainerImage> kImageFields[] = {
    {"names",
     [](Decoder& d, const Node& n, api::ContainerImage& i) { d.ReadSymbolList(n, i.names); }},
    {"sizeBytes",
     [](Decoder& d, const Node& n, api::ContainerImage& i) { d.ReadInt64(n, i.size_bytes, 0); }},
};

const doc::Field<api::NodeCondition> kNodeConditionFields[] = {
    {"type", [](Decoder& d, const Node& n, api::NodeCondition& c) { d.ReadSymbol(n, c.type); }},
    {"status", [](Decoder& d, const Node& n, api::NodeCondition& c) { d.ReadSymbol(n, c.status); }},
};
constexpr std::string_view kNodeConditionIgnored[] = {"lastHeartbeatTime", "lastTransitionTime",
                                                      "reason", "message"};

const doc::Field<api::Node> kNodeStatusFields[] = {
    {"capacity",
     [](Decoder& d, const Node& n, api::Node& o) {
       DecodeResourceList(d, n, o.capacity, ResourceListUse::kNode);
     }},
    {"allocatable",
     [](Decoder& d, const Node& n, api::Node& o) {
       DecodeResourceList(d, n, o.allocatable, ResourceListUse::kNode);
     }},
    {"images",
     [](Decoder& d, const Node& n, api::Node& o) {
       d.ReadList(n, o.images, [&](const Node& item, api::ContainerImage& i) {
         d.Struct(item, i, kImageFields);
       });
     }},
    {"conditions",
     [](Decoder& d, const Node& n, api::Node& o) {
       d.ReadList(n, o.conditions, [&](const Node& item, api::NodeCondition& c) {
         d.Struct(item, c, kNodeConditionFields, kNodeConditionIgnored);
       });
     }},
};
constexpr std::string_view kNodeStatusIgnored[] = {
    "phase",           "addresses", "daemonEndpoints", "nodeInfo", "volumesInUse",
    "volumesAttached", "config",    "runtimeHandlers", "features", "declaredFeatures",
};

const doc::Field<api::Node> kNodeFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::Node&) {}},
    {"kind", [](Decoder&, const Node&, api::Node&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::Node& o) { DecodeMeta(d, n, o.meta, {.namespaced = false}); }},
    {"spec", [](Decoder& d, const Node& n,
                api::Node& o) { d.Struct(n, o, kNodeSpecFields, kNodeSpecIgnored); }},
    {"status", [](Decoder& d, const Node& n,
                  api::Node& o) { d.Struct(n, o, kNodeStatusFields, kNodeStatusIgnored); }},
};

// ---- Namespace ----------------------------------------------------------------------------------

const doc::Field<api::Namespace> kNamespaceFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::Namespace&) {}},
    {"kind", [](Decoder&, const Node&, api::Namespace&) {}},
    {"metadata",
     [](Decoder& d, const Node& n, api::Namespace& o) {
       DecodeMeta(d, n, o.meta, {.namespaced = false, .name = NameRule::kDns1123Label});
     }},
};
constexpr std::string_view kNamespaceIgnored[] = {"spec", "status"};

// ---- PriorityClass ------------------------------------------------------------------------------

const doc::Field<api::PriorityClass> kPriorityClassFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::PriorityClass&) {}},
    {"kind", [](Decoder&, const Node&, api::PriorityClass&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::PriorityClass& o) { DecodeMeta(d, n, o.meta, {.namespaced = false}); }},
    {"value", [](Decoder& d, const Node& n, api::PriorityClass& o) { d.ReadInt32(n, o.value); }},
    {"globalDefault",
     [](Decoder& d, const Node& n, api::PriorityClass& o) { d.ReadBool(n, o.global_default); }},
    {"description",
     [](Decoder& d, const Node& n, api::PriorityClass& o) { d.ReadString(n, o.description); }},
    {"preemptionPolicy",
     [](Decoder& d, const Node& n, api::PriorityClass& o) {
       d.ReadEnum(n, kPreemptionPolicies, "preemptionPolicy", o.preemption_policy);
     }},
};

// ---- PodDisruptionBudget ------------------------------------------------------------------------

bool DecodeIntOrPercent(Decoder& d, const Node& n, std::optional<api::IntOrPercent>& out) {
  if (n.is_null()) return false;
  api::IntOrPercent v;
  if (n.kind() == doc::Kind::kInt) {
    int32_t i = 0;
    if (!d.ReadInt32(n, i, 0)) return false;
    v.value = i;
  } else if (n.is_string()) {
    std::string_view s = n.text();
    int64_t pct = -1;
    if (s.size() >= 2 && s.back() == '%' && s.size() <= 11) {
      pct = 0;
      for (char c : s.substr(0, s.size() - 1)) {
        if (c < '0' || c > '9') {
          pct = -1;
          break;
        }
        pct = pct * 10 + (c - '0');
      }
    }
    if (pct < 0) {
      d.Error(n,
              fmt::format(
                  "invalid value {:?}: a valid percent string must be a numeric string followed by "
                  "an ending '%' (e.g. '1%', or '93%')",
                  s));
      return false;
    }
    if (pct > 100) {
      d.Error(n, fmt::format("invalid value {:?}: must not be greater than 100%", s));
      return false;
    }
    v.value = static_cast<int32_t>(pct);
    v.is_percent = true;
  } else {
    d.Error(n, "expected an integer or a percentage string such as \"50%\", got " +
                   Decoder::Describe(n));
    return false;
  }
  out = v;
  return true;
}

const doc::Field<api::PodDisruptionBudget> kPdbSpecFields[] = {
    {"minAvailable",
     [](Decoder& d, const Node& n, api::PodDisruptionBudget& o) {
       DecodeIntOrPercent(d, n, o.min_available);
     }},
    {"maxUnavailable",
     [](Decoder& d, const Node& n, api::PodDisruptionBudget& o) {
       DecodeIntOrPercent(d, n, o.max_unavailable);
     }},
    {"selector", [](Decoder& d, const Node& n,
                    api::PodDisruptionBudget& o) { DecodeLabelSelector(d, n, o.selector); }},
};
constexpr std::string_view kPdbSpecIgnored[] = {"unhealthyPodEvictionPolicy"};

const doc::Field<api::PodDisruptionBudget> kPdbFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::PodDisruptionBudget&) {}},
    {"kind", [](Decoder&, const Node&, api::PodDisruptionBudget&) {}},
    {"metadata",
     [](Decoder& d, const Node& n, api::PodDisruptionBudget& o) {
       DecodeMeta(d, n, o.meta, {.namespaced = true});
     }},
    {"spec",
     [](Decoder& d, const Node& n, api::PodDisruptionBudget& o) {
       d.Struct(n, o, kPdbSpecFields, kPdbSpecIgnored);
       if (o.min_available && o.max_unavailable) {
         d.FieldError(n, "minAvailable", "minAvailable and maxUnavailable cannot be both set");
       }
     }},
};

// ---- selector owners ----------------------------------------------------------------------------

void DecodeOwnerMeta(Decoder& d, const Node& n, api::SelectorOwner& o) {
  NameRule rule = o.kind == api::SelectorOwnerKind::kService ? NameRule::kDns1035Label
                                                             : NameRule::kDns1123Subdomain;
  DecodeMeta(d, n, o.meta, {.namespaced = true, .name = rule});
}

const doc::Field<api::SelectorOwner> kMapSelectorSpecFields[] = {
    {"selector",
     [](Decoder& d, const Node& n, api::SelectorOwner& o) { DecodeMapSelector(d, n, o.selector); }},
};
const doc::Field<api::SelectorOwner> kLabelSelectorSpecFields[] = {
    {"selector", [](Decoder& d, const Node& n,
                    api::SelectorOwner& o) { DecodeLabelSelector(d, n, o.selector); }},
};
constexpr std::string_view kServiceSpecIgnored[] = {
    "ports",
    "clusterIP",
    "clusterIPs",
    "type",
    "externalIPs",
    "sessionAffinity",
    "loadBalancerIP",
    "loadBalancerSourceRanges",
    "externalName",
    "externalTrafficPolicy",
    "healthCheckNodePort",
    "publishNotReadyAddresses",
    "sessionAffinityConfig",
    "ipFamilies",
    "ipFamilyPolicy",
    "allocateLoadBalancerNodePorts",
    "loadBalancerClass",
    "internalTrafficPolicy",
    "trafficDistribution",
};
constexpr std::string_view kReplicationControllerSpecIgnored[] = {"replicas", "minReadySeconds",
                                                                  "template"};
constexpr std::string_view kReplicaSetSpecIgnored[] = {"replicas", "minReadySeconds", "template"};
constexpr std::string_view kStatefulSetSpecIgnored[] = {
    "replicas",
    "template",
    "volumeClaimTemplates",
    "serviceName",
    "podManagementPolicy",
    "updateStrategy",
    "revisionHistoryLimit",
    "minReadySeconds",
    "persistentVolumeClaimRetentionPolicy",
    "ordinals",
};

void DecodeOwnerSpec(Decoder& d, const Node& n, api::SelectorOwner& o) {
  switch (o.kind) {
    case api::SelectorOwnerKind::kService:
      d.Struct(n, o, kMapSelectorSpecFields, kServiceSpecIgnored);
      break;
    case api::SelectorOwnerKind::kReplicationController:
      d.Struct(n, o, kMapSelectorSpecFields, kReplicationControllerSpecIgnored);
      break;
    case api::SelectorOwnerKind::kReplicaSet:
      d.Struct(n, o, kLabelSelectorSpecFields, kReplicaSetSpecIgnored);
      break;
    case api::SelectorOwnerKind::kStatefulSet:
      d.Struct(n, o, kLabelSelectorSpecFields, kStatefulSetSpecIgnored);
      break;
  }
}

const doc::Field<api::SelectorOwner> kOwnerFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::SelectorOwner&) {}},
    {"kind", [](Decoder&, const Node&, api::SelectorOwner&) {}},
    {"metadata", DecodeOwnerMeta},
    {"spec", DecodeOwnerSpec},
};

}  // namespace

void DecodeNode(Decoder& d, const Node& root, api::Node& out) {
  d.Struct(root, out, kNodeFields);
  CheckMetaPresent(d, root, out.meta);
  // Allocatable defaults to capacity, resource by resource (as a kubelet without
  // reservations reports).
  bool added = false;
  for (const auto& [name, q] : out.capacity) {
    if (api::FindResource(out.allocatable, name) == nullptr) {
      out.allocatable.emplace_back(name, q);
      added = true;
    }
  }
  if (added) {
    std::sort(out.allocatable.begin(), out.allocatable.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  if (api::FindResource(out.allocatable, d.Intern("pods")) == nullptr) {
    const Node* status = root.Find("status");
    auto s = d.Field("status");
    d.Warning(status != nullptr ? *status : root,
              "node has no \"pods\" in allocatable or capacity: no pod can be scheduled on it (the "
              "kubelet "
              "reports 110 by default)");
  }
}

void DecodeNamespace(Decoder& d, const Node& root, api::Namespace& out) {
  d.Struct(root, out, kNamespaceFields, kNamespaceIgnored);
  CheckMetaPresent(d, root, out.meta);
}

void DecodePriorityClass(Decoder& d, const Node& root, api::PriorityClass& out) {
  d.Struct(root, out, kPriorityClassFields);
  CheckMetaPresent(d, root, out.meta);
  std::string_view name = In(d).Str(out.meta.name);
  constexpr int32_t kHighestUserDefinablePriority = 1'000'000'000;
  if (name.starts_with("system-")) {
    if (name != "system-node-critical" && name != "system-cluster-critical") {
      auto s = d.Field("metadata");
      d.FieldError(
          *root.Find("metadata"), "name",
          fmt::format("priority class names with 'system-' prefix are reserved: {:?}", name));
    }
  } else if (out.value > kHighestUserDefinablePriority) {
    const Node* v = root.Find("value");
    auto s = d.Field("value");
    d.Error(v != nullptr ? *v : root,
            fmt::format("invalid value {}: maximum allowed value of a user defined priority is {}",
                        out.value, kHighestUserDefinablePriority));
  }
}

void DecodePodDisruptionBudget(Decoder& d, const Node& root, api::PodDisruptionBudget& out) {
  d.Struct(root, out, kPdbFields, kStatus);
  CheckMetaPresent(d, root, out.meta);
}

void DecodeSelectorOwner(Decoder& d, const Node& root, api::SelectorOwner& out) {
  d.Struct(root, out, kOwnerFields, kStatus);
  CheckMetaPresent(d, root, out.meta);
}

}  // namespace corral::loader::internal
