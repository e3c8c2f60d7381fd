#pragma once
// resource.Quantity with kube's grammar and semantics (k8s.io/apimachinery/pkg/api/resource).
//
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= [+-] <digits> | [+-] <digits>.<digits> | [+-] .<digits> | [+-] <digits>.
//   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= e <signedNumber> | E <signedNumber>   (integer exponent)
//
// Values are exact: a Quantity holds an arbitrary-precision decimal within the range kube accepts
// (|value| < 2^63 * 10^3 after rounding up to milli precision is what the scheduler needs; larger values are
// rejected as overflowing rather than silently clamped). Value() and MilliValue() round up (towards +inf),
// as kube's do.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "corral/core/int128.h"
#include "corral/core/result.h"

namespace corral::api {

class Quantity {
 public:
  enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;  // zero, DecimalSI

  // Parses `s` in kube's grammar. Errors name what was wrong: "quantities must match the regular
  // expression ..." for malformed input (kube's ErrFormatWrong text), "quantity too large" for overflow.
  static Result<Quantity> Parse(std::string_view s);

  // Exact constructors.
  static Quantity FromMilli(int64_t milli, Format f = Format::kDecimalSI);
  static Quantity FromInt(int64_t value, Format f = Format::kDecimalSI);

  // Integer value rounded up (kube Value()); saturates at INT64 limits.
  int64_t Value() const;
  // Value × 1000 rounded up (kube MilliValue()); saturates at INT64 limits.
  int64_t MilliValue() const;

  bool IsZero() const { return nano_ == 0; }
  int Sign() const;
  Format format() const { return format_; }

  // kube's canonical String(): e.g. "100m", "1500Mi", "1k", "1e3" stays "1e3".
  std::string String() const;

  // Exact comparison (format ignored).
  std::strong_ordering operator<=>(const Quantity& o) const;
  bool operator==(const Quantity& o) const { return (*this <=> o) == 0; }

  // Exact arithmetic; errors on overflow. The result keeps this quantity's format.
  Result<Quantity> Add(const Quantity& o) const;
  Result<Quantity> Sub(const Quantity& o) const;

 private:
  // Exact value = nano_ / 10^9 (kube keeps at most nano precision; finer digits round up to a nano).
  Int128 nano_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace corral::api
