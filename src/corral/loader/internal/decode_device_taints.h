#pragma once
// Decoders of the device-taint parts of resource.k8s.io (DRADeviceTaints): a device's `taints`, a
// request's `tolerations`, and the DeviceTaintRule kind (resource.k8s.io/v1alpha3 and v1beta2).
// Validation follows kube's pkg/apis/resource/validation (validateDeviceTaint,
// validateDeviceToleration, validateDeviceTaintRule). Internal to corral/loader.

#include <vector>

#include "corral/api/resource/types.h"
#include "corral/doc/decoder.h"
#include "corral/doc/node.h"

namespace corral::loader::internal {

// kube's DeviceTaintsMaxLength and DeviceTolerationsMaxLength.
inline constexpr size_t kDeviceTaintsMaxLength = 16;
inline constexpr size_t kDeviceTolerationsMaxLength = 16;

void DecodeDeviceTaints(doc::Decoder& d, const doc::Node& n,
                        std::vector<api::resource::DeviceTaint>& out);
void DecodeDeviceTolerations(doc::Decoder& d, const doc::Node& n,
                             std::vector<api::resource::DeviceToleration>& out);
void DecodeDeviceTaintRule(doc::Decoder& d, const doc::Node& root,
                           api::resource::DeviceTaintRule& out);

}  // namespace corral::loader::internal
