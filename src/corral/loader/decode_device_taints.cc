#include "corral/loader/internal/decode_device_taints.h"

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "corral/loader/internal/decode.h"
#include "corral/loader/validation.h"

namespace corral::loader::internal {

namespace {

namespace res = api::resource;

constexpr doc::EnumName<res::DeviceTaintEffect> kEffects[] = {
    {"NoSchedule", res::DeviceTaintEffect::kNoSchedule},
    {"NoExecute", res::DeviceTaintEffect::kNoExecute},
    {"None", res::DeviceTaintEffect::kNone},
};

constexpr doc::EnumName<res::DeviceTolerationOperator> kOperators[] = {
    {"Equal", res::DeviceTolerationOperator::kEqual},
    {"Exists", res::DeviceTolerationOperator::kExists},
};

std::string_view Str(Decoder& d, Symbol s) {
  return d.interner()->Str(s);
}

// A label name (taint and toleration keys) at `field` of `parent`.
void CheckKey(Decoder& d, const Node& parent, Symbol key) {
  if (std::string err = CheckQualifiedName(Str(d, key)); !err.empty()) {
    d.FieldError(parent, "key", fmt::format("Invalid value: {:?}: {}", Str(d, key), err));
  }
}
void CheckValue(Decoder& d, const Node& parent, Symbol value) {
  if (std::string err = CheckLabelValue(Str(d, value)); !err.empty()) {
    d.FieldError(parent, "value", fmt::format("Invalid value: {:?}: {}", Str(d, value), err));
  }
}

struct TaintIn {
  res::DeviceTaint* t;
  bool has_effect = false;
};

const doc::Field<TaintIn> kTaintFields[] = {
    {"key", [](Decoder& d, const Node& n, TaintIn& in) { d.ReadSymbol(n, in.t->key); }},
    {"value", [](Decoder& d, const Node& n, TaintIn& in) { d.ReadSymbol(n, in.t->value); }},
    {"effect",
     [](Decoder& d, const Node& n, TaintIn& in) {
       if (!n.is_null()) in.has_effect = d.ReadEnum(n, kEffects, "effect", in.t->effect);
     }},
    // When the taint was added: kube's eviction reads it, allocation does not.
    {"timeAdded",
     [](Decoder& d, const Node& n, TaintIn&) {
       TimePoint t;
       if (!n.is_null()) d.ReadTime(n, t);
     }},
};

void DecodeOneTaint(Decoder& d, const Node& n, res::DeviceTaint& out) {
  TaintIn in{&out};
  d.Struct(n, in, kTaintFields);
  if (!n.is_map()) return;
  if (out.key.empty()) {
    d.Required(n, "key");
  } else {
    CheckKey(d, n, out.key);
  }
  if (!out.value.empty()) CheckValue(d, n, out.value);
  const Node* effect = n.Find("effect");
  if (effect == nullptr || effect->is_null()) d.Required(n, "effect");
}

struct TolerationIn {
  res::DeviceToleration* t;
};

const doc::Field<TolerationIn> kTolerationFields[] = {
    {"key", [](Decoder& d, const Node& n, TolerationIn& in) { d.ReadSymbol(n, in.t->key); }},
    {"operator",
     [](Decoder& d, const Node& n, TolerationIn& in) {
       // Defaulted to Equal.
       if (!n.is_null()) d.ReadEnum(n, kOperators, "operator", in.t->op);
     }},
    {"value", [](Decoder& d, const Node& n, TolerationIn& in) { d.ReadSymbol(n, in.t->value); }},
    {"effect",
     [](Decoder& d, const Node& n, TolerationIn& in) {
       if (n.is_null()) return;
       res::DeviceTaintEffect e{};
       if (d.ReadEnum(n, kEffects, "effect", e)) in.t->effect = e;
     }},
    // How long a NoExecute taint is tolerated: eviction only, not read by allocation.
    {"tolerationSeconds",
     [](Decoder& d, const Node& n, TolerationIn&) {
       int64_t s = 0;
       if (!n.is_null()) d.ReadInt64(n, s);
     }},
};

void DecodeOneToleration(Decoder& d, const Node& n, res::DeviceToleration& out) {
  TolerationIn in{&out};
  d.Struct(n, in, kTolerationFields);
  if (!n.is_map()) return;
  if (!out.key.empty()) CheckKey(d, n, out.key);
  if (out.op == res::DeviceTolerationOperator::kExists) {
    if (!out.value.empty()) {
      d.FieldError(n, "value",
                   fmt::format("Invalid value: {:?}: must be empty for operator `Exists`",
                               Str(d, out.value)));
    }
  } else if (!out.value.empty()) {
    CheckValue(d, n, out.value);
  }
}

struct RuleSelectorIn {
  res::DeviceTaintRule* r;
};

const doc::Field<RuleSelectorIn> kSelectorFields[] = {
    {"driver",
     [](Decoder& d, const Node& n, RuleSelectorIn& in) {
       Symbol s;
       if (n.is_null() || !d.ReadSymbol(n, s)) return;
       in.r->driver = s;
       if (std::string err = CheckDns1123Subdomain(Str(d, s)); !err.empty()) {
         d.Error(n, fmt::format("Invalid value: {:?}: {}", Str(d, s), err));
       }
     }},
    {"pool",
     [](Decoder& d, const Node& n, RuleSelectorIn& in) {
       Symbol s;
       if (n.is_null() || !d.ReadSymbol(n, s)) return;
       in.r->pool = s;
     }},
    {"device",
     [](Decoder& d, const Node& n, RuleSelectorIn& in) {
       Symbol s;
       if (n.is_null() || !d.ReadSymbol(n, s)) return;
       in.r->device = s;
       if (std::string err = CheckDns1123Label(Str(d, s)); !err.empty()) {
         d.Error(n, fmt::format("Invalid value: {:?}: {}", Str(d, s), err));
       }
     }},
    // v1alpha3 only (removed in later versions): selecting devices by class or CEL.
    {"deviceClassName",
     [](Decoder& d, const Node& n, RuleSelectorIn&) {
       if (n.is_null()) return;
       d.Error(n, "not modelled by Corral: DeviceTaintRule device selection by device class");
     }},
    {"selectors",
     [](Decoder& d, const Node& n, RuleSelectorIn&) {
       if (n.is_null() || (n.is_sequence() && n.size() == 0)) return;
       d.Error(n, "not modelled by Corral: DeviceTaintRule device selection by CEL selectors");
     }},
};

const doc::Field<res::DeviceTaintRule> kRuleSpecFields[] = {
    {"deviceSelector",
     [](Decoder& d, const Node& n, res::DeviceTaintRule& r) {
       // Null or empty: every device.
       RuleSelectorIn in{&r};
       if (!n.is_null()) d.Struct(n, in, kSelectorFields);
     }},
    {"taint",
     [](Decoder& d, const Node& n, res::DeviceTaintRule& r) { DecodeOneTaint(d, n, r.taint); }},
};

const doc::Field<res::DeviceTaintRule> kRuleFields[] = {
    {"apiVersion", [](Decoder&, const Node&, res::DeviceTaintRule&) {}},
    {"kind", [](Decoder&, const Node&, res::DeviceTaintRule&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    res::DeviceTaintRule& r) { DecodeMeta(d, n, r.meta, {.namespaced = false}); }},
    {"spec",
     [](Decoder& d, const Node& n, res::DeviceTaintRule& r) {
       d.Struct(n, r, kRuleSpecFields);
       if (n.is_map() && (n.Find("taint") == nullptr || n.Find("taint")->is_null())) {
         d.Required(n, "taint");
       }
     }},
};
// The status holds the eviction controller's conditions.
constexpr std::string_view kRuleIgnored[] = {"status"};

}  // namespace

void DecodeDeviceTaints(Decoder& d, const Node& n, std::vector<res::DeviceTaint>& out) {
  if (n.is_null()) return;
  d.ReadList(n, out, [&](const Node& item, res::DeviceTaint& t) { DecodeOneTaint(d, item, t); });
  if (out.size() > kDeviceTaintsMaxLength) {
    d.Error(n, fmt::format("Too many: {}: must have at most {} items", out.size(),
                           kDeviceTaintsMaxLength));
  }
}

void DecodeDeviceTolerations(Decoder& d, const Node& n, std::vector<res::DeviceToleration>& out) {
  if (n.is_null()) return;
  d.ReadList(n, out,
             [&](const Node& item, res::DeviceToleration& t) { DecodeOneToleration(d, item, t); });
  if (out.size() > kDeviceTolerationsMaxLength) {
    d.Error(n, fmt::format("Too many: {}: must have at most {} items", out.size(),
                           kDeviceTolerationsMaxLength));
  }
}

void DecodeDeviceTaintRule(Decoder& d, const Node& root, res::DeviceTaintRule& out) {
  d.Struct(root, out, kRuleFields, kRuleIgnored);
  CheckMetaPresent(d, root, out.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) d.Required(root, "spec");
}

}  // namespace corral::loader::internal
