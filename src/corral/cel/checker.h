#pragma once
// The CEL subset's type checker: gives every node of a parsed Program its type and rejects what
// lies outside the subset (unsupported functions, macros, operand types) with CEL's messages, so
// that evaluation never meets a construct Corral does not implement.

#include "corral/cel/ast.h"

namespace corral::cel::internal {

// Types the expression rooted at `root` (setting each node's `ty`) and returns the root's type.
// Throws Failure at the first error.
Ty Check(Program::Impl* program, int root);

}  // namespace corral::cel::internal
