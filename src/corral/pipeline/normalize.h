#pragma once
// Score normalization shared by scoring plugins of every level
// (kube's plugins/helper/normalize_score.go).

#include <cstdint>
#include <span>

#include "corral/pipeline/score.h"
#include "corral/pipeline/status.h"

namespace corral::pipeline {

// Scales scores from [0, max(scores)] to [0, max_priority] with truncating integer division; with
// `reverse` each result s becomes max_priority - s. When every score is 0, `reverse` sets them all
// to max_priority and otherwise leaves them at 0. REQUIRES: scores are non-negative (as kube
// assumes). Always succeeds.
inline Status DefaultNormalizeScore(int64_t max_priority, bool reverse,
                                    std::span<TargetScore> scores) {
  int64_t max_count = 0;
  for (const TargetScore& s : scores) max_count = s.score > max_count ? s.score : max_count;
  if (max_count == 0) {
    if (reverse) {
      for (TargetScore& s : scores) s.score = max_priority;
    }
    return {};
  }
  for (TargetScore& s : scores) {
    int64_t score = max_priority * s.score / max_count;
    if (reverse) score = max_priority - score;
    s.score = score;
  }
  return {};
}

}  // namespace corral::pipeline
