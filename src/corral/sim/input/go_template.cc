#include "corral/sim/input/go_template.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "corral/sim/input/go_template_funcs.h"

namespace corral::sim {

namespace gt = go_template_detail;

namespace {

// An expression: an operand, a command (function call) or a pipeline.
struct Expr {
  enum class Kind : uint8_t {
    kDot,     // .
    kField,   // .a.b on dot
    kVar,     // $x, then `fields`
    kChain,   // (pipeline).a.b: args[0], then `fields`
    kNil,     // nil
    kBool,    // true / false (i)
    kInt,     // i
    kFloat,   // f
    kString,  // s
    kCall,    // name args...
    kPipe,    // commands in args; declared variables in `decl`
  };
  Kind kind = Kind::kInt;
  std::string name;
  std::vector<std::string> fields;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<std::shared_ptr<const Expr>> args;
  std::vector<std::string> decl;  // kPipe: `$x :=` / `$i, $v :=`
  bool is_assign = false;         // kPipe: `=` rather than `:=`
};
using ExprPtr = std::shared_ptr<const Expr>;

}  // namespace

// A list of statements.
struct GoTemplate::Node {
  struct Stmt {
    enum class Kind : uint8_t { kText, kAction, kIf, kWith, kRange, kBreak, kContinue };
    Kind kind = Kind::kText;
    std::string text;  // kText
    ExprPtr pipe;      // kAction, kIf, kWith, kRange
    uint32_t line = 0;
    std::shared_ptr<const Node> list, else_list;  // kIf, kWith, kRange
  };
  std::vector<Stmt> stmts;
};

namespace {

using Node = GoTemplate::Node;
using Stmt = Node::Stmt;
using gt::Missing;
using gt::Val;

// ---- Lexing --------------------------------------------------------------------------------

struct Token {
  enum class T : uint8_t {
    kField,     // .name (text: name)
    kDot,       // .
    kVariable,  // $ or $name (text includes the $)
    kIdent,
    kNumber,
    kString,
    kLParen,
    kRParen,
    kPipe,
    kDeclare,  // :=
    kAssign,   // =
    kComma,
    kEnd
  };
  T t = T::kEnd;
  std::string text;
  bool spaced = true;  // whitespace (or the action's start) precedes the token
};

bool IsAlnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

Result<std::vector<Token>> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t pos = 0;
  bool spaced = true;
  auto push = [&](Token::T t, std::string text) {
    out.push_back({t, std::move(text), spaced});
    spaced = false;
  };
  while (true) {
    const size_t before = pos;
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos != before) spaced = true;
    if (pos >= s.size()) break;
    const char c = s[pos];
    if (c == '(' || c == ')' || c == '|' || c == ',' || c == '=') {
      push(c == '('   ? Token::T::kLParen
           : c == ')' ? Token::T::kRParen
           : c == '|' ? Token::T::kPipe
           : c == ',' ? Token::T::kComma
                      : Token::T::kAssign,
           std::string(1, c));
      ++pos;
    } else if (c == ':') {
      if (pos + 1 >= s.size() || s[pos + 1] != '=') return Error::Invalid("expected :=");
      push(Token::T::kDeclare, ":=");
      pos += 2;
    } else if (c == '$') {
      size_t j = pos + 1;
      while (j < s.size() && IsAlnum(s[j])) ++j;
      push(Token::T::kVariable, std::string(s.substr(pos, j - pos)));
      pos = j;
    } else if (c == '.' &&
               (pos + 1 >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos + 1])))) {
      size_t j = pos + 1;
      while (j < s.size() && IsAlnum(s[j])) ++j;
      if (j == pos + 1) {
        push(Token::T::kDot, ".");
      } else {
        push(Token::T::kField, std::string(s.substr(pos + 1, j - pos - 1)));
      }
      pos = j;
    } else if (c == '"' || c == '`') {
      const char q = c;
      std::string v;
      size_t j = pos + 1;
      bool closed = false;
      while (j < s.size()) {
        if (s[j] == q) {
          closed = true;
          ++j;
          break;
        }
        if (q == '"' && s[j] == '\\' && j + 1 < s.size()) {
          const char e = s[j + 1];
          v += e == 'n' ? '\n' : e == 't' ? '\t' : e;
          j += 2;
          continue;
        }
        v += s[j++];
      }
      if (!closed) return Error::Invalid("unterminated quoted string");
      push(Token::T::kString, std::move(v));
      pos = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      size_t j = pos + 1;
      while (j < s.size() &&
             (IsAlnum(s[j]) || s[j] == '.' ||
              ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      push(Token::T::kNumber, std::string(s.substr(pos, j - pos)));
      pos = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = pos + 1;
      while (j < s.size() && IsAlnum(s[j])) ++j;
      push(Token::T::kIdent, std::string(s.substr(pos, j - pos)));
      pos = j;
    } else {
      return Error::Invalid(fmt::format("unexpected {:?} in action", std::string(1, c)));
    }
  }
  out.push_back({Token::T::kEnd, "", true});
  return out;
}

bool IsKeyword(std::string_view s) {
  static constexpr std::string_view kWords[] = {"if",    "else",     "end",   "range",
                                                "with",  "define",   "block", "template",
                                                "break", "continue", "nil"};
  return std::find(std::begin(kWords), std::end(kWords), s) != std::end(kWords);
}

std::string Describe(const Token& t) {
  return t.t == Token::T::kEnd ? "end of action" : t.text;
}

// ---- Parsing of one action's tokens ----------------------------------------------------------

// Parses pipelines of one action. `vars` is the parser's stack of declared variable names: a
// declaration pushes onto it; a use of an undeclared variable is an error.
class ActionParser {
 public:
  ActionParser(const std::vector<Token>& toks, size_t start, std::vector<std::string>& vars)
      : t_(toks), p_(start), vars_(vars) {}

  // `context`: "command", "if", "with" or "range" (only range may declare two variables).
  Result<ExprPtr> Pipeline(std::string_view context) {
    auto pipe = std::make_shared<Expr>();
    pipe->kind = Expr::Kind::kPipe;
    if (Peek().t == Token::T::kVariable) {
      const Token::T after = t_[p_ + 1].t;
      if (after == Token::T::kDeclare || after == Token::T::kAssign) {
        if (auto d = Declare(*pipe, after == Token::T::kAssign); !d.ok()) return d.error();
      } else if (after == Token::T::kComma) {
        if (context != "range") {
          return Error::Invalid(fmt::format("too many declarations in {}", context));
        }
        const std::string first = t_[p_].text;
        p_ += 2;
        if (Peek().t == Token::T::kVariable && t_[p_ + 1].t == Token::T::kComma) {
          return Error::Invalid("too many declarations in range");
        }
        if (Peek().t != Token::T::kVariable ||
            (t_[p_ + 1].t != Token::T::kDeclare && t_[p_ + 1].t != Token::T::kAssign)) {
          return Error::Invalid("range can only initialize variables");
        }
        // An assignment to an undeclared variable fails when it runs, as in Go.
        const bool assign = t_[p_ + 1].t == Token::T::kAssign;
        if (!assign) vars_.push_back(first);
        pipe->decl.push_back(first);
        if (auto d = Declare(*pipe, assign); !d.ok()) return d.error();
      }
    }
    if (AtPipeEnd()) return Error::Invalid(fmt::format("missing value for {}", context));
    while (true) {
      auto cmd = Command();
      if (!cmd.ok()) return cmd.error();
      if (!pipe->args.empty() && (*cmd)->kind != Expr::Kind::kCall) {
        return Error::Invalid(
            fmt::format("non executable command in pipeline stage {}", pipe->args.size() + 1));
      }
      pipe->args.push_back(*cmd);
      if (Peek().t != Token::T::kPipe) break;
      ++p_;
    }
    return ExprPtr(pipe);
  }
  bool AtEnd() const { return t_[p_].t == Token::T::kEnd; }
  const Token& Peek() const { return t_[p_]; }

 private:
  bool AtPipeEnd() const { return t_[p_].t == Token::T::kEnd || t_[p_].t == Token::T::kRParen; }

  Result<void> Use(const std::string& name) {
    if (std::find(vars_.rbegin(), vars_.rend(), name) == vars_.rend()) {
      return Error::Invalid(fmt::format("undefined variable {:?}", name));
    }
    return {};
  }

  // `$x :=` or `$x =` at p_ (an assignment to an undeclared variable fails when it runs).
  Result<void> Declare(Expr& pipe, bool assign) {
    const std::string name = t_[p_].text;
    if (!assign) vars_.push_back(name);
    pipe.decl.push_back(name);
    pipe.is_assign = assign;
    p_ += 2;
    return {};
  }

  // Field names written right after an operand (`$x.a.b`, `(pipeline).a`).
  std::vector<std::string> Fields() {
    std::vector<std::string> f;
    while (t_[p_].t == Token::T::kField && !t_[p_].spaced) f.push_back(t_[p_++].text);
    return f;
  }

  Result<ExprPtr> Operand() {
    const Token& tok = t_[p_];
    auto n = std::make_shared<Expr>();
    switch (tok.t) {
      case Token::T::kField:
        n->kind = Expr::Kind::kField;
        n->fields.push_back(tok.text);
        ++p_;
        for (auto& f : Fields()) n->fields.push_back(std::move(f));
        return ExprPtr(n);
      case Token::T::kDot:
        n->kind = Expr::Kind::kDot;
        ++p_;
        return ExprPtr(n);
      case Token::T::kVariable: {
        if (auto u = Use(tok.text); !u.ok()) return u.error();
        n->kind = Expr::Kind::kVar;
        n->name = tok.text;
        ++p_;
        n->fields = Fields();
        return ExprPtr(n);
      }
      case Token::T::kIdent:
        if (tok.text == "true" || tok.text == "false") {
          n->kind = Expr::Kind::kBool;
          n->i = tok.text == "true" ? 1 : 0;
          ++p_;
          return ExprPtr(n);
        }
        if (tok.text == "nil") {
          n->kind = Expr::Kind::kNil;
          ++p_;
          return ExprPtr(n);
        }
        if (IsKeyword(tok.text)) break;
        // A function name as an argument: a call without arguments.
        n->kind = Expr::Kind::kCall;
        n->name = tok.text;
        ++p_;
        return ExprPtr(n);
      case Token::T::kString:
        n->kind = Expr::Kind::kString;
        n->s = tok.text;
        ++p_;
        return ExprPtr(n);
      case Token::T::kNumber: {
        const std::string& s = tok.text;
        const char* b = s.data() + (s[0] == '+' ? 1 : 0);
        int64_t iv = 0;
        auto [ip, iec] = std::from_chars(b, s.data() + s.size(), iv);
        if (iec == std::errc() && ip == s.data() + s.size()) {
          n->kind = Expr::Kind::kInt;
          n->i = iv;
        } else {
          double fv = 0;
          auto [fp, fec] = std::from_chars(b, s.data() + s.size(), fv);
          if (fec != std::errc() || fp != s.data() + s.size())
            return Error::Invalid(fmt::format("bad number syntax: {:?}", s));
          n->kind = Expr::Kind::kFloat;
          n->f = fv;
        }
        ++p_;
        return ExprPtr(n);
      }
      case Token::T::kLParen: {
        ++p_;
        auto inner = Pipeline("parenthesized pipeline");
        if (!inner.ok()) return inner;
        if (t_[p_].t != Token::T::kRParen) return Error::Invalid("unclosed left paren");
        ++p_;
        auto fields = Fields();
        if (fields.empty()) return inner;
        n->kind = Expr::Kind::kChain;
        n->args.push_back(*inner);
        n->fields = std::move(fields);
        return ExprPtr(n);
      }
      default:
        break;
    }
    return Error::Invalid(fmt::format("unexpected {:?} in operand", Describe(tok)));
  }

  Result<ExprPtr> Command() {
    const Token& tok = t_[p_];
    if (tok.t == Token::T::kIdent && tok.text != "true" && tok.text != "false") {
      if (tok.text == "nil") return Error::Invalid("nil is not a command");
      if (IsKeyword(tok.text)) {
        return Error::Invalid(
            fmt::format("{:?} actions are not supported by corral's template subset", tok.text));
      }
      auto call = std::make_shared<Expr>();
      call->kind = Expr::Kind::kCall;
      call->name = tok.text;
      ++p_;
      while (t_[p_].t != Token::T::kPipe && !AtPipeEnd()) {
        auto a = Operand();
        if (!a.ok()) return a;
        call->args.push_back(*a);
      }
      return ExprPtr(call);
    }
    auto op = Operand();
    if (!op.ok()) return op;
    if (t_[p_].t != Token::T::kPipe && !AtPipeEnd()) {
      return Error::Invalid(fmt::format("can't give argument to non-function {:?}", t_[p_].text));
    }
    return op;
  }

  const std::vector<Token>& t_;
  size_t p_;
  std::vector<std::string>& vars_;
};

// ---- Parsing of the statement tree ----------------------------------------------------------

// One piece of the source before tree building: text, or an action's tokens.
struct Item {
  bool is_text = false;
  std::string text;
  std::vector<Token> toks;
  size_t start = 0;  // the first token of the action still to parse
  uint32_t line = 0;
};

bool IsWord(const Item& it, size_t k, std::string_view w) {
  return !it.is_text && k < it.toks.size() && it.toks[k].t == Token::T::kIdent &&
         it.toks[k].text == w;
}

class TreeParser {
 public:
  explicit TreeParser(std::vector<Item> items) : items_(std::move(items)) {}

  Result<std::shared_ptr<const Node>> Run() {
    Stop stop;
    auto list = ItemList(stop);
    if (!list.ok()) return list;
    if (stop.kind != Stop::kEof) {
      return Error::Invalid(fmt::format("line {}: unexpected {{{{{}}}}}", stop.line,
                                        stop.kind == Stop::kEnd ? "end" : "else"));
    }
    return list;
  }

 private:
  // What ended a list: the end of the text, {{end}} or {{else ...}} (the item at `else_at`).
  struct Stop {
    enum Kind : uint8_t { kEof, kEnd, kElse } kind = kEof;
    uint32_t line = 0;
    size_t else_at = 0;
  };

  Error At(uint32_t line, const Error& e) {
    return Error::Invalid(fmt::format("line {}: {}", line, e.message));
  }

  Result<std::shared_ptr<const Node>> ItemList(Stop& stop) {
    auto list = std::make_shared<Node>();
    while (pos_ < items_.size()) {
      Item& it = items_[pos_++];
      if (it.is_text) {
        list->stmts.push_back(
            Stmt{Stmt::Kind::kText, std::move(it.text), nullptr, it.line, {}, {}});
        continue;
      }
      const size_t k = it.start;
      if (IsWord(it, k, "end") || IsWord(it, k, "else")) {
        const bool end = IsWord(it, k, "end");
        const bool chained = !end && (IsWord(it, k + 1, "if") || IsWord(it, k + 1, "with"));
        if (!chained && it.toks[k + 1].t != Token::T::kEnd) {
          return Error::Invalid(fmt::format("line {}: unexpected {:?} in {}", it.line,
                                            it.toks[k + 1].text, end ? "end" : "else"));
        }
        stop = Stop{end ? Stop::kEnd : Stop::kElse, it.line, pos_ - 1};
        return std::shared_ptr<const Node>(list);
      }
      Stmt st;
      st.line = it.line;
      if (IsWord(it, k, "if") || IsWord(it, k, "with") || IsWord(it, k, "range")) {
        auto c = Control(it.toks[k].text, pos_ - 1, k + 1, st);
        if (!c.ok()) return c.error();
      } else if (IsWord(it, k, "break") || IsWord(it, k, "continue")) {
        const std::string& w = it.toks[k].text;
        if (range_depth_ == 0) {
          return Error::Invalid(
              fmt::format("line {}: {{{{{}}}}} outside {{{{range}}}}", it.line, w));
        }
        if (it.toks[k + 1].t != Token::T::kEnd) {
          return Error::Invalid(fmt::format("line {}: unexpected {:?} in {{{{{}}}}}", it.line,
                                            it.toks[k + 1].text, w));
        }
        st.kind = w == "break" ? Stmt::Kind::kBreak : Stmt::Kind::kContinue;
      } else {
        ActionParser p(it.toks, k, vars_);
        auto pipe = p.Pipeline("command");
        if (!pipe.ok()) return At(it.line, pipe.error());
        if (!p.AtEnd()) {
          return Error::Invalid(
              fmt::format("line {}: unexpected {:?} in action", it.line, p.Peek().text));
        }
        st.kind = Stmt::Kind::kAction;
        st.pipe = *pipe;
      }
      list->stmts.push_back(std::move(st));
    }
    stop = Stop{};
    return std::shared_ptr<const Node>(list);
  }

  // Parses `if`/`with`/`range` from the item at `item`, its pipeline from token `start`, up to and
  // including its {{end}}. Variables declared inside last to that end (Go's parseControl).
  Result<void> Control(const std::string& word, size_t item, size_t start, Stmt& st) {
    const uint32_t line = items_[item].line;
    const size_t mark = vars_.size();
    st.kind = word == "if"     ? Stmt::Kind::kIf
              : word == "with" ? Stmt::Kind::kWith
                               : Stmt::Kind::kRange;
    ActionParser p(items_[item].toks, start, vars_);
    auto pipe = p.Pipeline(word);
    if (!pipe.ok()) return At(line, pipe.error());
    if (!p.AtEnd()) {
      return Error::Invalid(
          fmt::format("line {}: unexpected {:?} in {}", line, p.Peek().text, word));
    }
    st.pipe = *pipe;
    Stop stop;
    if (word == "range") ++range_depth_;
    auto list = ItemList(stop);
    if (word == "range") --range_depth_;
    if (!list.ok()) return list.error();
    st.list = *list;
    if (stop.kind == Stop::kEof)
      return Error::Invalid(fmt::format("line {}: unexpected EOF", line));
    if (stop.kind == Stop::kElse) {
      Item& el = items_[stop.else_at];
      const size_t k = el.start;
      if (word != "range" && IsWord(el, k + 1, word)) {
        // `{{else if}}` / `{{else with}}`: a nested control that shares this one's {{end}}.
        Stmt nested;
        nested.line = el.line;
        auto c = Control(word, stop.else_at, k + 2, nested);
        if (!c.ok()) return c;
        auto else_list = std::make_shared<Node>();
        else_list->stmts.push_back(std::move(nested));
        st.else_list = else_list;
      } else {
        if (IsWord(el, k + 1, "if") || IsWord(el, k + 1, "with")) {
          // Go reads `{{else if x}}` of another control as {{else}}{{if x}}.
          el.start = k + 1;
          pos_ = stop.else_at;
        }
        Stop stop2;
        auto else_list = ItemList(stop2);
        if (!else_list.ok()) return else_list.error();
        if (stop2.kind == Stop::kEof) {
          return Error::Invalid(fmt::format("line {}: unexpected EOF", line));
        }
        if (stop2.kind != Stop::kEnd) {
          return Error::Invalid(
              fmt::format("line {}: expected end; found {{{{else}}}}", stop2.line));
        }
        st.else_list = *else_list;
      }
    }
    vars_.resize(mark);
    return {};
  }

  std::vector<Item> items_;
  size_t pos_ = 0;
  std::vector<std::string> vars_{"$"};
  int range_depth_ = 0;
};

// ---- Execution -------------------------------------------------------------------------------

enum class Flow : uint8_t { kNormal, kBreak, kContinue };

class Executor {
 public:
  Executor(const TemplateData& data, std::string& out) : out_(out) {
    vars_.emplace_back("$", Val{&data});
  }

  Result<Flow> Walk(const Val& dot, const Node& list) {
    for (const Stmt& st : list.stmts) {
      switch (st.kind) {
        case Stmt::Kind::kText:
          out_ += st.text;
          break;
        case Stmt::Kind::kAction: {
          auto v = EvalPipe(dot, *st.pipe, /*allow_missing=*/!st.pipe->decl.empty());
          if (!v.ok()) return At(st, v.error());
          if (st.pipe->decl.empty()) {
            auto p = gt::Print(*v);
            if (!p.ok()) return At(st, p.error());
            out_ += *p;
          }
          break;
        }
        case Stmt::Kind::kIf:
        case Stmt::Kind::kWith: {
          const size_t mark = vars_.size();
          auto v = EvalPipe(dot, *st.pipe, /*allow_missing=*/true);
          if (!v.ok()) return At(st, v.error());
          Result<Flow> r = Flow::kNormal;
          if (gt::Truth(*v)) {
            r = Walk(st.kind == Stmt::Kind::kWith ? *v : dot, *st.list);
          } else if (st.else_list) {
            r = Walk(dot, *st.else_list);
          }
          vars_.resize(mark);
          if (!r.ok() || *r != Flow::kNormal) return r;
          break;
        }
        case Stmt::Kind::kRange: {
          auto r = Range(dot, st);
          if (!r.ok() || *r != Flow::kNormal) return r;
          break;
        }
        case Stmt::Kind::kBreak:
          return Flow::kBreak;
        case Stmt::Kind::kContinue:
          return Flow::kContinue;
      }
    }
    return Flow::kNormal;
  }

 private:
  static Error At(const Stmt& st, const Error& e) {
    return Error::Invalid(fmt::format("line {}: {}", st.line, e.message));
  }

  // Go's walkRange: the declared variables get each element (and index or key), the body runs
  // with dot at the element, and an empty or nil value runs the else list.
  Result<Flow> Range(const Val& dot, const Stmt& st) {
    const size_t mark0 = vars_.size();
    auto v = EvalPipe(dot, *st.pipe, /*allow_missing=*/true);
    if (!v.ok()) return At(st, v.error());
    const Val val = std::move(v).value();
    const Expr& pipe = *st.pipe;
    const size_t mark = vars_.size();
    bool ran = false;
    std::optional<Error> err;
    // Runs one iteration; false stops the loop (break or error).
    auto one = [&](const Val& index, const Val& elem) -> bool {
      ran = true;
      Result<void> set;
      if (pipe.decl.size() == 1) {
        set = Set(pipe, 0, elem, mark);
      } else if (pipe.decl.size() == 2) {
        set = Set(pipe, 0, index, mark);
        if (set.ok()) set = Set(pipe, 1, elem, mark);
      }
      if (!set.ok()) {
        err = At(st, set.error());
        return false;
      }
      auto r = Walk(elem, *st.list);
      vars_.resize(mark);
      if (!r.ok()) {
        err = r.error();
        return false;
      }
      return *r != Flow::kBreak;
    };
    if (const auto* n = std::get_if<int64_t>(&val)) {
      if (pipe.decl.size() > 1) {
        return At(st, Error::Invalid(
                          fmt::format("can't use {} to iterate over more than one variable", *n)));
      }
      for (int64_t k = 0; k < *n; ++k) {
        if (!one(Val{k}, Val{k})) break;
      }
    } else if (const auto* l = std::get_if<const TemplateList*>(&val)) {
      for (size_t k = 0; k < (*l)->items.size(); ++k) {
        if (!one(Val{static_cast<int64_t>(k)}, gt::FromData((*l)->items[k]))) break;
      }
    } else if (const auto* m = std::get_if<const TemplateData*>(&val)) {
      for (const auto& [key, e] : **m) {
        if (!one(Val{key}, gt::FromData(e))) break;
      }
    } else if (!std::holds_alternative<Missing>(val) &&
               !std::holds_alternative<std::nullptr_t>(val)) {
      auto p = gt::Print(val);
      return At(st, Error::Invalid(fmt::format("range can't iterate over {}", p.ok() ? *p : "")));
    }
    if (err) return *err;
    Result<Flow> r = Flow::kNormal;
    if (!ran && st.else_list) r = Walk(dot, *st.else_list);
    vars_.resize(mark0);
    if (!r.ok()) return r;
    return Flow::kNormal;
  }

  // Sets the k-th declared variable of a range pipeline for one iteration: `:=` declared them on
  // top of the stack (below `mark`), `=` names variables declared earlier.
  Result<void> Set(const Expr& pipe, size_t k, const Val& v, size_t mark) {
    if (pipe.is_assign) return Assign(pipe.decl[k], v);
    vars_[mark - pipe.decl.size() + k].second = v;
    return {};
  }

  Result<void> Assign(const std::string& name, const Val& v) {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
      if (it->first == name) {
        it->second = v;
        return {};
      }
    }
    return Error::Invalid(fmt::format("undefined variable: {}", name));
  }

  Result<Val> EvalPipe(const Val& dot, const Expr& pipe, bool allow_missing) {
    std::optional<Val> cur;
    for (size_t k = 0; k < pipe.args.size(); ++k) {
      auto v =
          Eval(dot, *pipe.args[k], cur ? &*cur : nullptr, allow_missing && pipe.args.size() == 1);
      if (!v.ok()) return v;
      cur = std::move(v).value();
    }
    if (!cur) return Error::Invalid("empty pipeline");
    for (const std::string& name : pipe.decl) {
      if (pipe.is_assign) {
        if (auto a = Assign(name, *cur); !a.ok()) return a.error();
      } else {
        vars_.emplace_back(name, *cur);
      }
    }
    return *cur;
  }

  // Looks `fields` up from `v` on: each step needs a map.
  static Result<Val> Fields(Val v, const std::vector<std::string>& fields, bool allow_missing) {
    for (size_t k = 0; k < fields.size(); ++k) {
      const std::string& f = fields[k];
      if (const auto* m = std::get_if<const TemplateData*>(&v)) {
        auto it = (*m)->find(f);
        if (it == (*m)->end()) {
          if (allow_missing && k + 1 == fields.size()) return Val{Missing{f}};
          return Error::Invalid(fmt::format("map has no entry for key {:?}", f));
        }
        v = gt::FromData(it->second);
      } else if (const auto* miss = std::get_if<Missing>(&v)) {
        return Error::Invalid(fmt::format("map has no entry for key {:?}", miss->key));
      } else if (std::holds_alternative<std::nullptr_t>(v)) {
        return Error::Invalid(fmt::format("nil data; no entry for key {:?}", f));
      } else {
        // Go names the static type: a value looked up in a map is an interface {}.
        return Error::Invalid(fmt::format("can't evaluate field {} in type {}", f,
                                          k > 0 ? "interface {}" : gt::TypeName(v)));
      }
    }
    return v;
  }

  Result<Val> Var(const std::string& name) const {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    return Error::Invalid(fmt::format("undefined variable: {}", name));
  }

  Result<Val> Eval(const Val& dot, const Expr& e, const Val* piped, bool allow_missing) {
    switch (e.kind) {
      case Expr::Kind::kDot:
        return dot;
      case Expr::Kind::kField:
        return Fields(dot, e.fields, allow_missing);
      case Expr::Kind::kVar: {
        auto v = Var(e.name);
        if (!v.ok() || e.fields.empty()) return v;
        return Fields(std::move(v).value(), e.fields, allow_missing);
      }
      case Expr::Kind::kChain: {
        auto v = Eval(dot, *e.args[0], nullptr, false);
        if (!v.ok()) return v;
        return Fields(std::move(v).value(), e.fields, allow_missing);
      }
      case Expr::Kind::kNil:
        return Val{nullptr};
      case Expr::Kind::kBool:
        return Val{e.i != 0};
      case Expr::Kind::kInt:
        return Val{e.i};
      case Expr::Kind::kFloat:
        return Val{e.f};
      case Expr::Kind::kString:
        return Val{e.s};
      case Expr::Kind::kCall:
        return Call(dot, e, piped);
      case Expr::Kind::kPipe:
        return EvalPipe(dot, e, allow_missing);
    }
    return Error::Invalid("bad expression");
  }

  // A value handed to a function other than a builtin: a missing key is an error here.
  static Result<void> Present(const Val& v) {
    if (const auto* m = std::get_if<Missing>(&v)) {
      return Error::Invalid(fmt::format("map has no entry for key {:?}", m->key));
    }
    return {};
  }

  Result<Val> Call(const Val& dot, const Expr& e, const Val* piped) {
    if (IsBuiltin(e.name)) return CallBuiltin(dot, e, piped);
    std::vector<Val> args;
    for (const auto& a : e.args) {
      auto v = Eval(dot, *a, nullptr, /*allow_missing=*/false);
      if (!v.ok()) return v;
      if (auto p = Present(*v); !p.ok()) return p.error();
      args.push_back(std::move(v).value());
    }
    if (piped != nullptr) {
      if (auto p = Present(*piped); !p.ok()) return p.error();
      args.push_back(*piped);
    }
    return gt::CallFunction(e.name, args);
  }

  static bool IsBuiltin(std::string_view name) {
    static constexpr std::string_view kNames[] = {"and", "or", "not", "eq", "ne",
                                                  "lt",  "le", "gt",  "ge"};
    return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
  }

  // Go's basic kinds of comparison: 1 bool, 2 int, 3 float, 4 string; 0 for the others.
  static int ComparisonKind(const Val& v) {
    switch (v.index()) {
      case 2:
        return 1;
      case 3:
        return 2;
      case 4:
        return 3;
      case 5:
        return 4;
      default:
        return 0;
    }
  }
  // Compares two values of the same basic kind (ComparisonKind 1 to 4): -1, 0 or 1.
  static int CompareBasic(const Val& a, const Val& b) {
    auto cmp = [](const auto& x, const auto& y) { return x < y ? -1 : y < x ? 1 : 0; };
    switch (a.index()) {
      case 2:
        return cmp(std::get<bool>(a), std::get<bool>(b));
      case 3:
        return cmp(std::get<int64_t>(a), std::get<int64_t>(b));
      case 4:
        return cmp(std::get<double>(a), std::get<double>(b));
      default:
        return cmp(std::get<std::string>(a), std::get<std::string>(b));
    }
  }
  static bool IsNone(const Val& v) {
    return std::holds_alternative<Missing>(v) || std::holds_alternative<std::nullptr_t>(v);
  }

  static Result<bool> Equal(const std::string& name, const Val& a, const Val& b) {
    const int ka = ComparisonKind(a), kb = ComparisonKind(b);
    if (IsNone(a) || IsNone(b)) {
      if (IsNone(a) && IsNone(b)) {
        return Error::Invalid(fmt::format("error calling {}: invalid type for comparison", name));
      }
      return false;
    }
    if (ka == 0 || kb == 0) {
      return Error::Invalid(fmt::format("error calling {}: invalid type for comparison", name));
    }
    if (ka != kb) {
      return Error::Invalid(
          fmt::format("error calling {}: incompatible types for comparison", name));
    }
    return CompareBasic(a, b) == 0;
  }

  static Result<bool> Less(const std::string& name, const Val& a, const Val& b) {
    const int ka = ComparisonKind(a), kb = ComparisonKind(b);
    if (ka == 0 || kb == 0 || ka == 1 || kb == 1) {
      return Error::Invalid(fmt::format("error calling {}: invalid type for comparison", name));
    }
    if (ka != kb) {
      return Error::Invalid(
          fmt::format("error calling {}: incompatible types for comparison", name));
    }
    return CompareBasic(a, b) < 0;
  }

  // The builtins take their arguments unconverted; and/or evaluate them lazily, left to right, and
  // return the first that decides the result (or the last).
  Result<Val> CallBuiltin(const Val& dot, const Expr& e, const Val* piped) {
    const size_t argc = e.args.size() + (piped != nullptr ? 1 : 0);
    auto arg = [&](size_t k) -> Result<Val> {
      if (k < e.args.size()) return Eval(dot, *e.args[k], nullptr, /*allow_missing=*/true);
      return *piped;
    };
    if (e.name == "and" || e.name == "or") {
      if (argc == 0) {
        return Error::Invalid(
            fmt::format("wrong number of args for {}: want at least 1 got 0", e.name));
      }
      Val v;
      for (size_t k = 0; k < argc; ++k) {
        auto a = arg(k);
        if (!a.ok()) return a;
        v = std::move(a).value();
        if (gt::Truth(v) == (e.name == "or")) return v;
      }
      return v;
    }
    std::vector<Val> args;
    for (size_t k = 0; k < argc; ++k) {
      auto a = arg(k);
      if (!a.ok()) return a;
      args.push_back(std::move(a).value());
    }
    if (e.name == "not") {
      if (argc != 1) {
        return Error::Invalid(fmt::format("wrong number of args for not: want 1 got {}", argc));
      }
      return Val{!gt::Truth(args[0])};
    }
    if (e.name == "eq" || e.name == "ne") {
      if (e.name == "ne" && argc != 2) {
        return Error::Invalid(fmt::format("wrong number of args for ne: want 2 got {}", argc));
      }
      if (argc < 2) return Error::Invalid("error calling eq: missing argument for comparison");
      bool any = false;
      for (size_t k = 1; k < argc && !any; ++k) {
        auto eq = Equal(e.name, args[0], args[k]);
        if (!eq.ok()) return eq.error();
        any = *eq;
      }
      return Val{e.name == "ne" ? !any : any};
    }
    // lt, le, gt, ge
    if (argc != 2) {
      return Error::Invalid(
          fmt::format("wrong number of args for {}: want 2 got {}", e.name, argc));
    }
    auto lt = Less(e.name, args[0], args[1]);
    if (!lt.ok()) return lt.error();
    const bool eq = CompareBasic(args[0], args[1]) == 0;
    if (e.name == "lt") return Val{*lt};
    if (e.name == "le") return Val{*lt || eq};
    if (e.name == "gt") return Val{!*lt && !eq};
    return Val{!*lt};
  }

  std::string& out_;
  std::vector<std::pair<std::string, Val>> vars_;
};

}  // namespace

Result<GoTemplate> GoTemplate::Parse(std::string_view text) {
  GoTemplate t;
  std::vector<Item> items;
  size_t pos = 0;
  uint32_t line = 1;
  auto count_lines = [](std::string_view s) {
    return static_cast<uint32_t>(std::count(s.begin(), s.end(), '\n'));
  };
  std::string pending;
  uint32_t pending_line = 1;
  auto flush = [&] {
    if (pending.empty()) return;
    Item it;
    it.is_text = true;
    it.text = std::move(pending);
    it.line = pending_line;
    items.push_back(std::move(it));
    pending.clear();
  };
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      if (pending.empty()) pending_line = line;
      pending += text.substr(pos);
      break;
    }
    std::string_view lit = text.substr(pos, open - pos);
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return Error::Invalid(fmt::format("line {}: unclosed action", line + count_lines(lit)));
    }
    std::string_view inner = text.substr(open + 2, close - open - 2);
    bool trim_left = inner.size() >= 2 && inner[0] == '-' &&
                     (inner[1] == ' ' || inner[1] == '\t' || inner[1] == '\n');
    bool trim_right = inner.size() >= 2 && inner.back() == '-' &&
                      (inner[inner.size() - 2] == ' ' || inner[inner.size() - 2] == '\t' ||
                       inner[inner.size() - 2] == '\n');
    if (trim_left) inner.remove_prefix(1);
    if (trim_right) inner.remove_suffix(1);
    std::string lit_s(lit);
    if (trim_left) {
      while (!lit_s.empty() && std::isspace(static_cast<unsigned char>(lit_s.back())))
        lit_s.pop_back();
    }
    const uint32_t action_line = line + count_lines(lit);
    if (pending.empty()) pending_line = line;
    line = action_line + count_lines(text.substr(open, close + 2 - open));
    pending += lit_s;
    pos = close + 2;
    if (trim_right) {
      while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) {
        if (text[pos] == '\n') ++line;
        ++pos;
      }
    }
    std::string_view body = inner;
    while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front())))
      body.remove_prefix(1);
    while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back())))
      body.remove_suffix(1);
    if (body.starts_with("/*")) {
      if (!body.ends_with("*/"))
        return Error::Invalid(fmt::format("line {}: unclosed comment", action_line));
      continue;
    }
    flush();
    auto toks = Lex(body);
    if (!toks.ok())
      return Error::Invalid(fmt::format("line {}: {}", action_line, toks.error().message));
    if (toks->size() == 1)
      return Error::Invalid(fmt::format("line {}: missing value for command", action_line));
    Item it;
    it.toks = std::move(toks).value();
    it.line = action_line;
    items.push_back(std::move(it));
    t.has_actions_ = true;
  }
  flush();
  auto root = TreeParser(std::move(items)).Run();
  if (!root.ok()) return root.error();
  t.root_ = std::move(root).value();
  return t;
}

Result<std::string> GoTemplate::Execute(const TemplateData& data) const {
  std::string out;
  Executor ex(data, out);
  auto r = ex.Walk(Val{&data}, *root_);
  if (!r.ok()) return r.error();
  return out;
}

}  // namespace corral::sim
