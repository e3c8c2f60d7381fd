#pragma once
// Go's strconv and fmt spellings that the API's semantics depend on.

#include <cstdint>
#include <optional>
#include <string_view>

#include "corral/api/types.h"

namespace corral::api {

// Go's strconv.ParseInt(s, 10, 64): an optional sign, then one or more decimal digits, within
// int64; nullopt otherwise.
std::optional<int64_t> ParseInt64(std::string_view s);

// The operator's spelling in the API ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt").
std::string_view NodeSelectorOpName(NodeSelectorOp op);

}  // namespace corral::api
