#include "corral/sim/input/go_template.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

namespace corral::sim {

struct GoTemplate::Node {
  enum class Kind : uint8_t { kField, kData, kBool, kInt, kFloat, kString, kCall, kPipe };
  Kind kind = Kind::kInt;
  std::string name;  // field or function
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<std::shared_ptr<Node>> args;  // kCall: arguments; kPipe: commands
};

namespace {

using NodePtr = std::shared_ptr<GoTemplate::Node>;
using Kind = GoTemplate::Node::Kind;

struct Token {
  enum class T : uint8_t {
    kField,
    kDollar,
    kIdent,
    kNumber,
    kString,
    kLParen,
    kRParen,
    kPipe,
    kEnd
  };
  T t = T::kEnd;
  std::string text;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ >= s_.size()) break;
      char c = s_[pos_];
      if (c == '(') {
        out.push_back({Token::T::kLParen, "("});
        ++pos_;
      } else if (c == ')') {
        out.push_back({Token::T::kRParen, ")"});
        ++pos_;
      } else if (c == '|') {
        out.push_back({Token::T::kPipe, "|"});
        ++pos_;
      } else if (c == '$') {
        out.push_back({Token::T::kDollar, "$"});
        ++pos_;
      } else if (c == '.') {
        size_t j = pos_ + 1;
        while (j < s_.size() &&
               (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_' || s_[j] == '.'))
          ++j;
        if (j == pos_ + 1) return Error::Invalid("bad character '.': a field name must follow");
        out.push_back({Token::T::kField, std::string(s_.substr(pos_ + 1, j - pos_ - 1))});
        pos_ = j;
      } else if (c == '"' || c == '`') {
        char q = c;
        std::string v;
        size_t j = pos_ + 1;
        bool closed = false;
        while (j < s_.size()) {
          if (s_[j] == q) {
            closed = true;
            ++j;
            break;
          }
          if (q == '"' && s_[j] == '\\' && j + 1 < s_.size()) {
            char e = s_[j + 1];
            v += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            j += 2;
            continue;
          }
          v += s_[j++];
        }
        if (!closed) return Error::Invalid("unterminated quoted string");
        out.push_back({Token::T::kString, std::move(v)});
        pos_ = j;
      } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+') {
        size_t j = pos_ + 1;
        while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '.'))
          ++j;
        out.push_back({Token::T::kNumber, std::string(s_.substr(pos_, j - pos_))});
        pos_ = j;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t j = pos_ + 1;
        while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_'))
          ++j;
        out.push_back({Token::T::kIdent, std::string(s_.substr(pos_, j - pos_))});
        pos_ = j;
      } else {
        return Error::Invalid(fmt::format("unexpected {:?} in action", std::string(1, c)));
      }
    }
    out.push_back({Token::T::kEnd, ""});
    return out;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

class Parser {
 public:
  // Parses the tokens from `start` on (past an `if` or `else if` keyword).
  explicit Parser(std::vector<Token> toks, size_t start = 0) : t_(std::move(toks)), p_(start) {}
  Result<NodePtr> Pipeline() {
    auto pipe = std::make_shared<GoTemplate::Node>();
    pipe->kind = Kind::kPipe;
    while (true) {
      auto cmd = Command();
      if (!cmd.ok()) return cmd.error();
      pipe->args.push_back(*cmd);
      if (Peek().t != Token::T::kPipe) break;
      ++p_;
    }
    return pipe;
  }
  bool AtEnd() const { return t_[p_].t == Token::T::kEnd; }
  const Token& Peek() const { return t_[p_]; }

 private:
  Result<NodePtr> Operand() {
    const Token& tok = t_[p_];
    auto n = std::make_shared<GoTemplate::Node>();
    switch (tok.t) {
      case Token::T::kField:
        n->kind = Kind::kField;
        n->name = tok.text;
        ++p_;
        return n;
      case Token::T::kIdent:
        if (tok.text != "true" && tok.text != "false") break;
        n->kind = Kind::kBool;
        n->i = tok.text == "true" ? 1 : 0;
        ++p_;
        return n;
      case Token::T::kDollar:
        n->kind = Kind::kData;
        ++p_;
        return n;
      case Token::T::kString:
        n->kind = Kind::kString;
        n->s = tok.text;
        ++p_;
        return n;
      case Token::T::kNumber: {
        const std::string& s = tok.text;
        int64_t iv = 0;
        auto [ip, iec] = std::from_chars(s.data(), s.data() + s.size(), iv);
        if (iec == std::errc() && ip == s.data() + s.size()) {
          n->kind = Kind::kInt;
          n->i = iv;
        } else {
          double fv = 0;
          auto [fp, fec] = std::from_chars(s.data(), s.data() + s.size(), fv);
          if (fec != std::errc() || fp != s.data() + s.size())
            return Error::Invalid(fmt::format("bad number syntax: {:?}", s));
          n->kind = Kind::kFloat;
          n->f = fv;
        }
        ++p_;
        return n;
      }
      case Token::T::kLParen: {
        ++p_;
        auto inner = Pipeline();
        if (!inner.ok()) return inner;
        if (t_[p_].t != Token::T::kRParen) return Error::Invalid("unclosed left paren");
        ++p_;
        return inner;
      }
      default:
        break;
    }
    return Error::Invalid(
        fmt::format("unexpected {:?} in operand", tok.text.empty() ? "end of action" : tok.text));
  }

  Result<NodePtr> Command() {
    const Token& tok = t_[p_];
    if (tok.t == Token::T::kIdent && tok.text != "true" && tok.text != "false") {
      // if/else/end open an action (see Parse); anywhere else they, and the other keywords, fail.
      static constexpr std::string_view kControl[] = {
          "if", "else", "end", "range", "with", "define", "template", "block", "break", "continue"};
      if (std::find(std::begin(kControl), std::end(kControl), tok.text) != std::end(kControl)) {
        return Error::Invalid(
            fmt::format("{:?} actions are not supported by corral's template subset", tok.text));
      }
      auto call = std::make_shared<GoTemplate::Node>();
      call->kind = Kind::kCall;
      call->name = tok.text;
      ++p_;
      while (t_[p_].t != Token::T::kPipe && t_[p_].t != Token::T::kRParen &&
             t_[p_].t != Token::T::kEnd) {
        auto a = Operand();
        if (!a.ok()) return a;
        call->args.push_back(*a);
      }
      return call;
    }
    auto op = Operand();
    if (!op.ok()) return op;
    if (t_[p_].t != Token::T::kPipe && t_[p_].t != Token::T::kRParen &&
        t_[p_].t != Token::T::kEnd) {
      return Error::Invalid(fmt::format("can't give argument to non-function {:?}", t_[p_].text));
    }
    return op;
  }

  std::vector<Token> t_;
  size_t p_;
};

std::string TypeName(const TemplateValue& v) {
  return std::holds_alternative<int64_t>(v)  ? "int"
         : std::holds_alternative<double>(v) ? "float64"
         : std::holds_alternative<bool>(v)   ? "bool"
                                             : "string";
}

std::string Print(const TemplateValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    if (std::isfinite(*d) && *d == std::floor(*d) && std::fabs(*d) < 1e21)
      return fmt::format("{}", static_cast<int64_t>(*d));
    return fmt::format("{}", *d);
  }
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

Result<std::string> Printf(const std::vector<TemplateValue>& args) {
  if (args.empty() || !std::holds_alternative<std::string>(args[0])) {
    return Error::Invalid("printf: the first argument must be a format string");
  }
  const std::string& f = std::get<std::string>(args[0]);
  std::string out;
  size_t ai = 1;
  for (size_t k = 0; k < f.size(); ++k) {
    if (f[k] != '%') {
      out += f[k];
      continue;
    }
    if (++k >= f.size()) {
      out += "%!(NOVERB)";
      break;
    }
    if (f[k] == '%') {
      out += '%';
      continue;
    }
    bool left = false, zero = false;
    while (k < f.size() && (f[k] == '-' || f[k] == '0')) {
      (f[k] == '-' ? left : zero) = true;
      ++k;
    }
    int width = 0;
    while (k < f.size() && std::isdigit(static_cast<unsigned char>(f[k])))
      width = width * 10 + (f[k++] - '0');
    int prec = -1;
    if (k < f.size() && f[k] == '.') {
      prec = 0;
      ++k;
      while (k < f.size() && std::isdigit(static_cast<unsigned char>(f[k])))
        prec = prec * 10 + (f[k++] - '0');
    }
    if (k >= f.size()) break;
    char verb = f[k];
    if (ai >= args.size()) {
      out += fmt::format("%!{}(MISSING)", verb);
      continue;
    }
    const TemplateValue& a = args[ai++];
    std::string body;
    switch (verb) {
      case 'd':
        if (!std::holds_alternative<int64_t>(a))
          return Error::Invalid(fmt::format("printf: %d of {}", TypeName(a)));
        body = std::to_string(std::get<int64_t>(a));
        break;
      case 'x':
        if (!std::holds_alternative<int64_t>(a))
          return Error::Invalid(fmt::format("printf: %x of {}", TypeName(a)));
        body = fmt::format("{:x}", std::get<int64_t>(a));
        break;
      case 'f':
      case 'g': {
        if (!std::holds_alternative<int64_t>(a) && !std::holds_alternative<double>(a)) {
          return Error::Invalid(fmt::format("printf: %{} of {}", verb, TypeName(a)));
        }
        double d = std::holds_alternative<int64_t>(a) ? static_cast<double>(std::get<int64_t>(a))
                                                      : std::get<double>(a);
        body = verb == 'f' ? fmt::format("{:.{}f}", d, prec < 0 ? 6 : prec) : fmt::format("{}", d);
        break;
      }
      case 's':
      case 'v':
        // Go prints a bool with %v only (%s gives "%!s(bool=true)"): %s of a bool is an error.
        if (verb == 's' && std::holds_alternative<bool>(a))
          return Error::Invalid("printf: %s of bool");
        body = Print(a);
        if (prec >= 0 && verb == 's' && static_cast<size_t>(prec) < body.size())
          body.resize(static_cast<size_t>(prec));
        break;
      case 'q':
        if (std::holds_alternative<bool>(a)) return Error::Invalid("printf: %q of bool");
        body = fmt::format("{:?}", Print(a));
        break;
      default:
        return Error::Invalid(fmt::format("printf: unsupported verb %{}", verb));
    }
    if (static_cast<int>(body.size()) < width) {
      size_t pad = static_cast<size_t>(width) - body.size();
      if (left) {
        body += std::string(pad, ' ');
      } else if (zero && (verb == 'd' || verb == 'x' || verb == 'f')) {
        size_t sign = !body.empty() && body[0] == '-' ? 1 : 0;
        body.insert(sign, std::string(pad, '0'));
      } else {
        body.insert(0, std::string(pad, ' '));
      }
    }
    out += body;
  }
  return out;
}

Result<TemplateValue> Call(const std::string& name, const std::vector<TemplateValue>& args) {
  auto ints = [&](size_t n) -> Result<std::vector<int64_t>> {
    if (args.size() != n) {
      return Error::Invalid(
          fmt::format("wrong number of args for {}: want {} got {}", name, n, args.size()));
    }
    std::vector<int64_t> v;
    for (const auto& a : args) {
      if (!std::holds_alternative<int64_t>(a)) {
        return Error::Invalid(
            fmt::format("{}: wrong type for value; expected int; got {}", name, TypeName(a)));
      }
      v.push_back(std::get<int64_t>(a));
    }
    return v;
  };
  auto floats = [&](size_t n) -> Result<std::vector<double>> {
    if (args.size() != n) {
      return Error::Invalid(
          fmt::format("wrong number of args for {}: want {} got {}", name, n, args.size()));
    }
    std::vector<double> v;
    for (const auto& a : args) {
      if (std::holds_alternative<std::string>(a) || std::holds_alternative<bool>(a)) {
        return Error::Invalid(
            fmt::format("{}: wrong type for value; expected float64; got {}", name, TypeName(a)));
      }
      v.push_back(std::holds_alternative<int64_t>(a) ? static_cast<double>(std::get<int64_t>(a))
                                                     : std::get<double>(a));
    }
    return v;
  };
  if (name == "AddInt" || name == "SubtractInt" || name == "MultiplyInt" || name == "DivideInt" ||
      name == "Mod" || name == "mod" || name == "div" || name == "MaxInt" || name == "MinInt") {
    auto v = ints(2);
    if (!v.ok()) return v.error();
    int64_t a = (*v)[0], b = (*v)[1];
    if ((name == "DivideInt" || name == "div" || name == "Mod" || name == "mod") && b == 0) {
      return Error::Invalid(fmt::format("{}: integer divide by zero", name));
    }
    // Go's int arithmetic wraps around (two's complement); MinInt64 / -1 is MinInt64 and its
    // remainder 0. Computed on uint64 so that no input overflows a signed type.
    const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    if (name == "AddInt") return TemplateValue{static_cast<int64_t>(ua + ub)};
    if (name == "SubtractInt") return TemplateValue{static_cast<int64_t>(ua - ub)};
    if (name == "MultiplyInt") return TemplateValue{static_cast<int64_t>(ua * ub)};
    const bool min_by_minus_one = a == std::numeric_limits<int64_t>::min() && b == -1;
    if (name == "DivideInt" || name == "div") return TemplateValue{min_by_minus_one ? a : a / b};
    if (name == "Mod" || name == "mod") return TemplateValue{min_by_minus_one ? 0 : a % b};
    if (name == "MaxInt") return TemplateValue{std::max(a, b)};
    return TemplateValue{std::min(a, b)};
  }
  if (name == "AddFloat" || name == "SubtractFloat" || name == "MultiplyFloat" ||
      name == "DivideFloat") {
    auto v = floats(2);
    if (!v.ok()) return v.error();
    double a = (*v)[0], b = (*v)[1];
    if (name == "AddFloat") return TemplateValue{a + b};
    if (name == "SubtractFloat") return TemplateValue{a - b};
    if (name == "MultiplyFloat") return TemplateValue{a * b};
    return TemplateValue{a / b};
  }
  if (name == "Lowercase") {
    if (args.size() != 1 || !std::holds_alternative<std::string>(args[0])) {
      return Error::Invalid("Lowercase: want one string argument");
    }
    std::string s = std::get<std::string>(args[0]);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return TemplateValue{s};
  }
  if (name == "printf") {
    auto s = Printf(args);
    if (!s.ok()) return s.error();
    return TemplateValue{*s};
  }
  if (name == "print") {
    std::string s;
    for (size_t k = 0; k < args.size(); ++k) {
      // Go's Sprint adds spaces between operands when neither is a string.
      if (k > 0 && !std::holds_alternative<std::string>(args[k]) &&
          !std::holds_alternative<std::string>(args[k - 1])) {
        s += ' ';
      }
      s += Print(args[k]);
    }
    return TemplateValue{s};
  }
  if (name == "len") {
    if (args.size() != 1 || !std::holds_alternative<std::string>(args[0]))
      return Error::Invalid("len: want a string");
    return TemplateValue{static_cast<int64_t>(std::get<std::string>(args[0]).size())};
  }
  return Error::Invalid(fmt::format("function {:?} not defined", name));
}

// A value during evaluation: a template value, a bool (the builtins' results) or a missing map key
// (monostate), which only an if condition and the builtins' arguments can hold (see the header).
using Val = std::variant<std::monostate, bool, int64_t, double, std::string>;

bool IsMissing(const Val& v) {
  return std::holds_alternative<std::monostate>(v);
}

// Go's truth: false, 0, 0.0, "" and a missing value are false.
bool Truth(const Val& v) {
  if (IsMissing(v)) return false;
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<int64_t>(&v)) return *i != 0;
  if (const auto* d = std::get_if<double>(&v)) return *d != 0;
  return !std::get<std::string>(v).empty();
}

Val FromTemplate(TemplateValue v) {
  return std::visit([](auto&& x) -> Val { return std::forward<decltype(x)>(x); }, std::move(v));
}

bool IsBuiltin(std::string_view name) {
  static constexpr std::string_view kNames[] = {"and", "or", "not", "eq", "ne",
                                                "lt",  "le", "gt",  "ge"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Go's basic kinds of comparison: 0 missing, 1 bool, 2 int, 3 float, 4 string.
int ComparisonKind(const Val& v) {
  return static_cast<int>(v.index());
}

Result<bool> Equal(const std::string& name, const Val& a, const Val& b) {
  if (a.index() != b.index()) {
    if (!IsMissing(a) && !IsMissing(b)) {
      return Error::Invalid(
          fmt::format("error calling {}: incompatible types for comparison", name));
    }
    return false;
  }
  if (IsMissing(a)) {
    return Error::Invalid(fmt::format("error calling {}: invalid type for comparison", name));
  }
  return a == b;
}

Result<bool> Less(const std::string& name, const Val& a, const Val& b) {
  const int ka = ComparisonKind(a), kb = ComparisonKind(b);
  if (ka == 0 || kb == 0 || ka == 1 || kb == 1) {
    return Error::Invalid(fmt::format("error calling {}: invalid type for comparison", name));
  }
  if (ka != kb) {
    return Error::Invalid(fmt::format("error calling {}: incompatible types for comparison", name));
  }
  return a < b;  // same alternative: compares the held values
}

Result<Val> Eval(const GoTemplate::Node& n, const TemplateData& data, const Val* piped,
                 bool allow_missing);

// The builtins take their arguments unconverted; and/or evaluate them lazily, left to right, and
// return the first that decides the result (or the last).
Result<Val> CallBuiltin(const GoTemplate::Node& n, const TemplateData& data, const Val* piped) {
  const size_t argc = n.args.size() + (piped != nullptr ? 1 : 0);
  auto arg = [&](size_t k) -> Result<Val> {
    if (k < n.args.size()) return Eval(*n.args[k], data, nullptr, /*allow_missing=*/true);
    return *piped;
  };
  if (n.name == "and" || n.name == "or") {
    if (argc == 0) {
      return Error::Invalid(
          fmt::format("wrong number of args for {}: want at least 1 got 0", n.name));
    }
    Val v;
    for (size_t k = 0; k < argc; ++k) {
      auto a = arg(k);
      if (!a.ok()) return a;
      v = std::move(a).value();
      if (Truth(v) == (n.name == "or")) return v;
    }
    return v;
  }
  std::vector<Val> args;
  for (size_t k = 0; k < argc; ++k) {
    auto a = arg(k);
    if (!a.ok()) return a;
    args.push_back(std::move(a).value());
  }
  if (n.name == "not") {
    if (argc != 1) {
      return Error::Invalid(fmt::format("wrong number of args for not: want 1 got {}", argc));
    }
    return Val{!Truth(args[0])};
  }
  if (n.name == "eq" || n.name == "ne") {
    if (n.name == "ne" && argc != 2) {
      return Error::Invalid(fmt::format("wrong number of args for ne: want 2 got {}", argc));
    }
    if (argc < 2) return Error::Invalid("error calling eq: missing argument for comparison");
    bool any = false;
    for (size_t k = 1; k < argc && !any; ++k) {
      auto e = Equal(n.name, args[0], args[k]);
      if (!e.ok()) return e.error();
      any = *e;
    }
    return Val{n.name == "ne" ? !any : any};
  }
  // lt, le, gt, ge
  if (argc != 2) {
    return Error::Invalid(fmt::format("wrong number of args for {}: want 2 got {}", n.name, argc));
  }
  const std::string& op = n.name;
  auto lt = Less(op, args[0], args[1]);
  if (!lt.ok()) return lt.error();
  const bool eq = args[0] == args[1];
  if (op == "lt") return Val{*lt};
  if (op == "le") return Val{*lt || eq};
  if (op == "gt") return Val{!*lt && !eq};
  return Val{!*lt};
}

// A value handed to a function other than a builtin, or printed: a missing key is an error here;
// each function checks the types of its arguments.
Result<TemplateValue> ToTemplate(const Val& v, std::string_view what) {
  if (const auto* i = std::get_if<int64_t>(&v)) return TemplateValue{*i};
  if (const auto* d = std::get_if<double>(&v)) return TemplateValue{*d};
  if (const auto* s = std::get_if<std::string>(&v)) return TemplateValue{*s};
  if (const auto* b = std::get_if<bool>(&v)) return TemplateValue{*b};
  return Error::Invalid(fmt::format("{}: invalid value (a missing key)", what));
}

Result<Val> Eval(const GoTemplate::Node& n, const TemplateData& data, const Val* piped,
                 bool allow_missing) {
  switch (n.kind) {
    case Kind::kField: {
      auto it = data.find(n.name);
      if (it == data.end()) {
        if (allow_missing) return Val{};
        return Error::Invalid(fmt::format("map has no entry for key {:?}", n.name));
      }
      return FromTemplate(it->second);
    }
    case Kind::kData:
      return Val{std::string("map[...]")};
    case Kind::kBool:
      return Val{n.i != 0};
    case Kind::kInt:
      return Val{n.i};
    case Kind::kFloat:
      return Val{n.f};
    case Kind::kString:
      return Val{n.s};
    case Kind::kCall: {
      if (IsBuiltin(n.name)) return CallBuiltin(n, data, piped);
      std::vector<TemplateValue> args;
      for (const auto& a : n.args) {
        auto v = Eval(*a, data, nullptr, /*allow_missing=*/false);
        if (!v.ok()) return v;
        auto tv = ToTemplate(*v, n.name);
        if (!tv.ok()) return tv.error();
        args.push_back(std::move(tv).value());
      }
      if (piped != nullptr) {
        auto tv = ToTemplate(*piped, n.name);
        if (!tv.ok()) return tv.error();
        args.push_back(std::move(tv).value());
      }
      auto r = Call(n.name, args);
      if (!r.ok()) return r.error();
      return FromTemplate(std::move(r).value());
    }
    case Kind::kPipe: {
      std::optional<Val> cur;
      for (size_t k = 0; k < n.args.size(); ++k) {
        const auto& cmd = *n.args[k];
        if (k > 0 && cmd.kind != Kind::kCall)
          return Error::Invalid("can't pipe into a non-function");
        auto v = Eval(cmd, data, cur ? &*cur : nullptr, allow_missing && n.args.size() == 1);
        if (!v.ok()) return v;
        cur = std::move(v).value();
      }
      if (!cur) return Error::Invalid("empty pipeline");
      return *cur;
    }
  }
  return Error::Invalid("bad node");
}

// One action of the text before tree building: a piece, or a control keyword with its line.
struct Item {
  enum class K : uint8_t { kPiece, kElse, kElseIf, kEnd };
  K k = K::kPiece;
  GoTemplate::Piece piece;  // kPiece; kElseIf: its condition as an if piece
};

std::string PrintVal(const Val& v) {
  return Print(ToTemplate(v, "print").value());
}

}  // namespace

Result<void> GoTemplate::Run(const std::vector<Piece>& pieces, const TemplateData& data,
                             std::string& out) {
  for (const auto& p : pieces) {
    if (p.kind == Piece::Kind::kText) {
      out += p.text;
      continue;
    }
    const bool cond = p.kind == Piece::Kind::kIf;
    auto v = Eval(*p.action, data, nullptr, /*allow_missing=*/cond);
    if (!v.ok()) return Error::Invalid(fmt::format("line {}: {}", p.line, v.error().message));
    if (cond) {
      auto r = Run(Truth(*v) ? p.then_branch : p.else_branch, data, out);
      if (!r.ok()) return r;
    } else {
      out += PrintVal(*v);
    }
  }
  return {};
}

namespace {

// Builds the tree from the items: a list ends at else/else-if/end (left at `pos`) or at the end.
Result<void> BuildList(std::vector<Item>& items, size_t& pos, std::vector<GoTemplate::Piece>& out);

Result<void> BuildIf(std::vector<Item>& items, size_t& pos, GoTemplate::Piece& if_piece) {
  const uint32_t line = if_piece.line;
  auto r = BuildList(items, pos, if_piece.then_branch);
  if (!r.ok()) return r;
  if (pos == items.size()) return Error::Invalid(fmt::format("line {}: unexpected EOF", line));
  Item& stop = items[pos++];
  if (stop.k == Item::K::kEnd) return {};
  if (stop.k == Item::K::kElseIf) {
    // `else if` shares the `end` of its if: the nested if consumes it.
    GoTemplate::Piece nested = std::move(stop.piece);
    auto n = BuildIf(items, pos, nested);
    if (!n.ok()) return n;
    if_piece.else_branch.push_back(std::move(nested));
    return {};
  }
  r = BuildList(items, pos, if_piece.else_branch);
  if (!r.ok()) return r;
  if (pos == items.size()) return Error::Invalid(fmt::format("line {}: unexpected EOF", line));
  Item& end = items[pos++];
  if (end.k != Item::K::kEnd) {
    return Error::Invalid(fmt::format("line {}: expected end; found {{{{else}}}}", end.piece.line));
  }
  return {};
}

Result<void> BuildList(std::vector<Item>& items, size_t& pos, std::vector<GoTemplate::Piece>& out) {
  while (pos < items.size() && items[pos].k == Item::K::kPiece) {
    GoTemplate::Piece p = std::move(items[pos++].piece);
    if (p.kind == GoTemplate::Piece::Kind::kIf) {
      auto r = BuildIf(items, pos, p);
      if (!r.ok()) return r;
    }
    out.push_back(std::move(p));
  }
  return {};
}

}  // namespace

Result<GoTemplate> GoTemplate::Parse(std::string_view text) {
  GoTemplate t;
  std::vector<Item> items;
  auto text_item = [&](std::string s) {
    Item it;
    it.piece.kind = Piece::Kind::kText;
    it.piece.text = std::move(s);
    items.push_back(std::move(it));
  };
  size_t pos = 0;
  uint32_t line = 1;
  auto count_lines = [](std::string_view s) {
    return static_cast<uint32_t>(std::count(s.begin(), s.end(), '\n'));
  };
  std::string pending;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
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
    if (!pending.empty()) text_item(std::move(pending));
    pending.clear();
    auto toks = Lexer(body).Run();
    if (!toks.ok())
      return Error::Invalid(fmt::format("line {}: {}", action_line, toks.error().message));
    if (toks->size() == 1)
      return Error::Invalid(fmt::format("line {}: missing value for command", action_line));
    // Control keywords open the action: `if P`, `else`, `else if P`, `end`.
    Item item;
    item.piece.kind = Piece::Kind::kAction;
    item.piece.line = action_line;
    size_t start = 0;
    const Token& first = (*toks)[0];
    const bool second_if =
        toks->size() > 2 && (*toks)[1].t == Token::T::kIdent && (*toks)[1].text == "if";
    if (first.t == Token::T::kIdent && first.text == "if") {
      item.piece.kind = Piece::Kind::kIf;
      start = 1;
    } else if (first.t == Token::T::kIdent && first.text == "else" && second_if) {
      item.k = Item::K::kElseIf;
      item.piece.kind = Piece::Kind::kIf;
      start = 2;
    } else if (first.t == Token::T::kIdent && (first.text == "else" || first.text == "end")) {
      if (toks->size() != 2) {
        return Error::Invalid(fmt::format("line {}: unexpected {:?} in {}", action_line,
                                          (*toks)[1].text, first.text));
      }
      item.k = first.text == "end" ? Item::K::kEnd : Item::K::kElse;
      items.push_back(std::move(item));
      t.has_actions_ = true;
      continue;
    }
    if (start > 0 && (*toks)[start].t == Token::T::kEnd) {
      return Error::Invalid(fmt::format("line {}: missing value for if", action_line));
    }
    Parser p(std::move(toks).value(), start);
    auto node = p.Pipeline();
    if (!node.ok())
      return Error::Invalid(fmt::format("line {}: {}", action_line, node.error().message));
    if (!p.AtEnd()) {
      return Error::Invalid(
          fmt::format("line {}: unexpected {:?} in action", action_line, p.Peek().text));
    }
    item.piece.action = *node;
    items.push_back(std::move(item));
    t.has_actions_ = true;
  }
  if (!pending.empty()) text_item(std::move(pending));
  size_t at = 0;
  auto built = BuildList(items, at, t.pieces_);
  if (!built.ok()) return built.error();
  if (at < items.size()) {
    const Item& stray = items[at];
    return Error::Invalid(fmt::format("line {}: unexpected {{{{{}}}}}", stray.piece.line,
                                      stray.k == Item::K::kEnd ? "end" : "else"));
  }
  return t;
}

Result<std::string> GoTemplate::Execute(const TemplateData& data) const {
  std::string out;
  auto r = Run(pieces_, data, out);
  if (!r.ok()) return r.error();
  return out;
}

}  // namespace corral::sim
