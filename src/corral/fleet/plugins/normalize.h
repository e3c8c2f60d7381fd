#pragma once
// Cluster scores: [0, 100] as Karmada's MinClusterScore/MaxClusterScore and the composable
// dispatcher KEP define them, and the scheduler framework's DefaultNormalizeScore over a list of
// cluster scores. (The shared pipeline floor will own both; the fleet plugins keep to plain int64
// scores until then.)

#include <algorithm>
#include <cstdint>
#include <span>

namespace corral::fleet {

inline constexpr int64_t kMinClusterScore = 0;
inline constexpr int64_t kMaxClusterScore = 100;

// kube's helper.DefaultNormalizeScore: scales scores to [0, max_priority] by the highest score
// (integer arithmetic); `reverse` turns s into max_priority − s. With every score 0, reverse makes
// them all max_priority and otherwise leaves them 0.
inline void DefaultNormalizeScore(int64_t max_priority, bool reverse, std::span<int64_t> scores) {
  int64_t max_count = 0;
  for (int64_t s : scores) max_count = std::max(max_count, s);
  if (max_count == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), max_priority);
    return;
  }
  for (int64_t& s : scores) {
    s = max_priority * s / max_count;
    if (reverse) s = max_priority - s;
  }
}

}  // namespace corral::fleet
