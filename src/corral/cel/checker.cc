#include "corral/cel/checker.h"

#include <initializer_list>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace corral::cel::internal {
namespace {

struct Checker {
  Program::Impl* impl;

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
        // An attribute value may be a list (DRAListTypeAttributes): `attr[i]`, checked at run time.
        if (base == Ty::kDyn && (key == Ty::kInt || key == Ty::kDyn)) return m.ty = Ty::kDyn;
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
        const bool equality = m.op == Op::kEq || m.op == Op::kNe;
        // A list literal against an attribute value, which may be a list (DRAListTypeAttributes).
        if (equality && ((a == Ty::kList && b == Ty::kDyn) || (a == Ty::kDyn && b == Ty::kList))) {
          return m.ty = Ty::kBool;
        }
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
            // A list attribute (DRAListTypeAttributes); any other value fails at run time.
            if (a == Ty::kList || a == Ty::kDevice || a == Ty::kAttrMap || a == Ty::kCapMap ||
                a == Ty::kAttrDomain || a == Ty::kCapDomain) {
              NoOverload(m, "@in", {a, b});
            }
            break;
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
    if (name == "includes") {
      // kube's DRAListTypeAttributes function (dyn, dyn) -> bool: list membership, or equality of
      // a scalar.
      Arity(n, 1);
      if (recv == Ty::kList || arg_ty(0) == Ty::kList) {
        Fail(n.col, true, "'includes' of a list literal");
      }
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

}  // namespace

Ty Check(Program::Impl* program, int root) {
  Checker c{program};
  return c.Check(root);
}

}  // namespace corral::cel::internal
