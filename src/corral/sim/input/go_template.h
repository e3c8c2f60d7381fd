#pragma once
// GoTemplate: the subset of Go's text/template that kube's scheduler_perf object templates use.
//
// Supported: text; actions `{{ pipeline }}` with trim markers `{{-` / `-}}`; comments `{{/* ...
// */}}`; operands `.Name` (Index, Count and template params), `$` (the whole data as "<map>"),
// integer, float and quoted string literals, parenthesized pipelines; function calls `Func arg...`;
// pipes `x | Func arg`. Functions: scheduler_perf's custom ones — AddInt, SubtractInt, MultiplyInt,
// DivideInt, Mod, MaxInt, MinInt, AddFloat, SubtractFloat, MultiplyFloat, DivideFloat, Lowercase —
// plus the old `div`, and Go's `printf`
// (%d %s %v %f %g %x with width/zero padding), `print`, `len` (strings) and `index`-free
// arithmetic. Control structures (if/range/with/define/template/block) are reported as unsupported.
//
// Contract: Parse never aborts; it reports the first syntax error with its line. Execute reports
// the first runtime error (unknown field, unknown function, wrong argument types, division by zero)
// with the line of the action. Output is byte-identical to Go's for the supported subset.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "corral/core/result.h"

namespace corral::sim {

using TemplateValue = std::variant<int64_t, double, std::string>;
using TemplateData = std::map<std::string, TemplateValue, std::less<>>;

class GoTemplate {
 public:
  // Errors: "line N: <message>".
  static Result<GoTemplate> Parse(std::string_view text);
  Result<std::string> Execute(const TemplateData& data) const;
  // True when the output can depend on the data (the text has actions other than comments).
  bool has_actions() const { return has_actions_; }

  struct Node;  // a parsed action (implementation detail)

 private:
  struct Piece {
    std::string text;              // literal text (when action is null)
    std::shared_ptr<Node> action;  // shared: GoTemplate is copyable
    uint32_t line = 0;
  };
  std::vector<Piece> pieces_;
  bool has_actions_ = false;
};

}  // namespace corral::sim
