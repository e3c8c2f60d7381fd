#include "corral/cel/parser.h"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "corral/cel/lexer.h"

namespace corral::cel::internal {
namespace {

struct Parser {
  Parser(std::string_view src, Program::Impl* program) : lex(src), impl(program) {}

  // ---- parsing ----
  static constexpr int kMaxDepth = 64;

  Token cur;
  Lexer lex;
  Program::Impl* impl;
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
    explicit DepthGuard(Parser& parser, int col) : owner(parser) {
      if (++owner.depth > kMaxDepth) Fail(col, false, "expression recursion limit exceeded");
    }
    ~DepthGuard() { --owner.depth; }
    Parser& owner;
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
};

}  // namespace

int Parse(std::string_view src, Program::Impl* program) {
  Parser p(src, program);
  p.Advance();
  int root = p.ParseExpr();
  if (p.cur.kind != Tok::kEnd) {
    Fail(p.cur.col, false,
         fmt::format("Syntax error: extraneous input '{}' expecting <EOF>", p.Describe()));
  }
  return root;
}

}  // namespace corral::cel::internal
