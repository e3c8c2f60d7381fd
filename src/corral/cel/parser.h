#pragma once
// The CEL subset's parser: recursive descent over CEL's grammar and precedence, building the flat
// node array of a Program (ast.h). Constructs outside the subset that are recognisable by syntax
// (maps, macros' receivers, leading dots, ...) are rejected here; types are the checker's job.

#include <string_view>

#include "corral/cel/ast.h"

namespace corral::cel::internal {

// Parses the whole of `src` into `program->nodes` (and its literal strings) and returns the root
// node's index. Throws Failure at the first syntax error, extraneous input included.
int Parse(std::string_view src, Program::Impl* program);

}  // namespace corral::cel::internal
