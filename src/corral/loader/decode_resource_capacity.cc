#include "corral/loader/internal/decode_resource_capacity.h"

#include <string>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

namespace corral::loader::internal {

namespace {

namespace res = api::resource;
using doc::Decoder;
using doc::Node;

// kube's CapacityRequestPolicyDiscreteMaxOptions.
constexpr size_t kCapacityRequestPolicyDiscreteMaxOptions = 10;

// kube's validateRequestPolicyRangeStep, in whole units (Quantity.Value rounds up).
void CheckStep(Decoder& d, const Node& at, const api::Quantity& value, const api::Quantity& min,
               const api::Quantity& step) {
  const int64_t s = step.Value();
  if (s == 0) return;  // a zero step is reported where it is read
  if ((value.Value() - min.Value()) % s != 0) {
    d.Error(at, fmt::format("Invalid value: {:?}: value is not a multiple of a given step ({}) "
                            "from ({})",
                            value.String(), step.String(), min.String()));
  }
}

void DecodeRange(Decoder& d, const Node& n, const api::Quantity& value,
                 const std::optional<api::Quantity>& default_value,
                 res::CapacityRequestPolicyRange& out, bool* has_min) {
  if (!d.ExpectMap(n)) return;
  const Node* min = nullptr;
  const Node* max = nullptr;
  const Node* step = nullptr;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view k = n.key(i).text();
    const Node& v = n.value(i);
    if (v.is_null()) continue;
    auto scope = d.Field(k);
    if (k == "min") {
      min = &v;
      d.ReadQuantity(v, out.min);
    } else if (k == "max") {
      max = &v;
      d.ReadQuantity(v, out.max.emplace());
    } else if (k == "step") {
      step = &v;
      d.ReadQuantity(v, out.step.emplace());
      if (out.step->Value() <= 0) {
        d.Error(v,
                fmt::format("Invalid value: {:?}: must be greater than zero", out.step->String()));
      }
    } else {
      d.UnknownField(n.key(i), std::initializer_list<std::string_view>{"min", "max", "step"});
    }
  }
  *has_min = min != nullptr;
  if (min == nullptr) {
    d.FieldError(n, "min", "Required value: required when validRange is defined");
    return;
  }
  if (!default_value.has_value()) return;  // reported by the caller
  {
    auto scope = d.Field("min");
    if (out.min > value) {
      d.Error(*min, fmt::format("Invalid value: {:?}: min is larger than capacity value: {}",
                                out.min.String(), value.String()));
    }
    if (*default_value < out.min) {
      d.Error(*min, fmt::format("Invalid value: {:?}: default is less than min: {}",
                                default_value->String(), out.min.String()));
    }
  }
  if (out.max.has_value()) {
    auto scope = d.Field("max");
    if (out.min > *out.max) {
      d.Error(*max, fmt::format("Invalid value: {:?}: min is larger than max: {}", out.min.String(),
                                out.max->String()));
    }
    if (*out.max > value) {
      d.Error(*max, fmt::format("Invalid value: {:?}: max is larger than capacity value: {}",
                                out.max->String(), value.String()));
    }
    if (*default_value > *out.max) {
      d.Error(*max, fmt::format("Invalid value: {:?}: default is more than max: {}",
                                default_value->String(), out.max->String()));
    }
  }
  if (out.step.has_value() && out.step->Value() > 0) {
    auto scope = d.Field("step");
    auto one = out.min.Add(*out.step);
    if (one.ok() && *one > value) {
      d.Error(*step, fmt::format("Invalid value: {:?}: one step {} is larger than capacity value: "
                                 "{}",
                                 out.step->String(), one->String(), value.String()));
    }
    CheckStep(d, *step, *default_value, out.min, *out.step);
    if (out.max.has_value()) CheckStep(d, *step, *out.max, out.min, *out.step);
  }
}

}  // namespace

void DecodeCapacityRequestPolicy(Decoder& d, const Node& n, const api::Quantity& value,
                                 res::CapacityRequestPolicy& out) {
  if (!d.ExpectMap(n)) return;
  const Node* values = nullptr;
  const Node* range = nullptr;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view k = n.key(i).text();
    const Node& v = n.value(i);
    if (v.is_null()) continue;
    if (k == "default") {
      auto scope = d.Field(k);
      d.ReadQuantity(v, out.default_value.emplace());
    } else if (k == "validValues") {
      values = &v;
    } else if (k == "validRange") {
      range = &v;
    } else {
      d.UnknownField(n.key(i), std::initializer_list<std::string_view>{"default", "validValues",
                                                                       "validRange"});
    }
  }
  if (values != nullptr && values->is_sequence() && values->size() > 0 && range != nullptr) {
    d.Error(n,
            "Forbidden: exactly one policy can be specified, cannot specify \"validValues\" and "
            "\"validRange\" at the same time");
    return;
  }
  if (values != nullptr) {
    {
      auto scope = d.Field("validValues");
      d.ReadList(*values, out.valid_values,
                 [&](const Node& item, api::Quantity& q) { d.ReadQuantity(item, q); });
    }
    if (out.valid_values.empty()) return;
    if (!out.default_value.has_value()) {
      d.FieldError(n, "default", "Required value: required when validValues is defined");
      return;
    }
    auto scope = d.Field("validValues");
    if (out.valid_values.size() > kCapacityRequestPolicyDiscreteMaxOptions) {
      d.Error(*values,
              fmt::format("Too many: {}: must have at most {} items", out.valid_values.size(),
                          kCapacityRequestPolicyDiscreteMaxOptions));
      return;
    }
    bool found_default = false;
    absl::flat_hash_set<int64_t> seen;
    for (size_t i = 0; i < out.valid_values.size(); ++i) {
      const api::Quantity& q = out.valid_values[i];
      const Node& at = values->items()[i];
      auto ix = d.Index(i);
      if (i > 0 && out.valid_values[i - 1] > q) {
        d.Error(at, fmt::format("Invalid value: {:?}: values must be sorted in ascending order",
                                q.String()));
      }
      if (q > value) {
        d.Error(at, fmt::format("Invalid value: {:?}: option is larger than capacity value: {}",
                                q.String(), value.String()));
      }
      if (!seen.insert(q.Value()).second) {
        d.Error(at, fmt::format("Duplicate value: {:?}", std::to_string(q.Value())));
      }
      if (q == *out.default_value) found_default = true;
    }
    if (!found_default) {
      d.Error(*values, fmt::format("Invalid value: {:?}: default value is not valid according to "
                                   "the requestPolicy",
                                   out.default_value->String()));
    }
    return;
  }
  if (range != nullptr) {
    if (!out.default_value.has_value()) {
      d.FieldError(n, "default", "Required value: required when validRange is defined");
    }
    auto scope = d.Field("validRange");
    bool has_min = false;
    DecodeRange(d, *range, value, out.default_value, out.valid_range.emplace(), &has_min);
    if (!has_min) out.valid_range.reset();
  }
}

void DecodeCapacityRequirements(Decoder& d, const Node& n, std::vector<res::CapacityRequest>& out) {
  if (!d.ExpectMap(n)) return;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view k = n.key(i).text();
    const Node& v = n.value(i);
    if (k != "requests") {
      d.UnknownField(n.key(i), std::initializer_list<std::string_view>{"requests"});
      continue;
    }
    auto scope = d.Field("requests");
    d.ForEachEntry(v, [&](const Node& key, const Node& value) {
      std::string_view name = key.text();
      if (std::string err = CheckQualifiedAttributeName(name); !err.empty()) {
        d.Error(key, fmt::format("Invalid value: {:?}: {}", name, err));
      }
      res::CapacityRequest r;
      if (size_t slash = name.find('/'); slash != std::string_view::npos) {
        r.domain = d.interner()->Str(d.Intern(name.substr(0, slash)));
        r.id = d.interner()->Str(d.Intern(name.substr(slash + 1)));
      } else {
        r.id = d.interner()->Str(d.Intern(name));
      }
      if (!d.ReadQuantity(value, r.value)) return;
      if (r.value.Sign() < 0) {
        d.Error(value, fmt::format("Invalid value: {:?}: must be greater than or equal to 0",
                                   r.value.String()));
      }
      out.push_back(r);
    });
  }
}

void DecodeConsumedCapacity(Decoder& d, const Node& n, std::vector<res::ConsumedCapacity>& out) {
  d.ForEachEntry(n, [&](const Node& key, const Node& value) {
    std::string_view name = key.text();
    if (std::string err = CheckQualifiedAttributeName(name); !err.empty()) {
      d.Error(key, fmt::format("Invalid value: {:?}: {}", name, err));
    }
    res::ConsumedCapacity c;
    if (size_t slash = name.find('/'); slash != std::string_view::npos) {
      c.domain = d.interner()->Str(d.Intern(name.substr(0, slash)));
      c.id = d.interner()->Str(d.Intern(name.substr(slash + 1)));
    } else {
      c.id = d.interner()->Str(d.Intern(name));
    }
    if (d.ReadQuantity(value, c.value)) out.push_back(c);
  });
}

}  // namespace corral::loader::internal
