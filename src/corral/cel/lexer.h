#pragma once
// The CEL subset's lexer: CEL's tokens (identifiers, decimal and hex ints, quoted strings with
// escapes, operators), with a column for messages. A malformed or unsupported token throws Failure
// (ast.h) with CEL's message.

#include <cstdint>
#include <string>
#include <string_view>

#include "corral/cel/ast.h"

namespace corral::cel::internal {

enum class Tok : uint8_t {
  kEnd,
  kIdent,
  kInt,
  kString,
  kPunct,  // s holds the operator text
};

struct Token {
  Tok kind = Tok::kEnd;
  int col = 1;
  std::string_view text;  // identifier, operator, or raw literal text
  int64_t int_value = 0;
  std::string string_value;  // unescaped
};

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  Token Next();

 private:
  void SkipSpace();
  Token Number(Token t);
  Token String(Token t);

  std::string_view src_;
  size_t pos_ = 0;
};

// CEL's reserved words: an identifier that is one is a syntax error.
inline constexpr std::string_view kReserved[] = {
    "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
    "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};

}  // namespace corral::cel::internal
