#pragma once
// GoTemplate: the subset of Go's text/template that kube's scheduler_perf object templates use.
//
// Supported: text; actions `{{ pipeline }}` with trim markers `{{-` / `-}}`; comments `{{/* ...
// */}}`; operands `.Name` (Index, Count and template params), `$` (the whole data as "<map>"),
// integer, float and quoted string literals, parenthesized pipelines; function calls `Func arg...`;
// pipes `x | Func arg`; `{{if pipeline}}`, `{{else if pipeline}}`, `{{else}}` and `{{end}}`.
// Functions: scheduler_perf's custom ones — AddInt, SubtractInt, MultiplyInt, DivideInt, Mod,
// MaxInt, MinInt, AddFloat, SubtractFloat, MultiplyFloat, DivideFloat, Lowercase — plus `div` (the
// one function of create.go's object templates) and `mod` (called by kube's event_handling
// templates; the same integer remainder as Mod), and Go's builtins `and`, `or`, `not`, `eq`, `ne`,
// `lt`, `le`, `gt`, `ge`, `printf` (%d %s %v %f %g %x with width/zero padding), `print` and `len`
// (strings). range/with/define/template/block, variables and other functions are errors.
//
// Truth follows Go: false, 0, 0.0, "" and a missing map key are false, anything else true. A
// missing key is a value only where Go passes it on without converting it — an if condition and
// the arguments of the builtins above (`and`/`or` return it, `eq` compares it unequal to any
// present value, `lt` and the other orderings reject it); printed or passed to another function
// it is the error "map has no entry for key" (Go prints "<no value>" or the function panics).
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

// A value of the data or of a function result: Go's int, float64, string or bool (a workload
// parameter written as a YAML boolean is a bool, as kube's JSON-decoded params hold it).
using TemplateValue = std::variant<int64_t, double, std::string, bool>;
using TemplateData = std::map<std::string, TemplateValue, std::less<>>;

class GoTemplate {
 public:
  // Errors: "line N: <message>".
  static Result<GoTemplate> Parse(std::string_view text);
  Result<std::string> Execute(const TemplateData& data) const;
  // True when the output can depend on the data (the text has actions other than comments).
  bool has_actions() const { return has_actions_; }

  struct Node;  // a parsed action (implementation detail)
  // A piece of the parsed template: literal text, an action whose value is printed, or an if
  // block (action is its condition; `else if` is an if block alone in the else branch).
  struct Piece {
    enum class Kind : uint8_t { kText, kAction, kIf };
    Kind kind = Kind::kText;
    std::string text;              // kText
    std::shared_ptr<Node> action;  // kAction, kIf; shared: GoTemplate is copyable
    uint32_t line = 0;
    std::vector<Piece> then_branch, else_branch;  // kIf
  };

 private:
  static Result<void> Run(const std::vector<Piece>& pieces, const TemplateData& data,
                          std::string& out);
  std::vector<Piece> pieces_;
  bool has_actions_ = false;
};

}  // namespace corral::sim
