#pragma once
// Saturating arithmetic on virtual time (int64 nanoseconds). kForeverNs (INT64_MAX) stands for
// "never": a sum or product that would leave the int64 range is kForeverNs (or INT64_MIN for a
// negative overflow), never a wrapped value, so a huge duration cannot turn into a time in
// the past.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace corral::sim {

// The longest duration (and the latest time) an input may give: 876000h, 100 years. Any time plus
// one such duration stays far inside int64 nanoseconds (292 years), so run arithmetic never wraps;
// longer chains of durations saturate (below).
inline constexpr int64_t kMaxVirtualNs = 876'000LL * 3600 * 1'000'000'000;

// The message for a duration beyond kMaxVirtualNs (`text` as the input wrote it).
inline std::string VirtualRangeError(std::string_view text) {
  return fmt::format(
      "duration {} is beyond the simulator's virtual-time range: at most 876000h (100 years), so "
      "that a time plus a duration always fits in int64 nanoseconds",
      text);
}

constexpr int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}

constexpr int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return (a < 0) == (b < 0) ? std::numeric_limits<int64_t>::max()
                              : std::numeric_limits<int64_t>::min();
  }
  return r;
}

}  // namespace corral::sim
