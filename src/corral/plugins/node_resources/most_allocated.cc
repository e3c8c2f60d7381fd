#include "corral/plugins/node_resources/most_allocated.h"

#include "corral/framework/plugin.h"

namespace corral::plugins::noderesources {

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return GoMul(requested, framework::kMaxNodeScore) / capacity;
}

int64_t MostAllocatedScore(const NodeResourceVectors& v, const ResourceRequests& resources) {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < v.requested.size(); ++i) {
    if (v.allocatable[i] == 0) continue;
    node_score += MostRequestedScore(v.requested[i], v.allocatable[i]) * resources[i].weight;
    weight_sum += resources[i].weight;
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

}  // namespace corral::plugins::noderesources
