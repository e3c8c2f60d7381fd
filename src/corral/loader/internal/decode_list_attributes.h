#pragma once
// Decoders of the list-typed device attributes of resource.k8s.io/v1 (DRAListTypeAttributes,
// KEP-5491): a DeviceAttribute's `ints`, `bools`, `strings` and `versions`. A list must not be
// empty; its strings and versions obey the scalar fields' rules (at most 64 bytes, versions in
// semver 2.0.0); a device holds at most 48 attribute values in all (kube's
// ResourceSliceMaxAttributeValuesPerDevice, a scalar counting as one value). Internal to
// corral/loader (decode_resource.cc calls them).

#include <cstddef>
#include <string_view>

#include "corral/cel/cel.h"
#include "corral/doc/decoder.h"
#include "corral/doc/node.h"

namespace corral::loader::internal {

inline constexpr size_t kResourceSliceMaxAttributeValuesPerDevice = 48;

// True when `key` names a list field of DeviceAttribute.
bool IsListAttributeField(std::string_view key);

// Decodes the list field `key` (one of IsListAttributeField's) with value `n` into out.kind and
// out.list. Call inside the field's scope.
void DecodeListAttribute(doc::Decoder& d, std::string_view key, const doc::Node& n,
                         cel::AttributeValue& out);

// The number of values `v` counts towards kResourceSliceMaxAttributeValuesPerDevice.
inline size_t AttributeValueCount(const cel::AttributeValue& v) {
  return v.is_list() ? v.list.size() : 1;
}

}  // namespace corral::loader::internal
