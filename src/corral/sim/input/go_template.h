#pragma once
// GoTemplate: the subset of Go's text/template that kube's scheduler_perf object templates use.
//
// Supported: text; actions `{{ pipeline }}` with trim markers `{{-` / `-}}`; comments `{{/* ...
// */}}`; operands `.` (dot), `.Name.Sub` (map keys), `$` (the data), `$x` and `$x.Name`
// (variables), `nil`, integer, float and quoted string literals, parenthesized pipelines; function
// calls `Func arg...`; pipes `x | Func arg`; variable declarations `{{$x := pipeline}}` and
// assignments `{{$x = pipeline}}`; `{{if}}`, `{{else if}}`, `{{with}}`, `{{else with}}`,
// `{{range}}` (over an integer as Go 1.22+ does, a list, or a map in key order; with `$v :=` or
// `$i, $v :=`), `{{else}}`, `{{break}}`, `{{continue}}` and `{{end}}`. A variable lasts to the
// `{{end}}` of the control structure it is declared in, `$` is the data, and each range iteration
// starts with the variables it had before the iteration (Go's scoping).
//
// Functions: scheduler_perf's custom ones — AddInt, SubtractInt, MultiplyInt, DivideInt, Mod,
// MaxInt, MinInt, AddFloat, SubtractFloat, MultiplyFloat, DivideFloat, Lowercase, Int (a number or
// numeric string as an int, as kube's `int(toFloat64(v))`) and JSON (Go's json.Marshal) — plus
// `div` (create.go's object templates) and `mod` (kube's event_handling templates; the same
// integer remainder as Mod), and Go's builtins `and`, `or`, `not`, `eq`, `ne`, `lt`, `le`, `gt`,
// `ge`, `printf` (%d %s %v %f %g %x %q with width/zero padding), `print` and `len`.
// define/template/block and other functions are errors.
//
// Truth follows Go: false, 0, 0.0, "", nil, an empty list or map and a missing map key are false,
// anything else true. A missing key is a value only where Go passes it on without converting it —
// a condition of if/with/range, a variable declaration and the arguments of the builtins above
// (`and`/`or` return it, `eq` compares it unequal to any present value, `lt` and the other
// orderings reject it); printed or passed to another function it is the error "map has no entry
// for key" (Go prints "<no value>" or passes nil).
//
// Contract: Parse never aborts; it reports the first syntax error with its line (an undefined
// variable is a syntax error, as in Go). Execute reports the first runtime error (unknown field,
// unknown function, wrong argument types, division by zero) with the line of the action. Output is
// byte-identical to Go's for the supported subset.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "corral/core/result.h"

namespace corral::sim {

struct TemplateList;
struct TemplateMap;

// A value of the data: Go's int, float64, string, bool, nil, []any or map[string]any (a workload
// parameter written as a YAML boolean is a bool, a YAML list or map a list or map, as kube's
// JSON-decoded params hold them).
using TemplateValue =
    std::variant<int64_t, double, std::string, bool, std::nullptr_t,
                 std::shared_ptr<const TemplateList>, std::shared_ptr<const TemplateMap>>;
using TemplateData = std::map<std::string, TemplateValue, std::less<>>;
struct TemplateList {
  std::vector<TemplateValue> items;
};
struct TemplateMap {
  TemplateData items;
};

class GoTemplate {
 public:
  // Errors: "line N: <message>".
  static Result<GoTemplate> Parse(std::string_view text);
  Result<std::string> Execute(const TemplateData& data) const;
  // True when the output can depend on the data (the text has actions other than comments).
  bool has_actions() const { return has_actions_; }

  struct Node;  // a parsed list of text and actions (implementation detail)

 private:
  std::shared_ptr<const Node> root_;  // shared: GoTemplate is copyable
  bool has_actions_ = false;
};

}  // namespace corral::sim
