#pragma once
// Consumable capacity (kube's DRAConsumableCapacity, the incubating structured allocator's
// consumable_capacity.go): how much of a device's capacity one allocation consumes, and whether it
// still fits.
//
// For every capacity entry of the device, the consumed amount is:
//   - the request's capacity.requests value for that name, rounded by the entry's requestPolicy:
//     validRange (with min) rounds up to min, then up to min + k*step in whole units (kube's
//     Quantity.Value arithmetic); validValues rounds up to the first value >= the request (a
//     request above every value stays as it is);
//   - without a request for the name: the policy's default, or the entry's whole value.
// The allocation fits when every request names a capacity the device has, no consumed amount
// violates the policy (above validRange.max, off the step grid, or not one of validValues; the
// default always passes), and for every entry the amount plus what allocated shares and the
// allocation being built already consume stays within the entry's value.
//
// A request name without a domain refers to the capacity of that id in the device's driver domain
// (the loader splits names; a device's unqualified capacity takes its driver's domain).
// Nothing here allocates memory except ConsumedFor, which fills the caller's vector.

#include <span>
#include <string_view>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/api/resource/types.h"

namespace corral::plugins::dra {

// kube calculateConsumedCapacity for one capacity entry; `requested` is null without a request.
api::Quantity ConsumedQuantity(const api::Quantity* requested, const api::Quantity& total,
                               const api::resource::CapacityRequestPolicy* policy);

// kube violatesPolicy.
bool ViolatesPolicy(const api::Quantity& consumed,
                    const api::resource::CapacityRequestPolicy* policy);

enum class CapacityFit {
  kFits,
  kNoFit,      // policy violated or not enough left
  kUndefined,  // the request names a capacity the device does not have
};

// kube CmpRequestOverCapacity: `allocated` is what allocated shares of the device consume,
// `allocating` what the allocation being built consumes of it (both may be empty).
CapacityFit FitsCapacity(const api::resource::DeviceRequestSpec& request,
                         const api::resource::Device& device, std::string_view driver,
                         std::span<const api::resource::ConsumedCapacity> allocated,
                         std::span<const api::resource::ConsumedCapacity> allocating);

// kube GetConsumedCapacityFromRequest: one entry per capacity of the device, in device order.
void ConsumedFor(const api::resource::DeviceRequestSpec& request,
                 const api::resource::Device& device, std::string_view driver,
                 std::vector<api::resource::ConsumedCapacity>* out);

// Adds (`sign` 1) or subtracts (-1) `amounts` into `total`, by capacity name.
void AccumulateCapacity(std::span<const api::resource::ConsumedCapacity> amounts, int sign,
                        std::vector<api::resource::ConsumedCapacity>* total);

}  // namespace corral::plugins::dra
