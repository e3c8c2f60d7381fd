#include "corral/api/strconv.h"

namespace corral::api {

std::optional<int64_t> ParseInt64(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

std::string_view NodeSelectorOpName(NodeSelectorOp op) {
  switch (op) {
    case NodeSelectorOp::kIn:
      return "In";
    case NodeSelectorOp::kNotIn:
      return "NotIn";
    case NodeSelectorOp::kExists:
      return "Exists";
    case NodeSelectorOp::kDoesNotExist:
      return "DoesNotExist";
    case NodeSelectorOp::kGt:
      return "Gt";
    case NodeSelectorOp::kLt:
      return "Lt";
  }
  return "";
}

}  // namespace corral::api
