#pragma once
// Queue backoff arithmetic, for any level's queue (kube's calculateBackoffDuration).

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "corral/core/clock.h"

namespace corral::pipeline {

// The backoff after `count` consecutive failures: `initial` doubled (count − 1) times, capped at
// `max` × `scale` (the cap is computed in double nanoseconds and truncated; scale 1 leaves it
// exact). Zero when count is 0 or `max` is zero.
inline Duration BackoffDuration(int32_t count, Duration initial, Duration max, double scale) {
  if (count == 0 || max == Duration::zero()) return Duration::zero();
  Duration cap = max;
  if (scale != 1.0) {
    cap = std::chrono::duration_cast<Duration>(
        std::chrono::duration<double, std::nano>(static_cast<double>(cap.count()) * scale));
  }
  // Doubling stops at the cap before it could overflow (Karmada's calculateBackoffDuration
  // checks d > max − d for the same reason).
  Duration d = initial;
  for (int32_t i = 1; i < count && d < cap; ++i) d = d > cap - d ? cap : d * 2;
  return std::min(d, cap);
}

}  // namespace corral::pipeline
