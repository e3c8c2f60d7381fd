#pragma once
// Internals of GoTemplate (go_template.h): the values an executing template handles, how Go's fmt
// and encoding/json print them, and the functions a template may call other than the builtins that
// take their arguments unconverted (and, or, not, eq, ne, lt, le, gt, ge). Not for other users.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "corral/core/result.h"
#include "corral/sim/input/go_template.h"

namespace corral::sim::go_template_detail {

// A map key the data does not have (Go's invalid reflect.Value); `key` names it for messages.
struct Missing {
  std::string key;
};

// A value during execution. Lists and maps point into the data, which outlives the execution.
using Val = std::variant<Missing, std::nullptr_t, bool, int64_t, double, std::string,
                         const TemplateList*, const TemplateData*>;

Val FromData(const TemplateValue& v);

// Go's truth: false, 0, 0.0, "", nil, an empty list or map and a missing value are false.
bool Truth(const Val& v);

// Go's name of the value's type in messages: int, float64, string, bool, []interface {},
// map[string]interface {}; "<nil>" for nil.
std::string TypeName(const Val& v);

// The value as Go's fmt prints it with %v (fmt.Sprint): floats in %g's shortest form, nil as
// "<nil>", lists as "[a b]", maps as "map[k:v]" in key order. A missing value is the error "map has
// no entry for key".
Result<std::string> Print(const Val& v);

// The value as Go's json.Marshal encodes it (HTML characters escaped, map keys sorted).
Result<std::string> Json(const Val& v);

// Calls the function `name` with evaluated arguments (none of them missing). Errors: an unknown
// function, a wrong argument count or type, a division by zero.
Result<Val> CallFunction(std::string_view name, const std::vector<Val>& args);

}  // namespace corral::sim::go_template_detail
