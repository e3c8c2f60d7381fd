#pragma once
// Device taints and tolerations (DRADeviceTaints), as kube's structured allocator checks them in
// allocateDevice (taintPreventsAllocation) and as kube's ResourceSlice tracker adds the taints of
// DeviceTaintRules to the devices they select:
//   - a device's taints are its slice's own plus those of every DeviceTaintRule whose driver,
//     pool and device (each optional) name it;
//   - a NoSchedule or NoExecute taint prevents allocation unless one of the request's (or
//     sub-request's) tolerations tolerates it; a None taint never does;
//   - a toleration tolerates a taint when its effect is unset or equal, its key is unset or
//     equal, and its operator is Exists, or Equal with an equal value (kube's
//     resourceclaim.ToleratesTaint, the same rule as core/v1 Toleration.ToleratesTaint).
// The check neither allocates nor calls virtually: it runs for every candidate device.

#include <span>

#include "corral/api/resource/types.h"
#include "corral/core/interner.h"

namespace corral::plugins::dra {

// kube resourceclaim.ToleratesTaint.
bool ToleratesTaint(const api::resource::DeviceToleration& toleration,
                    const api::resource::DeviceTaint& taint);

// Whether the taints of `device` (driver and pool of its slice), with those `rules` add, keep it
// from being allocated for `request`.
bool TaintPreventsAllocation(const api::resource::Device& device, Symbol driver, Symbol pool,
                             std::span<const api::resource::DeviceTaintRule* const> rules,
                             const api::resource::DeviceRequestSpec& request);

}  // namespace corral::plugins::dra
