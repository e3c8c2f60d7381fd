// scheduling.k8s.io/v1alpha3 CompositePodGroup (kube's staging/src/k8s.io/api/scheduling/v1alpha3
// types.go, KEP-6012) and the parent reference PodGroups and CompositePodGroups carry.
//
// spec fields, all immutable in kube:
//   parentCompositePodGroupName  optional; a DNS subdomain in the same namespace (empty: a root)
//   workloadRef                  required; {workloadName, templateName}
//   schedulingPolicy             required; exactly one of basic: {} or gang: {minGroupCount >= 1}
//   priorityClassName            refused: Corral runs no priority admission for this kind
//   priority                     optional; at most 1000000000 (HighestUserDefinablePriority)
//   schedulingConstraints        optional; topology: at most one {key}

#include <limits>

#include <fmt/format.h>

#include "corral/loader/internal/decode.h"
#include "corral/loader/validation.h"

namespace corral::loader::internal {

namespace {

Interner& In(Decoder& d) {
  return *d.interner();
}

constexpr int32_t kHighestUserDefinablePriority = 1000000000;

struct CompositeIn {
  api::CompositePodGroup* g;
  int policies = 0;
};

const doc::Field<api::CompositePodGroup> kWorkloadRefFields[] = {
    {"workloadName", [](Decoder& d, const Node& n,
                        api::CompositePodGroup& g) { d.ReadSymbol(n, g.template_workload_name); }},
    {"templateName", [](Decoder& d, const Node& n,
                        api::CompositePodGroup& g) { d.ReadSymbol(n, g.template_name); }},
};

const doc::Field<CompositeIn> kGangFields[] = {
    {"minGroupCount",
     [](Decoder& d, const Node& n, CompositeIn& in) { d.ReadInt32(n, in.g->min_group_count, 1); }},
};

const doc::Field<CompositeIn> kPolicyFields[] = {
    {"basic",
     [](Decoder& d, const Node& n, CompositeIn& in) {
       if (n.is_null()) return;
       if (d.ExpectMap(n)) {
         for (size_t i = 0; i < n.size(); ++i) d.UnknownField(n.key(i), {});
       }
       ++in.policies;
       in.g->gang = false;
     }},
    {"gang",
     [](Decoder& d, const Node& n, CompositeIn& in) {
       if (n.is_null()) return;
       ++in.policies;
       in.g->gang = true;
       auto seen = d.Struct(n, in, kGangFields);
       if (n.is_map() && !seen.has("minGroupCount"))
         d.Required(n, "minGroupCount", "an integer of at least 1");
     }},
};

const doc::Field<Symbol> kTopologyFields[] = {
    {"key", [](Decoder& d, const Node& n, Symbol& s) { d.ReadSymbol(n, s); }},
};

const doc::Field<api::CompositePodGroup> kConstraintsFields[] = {
    {"topology",
     [](Decoder& d, const Node& n, api::CompositePodGroup& g) {
       if (!d.ExpectSequence(n)) return;
       if (n.size() > 1) d.Error(n, fmt::format("must have at most 1 item, got {}", n.size()));
       d.ForEachItem(n, [&](const Node& item) {
         Symbol key;
         d.Struct(item, key, kTopologyFields);
         if (!item.is_map()) return;
         if (key.empty()) {
           d.Required(item, "key", "a node label key, e.g. topology.kubernetes.io/zone");
           return;
         }
         if (std::string err = CheckQualifiedName(In(d).Str(key)); !err.empty()) {
           d.FieldError(item, "key",
                        fmt::format("invalid topology key {:?}: {}", In(d).Str(key), err));
         }
         g.topology_keys.push_back(key);
       });
     }},
};

const doc::Field<CompositeIn> kSpecFields[] = {
    {"parentCompositePodGroupName",
     [](Decoder& d, const Node& n, CompositeIn& in) {
       if (!d.ReadSymbol(n, in.g->parent_name)) return;
       if (std::string err = CheckDns1123Subdomain(In(d).Str(in.g->parent_name)); !err.empty()) {
         d.Error(n, fmt::format("invalid name {:?}: {}", In(d).Str(in.g->parent_name), err));
       }
     }},
    {"workloadRef",
     [](Decoder& d, const Node& n, CompositeIn& in) {
       d.Struct(n, *in.g, kWorkloadRefFields);
       if (!n.is_map()) return;
       if (in.g->template_workload_name.empty()) d.Required(n, "workloadName");
       if (in.g->template_name.empty()) d.Required(n, "templateName");
     }},
    {"schedulingPolicy",
     [](Decoder& d, const Node& n, CompositeIn& in) {
       d.Struct(n, in, kPolicyFields);
       if (n.is_map() && in.policies != 1) {
         d.Error(n, in.policies == 0 ? "exactly one of basic, gang must be set (got none)"
                                     : "exactly one of basic, gang must be set (got both)");
       }
     }},
    {"priorityClassName",
     [](Decoder& d, const Node& n, CompositeIn&) {
       if (n.is_null()) return;
       d.Error(n,
               "not modelled by Corral: priority classes of CompositePodGroups (no priority "
               "admission runs for this kind); set spec.priority");
     }},
    {"priority",
     [](Decoder& d, const Node& n, CompositeIn& in) {
       int32_t v = 0;
       if (!d.ReadInt32(n, v, std::numeric_limits<int32_t>::min(), kHighestUserDefinablePriority))
         return;
       in.g->priority = v;
     }},
    {"schedulingConstraints",
     [](Decoder& d, const Node& n, CompositeIn& in) { d.Struct(n, *in.g, kConstraintsFields); }},
};

const doc::Field<CompositeIn> kFields[] = {
    {"apiVersion", [](Decoder&, const Node&, CompositeIn&) {}},
    {"kind", [](Decoder&, const Node&, CompositeIn&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    CompositeIn& in) { DecodeMeta(d, n, in.g->meta, {.namespaced = true}); }},
    {"spec",
     [](Decoder& d, const Node& n, CompositeIn& in) {
       d.Struct(n, in, kSpecFields);
       if (!n.is_map()) return;
       const Node* ref = n.Find("workloadRef");
       if (ref == nullptr || ref->is_null()) d.Required(n, "workloadRef");
       const Node* policy = n.Find("schedulingPolicy");
       if (policy == nullptr || policy->is_null())
         d.Required(n, "schedulingPolicy", "basic: {} or gang: {minGroupCount: N}");
     }},
};
constexpr std::string_view kIgnored[] = {"status"};

}  // namespace

void DecodeCompositePodGroup(Decoder& d, const Node& root, api::CompositePodGroup& out) {
  CompositeIn in{&out};
  d.Struct(root, in, kFields, kIgnored);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) d.Required(root, "spec");
}

}  // namespace corral::loader::internal
