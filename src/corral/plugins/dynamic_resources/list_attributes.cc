#include "corral/plugins/dynamic_resources/list_attributes.h"

#include <algorithm>
#include <span>

namespace corral::plugins::dra {

namespace {

// The scalars of `v`: its list's elements, or `v` itself.
std::span<const cel::AttributeValue> Scalars(const cel::AttributeValue& v) {
  if (v.is_list()) return v.list;
  return {&v, 1};
}

}  // namespace

bool SameScalar(const cel::AttributeValue& a, const cel::AttributeValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case cel::AttributeValue::Kind::kInt:
      return a.int_value == b.int_value;
    case cel::AttributeValue::Kind::kBool:
      return a.bool_value == b.bool_value;
    case cel::AttributeValue::Kind::kString:
    case cel::AttributeValue::Kind::kVersion:
      return a.string_value == b.string_value;
  }
  return false;
}

void AttributeIntersection::Reset(const cel::AttributeValue& v) {
  kind_ = v.kind;
  values_.clear();
  for (const cel::AttributeValue& s : Scalars(v)) {
    // A set: a value listed twice counts once.
    bool seen = false;
    for (const cel::AttributeValue* x : values_) seen = seen || SameScalar(*x, s);
    if (!seen) values_.push_back(&s);
  }
}

bool AttributeIntersection::Intersect(const cel::AttributeValue& v) {
  if (v.kind != kind_) return false;  // kube: a type mismatch has no intersection
  std::span<const cel::AttributeValue> other = Scalars(v);
  auto common = [&](const cel::AttributeValue* x) {
    return std::any_of(other.begin(), other.end(),
                       [&](const cel::AttributeValue& y) { return SameScalar(*x, y); });
  };
  if (std::none_of(values_.begin(), values_.end(), common)) return false;
  values_.erase(std::remove_if(values_.begin(), values_.end(),
                               [&](const cel::AttributeValue* x) { return !common(x); }),
                values_.end());
  return true;
}

}  // namespace corral::plugins::dra
