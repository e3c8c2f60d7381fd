#pragma once
// NodeResourcesFit's LeastAllocated strategy (kube's least_allocated.go): favours nodes with more
// free capacity after placing the pod.

#include <cstdint>

#include "corral/plugins/node_resources/resource_allocation.h"

namespace corral::plugins::noderesources {

// (capacity - requested) * 100 / capacity; 0 when capacity is 0 or requested exceeds it.
int64_t LeastRequestedScore(int64_t requested, int64_t capacity);

// Σ score_r * weight_r / Σ weight_r over resources with allocatable > 0 (integer division; 0
// when none).
int64_t LeastAllocatedScore(const NodeResourceVectors& v, const ResourceRequests& resources);

}  // namespace corral::plugins::noderesources
