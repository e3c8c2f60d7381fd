// The CEL subset of cel.h: a lexer and recursive-descent parser (CEL's grammar, precedence and
// reserved words) that builds a flat node array, a type checker that rejects whatever lies outside
// the subset, and a tree-walking evaluator over that array.
// This file holds the entry points; the stages are lexer.cc, parser.cc, checker.cc and eval.cc,
// sharing the node array of ast.h.

#include "corral/cel/cel.h"

#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "corral/cel/ast.h"
#include "corral/cel/checker.h"
#include "corral/cel/parser.h"

namespace corral::cel {

using internal::Fail;
using internal::Failure;
using internal::Ty;
using internal::TyName;

namespace internal {

std::string_view TyName(Ty t) {
  switch (t) {
    case Ty::kBool:
      return "bool";
    case Ty::kInt:
      return "int";
    case Ty::kString:
      return "string";
    case Ty::kQuantity:
      return "Quantity";
    case Ty::kVersion:
      return "Semver";
    case Ty::kDyn:
      return "dyn";
    case Ty::kDevice:
      return "device";
    case Ty::kAttrMap:
      return "map(string, map(string, dyn))";
    case Ty::kCapMap:
      return "map(string, map(string, Quantity))";
    case Ty::kAttrDomain:
      return "map(string, dyn)";
    case Ty::kCapDomain:
      return "map(string, Quantity)";
    case Ty::kList:
      return "list";
    case Ty::kAttrList:
      return "list(dyn)";
    case Ty::kError:
      return "error";
  }
  return "?";
}

}  // namespace internal

std::string CompileError::ToString() const {
  if (unsupported) return fmt::format("unsupported CEL {} (column {})", message, column);
  return fmt::format("compilation failed: {} (column {})", message, column);
}

CompileResult Compile(std::string_view expression) {
  CompileResult out;
  auto impl = std::make_unique<Program::Impl>();
  impl->source = std::string(expression);
  try {
    // The program's identifier and literal views point into the source it owns, never into the
    // caller's buffer, which may be gone before the program runs.
    int root = internal::Parse(impl->source, impl.get());
    Ty t = internal::Check(impl.get(), root);
    if (t != Ty::kBool && t != Ty::kDyn) {
      Fail(1, false, fmt::format("must evaluate to bool, got {}", TyName(t)));
    }
    impl->root = root;
  } catch (Failure& f) {
    out.error = std::move(f.error);
    return out;
  }
  out.program.reset(new Program(std::move(impl)));
  return out;
}

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;

const std::string& Program::source() const {
  return impl_->source;
}

}  // namespace corral::cel
