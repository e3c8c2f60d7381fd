#pragma once
// kube's FitError histogram, shared by the scheduling cycle's message and the preemption dry run's.

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace corral::framework {

// Appends " <count> <reason>, <count> <reason>." to `msg` for `counts` (reason → number of nodes),
// the "<count> <reason>" parts sorted bytewise (Go sort.Strings). Appends nothing when `counts` is
// empty. `ReasonCounts` iterates as (reason, count) pairs.
template <typename ReasonCounts>
void AppendReasonHistogram(const ReasonCounts& counts, std::string& msg) {
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) parts.push_back(fmt::format("{} {}", n, reason));
  if (parts.empty()) return;
  std::sort(parts.begin(), parts.end());
  msg += ' ';
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) msg += ", ";
    msg += parts[i];
  }
  msg += '.';
}

}  // namespace corral::framework
