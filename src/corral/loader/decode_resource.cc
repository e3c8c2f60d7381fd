// Decoders for resource.k8s.io/v1 (DRA with structured parameters): DeviceClass, ResourceSlice,
// ResourceClaim, ResourceClaimTemplate. Validation follows kube's pkg/apis/resource/validation
// (limits, exactly-one-of rules, references between fields); CEL selectors are compiled here, so
// an expression outside Corral's CEL subset is an error at its line, never a silent match.

#include "corral/loader/internal/decode_resource.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "corral/api/resource/types.h"
#include "corral/api/selectors.h"
#include "corral/cel/cel.h"
#include "corral/loader/internal/decode.h"
#include "corral/loader/internal/decode_device_taints.h"
#include "corral/loader/internal/decode_list_attributes.h"
#include "corral/loader/internal/decode_resource_capacity.h"
#include "corral/loader/validation.h"

namespace corral::loader::internal {

namespace {

namespace res = api::resource;

// kube's resource.k8s.io/v1 limits.
constexpr size_t kDeviceSelectorsMaxSize = 32;
constexpr size_t kDeviceRequestsMaxSize = 32;
constexpr size_t kDeviceConstraintsMaxSize = 32;
constexpr size_t kFirstAvailableDeviceRequestMaxSize = 8;
constexpr size_t kResourceSliceMaxDevices = 128;
constexpr size_t kResourceSliceMaxAttributesAndCapacities = 32;
constexpr size_t kDeviceAttributeMaxValueLength = 64;
constexpr size_t kAllocationResultsMaxSize = 32;
// KEP-5963's limit on one consumesCounters entry (the allocator relies on it: compat_groups.h).
constexpr size_t kMaxCompatibilityGroupsPerConsumption = 8;

std::string_view Str(Decoder& d, Symbol s) {
  return d.interner()->Str(s);
}

void NotModelled(Decoder& d, const Node& parent, std::string_view field, std::string_view why) {
  d.FieldError(parent, field, fmt::format("not modelled by Corral: {}", why));
}

// A CEL selector: {cel: {expression: "..."}}.
void DecodeSelector(Decoder& d, const Node& n, res::DeviceSelector& out) {
  if (!d.ExpectMap(n)) return;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view key = n.key(i).text();
    const Node& v = n.value(i);
    if (key != "cel") {
      d.UnknownField(n.key(i), std::initializer_list<std::string_view>{"cel"});
      continue;
    }
    auto scope = d.Field("cel");
    if (!d.ExpectMap(v)) continue;
    const Node* expr = nullptr;
    for (size_t j = 0; j < v.size(); ++j) {
      if (v.key(j).text() == "expression") {
        expr = &v.value(j);
      } else {
        d.UnknownField(v.key(j), std::initializer_list<std::string_view>{"expression"});
      }
    }
    if (expr == nullptr || expr->is_null()) {
      d.Required(v, "expression");
      continue;
    }
    auto s2 = d.Field("expression");
    if (!d.ReadString(*expr, out.expression)) continue;
    if (out.expression.empty()) {
      d.Error(*expr, "Required value");
      continue;
    }
    cel::CompileResult r = cel::Compile(out.expression);
    if (r.program == nullptr) {
      d.Error(*expr, r.error.ToString());
      continue;
    }
    out.program = std::move(r.program);
  }
  if (n.Find("cel") == nullptr) d.Required(n, "cel");
}

void DecodeSelectors(Decoder& d, const Node& n, std::vector<res::DeviceSelector>& out) {
  d.ReadList(n, out, [&](const Node& item, res::DeviceSelector& s) { DecodeSelector(d, item, s); });
  if (out.size() > kDeviceSelectorsMaxSize) {
    d.Error(n, fmt::format("Too many: {}: must have at most {} items", out.size(),
                           kDeviceSelectorsMaxSize));
  }
}

// ---- DeviceClass ----

const doc::Field<res::DeviceClass> kDeviceClassSpecFields[] = {
    {"selectors",
     [](Decoder& d, const Node& n, res::DeviceClass& c) { DecodeSelectors(d, n, c.selectors); }},
    {"extendedResourceName",
     [](Decoder& d, const Node& n, res::DeviceClass& c) {
       if (n.is_null()) return;
       std::string_view name;
       if (!d.ReadString(n, name)) return;
       // kube's DeviceClass validation: an extended resource name (domain-prefixed, not
       // kubernetes.io, not "requests.").
       if (!api::IsExtendedResourceName(name)) {
         d.Error(n,
                 fmt::format("Invalid value: {:?}: must be a valid extended resource name", name));
         return;
       }
       c.extended_resource_name = d.Intern(name);
     }},
};
constexpr std::string_view kDeviceClassSpecIgnored[] = {"config"};

const doc::Field<res::DeviceClass> kDeviceClassFields[] = {
    {"apiVersion", [](Decoder&, const Node&, res::DeviceClass&) {}},
    {"kind", [](Decoder&, const Node&, res::DeviceClass&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    res::DeviceClass& c) { DecodeMeta(d, n, c.meta, {.namespaced = false}); }},
    {"spec",
     [](Decoder& d, const Node& n, res::DeviceClass& c) {
       d.Struct(n, c, kDeviceClassSpecFields, kDeviceClassSpecIgnored);
       if (n.is_map() && n.Find("managesNativeResources") != nullptr) {
         NotModelled(d, n, "managesNativeResources", "DRA native resources");
       }
     }},
};

// ---- ResourceSlice ----

void SplitQualified(Decoder& d, Symbol driver, std::string_view name, std::string_view* domain,
                    std::string_view* id) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    *domain = Str(d, driver);
    *id = Str(d, d.Intern(name));
  } else {
    *domain = Str(d, d.Intern(name.substr(0, slash)));
    *id = Str(d, d.Intern(name.substr(slash + 1)));
  }
}

}  // namespace

std::string CheckQualifiedAttributeName(std::string_view name) {
  std::string_view id = name;
  if (size_t slash = name.find('/'); slash != std::string_view::npos) {
    std::string_view domain = name.substr(0, slash);
    id = name.substr(slash + 1);
    if (domain.empty()) return "the domain must not be empty";
    if (domain.size() > 63) return "the domain must be at most 63 bytes";
    if (std::string err = CheckDns1123Subdomain(domain); !err.empty()) return err;
  }
  if (id.empty()) return "the name must not be empty";
  if (id.size() > 32) return "the name must be at most 32 bytes";
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(id[0])) return "a C identifier must start with a letter or underscore";
  for (char c : id) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) {
      return "a C identifier must consist of alphanumeric characters or '_'";
    }
  }
  return "";
}

namespace {

struct DeviceIn {
  res::Device* dev;
  Symbol driver;
  bool per_device_node_selection;
};

void DecodeAttribute(Decoder& d, const Node& n, cel::AttributeValue& out) {
  if (!d.ExpectMap(n)) return;
  int set = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view key = n.key(i).text();
    const Node& v = n.value(i);
    auto scope = d.Field(key);
    if (key == "int") {
      ++set;
      out.kind = cel::AttributeValue::Kind::kInt;
      d.ReadInt64(v, out.int_value);
    } else if (key == "bool") {
      ++set;
      out.kind = cel::AttributeValue::Kind::kBool;
      d.ReadBool(v, out.bool_value);
    } else if (key == "string" || key == "version") {
      ++set;
      std::string_view s;
      if (!d.ReadString(v, s)) continue;
      out.string_value = Str(d, d.Intern(s));
      if (s.size() > kDeviceAttributeMaxValueLength) {
        d.Error(v, fmt::format("Too long: may not be more than {} bytes",
                               kDeviceAttributeMaxValueLength));
      }
      if (key == "string") {
        out.kind = cel::AttributeValue::Kind::kString;
      } else {
        out.kind = cel::AttributeValue::Kind::kVersion;
        if (!cel::ParseSemver(out.string_value, &out.version)) {
          d.Error(v, fmt::format("Invalid value: {:?}: must be a string compatible with semver.org "
                                 "spec 2.0.0",
                                 s));
        }
      }
    } else if (IsListAttributeField(key)) {
      ++set;
      DecodeListAttribute(d, key, v, out);
    } else {
      d.UnknownField(n.key(i), std::initializer_list<std::string_view>{"int", "bool", "string",
                                                                       "version", "ints", "bools",
                                                                       "strings", "versions"});
    }
  }
  if (set != 1) d.Error(n, "exactly one value must be specified");
}

void DecodeCounters(Decoder& d, const Node& n, std::vector<res::Counter>& out) {
  d.ForEachEntry(n, [&](const Node& key, const Node& value) {
    if (std::string err = CheckDns1123Label(key.text()); !err.empty()) {
      d.Error(key, fmt::format("Invalid value: {:?}: {}", key.text(), err));
    }
    res::Counter c;
    c.name = d.Intern(key.text());
    if (!d.ExpectMap(value)) return;
    const Node* v = value.Find("value");
    if (v == nullptr) {
      d.Required(value, "value");
      return;
    }
    for (size_t i = 0; i < value.size(); ++i) {
      if (value.key(i).text() != "value") {
        d.UnknownField(value.key(i), std::initializer_list<std::string_view>{"value"});
      }
    }
    auto s = d.Field("value");
    d.ReadQuantity(*v, c.value);
    out.push_back(c);
  });
}

// consumesCounters[].compatibilityGroups (DRADeviceCompatibilityGroups, KEP-5963): DNS labels as
// counter names are, no duplicates, at most kMaxCompatibilityGroupsPerConsumption. Read whatever
// the gate, as stored objects are; the allocator applies the gate (docs/deviations.md).
void DecodeCompatibilityGroups(Decoder& d, const Node& n, std::vector<Symbol>& out) {
  if (n.is_null()) return;
  d.ReadList(n, out, [&](const Node& item, Symbol& g) {
    if (!d.ReadSymbol(item, g)) return;
    if (std::string err = CheckDns1123Label(Str(d, g)); !err.empty()) {
      d.Error(item, fmt::format("Invalid value: {:?}: {}", Str(d, g), err));
    } else if (std::count(out.begin(), out.end(), g) > 0) {
      d.Error(item, fmt::format("Duplicate value: {:?}", Str(d, g)));
    }
  });
  if (out.size() > kMaxCompatibilityGroupsPerConsumption) {
    d.Error(n, fmt::format("Too many: {}: must have at most {} items", out.size(),
                           kMaxCompatibilityGroupsPerConsumption));
  }
}

// A device's bindingConditions or bindingFailureConditions: at most 4 distinct condition types,
// each a qualified name (kube's validateDevice; BindingConditionsMaxSize and
// BindingFailureConditionsMaxSize are 4).
void DecodeBindingConditions(Decoder& d, const Node& n, std::vector<Symbol>& out) {
  if (n.is_null()) return;
  if (!d.ReadSymbolList(n, out)) return;
  constexpr size_t kMax = 4;
  if (out.size() > kMax) {
    d.Error(n, fmt::format("Too many: {}: must have at most {} items", out.size(), kMax));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    auto s = d.Index(i);
    const Node& item = n.items()[i];
    CheckQualifiedNameAt(d, item, "condition type", d.interner()->Str(out[i]));
    for (size_t j = 0; j < i; ++j) {
      if (out[j] == out[i]) {
        d.Error(item, fmt::format("Duplicate value: {:?}", d.interner()->Str(out[i])));
      }
    }
  }
}

const doc::Field<res::DeviceCounterConsumption> kConsumptionFields[] = {
    {"counterSet", [](Decoder& d, const Node& n,
                      res::DeviceCounterConsumption& c) { d.ReadSymbol(n, c.counter_set); }},
    {"counters", [](Decoder& d, const Node& n,
                    res::DeviceCounterConsumption& c) { DecodeCounters(d, n, c.counters); }},
    {"compatibilityGroups",
     [](Decoder& d, const Node& n, res::DeviceCounterConsumption& c) {
       DecodeCompatibilityGroups(d, n, c.compatibility_groups);
     }},
};

const doc::Field<DeviceIn> kDeviceFields[] = {
    {"name", [](Decoder& d, const Node& n, DeviceIn& in) { d.ReadSymbol(n, in.dev->name); }},
    {"attributes",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       d.ForEachEntry(n, [&](const Node& key, const Node& value) {
         if (std::string err = CheckQualifiedAttributeName(key.text()); !err.empty()) {
           d.Error(key, fmt::format("Invalid value: {:?}: {}", key.text(), err));
         }
         cel::DeviceAttribute a;
         SplitQualified(d, in.driver, key.text(), &a.domain, &a.id);
         DecodeAttribute(d, value, a.value);
         in.dev->attributes.push_back(a);
       });
     }},
    {"capacity",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       d.ForEachEntry(n, [&](const Node& key, const Node& value) {
         if (std::string err = CheckQualifiedAttributeName(key.text()); !err.empty()) {
           d.Error(key, fmt::format("Invalid value: {:?}: {}", key.text(), err));
         }
         cel::DeviceCapacity c;
         SplitQualified(d, in.driver, key.text(), &c.domain, &c.id);
         if (!d.ExpectMap(value)) return;
         std::optional<res::CapacityRequestPolicy> policy;
         if (const Node* v = value.Find("value")) {
           auto s = d.Field("value");
           d.ReadQuantity(*v, c.value);
         } else {
           d.Required(value, "value");
         }
         for (size_t i = 0; i < value.size(); ++i) {
           std::string_view k = value.key(i).text();
           if (k == "requestPolicy") {
             if (value.value(i).is_null()) continue;
             auto s = d.Field("requestPolicy");
             DecodeCapacityRequestPolicy(d, value.value(i), c.value, policy.emplace());
           } else if (k != "value") {
             d.UnknownField(value.key(i),
                            std::initializer_list<std::string_view>{"value", "requestPolicy"});
           }
         }
         if (policy.has_value() || !in.dev->capacity_policies.empty()) {
           in.dev->capacity_policies.resize(in.dev->capacity.size());
           in.dev->capacity_policies.push_back(std::move(policy));
         }
         in.dev->capacity.push_back(c);
       });
     }},
    {"consumesCounters",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       d.ReadList(n, in.dev->consumes_counters,
                  [&](const Node& item, res::DeviceCounterConsumption& c) {
                    d.Struct(item, c, kConsumptionFields);
                    if (item.is_map() && c.counter_set.empty()) d.Required(item, "counterSet");
                  });
     }},
    {"nodeName",
     [](Decoder& d, const Node& n, DeviceIn& in) { d.ReadSymbol(n, in.dev->node_name); }},
    {"nodeSelector",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       if (n.is_null()) return;
       api::NodeSelector s;
       DecodeNodeSelector(d, n, s);
       in.dev->node_selector = std::move(s);
     }},
    {"allNodes", [](Decoder& d, const Node& n, DeviceIn& in) { d.ReadBool(n, in.dev->all_nodes); }},
    {"taints",
     [](Decoder& d, const Node& n, DeviceIn& in) { DecodeDeviceTaints(d, n, in.dev->taints); }},
    {"bindsToNode",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       if (!n.is_null()) d.ReadBool(n, in.dev->binds_to_node);
     }},
    {"bindingConditions",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       DecodeBindingConditions(d, n, in.dev->binding_conditions);
     }},
    {"bindingFailureConditions",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       DecodeBindingConditions(d, n, in.dev->binding_failure_conditions);
     }},
    {"allowMultipleAllocations",
     [](Decoder& d, const Node& n, DeviceIn& in) {
       if (!n.is_null()) d.ReadBool(n, in.dev->allow_multiple_allocations);
     }},
};

struct SliceIn {
  res::ResourceSlice* slice;
  const Node* pool = nullptr;
};

const doc::Field<res::ResourceSlice> kPoolFields[] = {
    {"name",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) { d.ReadSymbol(n, s.pool_name); }},
    {"generation", [](Decoder& d, const Node& n,
                      res::ResourceSlice& s) { d.ReadInt64(n, s.pool_generation, 0); }},
    {"resourceSliceCount",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) {
       d.ReadInt64(n, s.resource_slice_count, 1);
     }},
};

const doc::Field<res::ResourceSlice> kSliceSpecFields[] = {
    {"driver", [](Decoder& d, const Node& n, res::ResourceSlice& s) { d.ReadSymbol(n, s.driver); }},
    {"pool",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) {
       d.Struct(n, s, kPoolFields);
       if (!n.is_map()) return;
       if (s.pool_name.empty()) d.Required(n, "name");
       if (n.Find("resourceSliceCount") == nullptr) d.Required(n, "resourceSliceCount");
     }},
    {"nodeName",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) { d.ReadSymbol(n, s.node_name); }},
    {"nodeSelector",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) {
       if (n.is_null()) return;
       api::NodeSelector sel;
       DecodeNodeSelector(d, n, sel);
       if (n.is_map() && sel.node_selector_terms.size() != 1) {
         d.FieldError(n, "nodeSelectorTerms", "must have exactly one node selector term");
       }
       s.node_selector = std::move(sel);
     }},
    {"allNodes",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) { d.ReadBool(n, s.all_nodes); }},
    {"perDeviceNodeSelection",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) {
       d.ReadBool(n, s.per_device_node_selection);
     }},
    {"devices",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) {
       d.ReadList(n, s.devices, [&](const Node& item, res::Device& dev) {
         DeviceIn in{&dev, s.driver, s.per_device_node_selection};
         d.Struct(item, in, kDeviceFields);
         if (!item.is_map()) return;
         if (!dev.capacity_policies.empty() && !dev.allow_multiple_allocations) {
           // kube validateSingleAllocatableDeviceCapacity.
           dev.capacity_policies.resize(dev.capacity.size());
           const Node* caps = item.Find("capacity");
           auto f = d.Field("capacity");
           for (size_t i = 0; caps != nullptr && i < caps->size() && i < dev.capacity.size(); ++i) {
             if (!dev.capacity_policies[i].has_value()) continue;
             auto k = d.Key(caps->key(i).text());
             d.FieldError(caps->value(i), "requestPolicy",
                          "Forbidden: allowMultipleAllocations must be true");
           }
         }
         if (dev.name.empty()) {
           d.Required(item, "name");
         } else if (std::string err = CheckDns1123Label(Str(d, dev.name)); !err.empty()) {
           d.FieldError(item, "name",
                        fmt::format("Invalid value: {:?}: {}", Str(d, dev.name), err));
         }
         size_t values = 0;
         for (const auto& a : dev.attributes) values += AttributeValueCount(a.value);
         if (values > kResourceSliceMaxAttributeValuesPerDevice) {
           d.Error(item, fmt::format("Too many: {}: must have at most {} attribute values", values,
                                     kResourceSliceMaxAttributeValuesPerDevice));
         }
         if (dev.attributes.size() + dev.capacity.size() >
             kResourceSliceMaxAttributesAndCapacities) {
           d.Error(item, fmt::format("Too many: {}: must have at most {} attributes and capacities "
                                     "combined",
                                     dev.attributes.size() + dev.capacity.size(),
                                     kResourceSliceMaxAttributesAndCapacities));
         }
       });
       if (s.devices.size() > kResourceSliceMaxDevices) {
         d.Error(n, fmt::format("Too many: {}: must have at most {} items", s.devices.size(),
                                kResourceSliceMaxDevices));
       }
     }},
    {"sharedCounters",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) {
       d.ReadList(n, s.shared_counters, [&](const Node& item, res::CounterSet& cs) {
         if (!d.ExpectMap(item)) return;
         for (size_t i = 0; i < item.size(); ++i) {
           std::string_view k = item.key(i).text();
           auto scope = d.Field(k);
           if (k == "name") {
             d.ReadSymbol(item.value(i), cs.name);
           } else if (k == "counters") {
             DecodeCounters(d, item.value(i), cs.counters);
           } else {
             d.UnknownField(item.key(i),
                            std::initializer_list<std::string_view>{"name", "counters"});
           }
         }
         if (cs.name.empty()) d.Required(item, "name");
       });
     }},
};

const doc::Field<res::ResourceSlice> kSliceFields[] = {
    {"apiVersion", [](Decoder&, const Node&, res::ResourceSlice&) {}},
    {"kind", [](Decoder&, const Node&, res::ResourceSlice&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    res::ResourceSlice& s) { DecodeMeta(d, n, s.meta, {.namespaced = false}); }},
    {"spec",
     [](Decoder& d, const Node& n, res::ResourceSlice& s) {
       // The driver first: attribute names default their domain to it.
       if (n.is_map()) {
         if (const Node* drv = n.Find("driver")) {
           auto scope = d.Field("driver");
           d.ReadSymbol(*drv, s.driver);
         }
       }
       d.Struct(n, s, kSliceSpecFields);
     }},
};

void CheckSlice(Decoder& d, const Node& root, res::ResourceSlice& s) {
  const Node* spec = root.Find("spec");
  if (spec == nullptr || !spec->is_map()) {
    if (spec == nullptr || spec->is_null()) d.Required(root, "spec");
    return;
  }
  auto scope = d.Field("spec");
  if (s.driver.empty()) {
    d.Required(*spec, "driver");
  } else if (std::string err = CheckDns1123Subdomain(Str(d, s.driver));
             !err.empty() || Str(d, s.driver).size() > 63) {
    d.FieldError(*spec, "driver",
                 fmt::format("Invalid value: {:?}: {}", Str(d, s.driver),
                             err.empty() ? "must be no more than 63 bytes" : err));
  }
  if (spec->Find("pool") == nullptr) d.Required(*spec, "pool");
  const int set = (!s.node_name.empty()) + s.node_selector.has_value() + s.all_nodes +
                  s.per_device_node_selection;
  if (set != 1) {
    d.Error(*spec,
            "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
            "required");
  }
  absl::flat_hash_set<Symbol> names;
  const Node* devices = spec->Find("devices");
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const res::Device& dev = s.devices[i];
    const Node* item = devices != nullptr && devices->is_sequence() && i < devices->size()
                           ? &devices->items()[i]
                           : spec;
    auto f = d.Field("devices");
    auto ix = d.Index(i);
    if (!dev.name.empty() && !names.insert(dev.name).second) {
      d.FieldError(*item, "name", fmt::format("Duplicate value: {:?}", Str(d, dev.name)));
    }
    const int dev_set = (!dev.node_name.empty()) + dev.node_selector.has_value() + dev.all_nodes;
    if (s.per_device_node_selection && dev_set != 1) {
      d.Error(*item,
              "exactly one of `nodeName`, `nodeSelector`, `allNodes` is required when "
              "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    } else if (!s.per_device_node_selection && dev_set != 0) {
      d.Error(*item,
              "`nodeName`, `nodeSelector` and `allNodes` can only be set when "
              "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    }
  }
}

// ---- ResourceClaim / ResourceClaimTemplate ----

// The request fields v1beta1 and v1alpha3 put inline (next to name and firstAvailable).
constexpr std::string_view kInlineRequestFields[] = {
    "deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations"};

bool IsInlineRequestField(std::string_view k) {
  for (std::string_view f : kInlineRequestFields) {
    if (f == k) return true;
  }
  return false;
}

// Where a request spec sits: `exactly` (v1, v1beta2), an entry of `firstAvailable`, or the request
// itself (v1beta1 and v1alpha3, whose requests carry the fields inline; the name is read there).
enum class SpecAt { kExactly, kSubRequest, kInline };

void DecodeRequestSpec(Decoder& d, const Node& n, res::DeviceRequestSpec& r, SpecAt at) {
  if (!d.ExpectMap(n)) return;
  const bool sub = at == SpecAt::kSubRequest;
  const Node* count = nullptr;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view k = n.key(i).text();
    const Node& v = n.value(i);
    auto scope = d.Field(k);
    if (at == SpecAt::kInline && !IsInlineRequestField(k)) {
      continue;  // name, and unknown fields (reported with the request)
    } else if (k == "name" && sub) {
      d.ReadSymbol(v, r.name);
    } else if (k == "deviceClassName") {
      d.ReadSymbol(v, r.device_class_name);
    } else if (k == "selectors") {
      DecodeSelectors(d, v, r.selectors);
    } else if (k == "allocationMode") {
      static constexpr doc::EnumName<res::AllocationMode> kModes[] = {
          {"ExactCount", res::AllocationMode::kExactCount}, {"All", res::AllocationMode::kAll}};
      if (!v.is_null()) d.ReadEnum(v, kModes, "allocationMode", r.allocation_mode);
    } else if (k == "count") {
      if (!v.is_null()) {
        count = &v;
        d.ReadInt64(v, r.count);
      }
    } else if (k == "adminAccess" && !sub) {
      if (!v.is_null()) d.ReadBool(v, r.admin_access);
    } else if (k == "tolerations") {
      DecodeDeviceTolerations(d, v, r.tolerations);
    } else if (k == "capacity") {
      if (!v.is_null()) {
        r.has_capacity = true;
        DecodeCapacityRequirements(d, v, r.capacity_requests);
      }
    } else {
      static constexpr std::string_view kKnown[] = {
          "name",  "deviceClassName", "selectors",   "allocationMode",
          "count", "adminAccess",     "tolerations", "capacity"};
      d.UnknownField(n.key(i), kKnown);
    }
  }
  if (sub && r.name.empty()) d.Required(n, "name");
  if (sub && !r.name.empty()) {
    if (std::string err = CheckDns1123Label(Str(d, r.name)); !err.empty()) {
      d.FieldError(n, "name", fmt::format("Invalid value: {:?}: {}", Str(d, r.name), err));
    }
  }
  if (r.device_class_name.empty()) {
    d.Required(n, "deviceClassName");
  } else if (std::string err = CheckDns1123Subdomain(Str(d, r.device_class_name)); !err.empty()) {
    d.FieldError(n, "deviceClassName",
                 fmt::format("Invalid value: {:?}: {}", Str(d, r.device_class_name), err));
  }
  if (r.allocation_mode == res::AllocationMode::kAll) {
    if (count != nullptr) {
      auto scope = d.Field("count");
      d.Error(*count, "Invalid value: must not be specified when allocationMode is 'All'");
    }
  } else if (count != nullptr && r.count <= 0) {
    auto scope = d.Field("count");
    d.Error(*count, fmt::format("Invalid value: {}: must be greater than zero", r.count));
  }
}

// `inline_requests`: the v1beta1/v1alpha3 schema, whose requests carry their fields inline instead
// of under `exactly`.
void DecodeClaimSpec(Decoder& d, const Node& n, res::ResourceClaimSpec& spec,
                     bool inline_requests) {
  if (!d.ExpectMap(n)) return;
  const Node* devices = nullptr;
  for (size_t i = 0; i < n.size(); ++i) {
    if (n.key(i).text() == "devices") {
      devices = &n.value(i);
    } else {
      d.UnknownField(n.key(i), std::initializer_list<std::string_view>{"devices"});
    }
  }
  if (devices == nullptr || devices->is_null()) return;  // a claim with no requests is valid
  auto scope = d.Field("devices");
  if (!d.ExpectMap(*devices)) return;
  const Node* requests = nullptr;
  const Node* constraints = nullptr;
  for (size_t i = 0; i < devices->size(); ++i) {
    std::string_view k = devices->key(i).text();
    if (k == "requests") {
      requests = &devices->value(i);
    } else if (k == "constraints") {
      constraints = &devices->value(i);
    } else if (k != "config") {
      d.UnknownField(devices->key(i),
                     std::initializer_list<std::string_view>{"requests", "constraints", "config"});
    }
  }
  absl::flat_hash_set<std::string> request_names;  // "req" and "req/sub"
  if (requests != nullptr) {
    auto s = d.Field("requests");
    d.ReadList(*requests, spec.requests, [&](const Node& item, res::DeviceRequest& r) {
      if (!d.ExpectMap(item)) return;
      const Node* exactly = nullptr;
      const Node* first = nullptr;
      const Node* inline_field = nullptr;  // the first inline request field (v1beta1, v1alpha3)
      for (size_t i = 0; i < item.size(); ++i) {
        std::string_view k = item.key(i).text();
        if (k == "name") {
          auto f = d.Field("name");
          d.ReadSymbol(item.value(i), r.name);
        } else if (k == "exactly" && !inline_requests) {
          exactly = item.value(i).is_null() ? nullptr : &item.value(i);
        } else if (k == "firstAvailable") {
          first = item.value(i).is_null() ? nullptr : &item.value(i);
        } else if (inline_requests && IsInlineRequestField(k)) {
          if (inline_field == nullptr) inline_field = &item.key(i);
        } else if (inline_requests) {
          static constexpr std::string_view kKnown[] = {
              "name",           "firstAvailable", "deviceClassName", "selectors",
              "allocationMode", "count",          "adminAccess",     "tolerations"};
          d.UnknownField(item.key(i), kKnown);
        } else {
          d.UnknownField(item.key(i), std::initializer_list<std::string_view>{"name", "exactly",
                                                                              "firstAvailable"});
        }
      }
      if (r.name.empty()) {
        d.Required(item, "name");
      } else if (std::string err = CheckDns1123Label(Str(d, r.name)); !err.empty()) {
        d.FieldError(item, "name", fmt::format("Invalid value: {:?}: {}", Str(d, r.name), err));
      } else if (!request_names.insert(std::string(Str(d, r.name))).second) {
        d.FieldError(item, "name", fmt::format("Duplicate value: {:?}", Str(d, r.name)));
      }
      if (inline_requests) {
        if (first != nullptr && inline_field != nullptr) {
          auto f = d.Field(inline_field->text());
          d.Error(*inline_field, "Invalid value: must not be specified when firstAvailable is set");
        } else if (first == nullptr) {
          r.exactly.emplace();
          DecodeRequestSpec(d, item, *r.exactly, SpecAt::kInline);
        }
      } else if ((exactly != nullptr) == (first != nullptr)) {
        d.Error(item, "exactly one of `exactly` or `firstAvailable` is required");
      }
      if (exactly != nullptr) {
        auto f = d.Field("exactly");
        r.exactly.emplace();
        DecodeRequestSpec(d, *exactly, *r.exactly, SpecAt::kExactly);
      }
      if (first != nullptr) {
        auto f = d.Field("firstAvailable");
        absl::flat_hash_set<Symbol> subs;
        d.ReadList(*first, r.first_available, [&](const Node& sub, res::DeviceRequestSpec& sr) {
          DecodeRequestSpec(d, sub, sr, SpecAt::kSubRequest);
          if (!sr.name.empty()) {
            if (!subs.insert(sr.name).second) {
              d.FieldError(sub, "name", fmt::format("Duplicate value: {:?}", Str(d, sr.name)));
            }
            request_names.insert(fmt::format("{}/{}", Str(d, r.name), Str(d, sr.name)));
          }
        });
        if (first->is_sequence() && r.first_available.empty()) {
          d.Error(*first, "Required value: must have at least one sub-request");
        }
        if (r.first_available.size() > kFirstAvailableDeviceRequestMaxSize) {
          d.Error(*first,
                  fmt::format("Too many: {}: must have at most {} items", r.first_available.size(),
                              kFirstAvailableDeviceRequestMaxSize));
        }
      }
      if (r.exactly.has_value()) r.exactly->result_name = r.name;
      for (auto& sr : r.first_available) {
        sr.result_name = d.Intern(fmt::format("{}/{}", Str(d, r.name), Str(d, sr.name)));
      }
    });
    if (spec.requests.size() > kDeviceRequestsMaxSize) {
      d.Error(*requests, fmt::format("Too many: {}: must have at most {} items",
                                     spec.requests.size(), kDeviceRequestsMaxSize));
    }
  }
  if (constraints != nullptr) {
    auto s = d.Field("constraints");
    d.ReadList(*constraints, spec.constraints, [&](const Node& item, res::DeviceConstraint& c) {
      if (!d.ExpectMap(item)) return;
      for (size_t i = 0; i < item.size(); ++i) {
        std::string_view k = item.key(i).text();
        const Node& v = item.value(i);
        auto f = d.Field(k);
        if (k == "requests") {
          d.ReadSymbolList(v, c.requests);
          for (size_t j = 0; j < c.requests.size(); ++j) {
            std::string_view name = Str(d, c.requests[j]);
            if (!request_names.contains(std::string(name))) {
              auto ix = d.Index(j);
              d.Error(v.is_sequence() && j < v.size() ? v.items()[j] : v,
                      fmt::format("Invalid value: {:?}: must be the name of a request in the "
                                  "claim or the name of a request and a subrequest separated by "
                                  "'/'",
                                  name));
            }
          }
        } else if (k == "matchAttribute") {
          std::string_view a;
          if (!d.ReadString(v, a)) continue;
          c.match_attribute = d.Intern(a);
          size_t slash = a.find('/');
          if (slash == std::string_view::npos) {
            d.Error(v, fmt::format("Invalid value: {:?}: must include a domain", a));
            continue;
          }
          if (std::string err = CheckQualifiedAttributeName(a); !err.empty()) {
            d.Error(v, fmt::format("Invalid value: {:?}: {}", a, err));
            continue;
          }
          c.match_domain = Str(d, d.Intern(a.substr(0, slash)));
          c.match_id = Str(d, d.Intern(a.substr(slash + 1)));
        } else if (k == "distinctAttribute") {
          if (!v.is_null()) d.Error(v, "not modelled by Corral: distinctAttribute constraints");
        } else {
          d.UnknownField(item.key(i),
                         std::initializer_list<std::string_view>{"requests", "matchAttribute"});
        }
      }
      if (c.match_attribute.empty() && item.Find("distinctAttribute") == nullptr) {
        d.Required(item, "matchAttribute");
      }
    });
    if (spec.constraints.size() > kDeviceConstraintsMaxSize) {
      d.Error(*constraints, fmt::format("Too many: {}: must have at most {} items",
                                        spec.constraints.size(), kDeviceConstraintsMaxSize));
    }
  }
}

const doc::Field<res::DeviceRequestAllocationResult> kResultFields[] = {
    {"request", [](Decoder& d, const Node& n,
                   res::DeviceRequestAllocationResult& r) { d.ReadSymbol(n, r.request); }},
    {"driver", [](Decoder& d, const Node& n,
                  res::DeviceRequestAllocationResult& r) { d.ReadSymbol(n, r.driver); }},
    {"pool", [](Decoder& d, const Node& n,
                res::DeviceRequestAllocationResult& r) { d.ReadSymbol(n, r.pool); }},
    {"device", [](Decoder& d, const Node& n,
                  res::DeviceRequestAllocationResult& r) { d.ReadSymbol(n, r.device); }},
    {"adminAccess",
     [](Decoder& d, const Node& n, res::DeviceRequestAllocationResult& r) {
       if (!n.is_null()) d.ReadBool(n, r.admin_access);
     }},
    {"shareID",
     [](Decoder& d, const Node& n, res::DeviceRequestAllocationResult& r) {
       if (n.is_null()) return;
       std::string_view id;
       if (!d.ReadString(n, id)) return;
       if (id.empty()) {
         d.Error(n, "Required value");
         return;
       }
       r.shared = true;
     }},
    {"consumedCapacity",
     [](Decoder& d, const Node& n, res::DeviceRequestAllocationResult& r) {
       if (!n.is_null()) DecodeConsumedCapacity(d, n, r.consumed_capacity);
     }},
    {"bindingConditions",
     [](Decoder& d, const Node& n, res::DeviceRequestAllocationResult& r) {
       DecodeBindingConditions(d, n, r.binding_conditions);
     }},
    {"bindingFailureConditions",
     [](Decoder& d, const Node& n, res::DeviceRequestAllocationResult& r) {
       DecodeBindingConditions(d, n, r.binding_failure_conditions);
     }},
};
constexpr std::string_view kResultIgnored[] = {"tolerations"};

void DecodeAllocation(Decoder& d, const Node& n, res::AllocationResult& a) {
  if (!d.ExpectMap(n)) return;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view k = n.key(i).text();
    const Node& v = n.value(i);
    auto scope = d.Field(k);
    if (k == "devices") {
      if (!d.ExpectMap(v)) continue;
      for (size_t j = 0; j < v.size(); ++j) {
        if (v.key(j).text() == "config") continue;
        if (v.key(j).text() != "results") {
          d.UnknownField(v.key(j), std::initializer_list<std::string_view>{"results", "config"});
          continue;
        }
        auto s = d.Field("results");
        d.ReadList(v.value(j), a.devices,
                   [&](const Node& item, res::DeviceRequestAllocationResult& r) {
                     d.Struct(item, r, kResultFields, kResultIgnored);
                     if (!item.is_map()) return;
                     if (r.request.empty()) d.Required(item, "request");
                     if (r.driver.empty()) d.Required(item, "driver");
                     if (r.pool.empty()) d.Required(item, "pool");
                     if (r.device.empty()) d.Required(item, "device");
                     for (auto& c : r.consumed_capacity) {
                       if (c.domain.empty()) c.domain = Str(d, r.driver);
                     }
                   });
        if (a.devices.size() > kAllocationResultsMaxSize) {
          d.Error(v.value(j), fmt::format("Too many: {}: must have at most {} items",
                                          a.devices.size(), kAllocationResultsMaxSize));
        }
      }
    } else if (k == "nodeSelector") {
      if (v.is_null()) continue;
      api::NodeSelector s;
      DecodeNodeSelector(d, v, s);
      a.node_selector = std::move(s);
    } else if (k == "allocationTimestamp") {
      if (v.is_null()) continue;
      TimePoint t;
      if (d.ReadTime(v, t)) a.allocation_timestamp = t;
    } else {
      d.UnknownField(n.key(i), std::initializer_list<std::string_view>{"devices", "nodeSelector",
                                                                       "allocationTimestamp"});
    }
  }
}

const doc::Field<res::ConsumerReference> kConsumerFields[] = {
    {"resource",
     [](Decoder& d, const Node& n, res::ConsumerReference& c) { d.ReadSymbol(n, c.resource); }},
    {"name", [](Decoder& d, const Node& n, res::ConsumerReference& c) { d.ReadSymbol(n, c.name); }},
    {"uid", [](Decoder& d, const Node& n, res::ConsumerReference& c) { d.ReadSymbol(n, c.uid); }},
};
constexpr std::string_view kConsumerIgnored[] = {"apiGroup"};

inline constexpr doc::EnumName<res::ConditionStatus> kConditionStatuses[] = {
    {"True", res::ConditionStatus::kTrue},
    {"False", res::ConditionStatus::kFalse},
    {"Unknown", res::ConditionStatus::kUnknown},
};

const doc::Field<res::Condition> kConditionFields[] = {
    {"type", [](Decoder& d, const Node& n, res::Condition& c) { d.ReadSymbol(n, c.type); }},
    {"status",
     [](Decoder& d, const Node& n, res::Condition& c) {
       d.ReadEnum(n, kConditionStatuses, "condition status", c.status);
     }},
    {"reason",
     [](Decoder& d, const Node& n, res::Condition& c) {
       std::string_view s;
       if (d.ReadString(n, s)) c.reason = std::string(s);
     }},
    {"message",
     [](Decoder& d, const Node& n, res::Condition& c) {
       std::string_view s;
       if (d.ReadString(n, s)) c.message = std::string(s);
     }},
};
constexpr std::string_view kConditionIgnored[] = {"lastTransitionTime", "observedGeneration"};

const doc::Field<res::AllocatedDeviceStatus> kDeviceStatusFields[] = {
    {"driver",
     [](Decoder& d, const Node& n, res::AllocatedDeviceStatus& s) { d.ReadSymbol(n, s.driver); }},
    {"pool",
     [](Decoder& d, const Node& n, res::AllocatedDeviceStatus& s) { d.ReadSymbol(n, s.pool); }},
    {"device",
     [](Decoder& d, const Node& n, res::AllocatedDeviceStatus& s) { d.ReadSymbol(n, s.device); }},
    {"conditions",
     [](Decoder& d, const Node& n, res::AllocatedDeviceStatus& s) {
       d.ReadList(n, s.conditions, [&](const Node& item, res::Condition& c) {
         d.Struct(item, c, kConditionFields, kConditionIgnored);
         if (item.is_map() && c.type.empty()) d.Required(item, "type");
         if (item.is_map() && item.Find("status") == nullptr) d.Required(item, "status");
       });
     }},
};
// shareID only tells shares apart, which the scheduler's readiness check does not do; data and
// networkData are the driver's own.
constexpr std::string_view kDeviceStatusIgnored[] = {"shareID", "data", "networkData"};

const doc::Field<res::ResourceClaim> kClaimStatusFields[] = {
    {"allocation",
     [](Decoder& d, const Node& n, res::ResourceClaim& c) {
       if (n.is_null()) return;
       c.allocation.emplace();
       DecodeAllocation(d, n, *c.allocation);
     }},
    {"reservedFor",
     [](Decoder& d, const Node& n, res::ResourceClaim& c) {
       d.ReadList(n, c.reserved_for, [&](const Node& item, res::ConsumerReference& r) {
         d.Struct(item, r, kConsumerFields, kConsumerIgnored);
         if (!item.is_map()) return;
         if (r.resource.empty()) d.Required(item, "resource");
         if (r.name.empty()) d.Required(item, "name");
         if (r.uid.empty()) d.Required(item, "uid");
       });
       if (c.reserved_for.size() > res::kReservedForMaxSize) {
         d.Error(n, fmt::format("Too many: {}: must have at most {} items", c.reserved_for.size(),
                                res::kReservedForMaxSize));
       }
     }},
    {"devices",
     [](Decoder& d, const Node& n, res::ResourceClaim& c) {
       d.ReadList(n, c.devices, [&](const Node& item, res::AllocatedDeviceStatus& s) {
         d.Struct(item, s, kDeviceStatusFields, kDeviceStatusIgnored);
         if (!item.is_map()) return;
         if (s.driver.empty()) d.Required(item, "driver");
         if (s.pool.empty()) d.Required(item, "pool");
         if (s.device.empty()) d.Required(item, "device");
       });
     }},
};

// A claim or template being decoded, with the schema of its apiVersion.
template <typename T>
struct ClaimIn {
  T* obj;
  bool inline_requests;
};

// v1beta1 and v1alpha3 requests carry their fields inline.
bool InlineRequests(const Node& root) {
  const Node* v = root.is_map() ? root.Find("apiVersion") : nullptr;
  if (v == nullptr || !v->is_scalar()) return false;
  return v->text() == "resource.k8s.io/v1beta1" || v->text() == "resource.k8s.io/v1alpha3";
}

const doc::Field<ClaimIn<res::ResourceClaim>> kClaimFields[] = {
    {"apiVersion", [](Decoder&, const Node&, ClaimIn<res::ResourceClaim>&) {}},
    {"kind", [](Decoder&, const Node&, ClaimIn<res::ResourceClaim>&) {}},
    {"metadata",
     [](Decoder& d, const Node& n, ClaimIn<res::ResourceClaim>& in) {
       DecodeMeta(d, n, in.obj->meta, {.namespaced = true});
     }},
    {"spec",
     [](Decoder& d, const Node& n, ClaimIn<res::ResourceClaim>& in) {
       DecodeClaimSpec(d, n, in.obj->spec, in.inline_requests);
     }},
    {"status",
     [](Decoder& d, const Node& n, ClaimIn<res::ResourceClaim>& in) {
       res::ResourceClaim& c = *in.obj;
       d.Struct(n, c, kClaimStatusFields, /*ignored=*/{});
       if (!c.reserved_for.empty() && !c.allocation.has_value()) {
         d.FieldError(n, "reservedFor",
                      "Forbidden: may not be specified when `allocated` is not set");
       }
     }},
};

using TemplateIn = ClaimIn<res::ResourceClaimTemplate>;

const doc::Field<TemplateIn> kTemplateSpecFields[] = {
    {"spec", [](Decoder& d, const Node& n,
                TemplateIn& in) { DecodeClaimSpec(d, n, in.obj->spec, in.inline_requests); }},
};
constexpr std::string_view kTemplateSpecIgnored[] = {"metadata"};

const doc::Field<TemplateIn> kTemplateFields[] = {
    {"apiVersion", [](Decoder&, const Node&, TemplateIn&) {}},
    {"kind", [](Decoder&, const Node&, TemplateIn&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    TemplateIn& in) { DecodeMeta(d, n, in.obj->meta, {.namespaced = true}); }},
    {"spec",
     [](Decoder& d, const Node& n, TemplateIn& in) {
       d.Struct(n, in, kTemplateSpecFields, kTemplateSpecIgnored);
       if (n.is_map() && n.Find("spec") == nullptr) d.Required(n, "spec");
     }},
};

}  // namespace

void DecodeDeviceClass(Decoder& d, const Node& root, res::DeviceClass& out) {
  d.Struct(root, out, kDeviceClassFields);
  CheckMetaPresent(d, root, out.meta);
  if (!out.meta.name.empty()) {
    out.implicit_extended_resource_name = d.Intern(
        fmt::format("deviceclass.resource.kubernetes.io/{}", d.interner()->Str(out.meta.name)));
  }
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) d.Required(root, "spec");
}

void DecodeResourceSlice(Decoder& d, const Node& root, res::ResourceSlice& out) {
  d.Struct(root, out, kSliceFields);
  CheckMetaPresent(d, root, out.meta);
  CheckSlice(d, root, out);
}

void DecodeResourceClaim(Decoder& d, const Node& root, res::ResourceClaim& out) {
  ClaimIn<res::ResourceClaim> in{&out, InlineRequests(root)};
  d.Struct(root, in, kClaimFields);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) d.Required(root, "spec");
}

void DecodeResourceClaimTemplate(Decoder& d, const Node& root, res::ResourceClaimTemplate& out) {
  TemplateIn in{&out, InlineRequests(root)};
  d.Struct(root, in, kTemplateFields);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) d.Required(root, "spec");
}

}  // namespace corral::loader::internal
