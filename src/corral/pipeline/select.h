#pragma once
// Choosing among scored targets, for any level: the arg-max with tie keys (kube's selectHost over
// its heap of node scores; KEP-5732's placement choice) and the top k in the same order.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace corral::pipeline {

inline constexpr size_t kNone = std::numeric_limits<size_t>::max();

// The index in [0, n) of the best target: the highest score(i); among equal scores the highest
// tie(i); among equal scores and tie keys the lowest index. kNone when n == 0. A level without a
// tie key passes a constant (ties go to the first target).
template <class ScoreAt, class TieAt>
size_t SelectBest(size_t n, ScoreAt&& score, TieAt&& tie) {
  size_t best = kNone;
  int64_t best_score = 0;
  uint64_t best_tie = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = score(i);
    const uint64_t t = tie(i);
    if (best == kNone || s > best_score || (s == best_score && t > best_tie)) {
      best = i;
      best_score = s;
      best_tie = t;
    }
  }
  return best;
}

// The indices of the min(k, n) best targets in SelectBest's order (best first), into `out`
// (overwritten; its capacity is reused).
template <class ScoreAt, class TieAt>
void SelectTopK(size_t n, size_t k, ScoreAt&& score, TieAt&& tie, std::vector<size_t>* out) {
  out->resize(n);
  for (size_t i = 0; i < n; ++i) (*out)[i] = i;
  auto better = [&](size_t a, size_t b) {
    const int64_t sa = score(a), sb = score(b);
    if (sa != sb) return sa > sb;
    const uint64_t ta = tie(a), tb = tie(b);
    if (ta != tb) return ta > tb;
    return a < b;
  };
  k = std::min(k, n);
  std::partial_sort(out->begin(), out->begin() + static_cast<std::ptrdiff_t>(k), out->end(),
                    better);
  out->resize(k);
}

}  // namespace corral::pipeline
