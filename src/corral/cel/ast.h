#pragma once
// The CEL subset's compiled form, shared by its stages (lexer.cc, parser.cc, checker.cc, eval.cc):
// value types, operations, the flat node array a Program holds, and the Failure that the lexer,
// parser and checker throw to stop at the first error (Compile turns it into a CompileError).

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/cel/cel.h"

namespace corral::cel {
namespace internal {

enum class Ty : uint8_t {
  kBool,
  kInt,
  kString,
  kQuantity,
  kVersion,
  kDyn,  // an attribute value: int, bool, string or version, known at run time
  kDevice,
  kAttrMap,     // device.attributes
  kCapMap,      // device.capacity
  kAttrDomain,  // device.attributes["domain"]
  kCapDomain,   // device.capacity["domain"]
  kList,
  kAttrList,  // a list attribute's value (DRAListTypeAttributes); run time only
  kError,     // run time only
};

// The type's name in CEL's messages ("int", "map(string, dyn)", ...).
std::string_view TyName(Ty t);

enum class Op : uint8_t {
  kInt,
  kBool,
  kString,
  kQuantityLit,  // quantity("literal"), parsed at compile time
  kVersionLit,   // semver("literal")
  kList,
  kDevice,
  kSelect,  // a.field (s = field)
  kIndex,   // a[b]
  kHas,     // has(a.field)
  kIn,
  kNot,
  kNeg,
  kAnd,
  kOr,
  kCond,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kCall,    // global function (s = name), args
  kMethod,  // a.name(args)
};

struct Node {
  Op op;
  Ty ty = Ty::kDyn;
  int col = 1;
  int a = -1, b = -1, c = -1;
  int64_t i = 0;
  bool flag = false;
  std::string_view s;
  std::vector<int> args;
  api::Quantity q;
  Version v;
};

struct Failure {
  CompileError error;
};

[[noreturn]] inline void Fail(int col, bool unsupported, std::string msg) {
  throw Failure{CompileError{col, unsupported, std::move(msg)}};
}

}  // namespace internal

struct Program::Impl {
  std::string source;
  std::deque<std::string> strings;  // unescaped literals (stable addresses)
  std::vector<internal::Node> nodes;
  int root = -1;
};

}  // namespace corral::cel
