#include "corral/plugins/dynamic_resources/binding_conditions.h"

#include <fmt/format.h>

namespace corral::plugins {

namespace res = api::resource;

Result<void> DynamicResourcesArgs::Validate(std::string_view path,
                                            bool binding_conditions_gate) const {
  const std::string prefix = path.empty() ? "" : std::string(path) + ".";
  if (has_filter_timeout) {
    return Error::Invalid(fmt::format(
        "{}filterTimeout: not modelled by Corral: a wall-clock bound on Filter (Corral's "
        "allocator is deterministic and never times out)",
        prefix));
  }
  if (!binding_timeout.has_value()) return {};
  if (!binding_conditions_gate) {
    return Error::Invalid(fmt::format(
        "{}bindingTimeout: Forbidden: requires feature gate DRADeviceBindingConditions", prefix));
  }
  if (*binding_timeout < std::chrono::seconds(1)) {
    return Error::Invalid(fmt::format("{}bindingTimeout: Invalid value: {}ns: must be at least 1s",
                                      prefix, binding_timeout->count()));
  }
  return {};
}

namespace dra {

namespace {

const res::AllocatedDeviceStatus* DeviceStatusOf(const res::ResourceClaim& claim,
                                                 const res::DeviceRequestAllocationResult& r) {
  for (const res::AllocatedDeviceStatus& s : claim.devices) {
    if (s.device == r.device && s.driver == r.driver && s.pool == r.pool) return &s;
  }
  return nullptr;
}

const res::Condition* FindCondition(const res::AllocatedDeviceStatus& s, Symbol type) {
  for (const res::Condition& c : s.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

bool HasBindingConditions(const res::ResourceClaim& claim) {
  if (!claim.allocation.has_value()) return false;
  for (const auto& r : claim.allocation->devices) {
    if (!r.binding_conditions.empty()) return true;
  }
  return false;
}

BindingReadiness ClaimBindingReadiness(const res::ResourceClaim& claim, const Interner& in,
                                       std::string* error) {
  if (!claim.allocation.has_value()) return BindingReadiness::kNotReady;
  for (const auto& r : claim.allocation->devices) {
    if (r.binding_conditions.empty()) continue;
    const res::AllocatedDeviceStatus* s = DeviceStatusOf(claim, r);
    if (s == nullptr) return BindingReadiness::kNotReady;
    for (Symbol type : r.binding_failure_conditions) {
      const res::Condition* c = FindCondition(*s, type);
      if (c != nullptr && c->status == res::ConditionStatus::kTrue) {
        *error = fmt::format("claim {} binding failed: reason={}, message={:?}",
                             in.Str(claim.meta.name), c->reason, c->message);
        return BindingReadiness::kFailed;
      }
    }
    for (Symbol type : r.binding_conditions) {
      const res::Condition* c = FindCondition(*s, type);
      if (c == nullptr || c->status != res::ConditionStatus::kTrue) {
        return BindingReadiness::kNotReady;
      }
    }
  }
  return BindingReadiness::kReady;
}

bool ClaimBindingTimedOut(const res::ResourceClaim& claim, TimePoint now, Duration timeout) {
  if (!claim.allocation.has_value() || !claim.allocation->allocation_timestamp.has_value()) {
    return false;
  }
  return HasBindingConditions(claim) && *claim.allocation->allocation_timestamp + timeout < now;
}

}  // namespace dra
}  // namespace corral::plugins
