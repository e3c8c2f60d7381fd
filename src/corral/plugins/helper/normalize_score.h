#pragma once
// Score normalization shared by scoring plugins (kube's plugins/helper/normalize_score.go).

#include <cstdint>
#include <span>

#include "corral/framework/plugin.h"
#include "corral/framework/status.h"

namespace corral::plugins::helper {

// Scales scores from [0, max(scores)] to [0, max_priority] with truncating integer division; with
// `reverse` each result s becomes max_priority - s. When every score is 0, `reverse` sets them all
// to max_priority and otherwise leaves them at 0. REQUIRES: scores are non-negative (as kube
// assumes). Always succeeds.
framework::Status DefaultNormalizeScore(int64_t max_priority, bool reverse,
                                        std::span<framework::NodeScore> scores);

}  // namespace corral::plugins::helper
