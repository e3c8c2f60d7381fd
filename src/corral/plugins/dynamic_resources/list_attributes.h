#pragma once
// The matchAttribute constraint over list-typed attributes (DRAListTypeAttributes, KEP-5491), as
// kube's structured allocator (internal/experimental, matchAttributeConstraint with
// ListTypeAttributes) defines it: every attribute is a set of values, a scalar being a set of one.
// The first device's set starts the constraint; each further device must share at least one value
// with the running intersection, which then shrinks to the common values. Values of different
// types never match. Versions compare as strings (semver's minimal form makes that exact).
//
// Like kube, removing a device (backtracking) only lowers the device count: the intersection is
// not widened again until the count reaches zero and the next device restarts it. A search that
// backtracks over a device can therefore reject a later device that kube rejects too.

#include <vector>

#include "corral/cel/cel.h"

namespace corral::plugins::dra {

class AttributeIntersection {
 public:
  // Starts the set with `v`'s values (the constraint's first device).
  void Reset(const cel::AttributeValue& v);
  // False when `v` shares no value with the set (the set is unchanged); otherwise the set becomes
  // the values common to both. Allocates nothing once the set has held the first device's values.
  bool Intersect(const cel::AttributeValue& v);

  // The values the set holds, for tests.
  const std::vector<const cel::AttributeValue*>& values() const { return values_; }

 private:
  cel::AttributeValue::Kind kind_ = cel::AttributeValue::Kind::kInt;
  std::vector<const cel::AttributeValue*> values_;  // scalars of kind_, pointing into the slices
};

// Equality of two scalar attribute values of the same kind.
bool SameScalar(const cel::AttributeValue& a, const cel::AttributeValue& b);

}  // namespace corral::plugins::dra
