#pragma once
// Dense integer keys for the values of device attributes, so that matchAttribute over list-typed
// attributes (DRAListTypeAttributes, list_attributes.h) intersects two short sorted arrays of
// integers instead of comparing every value of one list with every value of the other.
//
// An AttributeKeys is built once per set of ResourceSlices (it lives in the PoolIndex). It gives
// every scalar value found in some device attribute a key, equal keys exactly when SameScalar
// holds (same kind and same value; versions compare as their text), and for every attribute value
// (a list or a scalar, a set of one) the sorted, distinct keys of its scalars. It keys nothing
// when no device of the slices has a list attribute: scalar constraints compare one value with
// one value and gain nothing from it.

#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/resource/types.h"
#include "corral/cel/cel.h"

namespace corral::plugins::dra {

class AttributeKeys {
 public:
  AttributeKeys() = default;
  // Keys every attribute of every device of `slices` when one of them is a list; otherwise keys
  // nothing. The slices must outlive the keys (values are found by address).
  explicit AttributeKeys(std::span<const api::resource::ResourceSlice* const> slices);

  // Whether no attribute is keyed.
  bool empty() const { return ranges_.empty(); }
  // The sorted, distinct keys of `v`'s scalars (its list's elements, or itself), when `v` is an
  // attribute value of a device of the slices and they were keyed; false otherwise.
  bool Find(const cel::AttributeValue& v, std::span<const uint32_t>* keys) const;

 private:
  struct Range {
    uint32_t begin = 0, size = 0;
  };
  std::vector<uint32_t> keys_;  // every keyed attribute's keys, one range after the other
  absl::flat_hash_map<const cel::AttributeValue*, Range> ranges_;
};

// The running set of kube's matchAttribute over list-typed attributes on keys (AttributeKeys): the
// same answers as AttributeIntersection on the values the keys stand for.
class KeyIntersection {
 public:
  // Starts the set with `keys` (sorted and distinct: the constraint's first device).
  void Reset(std::span<const uint32_t> keys) { keys_.assign(keys.begin(), keys.end()); }
  // False when `keys` (sorted and distinct) share no key with the set, which is then unchanged;
  // otherwise the set becomes the keys common to both. Allocates nothing.
  bool Intersect(std::span<const uint32_t> keys);

  const std::vector<uint32_t>& keys() const { return keys_; }

 private:
  std::vector<uint32_t> keys_;  // sorted, distinct
};

}  // namespace corral::plugins::dra
