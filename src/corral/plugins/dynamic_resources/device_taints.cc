#include "corral/plugins/dynamic_resources/device_taints.h"

namespace corral::plugins::dra {

namespace res = api::resource;

bool ToleratesTaint(const res::DeviceToleration& toleration, const res::DeviceTaint& taint) {
  if (toleration.effect.has_value() && *toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  switch (toleration.op) {
    case res::DeviceTolerationOperator::kEqual:
      return toleration.value == taint.value;
    case res::DeviceTolerationOperator::kExists:
      return true;
  }
  return false;
}

namespace {

bool Prevents(const res::DeviceTaint& taint, const res::DeviceRequestSpec& request) {
  // Only the known effects that keep a device from being scheduled; None is informational.
  if (taint.effect == res::DeviceTaintEffect::kNone) return false;
  for (const res::DeviceToleration& t : request.tolerations) {
    if (ToleratesTaint(t, taint)) return false;
  }
  return true;
}

}  // namespace

bool TaintPreventsAllocation(const res::Device& device, Symbol driver, Symbol pool,
                             std::span<const res::DeviceTaintRule* const> rules,
                             const res::DeviceRequestSpec& request) {
  for (const res::DeviceTaint& taint : device.taints) {
    if (Prevents(taint, request)) return true;
  }
  for (const res::DeviceTaintRule* rule : rules) {
    if (rule->driver.has_value() && *rule->driver != driver) continue;
    if (rule->pool.has_value() && *rule->pool != pool) continue;
    if (rule->device.has_value() && *rule->device != device.name) continue;
    if (Prevents(rule->taint, request)) return true;
  }
  return false;
}

}  // namespace corral::plugins::dra
