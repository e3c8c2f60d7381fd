#include "corral/cel/lexer.h"

#include <cctype>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace corral::cel::internal {
namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigitChar(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

Token Lexer::Next() {
  SkipSpace();
  Token t;
  t.col = static_cast<int>(pos_) + 1;
  if (pos_ >= src_.size()) return t;
  const char c = src_[pos_];
  if (IsIdentStart(c)) {
    size_t start = pos_;
    while (pos_ < src_.size() && (IsIdentStart(src_[pos_]) || IsDigitChar(src_[pos_]))) ++pos_;
    t.text = src_.substr(start, pos_ - start);
    // String prefixes r"…" (raw) and b"…" (bytes).
    if (pos_ < src_.size() && (src_[pos_] == '"' || src_[pos_] == '\'') && t.text.size() == 1 &&
        (t.text == "r" || t.text == "R" || t.text == "b" || t.text == "B")) {
      Fail(t.col, true, (t.text == "r" || t.text == "R") ? "raw string literal" : "bytes literal");
    }
    t.kind = Tok::kIdent;
    return t;
  }
  if (IsDigitChar(c) || (c == '.' && pos_ + 1 < src_.size() && IsDigitChar(src_[pos_ + 1]))) {
    return Number(t);
  }
  if (c == '"' || c == '\'') return String(t);
  static constexpr std::string_view kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
  for (std::string_view op : kTwo) {
    if (src_.substr(pos_, 2) == op) {
      pos_ += 2;
      t.kind = Tok::kPunct;
      t.text = op;
      return t;
    }
  }
  static constexpr std::string_view kOne = "<>!?:.,()[]{}+-*/%";
  if (kOne.find(c) != std::string_view::npos) {
    t.kind = Tok::kPunct;
    t.text = src_.substr(pos_, 1);
    ++pos_;
    return t;
  }
  if (c == '=' || c == '&' || c == '|')
    Fail(t.col, false, fmt::format("Syntax error: token recognition error at: '{}'", c));
  Fail(t.col, false,
       fmt::format("Syntax error: token recognition error at: '{}'",
                   static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e
                       ? std::string(fmt::format("\\x{:02x}", static_cast<unsigned char>(c)))
                       : std::string(1, c)));
}

void Lexer::SkipSpace() {
  while (pos_ < src_.size()) {
    const char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

Token Lexer::Number(Token t) {
  size_t start = pos_;
  if (src_.substr(pos_, 2) == "0x" || src_.substr(pos_, 2) == "0X") {
    pos_ += 2;
    size_t digits = pos_;
    uint64_t v = 0;
    bool overflow = false;
    while (pos_ < src_.size() && std::isxdigit(static_cast<unsigned char>(src_[pos_]))) {
      const char h = src_[pos_];
      const uint64_t d = IsDigitChar(h) ? h - '0' : (std::tolower(h) - 'a' + 10);
      if (v > (std::numeric_limits<uint64_t>::max() >> 4)) overflow = true;
      v = (v << 4) | d;
      ++pos_;
    }
    if (pos_ == digits) Fail(t.col, false, "Syntax error: invalid hex literal");
    if (pos_ < src_.size() && (src_[pos_] == 'u' || src_[pos_] == 'U')) {
      Fail(t.col, true, "unsigned integer literal");
    }
    if (overflow || v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      Fail(t.col, false, "invalid int literal");
    }
    t.kind = Tok::kInt;
    t.int_value = static_cast<int64_t>(v);
    t.text = src_.substr(start, pos_ - start);
    return t;
  }
  while (pos_ < src_.size() && IsDigitChar(src_[pos_])) ++pos_;
  if (pos_ < src_.size() && (src_[pos_] == '.' || src_[pos_] == 'e' || src_[pos_] == 'E')) {
    Fail(t.col, true, "double literal");
  }
  if (pos_ < src_.size() && (src_[pos_] == 'u' || src_[pos_] == 'U')) {
    Fail(t.col, true, "unsigned integer literal");
  }
  std::string_view digits = src_.substr(start, pos_ - start);
  uint64_t v = 0;
  for (char d : digits) {
    const uint64_t x = static_cast<uint64_t>(d - '0');
    // One above INT64_MAX is allowed for the unary minus of INT64_MIN.
    if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1 - x) / 10) {
      Fail(t.col, false, "invalid int literal");
    }
    v = v * 10 + x;
  }
  t.kind = Tok::kInt;
  t.text = digits;
  t.int_value = static_cast<int64_t>(v);  // 2^63 wraps to INT64_MIN: only valid after '-'
  t.string_value = v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? "min" : "";
  return t;
}

Token Lexer::String(Token t) {
  const char quote = src_[pos_];
  if (src_.substr(pos_, 3) == std::string(3, quote)) Fail(t.col, true, "triple-quoted string");
  ++pos_;
  std::string out;
  while (true) {
    if (pos_ >= src_.size() || src_[pos_] == '\n' || src_[pos_] == '\r') {
      Fail(t.col, false, "Syntax error: unterminated string literal");
    }
    const char c = src_[pos_++];
    if (c == quote) break;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (pos_ >= src_.size()) Fail(t.col, false, "Syntax error: unterminated string literal");
    const char e = src_[pos_++];
    switch (e) {
      case '\\':
        out.push_back('\\');
        break;
      case '\'':
        out.push_back('\'');
        break;
      case '"':
        out.push_back('"');
        break;
      case '`':
        out.push_back('`');
        break;
      case '?':
        out.push_back('?');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'a':
        out.push_back('\a');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'v':
        out.push_back('\v');
        break;
      default:
        Fail(static_cast<int>(pos_) - 1, true, fmt::format("string escape '\\{}'", e));
    }
  }
  t.kind = Tok::kString;
  t.string_value = std::move(out);
  return t;
}

}  // namespace corral::cel::internal
