#include "corral/plugins/helper/normalize_score.h"

namespace corral::plugins::helper {

framework::Status DefaultNormalizeScore(int64_t max_priority, bool reverse,
                                        std::span<framework::NodeScore> scores) {
  int64_t max_count = 0;
  for (const framework::NodeScore& s : scores) {
    if (s.score > max_count) max_count = s.score;
  }
  if (max_count == 0) {
    if (reverse) {
      for (framework::NodeScore& s : scores) s.score = max_priority;
    }
    return {};
  }
  for (framework::NodeScore& s : scores) {
    int64_t score = max_priority * s.score / max_count;
    if (reverse) score = max_priority - score;
    s.score = score;
  }
  return {};
}

}  // namespace corral::plugins::helper
