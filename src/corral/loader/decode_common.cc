// Decoders for the pieces many kinds share: metadata, labels, selectors, resources, taints,
// tolerations, affinity, topology spread constraints.

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "corral/api/generated_names.h"
#include "corral/loader/internal/decode.h"
#include "corral/loader/validation.h"

namespace corral::loader::internal {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

Interner& In(Decoder& d) {
  return *d.interner();
}

std::string_view Str(Decoder& d, Symbol s) {
  return In(d).Str(s);
}

}  // namespace

void CheckQualifiedNameAt(Decoder& d, const Node& at, std::string_view what, std::string_view s) {
  if (std::string err = CheckQualifiedName(s); !err.empty()) {
    d.Error(at, fmt::format("invalid {} {:?}: {}", what, s, err));
  }
}

// ---- metadata -----------------------------------------------------------------------------------

namespace {

const doc::Field<api::OwnerReference> kOwnerRefFields[] = {
    {"apiVersion",
     [](Decoder& d, const Node& n, api::OwnerReference& o) { d.ReadSymbol(n, o.api_version); }},
    {"kind", [](Decoder& d, const Node& n, api::OwnerReference& o) { d.ReadSymbol(n, o.kind); }},
    {"name", [](Decoder& d, const Node& n, api::OwnerReference& o) { d.ReadSymbol(n, o.name); }},
    {"uid", [](Decoder& d, const Node& n, api::OwnerReference& o) { d.ReadSymbol(n, o.uid); }},
    {"controller",
     [](Decoder& d, const Node& n, api::OwnerReference& o) { d.ReadBool(n, o.controller); }},
};
constexpr std::string_view kOwnerRefIgnored[] = {"blockOwnerDeletion"};

struct MetaIn {
  api::ObjectMeta* m;
  std::string_view generate_name;
  const Node* name_node = nullptr;
  const Node* namespace_node = nullptr;
};

const doc::Field<MetaIn> kMetaFields[] = {
    {"name",
     [](Decoder& d, const Node& n, MetaIn& in) {
       if (d.ReadSymbol(n, in.m->name)) in.name_node = &n;
     }},
    {"generateName",
     [](Decoder& d, const Node& n, MetaIn& in) { d.ReadString(n, in.generate_name); }},
    {"namespace",
     [](Decoder& d, const Node& n, MetaIn& in) {
       if (d.ReadSymbol(n, in.m->namespace_)) in.namespace_node = &n;
     }},
    {"uid", [](Decoder& d, const Node& n, MetaIn& in) { d.ReadSymbol(n, in.m->uid); }},
    {"labels", [](Decoder& d, const Node& n, MetaIn& in) { DecodeLabels(d, n, in.m->labels); }},
    {"annotations",
     [](Decoder& d, const Node& n, MetaIn& in) {
       d.ForEachEntry(n, [&](const Node& key, const Node& value) {
         CheckQualifiedNameAt(d, key, "annotation key", key.text());
         std::string v;
         d.ReadString(value, v);
         in.m->annotations.emplace_back(d.Intern(key.text()), std::move(v));
       });
     }},
    {"creationTimestamp",
     [](Decoder& d, const Node& n, MetaIn& in) {
       TimePoint t;
       if (d.ReadTime(n, t)) in.m->creation_timestamp = t;
     }},
    {"deletionTimestamp",
     [](Decoder& d, const Node& n, MetaIn& in) {
       TimePoint t;
       if (d.ReadTime(n, t)) in.m->deletion_timestamp = t;
     }},
    {"ownerReferences",
     [](Decoder& d, const Node& n, MetaIn& in) {
       d.ReadList(n, in.m->owner_references, [&](const Node& item, api::OwnerReference& o) {
         d.Struct(item, o, kOwnerRefFields, kOwnerRefIgnored);
       });
     }},
};
// Set by the API server or controllers; not used for scheduling.
constexpr std::string_view kMetaIgnored[] = {
    "selfLink",   "resourceVersion", "generation",  "deletionGracePeriodSeconds",
    "finalizers", "managedFields",   "clusterName",
};

}  // namespace

void DecodeMeta(Decoder& d, const Node& n, api::ObjectMeta& m, const MetaRules& rules) {
  MetaIn in{&m};
  d.Struct(n, in, kMetaFields, kMetaIgnored);
  if (m.name.empty() && !in.generate_name.empty()) {
    std::string_view prefix = d.path();
    m.name = d.Intern(std::string(in.generate_name) +
                      api::HashedNameSuffix({d.file(), std::to_string(n.line()), prefix}));
  }
  if (!m.name.empty()) {
    std::string_view name = Str(d, m.name);
    std::string err;
    switch (rules.name) {
      case NameRule::kDns1123Subdomain:
        err = CheckDns1123Subdomain(name);
        break;
      case NameRule::kDns1123Label:
        err = CheckDns1123Label(name);
        break;
      case NameRule::kDns1035Label:
        err = CheckDns1035Label(name);
        break;
    }
    if (!err.empty()) {
      auto s = d.Field("name");
      d.Error(in.name_node != nullptr ? *in.name_node : n,
              fmt::format("invalid name {:?}: {}", name, err));
    }
  }
  if (!rules.namespaced) {
    m.namespace_ = Symbol();  // cluster-scoped: the API server ignores metadata.namespace
  } else if (!m.namespace_.empty()) {
    if (std::string err = CheckDns1123Label(Str(d, m.namespace_)); !err.empty()) {
      auto s = d.Field("namespace");
      d.Error(in.namespace_node != nullptr ? *in.namespace_node : n,
              fmt::format("invalid namespace {:?}: {}", Str(d, m.namespace_), err));
    }
  }
}

void CheckMetaPresent(Decoder& d, const Node& root, const api::ObjectMeta& m) {
  if (m.name.empty()) {
    auto s = d.Field("metadata");
    const Node* meta = root.Find("metadata");
    d.Required(meta != nullptr && meta->is_map() ? *meta : root, "name");
  }
}

void DecodeLabels(Decoder& d, const Node& n, api::LabelSet& out) {
  std::vector<std::pair<Symbol, Symbol>> pairs;
  pairs.reserve(n.size());
  d.ForEachEntry(n, [&](const Node& key, const Node& value) {
    CheckQualifiedNameAt(d, key, "label key", key.text());
    std::string_view v;
    d.ReadString(value, v);
    if (std::string err = CheckLabelValue(v); !err.empty()) {
      d.Error(value, fmt::format("invalid label value {:?}: {}", v, err));
    }
    pairs.emplace_back(d.Intern(key.text()), d.Intern(v));
  });
  out = api::LabelSet(std::move(pairs));
}

// ---- selectors ----------------------------------------------------------------------------------

namespace {

constexpr doc::EnumName<api::LabelSelectorOp> kLabelSelectorOps[] = {
    {"In", api::LabelSelectorOp::kIn},
    {"NotIn", api::LabelSelectorOp::kNotIn},
    {"Exists", api::LabelSelectorOp::kExists},
    {"DoesNotExist", api::LabelSelectorOp::kDoesNotExist},
};

struct LabelReqIn {
  api::LabelSelectorRequirement r;
  bool has_op = false;
  const Node* values = nullptr;
};

const doc::Field<LabelReqIn> kLabelReqFields[] = {
    {"key",
     [](Decoder& d, const Node& n, LabelReqIn& in) {
       if (d.ReadSymbol(n, in.r.key)) CheckQualifiedNameAt(d, n, "key", n.text());
     }},
    {"operator",
     [](Decoder& d, const Node& n, LabelReqIn& in) {
       in.has_op = d.ReadEnum(n, kLabelSelectorOps, "operator", in.r.op);
     }},
    {"values",
     [](Decoder& d, const Node& n, LabelReqIn& in) {
       in.values = &n;
       d.ReadSymbolList(n, in.r.values);
       d.ForEachItem(n, [&](const Node& item) {
         if (item.is_string()) {
           if (std::string err = CheckLabelValue(item.text()); !err.empty()) {
             d.Error(item, fmt::format("invalid label value {:?}: {}", item.text(), err));
           }
         }
       });
     }},
};

struct SelectorIn {
  api::LabelSelector s;
};

const doc::Field<SelectorIn> kSelectorFields[] = {
    {"matchLabels",
     [](Decoder& d, const Node& n, SelectorIn& in) { DecodeLabels(d, n, in.s.match_labels); }},
    {"matchExpressions",
     [](Decoder& d, const Node& n, SelectorIn& in) {
       d.ReadList(
           n, in.s.match_expressions, [&](const Node& item, api::LabelSelectorRequirement& r) {
             LabelReqIn req;
             d.Struct(item, req, kLabelReqFields);
             if (!item.is_map()) return;
             if (req.r.key.empty()) d.Required(item, "key");
             if (!req.has_op && item.Find("operator") == nullptr) {
               d.Required(item, "operator", "In, NotIn, Exists, DoesNotExist");
             } else if (req.has_op) {
               bool set_op = req.r.op == api::LabelSelectorOp::kIn ||
                             req.r.op == api::LabelSelectorOp::kNotIn;
               if (set_op && req.r.values.empty()) {
                 d.FieldError(item, "values",
                              "must be specified when `operator` is 'In' or 'NotIn'");
               } else if (!set_op && !req.r.values.empty()) {
                 d.FieldError(item, "values",
                              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
               }
             }
             r = std::move(req.r);
           });
     }},
};

}  // namespace

void DecodeLabelSelector(Decoder& d, const Node& n, std::optional<api::LabelSelector>& out) {
  if (n.is_null()) return;
  SelectorIn in;
  d.Struct(n, in, kSelectorFields);
  if (n.is_map()) out = std::move(in.s);
}

void DecodeMapSelector(Decoder& d, const Node& n, std::optional<api::LabelSelector>& out) {
  if (n.is_null()) return;
  if (!d.ExpectMap(n)) return;
  api::LabelSelector s;
  DecodeLabels(d, n, s.match_labels);
  out = std::move(s);
}

// ---- resources ----------------------------------------------------------------------------------

void DecodeResourceList(Decoder& d, const Node& n, api::ResourceList& out, ResourceListUse use) {
  d.ForEachEntry(n, [&](const Node& key, const Node& value) {
    std::string_view name = key.text();
    if (std::string err = CheckQualifiedName(name); !err.empty()) {
      d.Error(key, fmt::format("invalid resource name {:?}: {}", name, err));
      return;
    }
    if (use == ResourceListUse::kContainer) {
      if (name.find('/') == std::string_view::npos) {
        if (!IsStandardContainerResourceName(name)) {
          d.Error(key, fmt::format(
                           "invalid resource name {:?}: must be a standard resource for containers "
                           "(cpu, memory, ephemeral-storage, hugepages-<size>) or an extended "
                           "resource with a domain prefix (e.g. example.com/gpu)",
                           name));
          return;
        }
      } else if (name.find("kubernetes.io/") == std::string_view::npos &&
                 !IsExtendedResourceName(name)) {
        d.Error(key,
                fmt::format(
                    "invalid resource name {:?}: doesn't follow extended resource name standard",
                    name));
        return;
      }
    }
    api::Quantity q;
    if (!d.ReadQuantity(value, q)) {
      if (value.is_null()) d.Error(value, "expected a quantity, got null");
      return;
    }
    if (q.Sign() < 0) {
      d.Error(value,
              fmt::format("invalid value {:?}: must be greater than or equal to 0", value.text()));
      return;
    }
    // The scheduler counts cpu in int64 millicores and every other resource in int64 units
    // (framework::Resource); a quantity beyond that range would be capped there, and a capped
    // request fits a capped capacity. Rejected instead.
    if (name == "cpu" ? q > api::Quantity::FromMilli(kInt64Max)
                      : q > api::Quantity::FromInt(kInt64Max)) {
      d.Error(value,
              fmt::format("invalid value {:?}: out of range: {} must be at most {} (the int64 "
                          "range the scheduler counts it in)",
                          value.text(), name,
                          name == "cpu" ? "9223372036854775807m" : "9223372036854775807"));
      return;
    }
    if (IsExtendedResourceName(name) && q.MilliValue() % 1000 != 0) {
      d.Error(value, fmt::format("invalid value {:?}: must be an integer", value.text()));
      return;
    }
    out.emplace_back(d.Intern(name), q);
  });
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

namespace {

const doc::Field<api::ResourceRequirements> kResourcesFields[] = {
    {"requests",
     [](Decoder& d, const Node& n, api::ResourceRequirements& r) {
       DecodeResourceList(d, n, r.requests, ResourceListUse::kContainer);
     }},
    {"limits",
     [](Decoder& d, const Node& n, api::ResourceRequirements& r) {
       DecodeResourceList(d, n, r.limits, ResourceListUse::kContainer);
     }},
};
constexpr std::string_view kResourcesIgnored[] = {"claims"};

}  // namespace

void DecodeResources(Decoder& d, const Node& n, api::ResourceRequirements& out) {
  d.Struct(n, out, kResourcesFields, kResourcesIgnored);
  if (!n.is_map()) return;
  // Validate what the user wrote, before defaulting requests from limits.
  const Node* reqs = n.Find("requests");
  auto request_line = [&](Symbol name) -> const Node& {
    if (reqs != nullptr && reqs->is_map()) {
      for (size_t i = 0; i < reqs->size(); ++i) {
        if (reqs->key(i).text() == Str(d, name)) return reqs->value(i);
      }
    }
    return n;
  };
  for (const auto& [name, req] : out.requests) {
    std::string_view rn = Str(d, name);
    const api::Quantity* lim = api::FindResource(out.limits, name);
    bool overcommit = !IsExtendedResourceName(rn) && !IsHugePageResourceName(rn);
    auto s1 = d.Field("requests");
    auto s2 = d.Key(rn);
    if (lim == nullptr) {
      if (!overcommit) {
        d.Error(request_line(name),
                fmt::format("limit must be set for non overcommitable resource {}", rn));
      }
      continue;
    }
    if (overcommit && req > *lim) {
      d.Error(request_line(name),
              fmt::format("must be less than or equal to {} limit of {}", rn, lim->String()));
    } else if (!overcommit && req != *lim) {
      d.Error(request_line(name),
              fmt::format("must be equal to {} limit of {}", rn, lim->String()));
    }
  }
  // API defaulting: a limit without a request sets the request.
  bool added = false;
  for (const auto& [name, lim] : out.limits) {
    if (api::FindResource(out.requests, name) == nullptr) {
      out.requests.emplace_back(name, lim);
      added = true;
    }
  }
  if (added) {
    std::sort(out.requests.begin(), out.requests.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
}

// ---- taints and tolerations ---------------------------------------------------------------------

namespace {

constexpr doc::EnumName<api::TaintEffect> kTaintEffects[] = {
    {"NoSchedule", api::TaintEffect::kNoSchedule},
    {"PreferNoSchedule", api::TaintEffect::kPreferNoSchedule},
    {"NoExecute", api::TaintEffect::kNoExecute},
};
constexpr doc::EnumName<api::TaintEffect> kTolerationEffects[] = {
    {"", api::TaintEffect::kNone},
    {"NoSchedule", api::TaintEffect::kNoSchedule},
    {"PreferNoSchedule", api::TaintEffect::kPreferNoSchedule},
    {"NoExecute", api::TaintEffect::kNoExecute},
};
constexpr doc::EnumName<api::TolerationOp> kTolerationOps[] = {
    {"Equal", api::TolerationOp::kEqual},
    {"Exists", api::TolerationOp::kExists},
};

const doc::Field<api::Taint> kTaintFields[] = {
    {"key",
     [](Decoder& d, const Node& n, api::Taint& t) {
       if (d.ReadSymbol(n, t.key)) CheckQualifiedNameAt(d, n, "taint key", n.text());
     }},
    {"value",
     [](Decoder& d, const Node& n, api::Taint& t) {
       if (d.ReadSymbol(n, t.value)) {
         if (std::string err = CheckLabelValue(n.text()); !err.empty()) {
           d.Error(n, fmt::format("invalid taint value {:?}: {}", n.text(), err));
         }
       }
     }},
    {"effect", [](Decoder& d, const Node& n,
                  api::Taint& t) { d.ReadEnum(n, kTaintEffects, "effect", t.effect); }},
    {"timeAdded",
     [](Decoder& d, const Node& n, api::Taint& t) {
       TimePoint tp;
       if (d.ReadTime(n, tp)) t.time_added = tp;
     }},
};

const doc::Field<api::Toleration> kTolerationFields[] = {
    {"key",
     [](Decoder& d, const Node& n, api::Toleration& t) {
       if (d.ReadSymbol(n, t.key) && !t.key.empty())
         CheckQualifiedNameAt(d, n, "toleration key", n.text());
     }},
    {"operator",
     [](Decoder& d, const Node& n, api::Toleration& t) {
       if (n.is_string() && n.text().empty()) return;  // "" defaults to Equal
       d.ReadEnum(n, kTolerationOps, "operator", t.op);
     }},
    {"value", [](Decoder& d, const Node& n, api::Toleration& t) { d.ReadSymbol(n, t.value); }},
    {"effect", [](Decoder& d, const Node& n,
                  api::Toleration& t) { d.ReadEnum(n, kTolerationEffects, "effect", t.effect); }},
    {"tolerationSeconds",
     [](Decoder& d, const Node& n, api::Toleration& t) {
       int64_t v = 0;
       if (d.ReadInt64(n, v)) t.toleration_seconds = v;
     }},
};

}  // namespace

void DecodeTaint(Decoder& d, const Node& n, api::Taint& out) {
  out.effect = api::TaintEffect::kNone;
  d.Struct(n, out, kTaintFields);
  if (!n.is_map()) return;
  if (out.key.empty()) d.Required(n, "key");
  if (out.effect == api::TaintEffect::kNone) {
    if (n.Find("effect") == nullptr || n.Find("effect")->is_null()) {
      d.Required(n, "effect", "NoSchedule, PreferNoSchedule, NoExecute");
    }
    out.effect =
        api::TaintEffect::kNoSchedule;  // keep the object well-formed; the error rejects it
  }
}

void DecodeToleration(Decoder& d, const Node& n, api::Toleration& out) {
  d.Struct(n, out, kTolerationFields);
  if (!n.is_map()) return;
  if (out.key.empty() && out.op != api::TolerationOp::kExists) {
    d.FieldError(n, "operator",
                 "operator must be Exists when `key` is empty, which means \"match all values "
                 "and all keys\"");
  }
  if (out.op == api::TolerationOp::kExists && !out.value.empty()) {
    d.FieldError(n, "value", "value must be empty when `operator` is 'Exists'");
  }
  if (out.op == api::TolerationOp::kEqual && !out.value.empty()) {
    if (std::string err = CheckLabelValue(Str(d, out.value)); !err.empty()) {
      d.FieldError(n, "value", fmt::format("invalid value {:?}: {}", Str(d, out.value), err));
    }
  }
  if (out.toleration_seconds && out.effect != api::TaintEffect::kNoExecute) {
    d.FieldError(n, "effect", "effect must be 'NoExecute' when `tolerationSeconds` is set");
  }
}

// ---- node affinity ------------------------------------------------------------------------------

namespace {

constexpr doc::EnumName<api::NodeSelectorOp> kNodeSelectorOps[] = {
    {"In", api::NodeSelectorOp::kIn},         {"NotIn", api::NodeSelectorOp::kNotIn},
    {"Exists", api::NodeSelectorOp::kExists}, {"DoesNotExist", api::NodeSelectorOp::kDoesNotExist},
    {"Gt", api::NodeSelectorOp::kGt},         {"Lt", api::NodeSelectorOp::kLt},
};

struct NodeReqIn {
  api::NodeSelectorRequirement r;
  bool has_op = false;
};

const doc::Field<NodeReqIn> kNodeReqFields[] = {
    {"key", [](Decoder& d, const Node& n, NodeReqIn& in) { d.ReadSymbol(n, in.r.key); }},
    {"operator",
     [](Decoder& d, const Node& n, NodeReqIn& in) {
       in.has_op = d.ReadEnum(n, kNodeSelectorOps, "operator", in.r.op);
     }},
    {"values", [](Decoder& d, const Node& n, NodeReqIn& in) { d.ReadSymbolList(n, in.r.values); }},
};

void DecodeNodeRequirements(Decoder& d, const Node& n,
                            std::vector<api::NodeSelectorRequirement>& out, bool fields) {
  d.ReadList(n, out, [&](const Node& item, api::NodeSelectorRequirement& r) {
    NodeReqIn in;
    d.Struct(item, in, kNodeReqFields);
    r = in.r;
    if (!item.is_map()) return;
    if (r.key.empty()) {
      d.Required(item, "key");
    } else if (fields) {
      if (Str(d, r.key) != "metadata.name") {
        d.FieldError(item, "key",
                     fmt::format("unsupported field {:?} (want metadata.name)", Str(d, r.key)));
      }
    } else if (const Node* k = item.Find("key")) {
      CheckQualifiedNameAt(d, *k, "key", Str(d, r.key));
    }
    if (!in.has_op) {
      if (item.Find("operator") == nullptr)
        d.Required(item, "operator", "In, NotIn, Exists, DoesNotExist, Gt, Lt");
      return;
    }
    switch (r.op) {
      case api::NodeSelectorOp::kIn:
      case api::NodeSelectorOp::kNotIn:
        if (r.values.empty()) {
          d.FieldError(item, "values", "must be specified when `operator` is 'In' or 'NotIn'");
        } else if (fields && r.values.size() != 1) {
          d.FieldError(
              item, "values",
              "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
        }
        break;
      case api::NodeSelectorOp::kExists:
      case api::NodeSelectorOp::kDoesNotExist:
        if (fields) {
          d.FieldError(item, "operator",
                       "not a valid selector operator for node field selectors (want In, NotIn)");
        } else if (!r.values.empty()) {
          d.FieldError(item, "values",
                       "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        }
        break;
      case api::NodeSelectorOp::kGt:
      case api::NodeSelectorOp::kLt: {
        if (fields) {
          d.FieldError(item, "operator",
                       "not a valid selector operator for node field selectors (want In, NotIn)");
        } else if (r.values.size() != 1) {
          d.FieldError(item, "values",
                       "must be specified single value when `operator` is 'Lt' or 'Gt'");
        } else {
          std::string_view v = Str(d, r.values[0]);
          char* end = nullptr;
          std::string buf(v);
          errno = 0;
          (void)std::strtoll(buf.c_str(), &end, 10);
          if (buf.empty() || end != buf.c_str() + buf.size() || errno != 0) {
            d.FieldError(item, "values",
                         fmt::format("invalid value {:?}: must be an integer for 'Lt' or 'Gt'", v));
          }
        }
        break;
      }
    }
  });
}

const doc::Field<api::NodeSelectorTerm> kNodeSelectorTermFields[] = {
    {"matchExpressions",
     [](Decoder& d, const Node& n, api::NodeSelectorTerm& t) {
       DecodeNodeRequirements(d, n, t.match_expressions, false);
     }},
    {"matchFields",
     [](Decoder& d, const Node& n, api::NodeSelectorTerm& t) {
       DecodeNodeRequirements(d, n, t.match_fields, true);
     }},
};

const doc::Field<api::NodeSelector> kNodeSelectorFields[] = {
    {"nodeSelectorTerms",
     [](Decoder& d, const Node& n, api::NodeSelector& s) {
       d.ReadList(n, s.node_selector_terms, [&](const Node& item, api::NodeSelectorTerm& t) {
         d.Struct(item, t, kNodeSelectorTermFields);
       });
     }},
};

const doc::Field<api::PreferredSchedulingTerm> kPreferredTermFields[] = {
    {"weight", [](Decoder& d, const Node& n,
                  api::PreferredSchedulingTerm& t) { d.ReadInt32(n, t.weight, 1, 100); }},
    {"preference",
     [](Decoder& d, const Node& n, api::PreferredSchedulingTerm& t) {
       d.Struct(n, t.preference, kNodeSelectorTermFields);
     }},
};

const doc::Field<api::NodeAffinity> kNodeAffinityFields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution",
     [](Decoder& d, const Node& n, api::NodeAffinity& a) {
       if (n.is_null()) return;
       api::NodeSelector s;
       d.Struct(n, s, kNodeSelectorFields);
       if (n.is_map() && s.node_selector_terms.empty()) {
         d.FieldError(n, "nodeSelectorTerms", "must have at least one node selector term");
       }
       a.required = std::move(s);
     }},
    {"preferredDuringSchedulingIgnoredDuringExecution",
     [](Decoder& d, const Node& n, api::NodeAffinity& a) {
       d.ReadList(n, a.preferred, [&](const Node& item, api::PreferredSchedulingTerm& t) {
         d.Struct(item, t, kPreferredTermFields);
         if (item.is_map() && item.Find("weight") == nullptr) d.Required(item, "weight", "1-100");
       });
     }},
};

// ---- pod affinity -------------------------------------------------------------------------------

const doc::Field<api::PodAffinityTerm> kPodAffinityTermFields[] = {
    {"labelSelector", [](Decoder& d, const Node& n,
                         api::PodAffinityTerm& t) { DecodeLabelSelector(d, n, t.label_selector); }},
    {"namespaces",
     [](Decoder& d, const Node& n, api::PodAffinityTerm& t) { d.ReadSymbolList(n, t.namespaces); }},
    {"topologyKey",
     [](Decoder& d, const Node& n, api::PodAffinityTerm& t) {
       if (d.ReadSymbol(n, t.topology_key) && !t.topology_key.empty()) {
         CheckQualifiedNameAt(d, n, "topologyKey", n.text());
       }
     }},
    {"namespaceSelector",
     [](Decoder& d, const Node& n, api::PodAffinityTerm& t) {
       DecodeLabelSelector(d, n, t.namespace_selector);
     }},
    {"matchLabelKeys", [](Decoder& d, const Node& n,
                          api::PodAffinityTerm& t) { d.ReadSymbolList(n, t.match_label_keys); }},
    {"mismatchLabelKeys",
     [](Decoder& d, const Node& n, api::PodAffinityTerm& t) {
       d.ReadSymbolList(n, t.mismatch_label_keys);
     }},
};

void DecodePodAffinityTerm(Decoder& d, const Node& n, api::PodAffinityTerm& t) {
  d.Struct(n, t, kPodAffinityTermFields);
  if (n.is_map() && t.topology_key.empty())
    d.Required(n, "topologyKey", "a node label key, e.g. kubernetes.io/hostname");
}

const doc::Field<api::WeightedPodAffinityTerm> kWeightedTermFields[] = {
    {"weight", [](Decoder& d, const Node& n,
                  api::WeightedPodAffinityTerm& t) { d.ReadInt32(n, t.weight, 1, 100); }},
    {"podAffinityTerm",
     [](Decoder& d, const Node& n, api::WeightedPodAffinityTerm& t) {
       DecodePodAffinityTerm(d, n, t.pod_affinity_term);
     }},
};

const doc::Field<api::PodAffinity> kPodAffinityFields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution",
     [](Decoder& d, const Node& n, api::PodAffinity& a) {
       d.ReadList(n, a.required, [&](const Node& item, api::PodAffinityTerm& t) {
         DecodePodAffinityTerm(d, item, t);
       });
     }},
    {"preferredDuringSchedulingIgnoredDuringExecution",
     [](Decoder& d, const Node& n, api::PodAffinity& a) {
       d.ReadList(n, a.preferred, [&](const Node& item, api::WeightedPodAffinityTerm& t) {
         d.Struct(item, t, kWeightedTermFields);
         if (!item.is_map()) return;
         if (item.Find("weight") == nullptr) d.Required(item, "weight", "1-100");
         if (item.Find("podAffinityTerm") == nullptr) d.Required(item, "podAffinityTerm");
       });
     }},
};

const doc::Field<api::Affinity> kAffinityFields[] = {
    {"nodeAffinity",
     [](Decoder& d, const Node& n, api::Affinity& a) {
       if (n.is_null()) return;
       api::NodeAffinity na;
       d.Struct(n, na, kNodeAffinityFields);
       a.node_affinity = std::move(na);
     }},
    {"podAffinity",
     [](Decoder& d, const Node& n, api::Affinity& a) {
       if (n.is_null()) return;
       api::PodAffinity pa;
       d.Struct(n, pa, kPodAffinityFields);
       a.pod_affinity = std::move(pa);
     }},
    {"podAntiAffinity",
     [](Decoder& d, const Node& n, api::Affinity& a) {
       if (n.is_null()) return;
       api::PodAffinity pa;
       d.Struct(n, pa, kPodAffinityFields);
       a.pod_anti_affinity = std::move(pa);
     }},
};

// ---- topology spread ----------------------------------------------------------------------------

constexpr doc::EnumName<api::WhenUnsatisfiable> kWhenUnsatisfiable[] = {
    {"DoNotSchedule", api::WhenUnsatisfiable::kDoNotSchedule},
    {"ScheduleAnyway", api::WhenUnsatisfiable::kScheduleAnyway},
};
constexpr doc::EnumName<api::NodeInclusionPolicy> kInclusionPolicies[] = {
    {"Honor", api::NodeInclusionPolicy::kHonor},
    {"Ignore", api::NodeInclusionPolicy::kIgnore},
};

const doc::Field<api::TopologySpreadConstraint> kTscFields[] = {
    {"maxSkew",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       if (n.kind() == doc::Kind::kInt && n.int_value() <= 0) {
         d.Error(n, fmt::format("invalid value {}: must be greater than zero", n.int_value()));
         return;
       }
       d.ReadInt32(n, c.max_skew);
     }},
    {"topologyKey",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       if (d.ReadSymbol(n, c.topology_key) && !c.topology_key.empty()) {
         CheckQualifiedNameAt(d, n, "topologyKey", n.text());
       }
     }},
    {"whenUnsatisfiable",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       d.ReadEnum(n, kWhenUnsatisfiable, "whenUnsatisfiable", c.when_unsatisfiable);
     }},
    {"labelSelector",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       DecodeLabelSelector(d, n, c.label_selector);
     }},
    {"minDomains",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       if (n.kind() == doc::Kind::kInt && n.int_value() <= 0) {
         d.Error(n, fmt::format("invalid value {}: must be greater than zero", n.int_value()));
         return;
       }
       int32_t v = 0;
       if (d.ReadInt32(n, v)) c.min_domains = v;
     }},
    {"nodeAffinityPolicy",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       api::NodeInclusionPolicy p{};
       if (d.ReadEnum(n, kInclusionPolicies, "nodeAffinityPolicy", p)) c.node_affinity_policy = p;
     }},
    {"nodeTaintsPolicy",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       api::NodeInclusionPolicy p{};
       if (d.ReadEnum(n, kInclusionPolicies, "nodeTaintsPolicy", p)) c.node_taints_policy = p;
     }},
    {"matchLabelKeys",
     [](Decoder& d, const Node& n, api::TopologySpreadConstraint& c) {
       d.ReadSymbolList(n, c.match_label_keys);
     }},
};

}  // namespace

void DecodeAffinity(Decoder& d, const Node& n, api::Affinity& out) {
  d.Struct(n, out, kAffinityFields);
}

void DecodeNodeSelector(Decoder& d, const Node& n, api::NodeSelector& out) {
  d.Struct(n, out, kNodeSelectorFields);
  if (n.is_map() && out.node_selector_terms.empty()) {
    d.FieldError(n, "nodeSelectorTerms", "must have at least one node selector term");
  }
}

void DecodeNodeAffinity(Decoder& d, const Node& n, api::NodeAffinity& out) {
  d.Struct(n, out, kNodeAffinityFields);
}

void DecodeTopologySpreadConstraint(Decoder& d, const Node& n, api::TopologySpreadConstraint& out) {
  out.max_skew = 0;
  auto seen = d.Struct(n, out, kTscFields);
  if (!n.is_map()) return;
  if (!seen.has("maxSkew")) d.Required(n, "maxSkew", "an integer greater than zero");
  if (out.max_skew <= 0) out.max_skew = 1;
  if (out.topology_key.empty())
    d.Required(n, "topologyKey", "a node label key, e.g. topology.kubernetes.io/zone");
  if (!seen.has("whenUnsatisfiable"))
    d.Required(n, "whenUnsatisfiable", "DoNotSchedule, ScheduleAnyway");
  if (out.min_domains && out.when_unsatisfiable != api::WhenUnsatisfiable::kDoNotSchedule) {
    d.FieldError(n, "minDomains", "can only use minDomains if whenUnsatisfiable=DoNotSchedule");
  }
}

}  // namespace corral::loader::internal
