#include "corral/sim/input/go_template_funcs.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "corral/plugins/common/signers.h"

namespace corral::sim::go_template_detail {
namespace {

// The shortest decimal digits that read back as `d` (|d| finite, nonzero), and the position of the
// decimal point: d = 0.DIGITS × 10^dp (strconv's decimal form).
struct Digits {
  std::string digits;
  int dp = 0;
};

Digits ShortestDigits(double d) {
  char buf[64];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(end - buf));  // "d.ddde+XX"
  const size_t e = s.find('e');
  Digits out;
  for (char c : s.substr(0, e)) {
    if (c != '.') out.digits += c;
  }
  int exp = 0;
  std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exp);
  out.dp = exp + 1;
  return out;
}

// strconv.FormatFloat(d, 'e', -1, 64) of a finite nonzero |d|.
std::string FormatE(const Digits& g) {
  std::string out(1, g.digits[0]);
  if (g.digits.size() > 1) out += "." + g.digits.substr(1);
  const int exp = g.dp - 1;
  return out + fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', std::abs(exp));
}

// strconv.FormatFloat(d, 'f', -1, 64) of a finite nonzero |d|.
std::string FormatF(const Digits& g) {
  const int nd = static_cast<int>(g.digits.size());
  if (g.dp <= 0) return "0." + std::string(static_cast<size_t>(-g.dp), '0') + g.digits;
  if (g.dp >= nd) return g.digits + std::string(static_cast<size_t>(g.dp - nd), '0');
  return g.digits.substr(0, static_cast<size_t>(g.dp)) + "." +
         g.digits.substr(static_cast<size_t>(g.dp));
}

// Go's %v (and %g) of a float64: strconv's 'g' format with the shortest precision, which uses
// the exponent form when the exponent is below -4 or at least 6 (1e+06, 1.5e-05, 123456).
std::string FormatGoFloat(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  const Digits g = ShortestDigits(d);
  const int exp = g.dp - 1;
  const bool e_form = exp < -4 || exp >= 6;
  return (d < 0 ? "-" : "") + (e_form ? FormatE(g) : FormatF(g));
}

// encoding/json's float64: 'f' form for 1e-6 <= |d| < 1e21, else 'e' form with a one-digit
// negative exponent where it fits (1e-07 becomes 1e-7).
Result<std::string> JsonFloat(double d) {
  if (!std::isfinite(d)) {
    return Error::Invalid(fmt::format("json: unsupported value: {}", FormatGoFloat(d)));
  }
  if (d == 0) return std::string(std::signbit(d) ? "-0" : "0");
  const Digits g = ShortestDigits(d);
  const double a = std::fabs(d);
  std::string body;
  if (a < 1e-6 || a >= 1e21) {
    body = FormatE(g);
    const size_t n = body.size();
    if (n >= 4 && body[n - 4] == 'e' && body[n - 3] == '-' && body[n - 2] == '0') {
      body.erase(n - 2, 1);
    }
  } else {
    body = FormatF(g);
  }
  return (d < 0 ? "-" : "") + body;
}

std::string JsonString(std::string_view s) {
  // Go's json.Marshal of a string (HTML-safe escapes), shared with the batching signatures.
  std::string out;
  plugins::signers::AppendJsonString(out, s);
  return out;
}

Result<std::string> Printf(const std::vector<Val>& args) {
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
    const Val& a = args[ai++];
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
        body = verb == 'f' ? fmt::format("{:.{}f}", d, prec < 0 ? 6 : prec) : FormatGoFloat(d);
        break;
      }
      case 's':
      case 'v': {
        // Go prints a bool with %v only (%s gives "%!s(bool=true)"): %s of a bool is an error.
        if (verb == 's' && std::holds_alternative<bool>(a))
          return Error::Invalid("printf: %s of bool");
        auto p = Print(a);
        if (!p.ok()) return p.error();
        body = std::move(p).value();
        if (prec >= 0 && verb == 's' && static_cast<size_t>(prec) < body.size())
          body.resize(static_cast<size_t>(prec));
        break;
      }
      case 'q': {
        if (!std::holds_alternative<std::string>(a) && !std::holds_alternative<int64_t>(a) &&
            !std::holds_alternative<double>(a)) {
          return Error::Invalid(fmt::format("printf: %q of {}", TypeName(a)));
        }
        auto p = Print(a);
        if (!p.ok()) return p.error();
        body = fmt::format("{:?}", *p);
        break;
      }
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

// kube's toFloat64: a number, or a string strconv.ParseFloat reads; anything else is the panic
// "cannot cast <v> to float64", which text/template reports as the function's error.
Result<double> ToFloat64(std::string_view fn, const Val& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) {
    std::string_view t = *s;
    // ParseFloat takes a leading sign; from_chars a leading '-' only.
    const bool plus = !t.empty() && t[0] == '+' && t.size() > 1 && t[1] != '-';
    if (plus) t.remove_prefix(1);
    double d = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
    if (!t.empty() && ec == std::errc() && p == t.data() + t.size()) return d;
  }
  auto p = Print(v);
  return Error::Invalid(fmt::format("error calling {}: cannot cast {} to float64", fn,
                                    p.ok() ? *p : std::string("<nil>")));
}

// Go's int(f) on amd64: truncation toward zero; NaN and values outside int64 give MinInt64.
int64_t GoInt(double f) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!(f > -kTwo63 - 1025 && f < kTwo63)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

}  // namespace

Val FromData(const TemplateValue& v) {
  switch (v.index()) {
    case 0:
      return std::get<int64_t>(v);
    case 1:
      return std::get<double>(v);
    case 2:
      return std::get<std::string>(v);
    case 3:
      return std::get<bool>(v);
    case 4:
      return nullptr;
    case 5:
      return static_cast<const TemplateList*>(std::get<5>(v).get());
    default:
      return static_cast<const TemplateData*>(&std::get<6>(v)->items);
  }
}

bool Truth(const Val& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<int64_t>(&v)) return *i != 0;
  if (const auto* d = std::get_if<double>(&v)) return *d != 0;
  if (const auto* s = std::get_if<std::string>(&v)) return !s->empty();
  if (const auto* l = std::get_if<const TemplateList*>(&v)) return !(*l)->items.empty();
  if (const auto* m = std::get_if<const TemplateData*>(&v)) return !(*m)->empty();
  return false;  // missing, nil
}

std::string TypeName(const Val& v) {
  switch (v.index()) {
    case 2:
      return "bool";
    case 3:
      return "int";
    case 4:
      return "float64";
    case 5:
      return "string";
    case 6:
      return "[]interface {}";
    case 7:
      return "map[string]interface {}";
    default:
      return "<nil>";
  }
}

Result<std::string> Print(const Val& v) {
  switch (v.index()) {
    case 0:
      return Error::Invalid(fmt::format("map has no entry for key {:?}", std::get<Missing>(v).key));
    case 1:
      return std::string("<nil>");
    case 2:
      return std::string(std::get<bool>(v) ? "true" : "false");
    case 3:
      return std::to_string(std::get<int64_t>(v));
    case 4:
      return FormatGoFloat(std::get<double>(v));
    case 5:
      return std::get<std::string>(v);
    case 6: {
      std::string out = "[";
      bool first = true;
      for (const TemplateValue& e : std::get<const TemplateList*>(v)->items) {
        auto p = Print(FromData(e));
        if (!p.ok()) return p;
        out += (first ? "" : " ") + *p;
        first = false;
      }
      return out + "]";
    }
    default: {
      std::string out = "map[";
      bool first = true;
      for (const auto& [key, e] : *std::get<const TemplateData*>(v)) {
        auto p = Print(FromData(e));
        if (!p.ok()) return p;
        out += (first ? "" : " ") + key + ":" + *p;
        first = false;
      }
      return out + "]";
    }
  }
}

Result<std::string> Json(const Val& v) {
  switch (v.index()) {
    case 0:
      return Error::Invalid(fmt::format("map has no entry for key {:?}", std::get<Missing>(v).key));
    case 1:
      return std::string("null");
    case 2:
      return std::string(std::get<bool>(v) ? "true" : "false");
    case 3:
      return std::to_string(std::get<int64_t>(v));
    case 4:
      return JsonFloat(std::get<double>(v));
    case 5:
      return JsonString(std::get<std::string>(v));
    case 6: {
      std::string out = "[";
      bool first = true;
      for (const TemplateValue& e : std::get<const TemplateList*>(v)->items) {
        auto j = Json(FromData(e));
        if (!j.ok()) return j;
        out += (first ? "" : ",") + *j;
        first = false;
      }
      return out + "]";
    }
    default: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, e] : *std::get<const TemplateData*>(v)) {
        auto j = Json(FromData(e));
        if (!j.ok()) return j;
        out += (first ? "" : ",") + JsonString(key) + ":" + *j;
        first = false;
      }
      return out + "}";
    }
  }
}

Result<Val> CallFunction(std::string_view name, const std::vector<Val>& args) {
  auto arity = [&](size_t n) -> Result<void> {
    if (args.size() == n) return {};
    return Error::Invalid(
        fmt::format("wrong number of args for {}: want {} got {}", name, n, args.size()));
  };
  auto ints = [&](size_t n) -> Result<std::vector<int64_t>> {
    if (auto a = arity(n); !a.ok()) return a.error();
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
    if (auto a = arity(n); !a.ok()) return a.error();
    std::vector<double> v;
    for (const auto& a : args) {
      if (!std::holds_alternative<int64_t>(a) && !std::holds_alternative<double>(a)) {
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
    if (name == "AddInt") return Val{static_cast<int64_t>(ua + ub)};
    if (name == "SubtractInt") return Val{static_cast<int64_t>(ua - ub)};
    if (name == "MultiplyInt") return Val{static_cast<int64_t>(ua * ub)};
    const bool min_by_minus_one = a == std::numeric_limits<int64_t>::min() && b == -1;
    if (name == "DivideInt" || name == "div") return Val{min_by_minus_one ? a : a / b};
    if (name == "Mod" || name == "mod") return Val{min_by_minus_one ? int64_t{0} : a % b};
    if (name == "MaxInt") return Val{std::max(a, b)};
    return Val{std::min(a, b)};
  }
  if (name == "AddFloat" || name == "SubtractFloat" || name == "MultiplyFloat" ||
      name == "DivideFloat") {
    auto v = floats(2);
    if (!v.ok()) return v.error();
    double a = (*v)[0], b = (*v)[1];
    if (name == "AddFloat") return Val{a + b};
    if (name == "SubtractFloat") return Val{a - b};
    if (name == "MultiplyFloat") return Val{a * b};
    return Val{a / b};
  }
  if (name == "Int") {
    if (auto a = arity(1); !a.ok()) return a.error();
    auto f = ToFloat64(name, args[0]);
    if (!f.ok()) return f.error();
    return Val{GoInt(*f)};
  }
  if (name == "JSON") {
    if (auto a = arity(1); !a.ok()) return a.error();
    auto j = Json(args[0]);
    if (!j.ok()) return Error::Invalid(fmt::format("error calling JSON: {}", j.error().message));
    return Val{std::move(j).value()};
  }
  if (name == "Lowercase") {
    if (args.size() != 1 || !std::holds_alternative<std::string>(args[0])) {
      return Error::Invalid("Lowercase: want one string argument");
    }
    std::string s = std::get<std::string>(args[0]);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return Val{s};
  }
  if (name == "printf") {
    auto s = Printf(args);
    if (!s.ok()) return s.error();
    return Val{std::move(s).value()};
  }
  if (name == "print") {
    std::string s;
    for (size_t k = 0; k < args.size(); ++k) {
      // Go's Sprint adds spaces between operands when neither is a string.
      if (k > 0 && !std::holds_alternative<std::string>(args[k]) &&
          !std::holds_alternative<std::string>(args[k - 1])) {
        s += ' ';
      }
      auto p = Print(args[k]);
      if (!p.ok()) return p.error();
      s += *p;
    }
    return Val{s};
  }
  if (name == "len") {
    if (auto a = arity(1); !a.ok()) return a.error();
    if (const auto* s = std::get_if<std::string>(&args[0]))
      return Val{static_cast<int64_t>(s->size())};
    if (const auto* l = std::get_if<const TemplateList*>(&args[0]))
      return Val{static_cast<int64_t>((*l)->items.size())};
    if (const auto* m = std::get_if<const TemplateData*>(&args[0]))
      return Val{static_cast<int64_t>((*m)->size())};
    return Error::Invalid(fmt::format("error calling len: len of type {}", TypeName(args[0])));
  }
  return Error::Invalid(fmt::format("function {:?} not defined", name));
}

}  // namespace corral::sim::go_template_detail
