#pragma once
// NodeResourcesFit's MostAllocated strategy (kube's most_allocated.go): favours nodes with less
// free capacity after placing the pod (bin packing).

#include <cstdint>

#include "corral/plugins/node_resources/resource_allocation.h"

namespace corral::plugins::noderesources {

// requested * 100 / capacity, with requested clamped to capacity (pods without requests count with
// the non-zero defaults, so the sum may exceed it); 0 when capacity is 0.
int64_t MostRequestedScore(int64_t requested, int64_t capacity);

// Σ score_r * weight_r / Σ weight_r over resources with allocatable > 0 (integer division; 0
// when none).
int64_t MostAllocatedScore(const NodeResourceVectors& v, const ResourceRequests& resources);

}  // namespace corral::plugins::noderesources
