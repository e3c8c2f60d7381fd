#include "corral/framework/resource.h"

#include <algorithm>

#include "corral/api/well_known.h"

namespace corral::framework {

Resource Resource::FromList(const api::ResourceList& list) {
  Resource r;
  for (const auto& [name, q] : list) {
    if (name == api::wk::kCpu) {
      r.milli_cpu = q.MilliValue();
    } else if (name == api::wk::kMemory) {
      r.memory = q.Value();
    } else if (name == api::wk::kEphemeralStorage) {
      r.ephemeral_storage = q.Value();
    } else if (name == api::wk::kPods) {
      r.allowed_pod_number = q.Value();
    } else {
      r.SetScalar(name, q.Value());
    }
  }
  return r;
}

int64_t Resource::Scalar(Symbol name) const {
  for (const auto& [k, v] : scalar) {
    if (k == name) return v;
  }
  return 0;
}

void Resource::SetScalar(Symbol name, int64_t value) {
  auto it = std::lower_bound(scalar.begin(), scalar.end(), name,
                             [](const auto& e, Symbol n) { return e.first < n; });
  if (it != scalar.end() && it->first == name) {
    it->second = value;
  } else {
    scalar.insert(it, {name, value});
  }
}

void Resource::AddScalar(Symbol name, int64_t delta) {
  auto it = std::lower_bound(scalar.begin(), scalar.end(), name,
                             [](const auto& e, Symbol n) { return e.first < n; });
  if (it != scalar.end() && it->first == name) {
    it->second += delta;
  } else {
    scalar.insert(it, {name, delta});
  }
}

void Resource::Add(const Resource& o) {
  milli_cpu += o.milli_cpu;
  memory += o.memory;
  ephemeral_storage += o.ephemeral_storage;
  allowed_pod_number += o.allowed_pod_number;
  for (const auto& [k, v] : o.scalar) AddScalar(k, v);
}

void Resource::Sub(const Resource& o) {
  milli_cpu -= o.milli_cpu;
  memory -= o.memory;
  ephemeral_storage -= o.ephemeral_storage;
  allowed_pod_number -= o.allowed_pod_number;
  for (const auto& [k, v] : o.scalar) AddScalar(k, -v);
}

void Resource::SetMaxOf(const Resource& o) {
  milli_cpu = std::max(milli_cpu, o.milli_cpu);
  memory = std::max(memory, o.memory);
  ephemeral_storage = std::max(ephemeral_storage, o.ephemeral_storage);
  allowed_pod_number = std::max(allowed_pod_number, o.allowed_pod_number);
  for (const auto& [k, v] : o.scalar) {
    if (v > Scalar(k)) SetScalar(k, v);
  }
}

bool Resource::IsZero() const {
  if (milli_cpu != 0 || memory != 0 || ephemeral_storage != 0 || allowed_pod_number != 0)
    return false;
  for (const auto& [k, v] : scalar) {
    if (v != 0) return false;
  }
  return true;
}

}  // namespace corral::framework
