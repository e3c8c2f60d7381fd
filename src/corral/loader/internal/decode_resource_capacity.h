#pragma once
// Decoders of the consumable-capacity fields of resource.k8s.io/v1 (DRAConsumableCapacity): a
// device capacity's requestPolicy, a request's capacity.requests and the shareID and
// consumedCapacity of an allocation result. Validation follows kube's
// pkg/apis/resource/validation (validateRequestPolicy and its helpers), with kube's messages at
// kube's field paths. Internal to corral/loader (decode_resource.cc calls them).

#include <string>
#include <string_view>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/api/resource/types.h"
#include "corral/doc/decoder.h"
#include "corral/doc/node.h"

namespace corral::loader::internal {

// kube's validateQualifiedName for attribute and capacity names: an optional DNS-subdomain domain
// and a C identifier of at most 32 characters. "" when valid (defined in decode_resource.cc).
std::string CheckQualifiedAttributeName(std::string_view name);

// `n` is the value of capacity.<name>.requestPolicy; `value` the capacity's value (kube checks the
// policy against it). Call inside the requestPolicy field scope.
void DecodeCapacityRequestPolicy(doc::Decoder& d, const doc::Node& n, const api::Quantity& value,
                                 api::resource::CapacityRequestPolicy& out);

// `n` is the value of a request's `capacity` ({requests: {name: quantity}}). Call inside the
// capacity field scope.
void DecodeCapacityRequirements(doc::Decoder& d, const doc::Node& n,
                                std::vector<api::resource::CapacityRequest>& out);

// `n` is the value of an allocation result's consumedCapacity. Unqualified names keep an empty
// domain (the caller fills in the result's driver).
void DecodeConsumedCapacity(doc::Decoder& d, const doc::Node& n,
                            std::vector<api::resource::ConsumedCapacity>& out);

}  // namespace corral::loader::internal
