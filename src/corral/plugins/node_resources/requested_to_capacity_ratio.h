#pragma once
// NodeResourcesFit's RequestedToCapacityRatio strategy (kube's requested_to_capacity_ratio.go): a
// user-defined broken-linear function of each resource's utilization.

#include <cstdint>
#include <span>
#include <vector>

#include "corral/plugins/helper/shape_score.h"
#include "corral/plugins/node_resources/args.h"
#include "corral/plugins/node_resources/resource_allocation.h"

namespace corral::plugins::noderesources {

// The configured shape with scores scaled by kMaxNodeScore / kMaxCustomPriorityScore (x10).
std::vector<helper::FunctionShapePoint> ScaleShape(std::span<const UtilizationShapePoint> shape);

// f(requested * 100 / capacity), or f(100) when capacity is 0 or requested exceeds it.
int64_t RequestedToCapacityRatioResourceScore(std::span<const helper::FunctionShapePoint> shape,
                                              int64_t requested, int64_t capacity);

// Σ s_r * w_r / Σ w_r over resources with allocatable > 0 and s_r > 0, divided as float64 and
// rounded half away from zero (Go's math.Round); 0 when no resource scores above 0.
int64_t RequestedToCapacityRatioScore(const NodeResourceVectors& v,
                                      const ResourceRequests& resources,
                                      std::span<const helper::FunctionShapePoint> shape);

}  // namespace corral::plugins::noderesources
