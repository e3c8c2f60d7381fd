#pragma once
// kube's FitError text, for any level: "0/N nodes are available: <histogram>." for pods and
// "0/N clusters are available: <histogram>." for a later fleet level, from one reason histogram.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace corral::pipeline {

// Appends " <count> <reason>, <count> <reason>." to `msg` for `counts` (reason → number of
// targets), the "<count> <reason>" parts sorted bytewise (Go sort.Strings). Appends nothing when
// `counts` is empty. `ReasonCounts` iterates as (reason, count) pairs.
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

// kube prints Go string slices as "[a b c]" (the PreFilter "didn't satisfy plugin(s)" message).
inline std::string GoList(const std::vector<std::string_view>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ' ';
    out += names[i];
  }
  out += ']';
  return out;
}

// "0/<total> <noun> are available:" — the head of a FitError; `noun` is plural ("nodes",
// "clusters"). The caller appends the histogram (AppendReasonHistogram) and any post-filter text.
inline std::string NoneAvailable(size_t total, std::string_view noun) {
  return fmt::format("0/{} {} are available:", total, noun);
}

}  // namespace corral::pipeline
