#pragma once
// Scores of one cycle, for any level (nodes, topology placements, member clusters): kube's Score →
// NormalizeScore → [0,100] check → × weight → total, over flat arrays that the caller reuses across
// cycles. The level supplies two callables that make its one typed call per target, so the loop
// adds no virtual call and, once the arrays have grown, no allocation.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "corral/core/interner.h"
#include "corral/pipeline/status.h"

namespace corral::pipeline {

// kube's MaxNodeScore and MinNodeScore: every normalized plugin score lies in
// [kMinScore, kMaxScore].
inline constexpr int64_t kMaxScore = 100;
inline constexpr int64_t kMinScore = 0;

// One target's score (kube's NodeScore / ClusterScore), as NormalizeScore sees it.
struct TargetScore {
  Symbol name;
  int64_t score = 0;
};

// The scores of one cycle. For plugin i of `plugins` (indices into the level's score plugin list,
// skipped plugins absent) and target j: raw[i * n + j], normalized[i * n + j]; weighted =
// normalized × weight; total[j] = Σ weighted.
template <class Target>
struct ScoreTable {
  std::vector<const Target*> targets;
  std::vector<size_t> plugins;
  std::vector<int64_t> raw;
  std::vector<int64_t> normalized;
  std::vector<int64_t> total;
  size_t n() const { return targets.size(); }
};

// Fills `out` for `targets` with the score plugins `entries` (each with `name` and `weight`) that
// `active(i)` admits. `score(entry, target, &raw)` returns the plugin's raw score of one target;
// `normalize(entry, raw, normalized)` writes the normalized scores of every target (a copy of `raw`
// when the plugin has no normalization). Errors carry kube's messages, naming the plugin.
template <class Target, class Entry, class Active, class ScoreFn, class NormalizeFn>
Status RunScoreTable(std::span<const Entry> entries, std::span<const Target* const> targets,
                     ScoreTable<Target>* out, Active&& active, ScoreFn&& score,
                     NormalizeFn&& normalize) {
  const size_t n = targets.size();
  out->targets.assign(targets.begin(), targets.end());
  out->plugins.clear();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (active(i)) out->plugins.push_back(i);
  }
  const size_t np = out->plugins.size();
  out->raw.assign(np * n, 0);
  out->normalized.assign(np * n, 0);
  out->total.assign(n, 0);
  for (size_t pi = 0; pi < np; ++pi) {
    const Entry& e = entries[out->plugins[pi]];
    int64_t* raw = out->raw.data() + pi * n;
    for (size_t j = 0; j < n; ++j) {
      Status s = score(e, *targets[j], &raw[j]);
      if (!s.ok()) {
        return Status::Error(
            fmt::format("running Score plugins: plugin {:?} failed with: {}", e.name, s.Message()));
      }
    }
    int64_t* norm = out->normalized.data() + pi * n;
    if (Status s = normalize(e, std::span<const int64_t>(raw, n), std::span<int64_t>(norm, n));
        !s.ok()) {
      return Status::Error(fmt::format(
          "running Normalize on Score plugins: plugin {:?} failed with: {}", e.name, s.Message()));
    }
    for (size_t j = 0; j < n; ++j) {
      if (norm[j] > kMaxScore || norm[j] < kMinScore) {
        return Status::Error(
            fmt::format("applying score defaultWeights on Score plugins: plugin {:?} returns an "
                        "invalid score {}, it should in the range of [{}, {}] after normalizing",
                        e.name, norm[j], kMinScore, kMaxScore));
      }
      out->total[j] += norm[j] * e.weight;
    }
  }
  return {};
}

}  // namespace corral::pipeline
