#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "corral/cel/ast.h"
#include "corral/cel/cel.h"

namespace corral::cel {

using internal::Node;
using internal::Op;
using internal::Ty;
using internal::TyName;

namespace {

struct Value {
  Ty ty = Ty::kError;
  bool b = false;
  int64_t i = 0;
  std::string_view s;
  api::Quantity q;
  Version v;
  int list = -1;                         // kList: node index
  const AttributeValue* attr = nullptr;  // kAttrList: the list attribute
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
    if (a.is_list()) {
      v.ty = Ty::kAttrList;
      v.attr = &a;
      return v;
    }
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

  // The elements of a list value (a literal's or a list attribute's), evaluated. False on an
  // error in a literal's element.
  bool Elements(const Value& l, std::vector<Value>* out) {
    out->clear();
    if (l.ty == Ty::kAttrList) {
      for (const AttributeValue& e : l.attr->list) out->push_back(FromAttribute(e));
      return true;
    }
    for (int e : nodes[l.list].args) {
      Value x = Eval(e);
      if (x.ty == Ty::kError) return false;
      out->push_back(x);
    }
    return true;
  }

  // CEL equality; values of different types are unequal. Lists are equal when their elements
  // are, pairwise. An error in a list literal's element makes the result an error.
  Value EqualValue(const Value& a, const Value& b) {
    const bool la = a.ty == Ty::kList || a.ty == Ty::kAttrList;
    const bool lb = b.ty == Ty::kList || b.ty == Ty::kAttrList;
    if (!la || !lb) return Bool(Equal(a, b));
    std::vector<Value> xa, xb;
    if (!Elements(a, &xa) || !Elements(b, &xb)) return Value{};
    if (xa.size() != xb.size()) return Bool(false);
    for (size_t i = 0; i < xa.size(); ++i) {
      if (!Equal(xa[i], xb[i])) return Bool(false);
    }
    return Bool(true);
  }

  // Membership of `x` in the list attribute `l` (CEL's `in`, kube's `includes`).
  Value ListContains(const Value& l, const Value& x) {
    for (const AttributeValue& e : l.attr->list) {
      if (Equal(FromAttribute(e), x)) return Bool(true);
    }
    return Bool(false);
  }

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
    if (op == Op::kEq || op == Op::kNe) {
      Value eq = EqualValue(a, b);
      if (eq.ty == Ty::kError || op == Op::kEq) return eq;
      return Bool(!eq.b);
    }
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
      if (r.ty == Ty::kAttrList) return Int(static_cast<int64_t>(r.attr->list.size()));
      if (r.ty != Ty::kString) return Err("no such overload");
      return Int(CodePoints(r.s));
    }
    if (name == "includes") {
      Value a = Eval(n.args[0]);
      if (a.ty == Ty::kError) return a;
      if (r.ty == Ty::kAttrList) return ListContains(r, a);
      return EqualValue(r, a);
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
        if (base.ty == Ty::kAttrList && key.ty == Ty::kInt) {
          if (key.i < 0 || key.i >= static_cast<int64_t>(base.attr->list.size())) {
            return Err(fmt::format("index out of bounds: {}", key.i));
          }
          return FromAttribute(base.attr->list[static_cast<size_t>(key.i)]);
        }
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
        if (b.ty == Ty::kAttrList) return ListContains(b, a);
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
        if (a.ty == Ty::kAttrList) return Int(static_cast<int64_t>(a.attr->list.size()));
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
