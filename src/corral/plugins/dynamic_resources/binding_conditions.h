#pragma once
// Device binding conditions (KEP-5007; DRADeviceBindingConditions, beta and on in kube v1.37, with
// DRAResourceClaimDeviceStatus, GA): a device may list condition types that a driver must report
// True in the claim's status.devices before a pod using the device is bound, and failure condition
// types any of which, True, makes the binding fail. kube's DynamicResources plugin:
//   - PreBind writes the allocation with its allocationTimestamp, then waits while any allocated
//     device of the pod's claims has binding conditions: it polls every 5 s, from the start of the
//     wait, until every claim is ready (success), a failure condition is True or a claim's
//     allocationTimestamp is older than the binding timeout (an error), or the timeout passes
//     since the wait began ("device binding timeout"). An error unreserves the pod, which is
//     retried with backoff.
//   - Filter, in the next attempt, marks an allocated claim whose binding failed or timed out as
//     unavailable on every node, so PostFilter deallocates it and a later attempt allocates anew.
// The functions here are kube's isClaimReadyForBinding, isClaimTimeout and hasBindingConditions;
// DynamicResourcesArgs is kube's plugin args (bindingTimeout).

#include <span>
#include <string>
#include <string_view>

#include "corral/api/resource/types.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"

namespace corral::plugins {

// kube's DynamicResourcesArgs as Corral honours them.
struct DynamicResourcesArgs final : framework::PluginArgs {
  // kube's DynamicResourcesBindingTimeoutDefault.
  static constexpr Duration kDefaultBindingTimeout = std::chrono::seconds(600);
  // bindingTimeout: how long PreBind waits for binding conditions. nullopt: unset (the default).
  std::optional<Duration> binding_timeout;
  // filterTimeout was given: a wall-clock bound on Filter, which Corral's deterministic allocator
  // cannot honour (an error).
  bool has_filter_timeout = false;

  // kube's ValidateDynamicResourcesArgs for the fields Corral reads: bindingTimeout must be at
  // least one second, and may be set only while DRADeviceBindingConditions is on. `path`
  // prefixes field names ("" for none).
  Result<void> Validate(std::string_view path, bool binding_conditions_gate) const;
};

namespace dra {

// kube's PreBind poll interval while binding conditions are pending.
inline constexpr Duration kBindingConditionsPollInterval = std::chrono::seconds(5);

// Whether some allocated device of the claim has binding conditions (kube hasBindingConditions).
bool HasBindingConditions(const api::resource::ResourceClaim& claim);

enum class BindingReadiness : uint8_t { kReady, kNotReady, kFailed };

// kube's isClaimReadyForBinding: kReady when every device with binding conditions has them all
// True in status.devices (also when no device has any); kFailed, with kube's message in `error`
// ("claim NAME binding failed: reason=R, message=\"M\""), when one of a device's failure conditions
// is True; kNotReady otherwise (no allocation, no status entry, a condition not True).
BindingReadiness ClaimBindingReadiness(const api::resource::ResourceClaim& claim,
                                       const Interner& in, std::string* error);

// kube's isClaimTimeout: the claim has an allocationTimestamp, a device with binding conditions,
// and its allocationTimestamp + `timeout` is before `now`.
bool ClaimBindingTimedOut(const api::resource::ResourceClaim& claim, TimePoint now,
                          Duration timeout);

}  // namespace dra
}  // namespace corral::plugins
