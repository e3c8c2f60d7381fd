#include "corral/plugins/node_resources/requested_to_capacity_ratio.h"

#include <cmath>

#include "corral/framework/plugin.h"

namespace corral::plugins::noderesources {

namespace {
constexpr int64_t kMaxUtilization = 100;
}  // namespace

std::vector<helper::FunctionShapePoint> ScaleShape(std::span<const UtilizationShapePoint> shape) {
  std::vector<helper::FunctionShapePoint> out;
  out.reserve(shape.size());
  for (const UtilizationShapePoint& p : shape) {
    out.push_back(
        {p.utilization, int64_t{p.score} * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
  }
  return out;
}

int64_t RequestedToCapacityRatioResourceScore(std::span<const helper::FunctionShapePoint> shape,
                                              int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return helper::BrokenLinear(shape, kMaxUtilization);
  return helper::BrokenLinear(shape, GoMul(requested, kMaxUtilization) / capacity);
}

int64_t RequestedToCapacityRatioScore(const NodeResourceVectors& v,
                                      const ResourceRequests& resources,
                                      std::span<const helper::FunctionShapePoint> shape) {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < v.requested.size(); ++i) {
    if (v.allocatable[i] == 0) continue;
    const int64_t s =
        RequestedToCapacityRatioResourceScore(shape, v.requested[i], v.allocatable[i]);
    if (s > 0) {
      node_score += s * resources[i].weight;
      weight_sum += resources[i].weight;
    }
  }
  if (weight_sum == 0) return 0;
  // std::round rounds half away from zero, as Go's math.Round does.
  return static_cast<int64_t>(
      std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
}

}  // namespace corral::plugins::noderesources
