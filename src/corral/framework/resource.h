#pragma once
// Resource: kube's framework.Resource — the integer amounts the scheduler adds and compares.
// cpu is in millicores (Quantity::MilliValue), every other resource in units (Quantity::Value).

#include <cstdint>
#include <utility>

#include <absl/container/inlined_vector.h>

#include "corral/api/types.h"
#include "corral/core/interner.h"

namespace corral::framework {

struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pod_number = 0;  // nodes only (allocatable "pods")
  // Extended and hugepages resources, sorted by name symbol. Entries may hold 0.
  absl::InlinedVector<std::pair<Symbol, int64_t>, 2> scalar;

  // Builds from an API resource list (cpu, memory, ephemeral-storage, pods; everything
  // else scalar).
  static Resource FromList(const api::ResourceList& list);

  int64_t Scalar(Symbol name) const;
  void SetScalar(Symbol name, int64_t value);
  void AddScalar(Symbol name, int64_t delta);
  // Adds / subtracts every field, including allowed_pod_number.
  void Add(const Resource& other);
  void Sub(const Resource& other);
  // Per-field max (used for init-container math).
  void SetMaxOf(const Resource& other);
  bool IsZero() const;
  bool operator==(const Resource&) const = default;
};

}  // namespace corral::framework
