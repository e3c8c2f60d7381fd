#include "corral/plugins/dynamic_resources/capacity.h"

namespace corral::plugins::dra {

namespace res = api::resource;

namespace {

const api::Quantity* FindRequest(const res::DeviceRequestSpec& request, std::string_view driver,
                                 const cel::DeviceCapacity& cap) {
  for (const res::CapacityRequest& r : request.capacity_requests) {
    if (r.id != cap.id) continue;
    if (r.domain.empty() ? cap.domain == driver : r.domain == cap.domain) return &r.value;
  }
  return nullptr;
}

bool DeviceHas(const res::Device& device, std::string_view driver, const res::CapacityRequest& r) {
  for (const cel::DeviceCapacity& cap : device.capacity) {
    if (r.id != cap.id) continue;
    if (r.domain.empty() ? cap.domain == driver : r.domain == cap.domain) return true;
  }
  return false;
}

const res::CapacityRequestPolicy* PolicyOf(const res::Device& device, size_t i) {
  if (i >= device.capacity_policies.size() || !device.capacity_policies[i].has_value()) {
    return nullptr;
  }
  return &*device.capacity_policies[i];
}

const api::Quantity* Find(std::span<const res::ConsumedCapacity> amounts,
                          const cel::DeviceCapacity& cap) {
  for (const res::ConsumedCapacity& c : amounts) {
    if (c.id == cap.id && c.domain == cap.domain) return &c.value;
  }
  return nullptr;
}

// kube roundUpRange (whole-unit arithmetic of Quantity.Value).
api::Quantity RoundUpRange(const api::Quantity& requested,
                           const res::CapacityRequestPolicyRange& range) {
  if (requested < range.min) return range.min;
  if (!range.step.has_value()) return requested;
  const int64_t step = range.step->Value();
  if (step <= 0) return requested;  // the loader rejects a zero step
  const int64_t min = range.min.Value();
  const int64_t added = requested.Value() - min;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  return api::Quantity::FromInt(min + step * n, api::Quantity::Format::kBinarySI);
}

}  // namespace

api::Quantity ConsumedQuantity(const api::Quantity* requested, const api::Quantity& total,
                               const res::CapacityRequestPolicy* policy) {
  if (requested == nullptr) {
    if (policy != nullptr && policy->default_value.has_value()) return *policy->default_value;
    return total;
  }
  if (policy == nullptr) return *requested;
  if (policy->valid_range.has_value()) return RoundUpRange(*requested, *policy->valid_range);
  if (!policy->valid_values.empty()) {
    for (const api::Quantity& v : policy->valid_values) {
      if (*requested <= v) return v;
    }
  }
  return *requested;
}

bool ViolatesPolicy(const api::Quantity& consumed, const res::CapacityRequestPolicy* policy) {
  if (policy == nullptr) return false;
  if (policy->default_value.has_value() && consumed == *policy->default_value) return false;
  if (policy->valid_range.has_value()) {
    const res::CapacityRequestPolicyRange& r = *policy->valid_range;
    if (r.max.has_value() && consumed > *r.max) return true;
    if (r.step.has_value() && r.step->Value() > 0) {
      return (consumed.Value() - r.min.Value()) % r.step->Value() != 0;
    }
    return false;
  }
  if (!policy->valid_values.empty()) {
    for (const api::Quantity& v : policy->valid_values) {
      if (consumed == v) return false;
    }
    return true;
  }
  return false;
}

CapacityFit FitsCapacity(const res::DeviceRequestSpec& request, const res::Device& device,
                         std::string_view driver, std::span<const res::ConsumedCapacity> allocated,
                         std::span<const res::ConsumedCapacity> allocating) {
  for (const res::CapacityRequest& r : request.capacity_requests) {
    if (!DeviceHas(device, driver, r)) return CapacityFit::kUndefined;
  }
  for (size_t i = 0; i < device.capacity.size(); ++i) {
    const cel::DeviceCapacity& cap = device.capacity[i];
    const res::CapacityRequestPolicy* policy = PolicyOf(device, i);
    api::Quantity sum = ConsumedQuantity(FindRequest(request, driver, cap), cap.value, policy);
    if (ViolatesPolicy(sum, policy)) return CapacityFit::kNoFit;
    for (const api::Quantity* q : {Find(allocated, cap), Find(allocating, cap)}) {
      if (q == nullptr) continue;
      auto s = sum.Add(*q);
      if (!s.ok()) return CapacityFit::kNoFit;
      sum = *s;
    }
    if (sum > cap.value) return CapacityFit::kNoFit;
  }
  return CapacityFit::kFits;
}

void ConsumedFor(const res::DeviceRequestSpec& request, const res::Device& device,
                 std::string_view driver, std::vector<res::ConsumedCapacity>* out) {
  out->clear();
  for (size_t i = 0; i < device.capacity.size(); ++i) {
    const cel::DeviceCapacity& cap = device.capacity[i];
    out->push_back(
        {cap.domain, cap.id,
         ConsumedQuantity(FindRequest(request, driver, cap), cap.value, PolicyOf(device, i))});
  }
}

void AccumulateCapacity(std::span<const res::ConsumedCapacity> amounts, int sign,
                        std::vector<res::ConsumedCapacity>* total) {
  for (const res::ConsumedCapacity& c : amounts) {
    res::ConsumedCapacity* t = nullptr;
    for (auto& x : *total) {
      if (x.id == c.id && x.domain == c.domain) t = &x;
    }
    if (t == nullptr) {
      if (sign < 0) continue;
      total->push_back(c);
      continue;
    }
    auto r = sign > 0 ? t->value.Add(c.value) : t->value.Sub(c.value);
    if (r.ok()) t->value = *r;
  }
}

}  // namespace corral::plugins::dra
