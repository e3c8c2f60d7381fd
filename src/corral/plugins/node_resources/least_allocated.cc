#include "corral/plugins/node_resources/least_allocated.h"

#include "corral/framework/plugin.h"

namespace corral::plugins::noderesources {

int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return GoMul(capacity - requested, framework::kMaxNodeScore) / capacity;
}

int64_t LeastAllocatedScore(const NodeResourceVectors& v, const ResourceRequests& resources) {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < v.requested.size(); ++i) {
    if (v.allocatable[i] == 0) continue;
    node_score += LeastRequestedScore(v.requested[i], v.allocatable[i]) * resources[i].weight;
    weight_sum += resources[i].weight;
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

}  // namespace corral::plugins::noderesources
