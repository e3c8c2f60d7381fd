#pragma once
// Broken-linear scoring functions (kube's plugins/helper/shape_score.go), used by
// RequestedToCapacityRatio and by VolumeBinding's capacity scoring.

#include <cstdint>
#include <span>

namespace corral::plugins::helper {

struct FunctionShapePoint {
  int64_t utilization = 0;  // the function argument
  int64_t score = 0;        // the function value at that argument
};

// kube's BuildBrokenLinearFunction(shape)(p):
//   shape[0].score                   for p <= shape[0].utilization
//   linear between neighbours        for shape[i-1].utilization < p <= shape[i].utilization,
//                                    with Go's truncating int64 arithmetic
//   shape[n-1].score                 for p > shape[n-1].utilization
// REQUIRES: `shape` is non-empty with strictly increasing utilizations (args validation
// guarantees it).
inline int64_t BrokenLinear(std::span<const FunctionShapePoint> shape, int64_t p) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      return shape[i - 1].score + (shape[i].score - shape[i - 1].score) *
                                      (p - shape[i - 1].utilization) /
                                      (shape[i].utilization - shape[i - 1].utilization);
    }
  }
  return shape.back().score;
}

}  // namespace corral::plugins::helper
