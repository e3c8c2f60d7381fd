// The CEL subset of cel.h: a lexer and recursive-descent parser (CEL's grammar, precedence and
// reserved words) that builds a flat node array, a type checker that rejects whatever lies outside
// the subset, and a tree-walking evaluator over that array.

#include "corral/cel/cel.h"

#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace corral::cel {

namespace {

// ---- types and nodes ----

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
  kError,  // run time only
};

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
    case Ty::kError:
      return "error";
  }
  return "?";
}

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

// ---- lexer ----

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

struct Failure {
  CompileError error;
};

[[noreturn]] void Fail(int col, bool unsupported, std::string msg) {
  throw Failure{CompileError{col, unsupported, std::move(msg)}};
}

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigitChar(char c) {
  return c >= '0' && c <= '9';
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  Token Next() {
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
        Fail(t.col, true,
             (t.text == "r" || t.text == "R") ? "raw string literal" : "bytes literal");
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

 private:
  void SkipSpace() {
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

  Token Number(Token t) {
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

  Token String(Token t) {
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

  std::string_view src_;
  size_t pos_ = 0;
};

constexpr std::string_view kReserved[] = {
    "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
    "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};

}  // namespace

// ---- program ----

struct Program::Impl {
  std::string source;
  std::deque<std::string> strings;  // unescaped literals (stable addresses)
  std::vector<Node> nodes;
  int root = -1;
};

struct Compiler {
  explicit Compiler(std::string_view src) : lex(src) {
    impl = std::make_unique<Program::Impl>();
    impl->source = std::string(src);
  }

  // ---- parsing ----
  static constexpr int kMaxDepth = 64;

  Token cur;
  Lexer lex;
  std::unique_ptr<Program::Impl> impl;
  int depth = 0;

  void Advance() { cur = lex.Next(); }
  bool IsPunct(std::string_view p) const { return cur.kind == Tok::kPunct && cur.text == p; }
  bool IsIdent(std::string_view p) const { return cur.kind == Tok::kIdent && cur.text == p; }
  void Expect(std::string_view p) {
    if (!IsPunct(p)) {
      Fail(cur.col, false,
           fmt::format("Syntax error: mismatched input '{}' expecting '{}'", Describe(), p));
    }
    Advance();
  }
  std::string Describe() const {
    switch (cur.kind) {
      case Tok::kEnd:
        return "<EOF>";
      case Tok::kString:
        return "'" + cur.string_value + "'";
      default:
        return std::string(cur.text);
    }
  }

  int Add(Node n) {
    impl->nodes.push_back(std::move(n));
    return static_cast<int>(impl->nodes.size()) - 1;
  }
  int Binary(Op op, int col, int a, int b) {
    Node n{.op = op};
    n.col = col;
    n.a = a;
    n.b = b;
    return Add(std::move(n));
  }

  struct DepthGuard {
    explicit DepthGuard(Compiler& compiler, int col) : owner(compiler) {
      if (++owner.depth > kMaxDepth) Fail(col, false, "expression recursion limit exceeded");
    }
    ~DepthGuard() { --owner.depth; }
    Compiler& owner;
  };

  int ParseExpr() {
    DepthGuard g(*this, cur.col);
    int cond = ParseOr();
    if (IsPunct("?")) {
      int col = cur.col;
      Advance();
      int a = ParseOr();
      Expect(":");
      int b = ParseExpr();
      Node n{.op = Op::kCond};
      n.col = col;
      n.a = cond;
      n.b = a;
      n.c = b;
      return Add(std::move(n));
    }
    return cond;
  }
  int ParseOr() {
    int l = ParseAnd();
    while (IsPunct("||")) {
      int col = cur.col;
      Advance();
      l = Binary(Op::kOr, col, l, ParseAnd());
    }
    return l;
  }
  int ParseAnd() {
    int l = ParseRelation();
    while (IsPunct("&&")) {
      int col = cur.col;
      Advance();
      l = Binary(Op::kAnd, col, l, ParseRelation());
    }
    return l;
  }
  int ParseRelation() {
    int l = ParseAddition();
    while (true) {
      Op op;
      if (IsPunct("=="))
        op = Op::kEq;
      else if (IsPunct("!="))
        op = Op::kNe;
      else if (IsPunct("<"))
        op = Op::kLt;
      else if (IsPunct("<="))
        op = Op::kLe;
      else if (IsPunct(">"))
        op = Op::kGt;
      else if (IsPunct(">="))
        op = Op::kGe;
      else if (IsIdent("in"))
        op = Op::kIn;
      else
        return l;
      int col = cur.col;
      Advance();
      DepthGuard g(*this, col);
      l = Binary(op, col, l, ParseAddition());
    }
  }
  int ParseAddition() {
    int l = ParseMultiplication();
    while (IsPunct("+") || IsPunct("-")) {
      Op op = IsPunct("+") ? Op::kAdd : Op::kSub;
      int col = cur.col;
      Advance();
      DepthGuard g(*this, col);
      l = Binary(op, col, l, ParseMultiplication());
    }
    return l;
  }
  int ParseMultiplication() {
    int l = ParseUnary();
    while (IsPunct("*") || IsPunct("/") || IsPunct("%")) {
      Op op = IsPunct("*") ? Op::kMul : (IsPunct("/") ? Op::kDiv : Op::kMod);
      int col = cur.col;
      Advance();
      DepthGuard g(*this, col);
      l = Binary(op, col, l, ParseUnary());
    }
    return l;
  }
  int ParseUnary() {
    DepthGuard g(*this, cur.col);
    if (IsPunct("!")) {
      int col = cur.col;
      Advance();
      Node n{.op = Op::kNot};
      n.col = col;
      n.a = ParseUnary();
      return Add(std::move(n));
    }
    if (IsPunct("-")) {
      int col = cur.col;
      Advance();
      // -9223372036854775808 is a literal.
      if (cur.kind == Tok::kInt) {
        Token lit = cur;
        Advance();
        Node n{.op = Op::kInt};
        n.col = col;
        n.i = lit.string_value == "min" ? std::numeric_limits<int64_t>::min() : -lit.int_value;
        return ParseMemberTail(Add(std::move(n)));
      }
      Node n{.op = Op::kNeg};
      n.col = col;
      n.a = ParseUnary();
      return Add(std::move(n));
    }
    return ParseMemberTail(ParsePrimary());
  }
  std::vector<int> ParseArgs(std::string_view close) {
    std::vector<int> args;
    if (IsPunct(close)) {
      Advance();
      return args;
    }
    while (true) {
      args.push_back(ParseExpr());
      if (IsPunct(",")) {
        Advance();
        if (IsPunct(close)) break;  // trailing comma
        continue;
      }
      break;
    }
    Expect(close);
    return args;
  }
  int ParseMemberTail(int e) {
    while (true) {
      if (IsPunct(".")) {
        Advance();
        if (cur.kind != Tok::kIdent) {
          Fail(cur.col, false,
               fmt::format("Syntax error: mismatched input '{}' expecting IDENTIFIER", Describe()));
        }
        Token name = cur;
        Advance();
        if (IsPunct("(")) {
          if (name.text == "all" || name.text == "exists" || name.text == "exists_one" ||
              name.text == "map" || name.text == "filter") {
            Fail(name.col, true, fmt::format("macro '{}'", name.text));
          }
          Advance();
          Node n{.op = Op::kMethod};
          n.col = name.col;
          n.a = e;
          n.s = name.text;
          n.args = ParseArgs(")");
          e = Add(std::move(n));
        } else {
          Node n{.op = Op::kSelect};
          n.col = name.col;
          n.a = e;
          n.s = name.text;
          e = Add(std::move(n));
        }
      } else if (IsPunct("[")) {
        int col = cur.col;
        Advance();
        int idx = ParseExpr();
        Expect("]");
        e = Binary(Op::kIndex, col, e, idx);
      } else {
        return e;
      }
    }
  }
  int ParsePrimary() {
    Token t = cur;
    switch (t.kind) {
      case Tok::kEnd:
        Fail(t.col, false, "Syntax error: mismatched input '<EOF>' expecting an expression");
      case Tok::kInt: {
        if (t.string_value == "min") Fail(t.col, false, "invalid int literal");
        Advance();
        Node n{.op = Op::kInt};
        n.col = t.col;
        n.i = t.int_value;
        return Add(std::move(n));
      }
      case Tok::kString: {
        Advance();
        impl->strings.push_back(std::move(t.string_value));
        Node n{.op = Op::kString};
        n.col = t.col;
        n.s = impl->strings.back();
        return Add(std::move(n));
      }
      case Tok::kIdent: {
        Advance();
        if (t.text == "true" || t.text == "false") {
          Node n{.op = Op::kBool};
          n.col = t.col;
          n.flag = t.text == "true";
          return Add(std::move(n));
        }
        if (t.text == "null") Fail(t.col, true, "null literal");
        if (t.text == "in") Fail(t.col, false, "Syntax error: extraneous input 'in'");
        for (std::string_view r : kReserved) {
          if (t.text == r) Fail(t.col, false, fmt::format("reserved identifier: {}", r));
        }
        if (IsPunct("(")) {
          Advance();
          Node n{.op = Op::kCall};
          n.col = t.col;
          n.s = t.text;
          n.args = ParseArgs(")");
          return Add(std::move(n));
        }
        if (t.text != "device") {
          Fail(t.col, false, fmt::format("undeclared reference to '{}' (in container '')", t.text));
        }
        Node n{.op = Op::kDevice};
        n.col = t.col;
        return Add(std::move(n));
      }
      case Tok::kPunct:
        break;
    }
    if (t.text == "(") {
      Advance();
      int e = ParseExpr();
      Expect(")");
      return e;
    }
    if (t.text == "[") {
      Advance();
      Node n{.op = Op::kList};
      n.col = t.col;
      n.args = ParseArgs("]");
      return Add(std::move(n));
    }
    if (t.text == "{") Fail(t.col, true, "map literal");
    if (t.text == ".") Fail(t.col, true, "leading-dot identifier");
    Fail(t.col, false,
         fmt::format("Syntax error: mismatched input '{}' expecting an expression", Describe()));
  }

  // ---- checking ----

  Node& N(int i) { return impl->nodes[i]; }

  [[noreturn]] void NoOverload(const Node& n, std::string_view fn, std::initializer_list<Ty> args) {
    std::string list;
    for (Ty t : args) {
      if (!list.empty()) list += ", ";
      list += TyName(t);
    }
    Fail(n.col, false,
         fmt::format("found no matching overload for '{}' applied to '({})'", fn, list));
  }

  static bool Compatible(Ty a, Ty b) { return a == b || a == Ty::kDyn || b == Ty::kDyn; }
  static bool IsStringLike(Ty t) { return t == Ty::kString || t == Ty::kDyn; }

  // A constant string argument, or -1 when the argument is not a literal.
  std::string_view ConstString(int idx) {
    return N(idx).op == Op::kString ? N(idx).s : std::string_view();
  }

  Ty Check(int idx) {
    Node& n = N(idx);
    switch (n.op) {
      case Op::kInt:
        return n.ty = Ty::kInt;
      case Op::kBool:
        return n.ty = Ty::kBool;
      case Op::kString:
        return n.ty = Ty::kString;
      case Op::kQuantityLit:
        return n.ty = Ty::kQuantity;
      case Op::kVersionLit:
        return n.ty = Ty::kVersion;
      case Op::kDevice:
        return n.ty = Ty::kDevice;
      case Op::kList: {
        for (int a : n.args) {
          Ty t = Check(a);
          if (t != Ty::kInt && t != Ty::kString && t != Ty::kBool && t != Ty::kDyn &&
              t != Ty::kQuantity && t != Ty::kVersion) {
            Fail(N(a).col, true, fmt::format("list element of type {}", TyName(t)));
          }
        }
        return N(idx).ty = Ty::kList;
      }
      case Op::kSelect:
        return N(idx).ty = CheckSelect(idx);
      case Op::kIndex: {
        Ty base = Check(n.a);
        Ty key = Check(N(idx).b);
        Node& m = N(idx);
        if (base == Ty::kList) Fail(m.col, true, "list indexing");
        if (base != Ty::kAttrMap && base != Ty::kCapMap && base != Ty::kAttrDomain &&
            base != Ty::kCapDomain) {
          NoOverload(m, "_[_]", {base, key});
        }
        if (key != Ty::kString) NoOverload(m, "_[_]", {base, key});
        switch (base) {
          case Ty::kAttrMap:
            return m.ty = Ty::kAttrDomain;
          case Ty::kCapMap:
            return m.ty = Ty::kCapDomain;
          case Ty::kAttrDomain:
            return m.ty = Ty::kDyn;
          default:
            return m.ty = Ty::kQuantity;
        }
      }
      case Op::kNot: {
        Ty t = Check(n.a);
        if (!Compatible(t, Ty::kBool)) NoOverload(N(idx), "!_", {t});
        return N(idx).ty = Ty::kBool;
      }
      case Op::kNeg: {
        Ty t = Check(n.a);
        if (!Compatible(t, Ty::kInt)) NoOverload(N(idx), "-_", {t});
        return N(idx).ty = Ty::kInt;
      }
      case Op::kAnd:
      case Op::kOr: {
        Ty a = Check(n.a);
        Ty b = Check(N(idx).b);
        if (!Compatible(a, Ty::kBool) || !Compatible(b, Ty::kBool)) {
          NoOverload(N(idx), N(idx).op == Op::kAnd ? "_&&_" : "_||_", {a, b});
        }
        return N(idx).ty = Ty::kBool;
      }
      case Op::kCond: {
        Ty c = Check(n.a);
        Ty a = Check(N(idx).b);
        Ty b = Check(N(idx).c);
        if (!Compatible(c, Ty::kBool)) NoOverload(N(idx), "_?_:_", {c, a, b});
        if (!Compatible(a, b) || a == Ty::kList || a == Ty::kDevice || a == Ty::kAttrMap ||
            a == Ty::kCapMap || a == Ty::kAttrDomain || a == Ty::kCapDomain) {
          if (!Compatible(a, b)) NoOverload(N(idx), "_?_:_", {c, a, b});
          Fail(N(idx).col, true, fmt::format("conditional of type {}", TyName(a)));
        }
        return N(idx).ty = (a == Ty::kDyn ? b : a);
      }
      case Op::kEq:
      case Op::kNe:
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        Ty a = Check(n.a);
        Ty b = Check(N(idx).b);
        Node& m = N(idx);
        static constexpr std::string_view kNames[] = {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"};
        std::string_view fn = kNames[static_cast<int>(m.op) - static_cast<int>(Op::kEq)];
        auto scalar = [](Ty t) {
          return t == Ty::kInt || t == Ty::kString || t == Ty::kBool || t == Ty::kDyn ||
                 t == Ty::kQuantity || t == Ty::kVersion;
        };
        if (!scalar(a) || !scalar(b)) {
          if (a == Ty::kList || b == Ty::kList || a == Ty::kAttrDomain || b == Ty::kAttrDomain ||
              a == Ty::kCapDomain || b == Ty::kCapDomain || a == Ty::kAttrMap || a == Ty::kCapMap ||
              b == Ty::kAttrMap || b == Ty::kCapMap) {
            Fail(m.col, true, fmt::format("comparison of {} values", TyName(scalar(a) ? b : a)));
          }
          NoOverload(m, fn, {a, b});
        }
        if (!Compatible(a, b)) NoOverload(m, fn, {a, b});
        const bool ordering = m.op != Op::kEq && m.op != Op::kNe;
        if (ordering &&
            (a == Ty::kQuantity || a == Ty::kVersion || b == Ty::kQuantity || b == Ty::kVersion)) {
          NoOverload(m, fn, {a, b});  // kube's Quantity and Semver order through compareTo()
        }
        return m.ty = Ty::kBool;
      }
      case Op::kIn: {
        Ty a = Check(n.a);
        Ty b = Check(N(idx).b);
        Node& m = N(idx);
        switch (b) {
          case Ty::kList:
            for (int e : N(m.b).args) {
              if (!Compatible(a, N(e).ty)) {
                // Heterogeneous equality: a mismatched element never matches, as in CEL.
              }
            }
            if (a == Ty::kList || a == Ty::kDevice || a == Ty::kAttrMap || a == Ty::kCapMap ||
                a == Ty::kAttrDomain || a == Ty::kCapDomain) {
              NoOverload(m, "@in", {a, b});
            }
            break;
          case Ty::kAttrMap:
          case Ty::kCapMap:
          case Ty::kAttrDomain:
          case Ty::kCapDomain:
            if (a != Ty::kString && a != Ty::kDyn) NoOverload(m, "@in", {a, b});
            break;
          case Ty::kDyn:
            Fail(m.col, true, "'in' on an attribute value");
          default:
            NoOverload(m, "@in", {a, b});
        }
        if (b == Ty::kList && N(m.b).op != Op::kList) Fail(m.col, true, "'in' on a computed list");
        return m.ty = Ty::kBool;
      }
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod: {
        Ty a = Check(n.a);
        Ty b = Check(N(idx).b);
        Node& m = N(idx);
        static constexpr std::string_view kNames[] = {"_+_", "_-_", "_*_", "_/_", "_%_"};
        std::string_view fn = kNames[static_cast<int>(m.op) - static_cast<int>(Op::kAdd)];
        if (m.op == Op::kAdd && (a == Ty::kString || b == Ty::kString)) {
          Fail(m.col, true, "string concatenation");
        }
        if (!Compatible(a, Ty::kInt) || !Compatible(b, Ty::kInt)) NoOverload(m, fn, {a, b});
        return m.ty = Ty::kInt;
      }
      case Op::kHas:
        return n.ty = Ty::kBool;
      case Op::kCall:
        return N(idx).ty = CheckCall(idx);
      case Op::kMethod:
        return N(idx).ty = CheckMethod(idx);
    }
    Fail(n.col, false, "internal: unknown node");
  }

  Ty CheckSelect(int idx) {
    Ty base = Check(N(idx).a);
    Node& n = N(idx);
    switch (base) {
      case Ty::kDevice:
        if (n.s == "driver") return Ty::kString;
        if (n.s == "attributes") return Ty::kAttrMap;
        if (n.s == "capacity") return Ty::kCapMap;
        if (n.s == "allowMultipleAllocations") return Ty::kBool;
        Fail(n.col, false, fmt::format("undefined field '{}'", n.s));
      case Ty::kAttrMap:
      case Ty::kCapMap:
        // device.attributes.domain: a domain is a DNS name, so kube's docs always index it.
        return base == Ty::kAttrMap ? Ty::kAttrDomain : Ty::kCapDomain;
      case Ty::kAttrDomain:
        return Ty::kDyn;
      case Ty::kCapDomain:
        return Ty::kQuantity;
      default:
        if (base == Ty::kDyn || base == Ty::kQuantity || base == Ty::kVersion ||
            base == Ty::kString || base == Ty::kInt || base == Ty::kBool) {
          Fail(n.col, false,
               fmt::format("type '{}' does not support field selection", TyName(base)));
        }
        Fail(n.col, true, fmt::format("field selection on {}", TyName(base)));
    }
  }

  void Arity(const Node& n, size_t want) {
    if (n.args.size() != want) {
      Fail(n.col, false,
           fmt::format("found no matching overload for '{}' with {} argument(s)", n.s,
                       n.args.size()));
    }
  }

  Ty CheckCall(int idx) {
    std::string_view name = N(idx).s;
    if (name == "has") {
      Node& n = N(idx);
      if (n.args.size() != 1 || N(n.args[0]).op != Op::kSelect) {
        Fail(n.col, false, "invalid argument to has() macro");
      }
      int sel = n.args[0];
      Ty base = Check(N(sel).a);
      Node& m = N(idx);
      if (base != Ty::kAttrDomain && base != Ty::kCapDomain && base != Ty::kDevice &&
          base != Ty::kAttrMap && base != Ty::kCapMap) {
        Fail(m.col, false, fmt::format("type '{}' does not support field selection", TyName(base)));
      }
      if (base == Ty::kDevice) CheckSelect(sel);
      m.op = Op::kHas;
      m.a = sel;
      N(sel).ty = Ty::kBool;
      return Ty::kBool;
    }
    if (name == "quantity" || name == "semver" || name == "isQuantity" || name == "isSemver") {
      Arity(N(idx), 1);
      int arg = N(idx).args[0];
      Ty t = Check(arg);
      if (!IsStringLike(t)) NoOverload(N(idx), name, {t});
      std::string_view lit = ConstString(arg);
      if (N(arg).op != Op::kString) {
        Fail(N(idx).col, true, fmt::format("{}() of a computed string", name));
      }
      Node& n = N(idx);
      if (name == "quantity" || name == "isQuantity") {
        auto q = api::Quantity::Parse(lit);
        if (name == "isQuantity") {
          n.op = Op::kBool;
          n.flag = q.ok();
          return Ty::kBool;
        }
        if (!q.ok())
          Fail(n.col, false, fmt::format("quantity(\"{}\"): {}", lit, q.error().message));
        n.op = Op::kQuantityLit;
        n.q = *q;
        return Ty::kQuantity;
      }
      Version v;
      const bool ok = ParseSemver(lit, &v);
      if (name == "isSemver") {
        n.op = Op::kBool;
        n.flag = ok;
        return Ty::kBool;
      }
      if (!ok) Fail(n.col, false, fmt::format("semver(\"{}\"): invalid semver", lit));
      n.op = Op::kVersionLit;
      n.v = v;
      return Ty::kVersion;
    }
    if (name == "size") {
      Arity(N(idx), 1);
      Ty t = Check(N(idx).args[0]);
      if (!IsStringLike(t)) {
        if (t == Ty::kList || t == Ty::kAttrDomain || t == Ty::kCapDomain) {
          Fail(N(idx).col, true, fmt::format("size() of {}", TyName(t)));
        }
        NoOverload(N(idx), "size", {t});
      }
      return Ty::kInt;
    }
    static constexpr std::string_view kKnownUnsupported[] = {
        "int",      "uint",      "double",   "string", "bytes", "bool",    "dyn",  "type",
        "duration", "timestamp", "matches",  "url",    "isURL", "ip",      "cidr", "isIP",
        "isCIDR",   "format",    "optional", "lists",  "sets",  "strings", "math"};
    for (std::string_view u : kKnownUnsupported) {
      if (name == u) Fail(N(idx).col, true, fmt::format("function '{}'", name));
    }
    Fail(N(idx).col, true, fmt::format("function '{}'", name));
  }

  Ty CheckMethod(int idx) {
    Ty recv = Check(N(idx).a);
    for (int a : N(idx).args) Check(a);
    Node& n = N(idx);
    std::string_view name = n.s;
    auto arg_ty = [&](size_t i) { return N(n.args[i]).ty; };
    if (name == "startsWith" || name == "endsWith" || name == "contains") {
      if (recv == Ty::kAttrMap || recv == Ty::kCapMap || recv == Ty::kAttrDomain ||
          recv == Ty::kCapDomain || recv == Ty::kList) {
        NoOverload(n, name, {recv});
      }
      if (!IsStringLike(recv)) NoOverload(n, name, {recv});
      Arity(n, 1);
      if (!IsStringLike(arg_ty(0))) NoOverload(n, name, {recv, arg_ty(0)});
      return Ty::kBool;
    }
    if (name == "size") {
      Arity(n, 0);
      if (!IsStringLike(recv)) NoOverload(n, "size", {recv});
      return Ty::kInt;
    }
    if (name == "compareTo" || name == "isGreaterThan" || name == "isLessThan") {
      if (recv != Ty::kQuantity && recv != Ty::kVersion && recv != Ty::kDyn) {
        NoOverload(n, name, {recv});
      }
      Arity(n, 1);
      Ty a = arg_ty(0);
      if (a != Ty::kQuantity && a != Ty::kVersion && a != Ty::kDyn) NoOverload(n, name, {recv, a});
      if (!Compatible(recv, a)) NoOverload(n, name, {recv, a});
      return name == "compareTo" ? Ty::kInt : Ty::kBool;
    }
    if (name == "sign" || name == "asInteger" || name == "isInteger") {
      if (recv != Ty::kQuantity) NoOverload(n, name, {recv});
      Arity(n, 0);
      return name == "isInteger" ? Ty::kBool : Ty::kInt;
    }
    if (name == "major" || name == "minor" || name == "patch") {
      if (recv != Ty::kVersion && recv != Ty::kDyn) NoOverload(n, name, {recv});
      Arity(n, 0);
      return Ty::kInt;
    }
    if (name == "all" || name == "exists" || name == "exists_one" || name == "map" ||
        name == "filter") {
      Fail(n.col, true, fmt::format("macro '{}'", name));
    }
    Fail(n.col, true, fmt::format("function '{}'", name));
  }
};

std::string CompileError::ToString() const {
  if (unsupported) return fmt::format("unsupported CEL {} (column {})", message, column);
  return fmt::format("compilation failed: {} (column {})", message, column);
}

CompileResult Compile(std::string_view expression) {
  CompileResult out;
  Compiler c(expression);
  try {
    c.Advance();
    int root = c.ParseExpr();
    if (c.cur.kind != Tok::kEnd) {
      Fail(c.cur.col, false,
           fmt::format("Syntax error: extraneous input '{}' expecting <EOF>", c.Describe()));
    }
    Ty t = c.Check(root);
    if (t != Ty::kBool && t != Ty::kDyn) {
      Fail(1, false, fmt::format("must evaluate to bool, got {}", TyName(t)));
    }
    c.impl->root = root;
  } catch (Failure& f) {
    out.error = std::move(f.error);
    return out;
  }
  out.program.reset(new Program(std::move(c.impl)));
  return out;
}

// ---- evaluation ----

namespace {

struct Value {
  Ty ty = Ty::kError;
  bool b = false;
  int64_t i = 0;
  std::string_view s;
  api::Quantity q;
  Version v;
  int list = -1;  // kList: node index
};

struct Evaluator {
  const std::vector<Node>& nodes;
  const Device& dev;
  std::string* error;

  Value Err(std::string msg) {
    if (error != nullptr && error->empty()) *error = std::move(msg);
    return Value{};
  }
  static Value Bool(bool b) {
    Value v;
    v.ty = Ty::kBool;
    v.b = b;
    return v;
  }
  static Value Int(int64_t i) {
    Value v;
    v.ty = Ty::kInt;
    v.i = i;
    return v;
  }

  Value FromAttribute(const AttributeValue& a) {
    Value v;
    switch (a.kind) {
      case AttributeValue::Kind::kInt:
        v.ty = Ty::kInt;
        v.i = a.int_value;
        break;
      case AttributeValue::Kind::kBool:
        v.ty = Ty::kBool;
        v.b = a.bool_value;
        break;
      case AttributeValue::Kind::kString:
        v.ty = Ty::kString;
        v.s = a.string_value;
        break;
      case AttributeValue::Kind::kVersion:
        v.ty = Ty::kVersion;
        v.v = a.version;
        break;
    }
    return v;
  }

  const DeviceAttribute* FindAttr(std::string_view domain, std::string_view id) const {
    for (const auto& a : dev.attributes) {
      if (a.id == id && a.domain == domain) return &a;
    }
    return nullptr;
  }
  const DeviceCapacity* FindCap(std::string_view domain, std::string_view id) const {
    for (const auto& c : dev.capacity) {
      if (c.id == id && c.domain == domain) return &c;
    }
    return nullptr;
  }
  bool HasDomain(bool attrs, std::string_view domain) const {
    if (attrs) {
      for (const auto& a : dev.attributes) {
        if (a.domain == domain) return true;
      }
    } else {
      for (const auto& c : dev.capacity) {
        if (c.domain == domain) return true;
      }
    }
    return false;
  }
  // `key in container` and `has(container.key)` for the map-like values: an attribute or capacity
  // map has a domain, a domain has an identifier. Every other container is "no such overload".
  Value ContainsKey(const Value& container, std::string_view key) {
    switch (container.ty) {
      case Ty::kAttrMap:
        return Bool(HasDomain(true, key));
      case Ty::kCapMap:
        return Bool(HasDomain(false, key));
      case Ty::kAttrDomain:
        return Bool(FindAttr(container.s, key) != nullptr);
      case Ty::kCapDomain:
        return Bool(FindCap(container.s, key) != nullptr);
      default:
        return Err("no such overload");
    }
  }

  Value Lookup(const Value& base, std::string_view key) {
    switch (base.ty) {
      case Ty::kAttrMap:
      case Ty::kCapMap: {
        Value v;
        v.ty = base.ty == Ty::kAttrMap ? Ty::kAttrDomain : Ty::kCapDomain;
        v.s = key;  // a missing domain is an empty map (kube's map with default)
        return v;
      }
      case Ty::kAttrDomain:
        if (const DeviceAttribute* a = FindAttr(base.s, key)) return FromAttribute(a->value);
        return Err(fmt::format("no such key: {}", key));
      case Ty::kCapDomain:
        if (const DeviceCapacity* c = FindCap(base.s, key)) {
          Value v;
          v.ty = Ty::kQuantity;
          v.q = c->value;
          return v;
        }
        return Err(fmt::format("no such key: {}", key));
      default:
        return Err("no such overload");
    }
  }

  // CEL equality; values of different types are unequal.
  static bool Equal(const Value& a, const Value& b) {
    if (a.ty != b.ty) return false;
    switch (a.ty) {
      case Ty::kBool:
        return a.b == b.b;
      case Ty::kInt:
        return a.i == b.i;
      case Ty::kString:
        return a.s == b.s;
      case Ty::kQuantity:
        return a.q == b.q;
      case Ty::kVersion:
        return CompareVersions(a.v, b.v) == 0;
      default:
        return false;
    }
  }

  Value Compare(Op op, const Value& a, const Value& b) {
    if (op == Op::kEq) return Bool(Equal(a, b));
    if (op == Op::kNe) return Bool(!Equal(a, b));
    if (a.ty != b.ty || a.ty == Ty::kQuantity || a.ty == Ty::kVersion) {
      return Err("no such overload");
    }
    int c = 0;
    switch (a.ty) {
      case Ty::kInt:
        c = a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
        break;
      case Ty::kString: {
        int r = a.s.compare(b.s);
        c = r < 0 ? -1 : (r > 0 ? 1 : 0);
        break;
      }
      case Ty::kBool:
        c = a.b == b.b ? 0 : (a.b ? 1 : -1);
        break;
      default:
        return Err("no such overload");
    }
    switch (op) {
      case Op::kLt:
        return Bool(c < 0);
      case Op::kLe:
        return Bool(c <= 0);
      case Op::kGt:
        return Bool(c > 0);
      default:
        return Bool(c >= 0);
    }
  }

  Value Arith(Op op, const Value& a, const Value& b) {
    if (a.ty != Ty::kInt || b.ty != Ty::kInt) return Err("no such overload");
    int64_t r = 0;
    switch (op) {
      case Op::kAdd:
        if (__builtin_add_overflow(a.i, b.i, &r)) return Err("integer overflow");
        return Int(r);
      case Op::kSub:
        if (__builtin_sub_overflow(a.i, b.i, &r)) return Err("integer overflow");
        return Int(r);
      case Op::kMul:
        if (__builtin_mul_overflow(a.i, b.i, &r)) return Err("integer overflow");
        return Int(r);
      case Op::kDiv:
        if (b.i == 0) return Err("division by zero");
        if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) {
          return Err("integer overflow");
        }
        return Int(a.i / b.i);
      default:
        if (b.i == 0) return Err("modulus by zero");
        if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) {
          return Err("integer overflow");
        }
        return Int(a.i % b.i);
    }
  }

  // CEL size() counts code points.
  static int64_t CodePoints(std::string_view s) {
    int64_t n = 0;
    for (char c : s) {
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    }
    return n;
  }

  Value Method(const Node& n, const Value& r) {
    std::string_view name = n.s;
    if (name == "size") {
      if (r.ty != Ty::kString) return Err("no such overload");
      return Int(CodePoints(r.s));
    }
    if (name == "sign") return Int(r.q.Sign());
    if (name == "isInteger") return Bool(r.q == api::Quantity::FromInt(r.q.Value()));
    if (name == "asInteger") {
      if (!(r.q == api::Quantity::FromInt(r.q.Value())) ||
          r.q.Value() == std::numeric_limits<int64_t>::max() ||
          r.q.Value() == std::numeric_limits<int64_t>::min()) {
        return Err("cannot convert value to integer");
      }
      return Int(r.q.Value());
    }
    if (name == "major" || name == "minor" || name == "patch") {
      if (r.ty != Ty::kVersion) return Err("no such overload");
      uint64_t x = name == "major" ? r.v.major : (name == "minor" ? r.v.minor : r.v.patch);
      if (x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Err("integer overflow");
      }
      return Int(static_cast<int64_t>(x));
    }
    Value a = Eval(n.args[0]);
    if (a.ty == Ty::kError) return a;
    if (name == "startsWith" || name == "endsWith" || name == "contains") {
      if (r.ty != Ty::kString || a.ty != Ty::kString) return Err("no such overload");
      if (name == "startsWith") return Bool(r.s.substr(0, a.s.size()) == a.s);
      if (name == "endsWith") {
        return Bool(r.s.size() >= a.s.size() && r.s.substr(r.s.size() - a.s.size()) == a.s);
      }
      return Bool(r.s.find(a.s) != std::string_view::npos);
    }
    // compareTo, isGreaterThan, isLessThan
    if (r.ty != a.ty || (r.ty != Ty::kQuantity && r.ty != Ty::kVersion)) {
      return Err("no such overload");
    }
    int c = 0;
    if (r.ty == Ty::kQuantity) {
      auto o = r.q <=> a.q;
      c = o < 0 ? -1 : (o > 0 ? 1 : 0);
    } else {
      c = CompareVersions(r.v, a.v);
    }
    if (name == "compareTo") return Int(c);
    return Bool(name == "isGreaterThan" ? c > 0 : c < 0);
  }

  Value Eval(int idx) {
    const Node& n = nodes[idx];
    switch (n.op) {
      case Op::kInt:
        return Int(n.i);
      case Op::kBool:
        return Bool(n.flag);
      case Op::kString: {
        Value v;
        v.ty = Ty::kString;
        v.s = n.s;
        return v;
      }
      case Op::kQuantityLit: {
        Value v;
        v.ty = Ty::kQuantity;
        v.q = n.q;
        return v;
      }
      case Op::kVersionLit: {
        Value v;
        v.ty = Ty::kVersion;
        v.v = n.v;
        return v;
      }
      case Op::kList: {
        Value v;
        v.ty = Ty::kList;
        v.list = idx;
        return v;
      }
      case Op::kDevice: {
        Value v;
        v.ty = Ty::kDevice;
        return v;
      }
      case Op::kSelect: {
        Value base = Eval(n.a);
        if (base.ty == Ty::kError) return base;
        if (base.ty == Ty::kDevice) {
          if (n.s == "driver") {
            Value v;
            v.ty = Ty::kString;
            v.s = dev.driver;
            return v;
          }
          if (n.s == "allowMultipleAllocations") return Bool(dev.allow_multiple_allocations);
          Value v;
          v.ty = n.s == "attributes" ? Ty::kAttrMap : Ty::kCapMap;
          return v;
        }
        return Lookup(base, n.s);
      }
      case Op::kIndex: {
        Value base = Eval(n.a);
        if (base.ty == Ty::kError) return base;
        Value key = Eval(n.b);
        if (key.ty == Ty::kError) return key;
        if (key.ty != Ty::kString) return Err("no such overload");
        return Lookup(base, key.s);
      }
      case Op::kHas: {
        const Node& sel = nodes[n.a];
        Value base = Eval(sel.a);
        if (base.ty == Ty::kError) return base;
        if (base.ty == Ty::kDevice) return Bool(true);
        return ContainsKey(base, sel.s);
      }
      case Op::kIn: {
        Value a = Eval(n.a);
        if (a.ty == Ty::kError) return a;
        Value b = Eval(n.b);
        if (b.ty == Ty::kError) return b;
        if (b.ty == Ty::kList) {
          for (int e : nodes[b.list].args) {
            Value x = Eval(e);
            if (x.ty == Ty::kError) return x;
            if (Equal(a, x)) return Bool(true);
          }
          return Bool(false);
        }
        if (a.ty != Ty::kString) return Err("no such overload");
        return ContainsKey(b, a.s);
      }
      case Op::kNot: {
        Value a = Eval(n.a);
        if (a.ty == Ty::kError) return a;
        if (a.ty != Ty::kBool) return Err("no such overload");
        return Bool(!a.b);
      }
      case Op::kNeg: {
        Value a = Eval(n.a);
        if (a.ty == Ty::kError) return a;
        if (a.ty != Ty::kInt) return Err("no such overload");
        if (a.i == std::numeric_limits<int64_t>::min()) return Err("integer overflow");
        return Int(-a.i);
      }
      case Op::kAnd:
      case Op::kOr: {
        // CEL's commutative logic: a definitive operand wins over an error in the other.
        const bool stop = n.op == Op::kOr;  // true stops ||, false stops &&
        std::string saved;
        Value a = Eval(n.a);
        if (a.ty == Ty::kBool && a.b == stop) return a;
        if (a.ty != Ty::kBool && a.ty != Ty::kError) a = Err("no such overload");
        if (a.ty == Ty::kError && error != nullptr) saved = std::move(*error), error->clear();
        Value b = Eval(n.b);
        if (b.ty == Ty::kBool && b.b == stop) {
          return b;
        }
        if (a.ty == Ty::kError) {
          if (error != nullptr) *error = std::move(saved);
          return a;
        }
        if (b.ty != Ty::kBool && b.ty != Ty::kError) return Err("no such overload");
        return b;
      }
      case Op::kCond: {
        Value c = Eval(n.a);
        if (c.ty == Ty::kError) return c;
        if (c.ty != Ty::kBool) return Err("no such overload");
        return Eval(c.b ? n.b : n.c);
      }
      case Op::kEq:
      case Op::kNe:
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        Value a = Eval(n.a);
        if (a.ty == Ty::kError) return a;
        Value b = Eval(n.b);
        if (b.ty == Ty::kError) return b;
        return Compare(n.op, a, b);
      }
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod: {
        Value a = Eval(n.a);
        if (a.ty == Ty::kError) return a;
        Value b = Eval(n.b);
        if (b.ty == Ty::kError) return b;
        return Arith(n.op, a, b);
      }
      case Op::kCall: {
        // size(s) is the only global function left after checking.
        Value a = Eval(n.args[0]);
        if (a.ty == Ty::kError) return a;
        if (a.ty != Ty::kString) return Err("no such overload");
        return Int(CodePoints(a.s));
      }
      case Op::kMethod: {
        Value r = Eval(n.a);
        if (r.ty == Ty::kError) return r;
        return Method(n, r);
      }
    }
    return Err("internal: unknown node");
  }
};

}  // namespace

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;

const std::string& Program::source() const {
  return impl_->source;
}

bool Program::Matches(const Device& device, bool* matched, std::string* error) const {
  std::string local;
  std::string* err = error != nullptr ? error : &local;
  err->clear();
  Evaluator ev{impl_->nodes, device, err};
  Value v = ev.Eval(impl_->root);
  if (v.ty == Ty::kBool) {
    *matched = v.b;
    return true;
  }
  *matched = false;
  if (v.ty != Ty::kError) {
    *err = fmt::format("CEL result of type {} could not be converted to bool", TyName(v.ty));
  } else if (err->empty()) {
    *err = "no such overload";
  }
  return false;
}

}  // namespace corral::cel
