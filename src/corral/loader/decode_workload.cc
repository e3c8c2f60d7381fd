// scheduling.k8s.io Workload (v1alpha1: spec.podGroups; v1alpha2/v1beta1: spec.podGroupTemplates)
// and PodGroup (v1alpha2/v1alpha3/v1beta1).
//
// PodGroup v1alpha3 (kube's staging/src/k8s.io/api/scheduling/v1alpha3/types.go) keeps v1alpha2's
// template reference (spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}) and
// takes v1beta1's topology form (spec.schedulingConstraints.topology[].key), with disruptionMode,
// priorityClassName, priority and resourceClaims beside them; the other versions' spellings
// (spec.workloadRef, schedulingConstraints.topologyConstraints) are errors there.

#include <fmt/format.h>

#include "corral/loader/internal/decode.h"
#include "corral/loader/validation.h"

namespace corral::loader::internal {

namespace {

Interner& In(Decoder& d) {
  return *d.interner();
}

constexpr size_t kMaxPodGroups = 8;

// ---- scheduling policy --------------------------------------------------------------------------

struct PolicyIn {
  api::PodGroupSchedulingPolicy p;
  int set = 0;
};

const doc::Field<PolicyIn> kGangFields[] = {
    {"minCount",
     [](Decoder& d, const Node& n, PolicyIn& in) { d.ReadInt32(n, in.p.min_count, 1); }},
};

const doc::Field<PolicyIn> kPolicyFields[] = {
    {"basic",
     [](Decoder& d, const Node& n, PolicyIn& in) {
       if (n.is_null()) return;
       if (d.ExpectMap(n) && !n.empty()) {
         for (size_t i = 0; i < n.size(); ++i) {
           d.UnknownField(n.key(i), {});
         }
       }
       ++in.set;
       in.p.kind = api::PodGroupPolicyKind::kBasic;
     }},
    {"gang",
     [](Decoder& d, const Node& n, PolicyIn& in) {
       if (n.is_null()) return;
       ++in.set;
       in.p.kind = api::PodGroupPolicyKind::kGang;
       auto seen = d.Struct(n, in, kGangFields);
       if (n.is_map() && !seen.has("minCount"))
         d.Required(n, "minCount", "an integer of at least 1");
     }},
};

// Decodes a PodGroupSchedulingPolicy / PodGroupPolicy oneOf at `n`; reports when not exactly one
// is set.
api::PodGroupSchedulingPolicy DecodePolicy(Decoder& d, const Node& n) {
  PolicyIn in;
  d.Struct(n, in, kPolicyFields);
  if (n.is_map() && in.set != 1) {
    d.Error(n, in.set == 0 ? "exactly one of basic, gang must be set (got none)"
                           : "exactly one of basic, gang must be set (got both)");
  }
  if (in.p.kind == api::PodGroupPolicyKind::kBasic) in.p.min_count = 0;
  return in.p;
}

// ---- Workload -----------------------------------------------------------------------------------

const doc::Field<api::TypedLocalObjectReference> kControllerRefFields[] = {
    {"apiGroup", [](Decoder& d, const Node& n,
                    api::TypedLocalObjectReference& r) { d.ReadSymbol(n, r.api_group); }},
    {"kind",
     [](Decoder& d, const Node& n, api::TypedLocalObjectReference& r) { d.ReadSymbol(n, r.kind); }},
    {"name",
     [](Decoder& d, const Node& n, api::TypedLocalObjectReference& r) { d.ReadSymbol(n, r.name); }},
};

void DecodeControllerRef(Decoder& d, const Node& n, api::Workload& w) {
  if (n.is_null()) return;
  api::TypedLocalObjectReference r;
  d.Struct(n, r, kControllerRefFields);
  if (!n.is_map()) return;
  if (r.kind.empty()) d.Required(n, "kind");
  if (r.name.empty()) d.Required(n, "name");
  w.controller_ref = r;
}

struct GroupIn {
  api::WorkloadPodGroup g;
  const Node* policy = nullptr;
};

// v1alpha1 spec.podGroups[] = {name, policy}.
const doc::Field<GroupIn> kAlphaGroupFields[] = {
    {"name", [](Decoder& d, const Node& n, GroupIn& in) { d.ReadSymbol(n, in.g.name); }},
    {"policy",
     [](Decoder& d, const Node& n, GroupIn& in) {
       in.policy = &n;
       in.g.policy = DecodePolicy(d, n);
     }},
};

// Current spec.podGroupTemplates[] = {name, schedulingPolicy, ...}.
const doc::Field<GroupIn> kTemplateFields[] = {
    {"name", [](Decoder& d, const Node& n, GroupIn& in) { d.ReadSymbol(n, in.g.name); }},
    {"schedulingPolicy",
     [](Decoder& d, const Node& n, GroupIn& in) {
       in.policy = &n;
       in.g.policy = DecodePolicy(d, n);
     }},
};
// Template fields that the controller copies into each PodGroup; the PodGroup's copy is
// what counts.
constexpr std::string_view kTemplateIgnored[] = {
    "schedulingConstraints", "resourceClaims", "disruptionMode",
    "priorityClassName",     "priority",       "preemptionPolicy"};

void DecodeGroups(Decoder& d, const Node& n, api::Workload& w, bool alpha) {
  std::string_view policy_field = alpha ? "policy" : "schedulingPolicy";
  if (!d.ExpectSequence(n)) return;
  if (n.size() > kMaxPodGroups) {
    d.Error(n, fmt::format("must have at most {} items, got {}", kMaxPodGroups, n.size()));
  }
  d.ForEachItem(n, [&](const Node& item) {
    GroupIn in;
    if (alpha) {
      d.Struct(item, in, kAlphaGroupFields);
    } else {
      d.Struct(item, in, kTemplateFields, kTemplateIgnored);
    }
    if (!item.is_map()) return;
    if (in.g.name.empty()) {
      d.Required(item, "name");
    } else if (std::string err = CheckDns1123Label(In(d).Str(in.g.name)); !err.empty()) {
      d.FieldError(item, "name", fmt::format("invalid name {:?}: {}", In(d).Str(in.g.name), err));
    } else {
      for (const auto& g : w.pod_groups) {
        if (g.name == in.g.name) {
          d.FieldError(item, "name", fmt::format("duplicate value {:?}", In(d).Str(in.g.name)));
          break;
        }
      }
    }
    if (in.policy == nullptr || in.policy->is_null())
      d.Required(item, policy_field, "basic: {} or gang: {minCount: N}");
    w.pod_groups.push_back(in.g);
  });
}

const doc::Field<api::Workload> kAlphaSpecFields[] = {
    {"controllerRef", DecodeControllerRef},
    {"podGroups",
     [](Decoder& d, const Node& n, api::Workload& w) { DecodeGroups(d, n, w, /*alpha=*/true); }},
};

const doc::Field<api::Workload> kCurrentSpecFields[] = {
    {"controllerRef", DecodeControllerRef},
    {"podGroupTemplates",
     [](Decoder& d, const Node& n, api::Workload& w) { DecodeGroups(d, n, w, /*alpha=*/false); }},
    {"compositePodGroupTemplates",
     [](Decoder& d, const Node& n, api::Workload&) {
       if (!n.is_null() && !n.empty()) {
         d.Warning(n, "CompositePodGroup templates are not modelled by Corral; ignored");
       }
     }},
};

const doc::Field<api::Workload> kWorkloadFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::Workload&) {}},
    {"kind", [](Decoder&, const Node&, api::Workload&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::Workload& w) { DecodeMeta(d, n, w.meta, {.namespaced = true}); }},
    {"spec",
     [](Decoder& d, const Node& n, api::Workload& w) {
       if (w.generation == api::WorkloadApiGeneration::kV1Alpha1) {
         d.Struct(n, w, kAlphaSpecFields);
       } else {
         d.Struct(n, w, kCurrentSpecFields);
       }
     }},
};

// ---- PodGroup -----------------------------------------------------------------------------------

// v1alpha2: spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}.
const doc::Field<api::PodGroup> kTemplateWorkloadRefFields[] = {
    {"workloadName", [](Decoder& d, const Node& n,
                        api::PodGroup& g) { d.ReadSymbol(n, g.template_workload_name); }},
    {"podGroupTemplateName",
     [](Decoder& d, const Node& n, api::PodGroup& g) { d.ReadSymbol(n, g.template_name); }},
};
const doc::Field<api::PodGroup> kTemplateRefFields[] = {
    {"workload",
     [](Decoder& d, const Node& n, api::PodGroup& g) {
       d.Struct(n, g, kTemplateWorkloadRefFields);
       if (!n.is_map()) return;
       if (g.template_workload_name.empty()) d.Required(n, "workloadName");
       if (g.template_name.empty()) d.Required(n, "podGroupTemplateName");
     }},
};
// v1beta1: spec.workloadRef{workloadName, templateName}.
const doc::Field<api::PodGroup> kWorkloadRefFields[] = {
    {"workloadName", [](Decoder& d, const Node& n,
                        api::PodGroup& g) { d.ReadSymbol(n, g.template_workload_name); }},
    {"templateName",
     [](Decoder& d, const Node& n, api::PodGroup& g) { d.ReadSymbol(n, g.template_name); }},
};

// spec.schedulingConstraints.topology[].key (v1beta1) or .topologyConstraints[].topologyKey
// (early v1alpha2).
const doc::Field<Symbol> kTopologyFields[] = {
    {"key", [](Decoder& d, const Node& n, Symbol& s) { d.ReadSymbol(n, s); }},
};
const doc::Field<Symbol> kTopologyConstraintFields[] = {
    {"topologyKey", [](Decoder& d, const Node& n, Symbol& s) { d.ReadSymbol(n, s); }},
};

void DecodeTopologyList(Decoder& d, const Node& n, api::PodGroup& g, bool old_form) {
  if (!d.ExpectSequence(n)) return;
  if (n.size() > 1) d.Error(n, fmt::format("must have at most 1 item, got {}", n.size()));
  d.ForEachItem(n, [&](const Node& item) {
    Symbol key;
    if (old_form) {
      d.Struct(item, key, kTopologyConstraintFields);
    } else {
      d.Struct(item, key, kTopologyFields);
    }
    if (!item.is_map()) return;
    std::string_view field = old_form ? "topologyKey" : "key";
    if (key.empty()) {
      d.Required(item, field, "a node label key, e.g. topology.kubernetes.io/zone");
      return;
    }
    if (std::string err = CheckQualifiedName(In(d).Str(key)); !err.empty()) {
      d.FieldError(item, field, fmt::format("invalid topology key {:?}: {}", In(d).Str(key), err));
    }
    g.topology_keys.push_back(key);
  });
}

const doc::Field<api::PodGroup> kConstraintsFields[] = {
    {"topology",
     [](Decoder& d, const Node& n, api::PodGroup& g) { DecodeTopologyList(d, n, g, false); }},
    {"topologyConstraints",
     [](Decoder& d, const Node& n, api::PodGroup& g) { DecodeTopologyList(d, n, g, true); }},
};

struct DisruptionIn {
  api::DisruptionMode mode = api::DisruptionMode::kSingle;
  int set = 0;
};
const doc::Field<DisruptionIn> kDisruptionFields[] = {
    {"single",
     [](Decoder&, const Node& n, DisruptionIn& in) {
       if (n.is_null()) return;
       ++in.set;
       in.mode = api::DisruptionMode::kSingle;
     }},
    {"all",
     [](Decoder&, const Node& n, DisruptionIn& in) {
       if (n.is_null()) return;
       ++in.set;
       in.mode = api::DisruptionMode::kAll;
     }},
};

// spec.resourceClaims[] (DRAWorkloadResourceClaims): kube's declarative validation of
// PodGroupResourceClaim: a DNS-label name, unique in the list, exactly one of the two sources,
// each a DNS subdomain; at most 4 entries.
constexpr size_t kMaxPodGroupClaims = 4;

const doc::Field<api::resource::PodGroupResourceClaim> kPodGroupClaimFields[] = {
    {"name", [](Decoder& d, const Node& n,
                api::resource::PodGroupResourceClaim& c) { d.ReadSymbol(n, c.name); }},
    {"resourceClaimName",
     [](Decoder& d, const Node& n, api::resource::PodGroupResourceClaim& c) {
       d.ReadSymbol(n, c.resource_claim_name);
     }},
    {"resourceClaimTemplateName",
     [](Decoder& d, const Node& n, api::resource::PodGroupResourceClaim& c) {
       d.ReadSymbol(n, c.resource_claim_template_name);
     }},
};

void DecodePodGroupClaims(Decoder& d, const Node& n, PodGroupInput& in) {
  if (!d.ExpectSequence(n)) return;
  if (n.size() > kMaxPodGroupClaims) {
    d.Error(n, fmt::format("must have at most {} items, got {}", kMaxPodGroupClaims, n.size()));
  }
  d.ForEachItem(n, [&](const Node& item) {
    api::resource::PodGroupResourceClaim c;
    d.Struct(item, c, kPodGroupClaimFields);
    if (!item.is_map()) return;
    if (c.name.empty()) {
      d.Required(item, "name");
    } else if (std::string err = CheckDns1123Label(In(d).Str(c.name)); !err.empty()) {
      d.FieldError(item, "name", fmt::format("Invalid value: {:?}: {}", In(d).Str(c.name), err));
    } else {
      for (const auto& o : in.claims) {
        if (o.name == c.name) {
          d.FieldError(item, "name", fmt::format("Duplicate value: {:?}", In(d).Str(c.name)));
          break;
        }
      }
    }
    if (c.resource_claim_name.empty() == c.resource_claim_template_name.empty()) {
      d.Error(item,
              "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`");
    }
    for (auto [field, v] :
         {std::pair{"resourceClaimName", c.resource_claim_name},
          std::pair{"resourceClaimTemplateName", c.resource_claim_template_name}}) {
      if (v.empty()) continue;
      if (std::string err = CheckDns1123Subdomain(In(d).Str(v)); !err.empty()) {
        d.FieldError(item, field, fmt::format("Invalid value: {:?}: {}", In(d).Str(v), err));
      }
    }
    in.claims.push_back(c);
  });
}

const doc::Field<PodGroupInput> kPodGroupSpecFields[] = {
    {"resourceClaims", DecodePodGroupClaims},
    {"podGroupTemplateRef", [](Decoder& d, const Node& n,
                               PodGroupInput& in) { d.Struct(n, in.group, kTemplateRefFields); }},
    {"workloadRef",
     [](Decoder& d, const Node& n, PodGroupInput& in) {
       d.Struct(n, in.group, kWorkloadRefFields);
       if (!n.is_map()) return;
       if (in.group.template_workload_name.empty()) d.Required(n, "workloadName");
       if (in.group.template_name.empty()) d.Required(n, "templateName");
     }},
    {"schedulingPolicy",
     [](Decoder& d, const Node& n, PodGroupInput& in) { in.group.policy = DecodePolicy(d, n); }},
    {"schedulingConstraints", [](Decoder& d, const Node& n,
                                 PodGroupInput& in) { d.Struct(n, in.group, kConstraintsFields); }},
    {"disruptionMode",
     [](Decoder& d, const Node& n, PodGroupInput& in) {
       DisruptionIn dm;
       d.Struct(n, dm, kDisruptionFields);
       if (n.is_map() && dm.set != 1) d.Error(n, "exactly one of single, all must be set");
       in.group.disruption_mode = dm.mode;
     }},
    {"priorityClassName",
     [](Decoder& d, const Node& n, PodGroupInput& in) {
       d.ReadSymbol(n, in.group.priority_class_name);
       in.prio.class_name_line = n.line();
     }},
    {"priority",
     [](Decoder& d, const Node& n, PodGroupInput& in) {
       int32_t v = 0;
       if (d.ReadInt32(n, v)) in.prio.priority = v;
     }},
    {"parentCompositePodGroupName",
     [](Decoder& d, const Node& n, PodGroupInput& in) {
       if (!d.ReadSymbol(n, in.group.parent_name)) return;
       if (std::string err = CheckDns1123Subdomain(In(d).Str(in.group.parent_name)); !err.empty()) {
         d.Error(n, fmt::format("invalid name {:?}: {}", In(d).Str(in.group.parent_name), err));
       }
     }},
};
constexpr std::string_view kPodGroupSpecIgnored[] = {"preemptionPolicy"};

const doc::Field<PodGroupInput> kPodGroupFields[] = {
    {"apiVersion", [](Decoder&, const Node&, PodGroupInput&) {}},
    {"kind", [](Decoder&, const Node&, PodGroupInput&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    PodGroupInput& in) { DecodeMeta(d, n, in.group.meta, {.namespaced = true}); }},
    {"spec",
     [](Decoder& d, const Node& n, PodGroupInput& in) {
       auto seen = d.Struct(n, in, kPodGroupSpecFields, kPodGroupSpecIgnored);
       if (!n.is_map()) return;
       const Node* policy = n.Find("schedulingPolicy");
       if (policy == nullptr || policy->is_null()) {
         d.Required(n, "schedulingPolicy", "basic: {} or gang: {minCount: N}");
       }
       if (seen.has("podGroupTemplateRef") && seen.has("workloadRef")) {
         d.FieldError(n, "workloadRef", "podGroupTemplateRef and workloadRef cannot both be set");
       }
       if (in.group.disruption_mode == api::DisruptionMode::kAll &&
           in.group.policy.kind == api::PodGroupPolicyKind::kBasic && policy != nullptr &&
           !policy->is_null()) {
         d.FieldError(n, "disruptionMode",
                      "disruptionMode all is not allowed with the basic scheduling policy");
       }
       if (in.prio.class_name_line == 0) in.prio.class_name_line = n.line();
     }},
};
constexpr std::string_view kPodGroupIgnored[] = {"status"};

// status.resourceClaimStatuses[] = {name, resourceClaimName}: the claims kube's resourceclaim
// controller made from the group's templates (a dump has them). Each name must be one of
// spec.resourceClaims (kube's validatePodGroupResourceClaimStatuses); the rest of the status does
// not affect scheduling.
struct ClaimStatusIn {
  Symbol name;
  Symbol claim_name;
};
const doc::Field<ClaimStatusIn> kClaimStatusFields[] = {
    {"name", [](Decoder& d, const Node& n, ClaimStatusIn& c) { d.ReadSymbol(n, c.name); }},
    {"resourceClaimName",
     [](Decoder& d, const Node& n, ClaimStatusIn& c) { d.ReadSymbol(n, c.claim_name); }},
};

void DecodePodGroupClaimStatuses(Decoder& d, const Node& root, PodGroupInput& in) {
  const Node* status = root.Find("status");
  if (status == nullptr || !status->is_map()) return;
  const Node* list = status->Find("resourceClaimStatuses");
  if (list == nullptr || list->is_null()) return;
  auto st = d.Field("status");
  auto ls = d.Field("resourceClaimStatuses");
  if (!d.ExpectSequence(*list)) return;
  d.ForEachItem(*list, [&](const Node& item) {
    ClaimStatusIn c;
    d.Struct(item, c, kClaimStatusFields);
    if (!item.is_map()) return;
    if (c.name.empty()) {
      d.Required(item, "name");
      return;
    }
    for (auto& claim : in.claims) {
      if (claim.name == c.name) {
        claim.generated_claim_name = c.claim_name;
        return;
      }
    }
    d.FieldError(item, "name",
                 fmt::format("Invalid value: {:?}: must match the name of an entry in "
                             "`spec.resourceClaims`",
                             In(d).Str(c.name)));
  });
}

}  // namespace

void DecodeWorkload(Decoder& d, const Node& root, api::Workload& out) {
  d.Struct(root, out, kWorkloadFields);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) {
    d.Required(root, "spec");
    return;
  }
  if (!spec->is_map()) return;
  std::string_view groups =
      out.generation == api::WorkloadApiGeneration::kV1Alpha1 ? "podGroups" : "podGroupTemplates";
  const Node* g = spec->Find(groups);
  if (g == nullptr || g->is_null() || (g->is_sequence() && g->empty())) {
    auto s = d.Field("spec");
    d.Required(*spec, groups, "at least one pod group");
  }
}

void DecodePodGroup(Decoder& d, const Node& root, PodGroupInput& out) {
  d.Struct(root, out, kPodGroupFields, kPodGroupIgnored);
  CheckMetaPresent(d, root, out.group.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) d.Required(root, "spec");
  const Node* version = root.Find("apiVersion");
  if (version != nullptr && version->is_string() &&
      version->text() == "scheduling.k8s.io/v1alpha3" && spec != nullptr && spec->is_map()) {
    auto s = d.Field("spec");
    if (spec->Find("workloadRef") != nullptr) {
      d.FieldError(*spec, "workloadRef",
                   "unknown field in scheduling.k8s.io/v1alpha3 (its template reference is "
                   "podGroupTemplateRef.workload)");
    }
    const Node* c = spec->Find("schedulingConstraints");
    if (c != nullptr && c->is_map() && c->Find("topologyConstraints") != nullptr) {
      auto cs = d.Field("schedulingConstraints");
      d.FieldError(*c, "topologyConstraints",
                   "unknown field in scheduling.k8s.io/v1alpha3 (its form is topology[].key)");
    }
  }
  DecodePodGroupClaimStatuses(d, root, out);
  if (out.prio.class_name_line == 0) out.prio.class_name_line = root.line();
}

}  // namespace corral::loader::internal
