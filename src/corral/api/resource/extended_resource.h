#pragma once
// Names of extended resources backed by DRA (DRAExtendedResource, KEP-5004), shared by the loader
// (which interns the request names ahead of scheduling) and the DynamicResources and
// NodeResourcesFit plugins.

#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "corral/api/selectors.h"

namespace corral::api::resource {

// kube's resourceapi.ResourceDeviceClassPrefix: every DeviceClass backs the extended resource
// "deviceclass.resource.kubernetes.io/<class name>".
inline constexpr std::string_view kDeviceClassResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

// kube's resourceapi.ExtendedResourceClaimAnnotation, set to "true" on the claim the scheduler
// creates for a pod's extended resources.
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";

// kube's specialClaimInMemName: the name of that claim until it is written.
inline constexpr std::string_view kSpecialClaimInMemName = "<extended-resources>";

// kube's schedutil.IsDRAExtendedResourceName: an extended resource name, or an implicit one.
inline bool IsDraExtendedResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || name.starts_with(kDeviceClassResourcePrefix);
}

// The device request kube's createRequestsAndMappings makes for the container at `container`
// (init containers first, then the regular ones) and the resource at `resource` in the
// container's request names sorted as strings.
inline std::string ExtendedResourceRequestName(size_t container, size_t resource) {
  return fmt::format("container-{}-request-{}", container, resource);
}

}  // namespace corral::api::resource
