#pragma once
// Saturating arithmetic on virtual time (int64 nanoseconds). kForeverNs (INT64_MAX) stands for
// "never": a sum or product that would leave the int64 range is kForeverNs (or INT64_MIN for a
// negative overflow), never a wrapped value, so a huge duration cannot turn into a time in the
// past.

#include <cstdint>
#include <limits>

namespace corral::sim {

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
