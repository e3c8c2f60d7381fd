#pragma once
// resource.Quantity with kube's grammar and semantics (k8s.io/apimachinery/pkg/api/resource).
//
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= [+-] <digits> | [+-] <digits>.<digits> | [+-] .<digits> | [+-] <digits>.
//   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= e <signedInteger> | E <signedInteger>
//
// Parsing follows kube's scanner, including its permissive corners: "1." and ".5" are numbers, a
// bare sign or "." is zero, "Gi" alone is a BinarySI zero, and an exponent is read as an int64 and
// then narrowed to int32 the way kube does (so "1e4294967296" is 1). Whitespace is not stripped: "
// 1" is an error, as in ParseQuantity (kube's JSON decoder trims before parsing; the loader's YAML
// scalars are already trimmed).
//
// Value and range:
//   1. A Quantity is an exact multiple of 10^-9. Digits finer than a nano are rounded away from
//      zero at parse time, as kube does ("0.1n" is 1n, "-0.1n" is -1n).
//   2. A BinarySI value whose magnitude exceeds 2^63-1 is capped at 2^63-1, as kube does ("9Ei"
//      is 9223372036854775807).
//   3. Other magnitudes must be below 10^29 (10^38 nano units); larger input is rejected with
//      "quantity too large". Kube keeps such decimal values exactly (as inf.Dec) but no resource
//      the scheduler compares comes near this, and kube's own Value() of them is meaningless (0 or
//      a wrapped int64).
//   4. Value() and MilliValue() round away from zero (kube's documented contract and the result of
//      its int64 fast path; its inf.Dec path rounds some negative values towards +inf instead) and
//      saturate at the int64 limits (where kube returns 0 or a wrapped value).
//
// String() is kube's canonical form (CanonicalizeBytes): the largest suffix that keeps an integer
// mantissa, e.g. "0.1" → "100m", "1.5Gi" → "1536Mi", "1000" → "1k", "1e3" → "1e3", "1.5" → "1500m".
// Differences:
//   - kube's String() of a freshly parsed value echoes the input when it believes the input is
//     canonical, which leaks spellings such as "+1", "01", "1E3", "1e+3" and "5e0"; Corral always
//     prints the canonical form ("1", "1", "1e3", "1e3", "5").
//   - A DecimalSI value of 10^21 or more prints with an "E" suffix ("1000E"); kube drops the suffix
//     and prints "1", which does not re-parse to the same value. A BinarySI value with more than
//     six factors of 1024 prints in Ei ("1024Ei"), where kube again drops the suffix.

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

  // kube's parse error texts (ErrFormatWrong, ErrNumeric, ErrSuffix), returned verbatim by Parse.
  static constexpr std::string_view kErrFormatWrong =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  static constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
  static constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";
  // Corral's own error for a magnitude of 10^29 or more (see (3) above).
  static constexpr std::string_view kErrTooLarge =
      "quantity too large (magnitudes must be below 1e29)";

  Quantity() = default;  // zero, DecimalSI

  // Parses `s` in kube's grammar. Errors carry kube's message (kErrFormatWrong for malformed input,
  // kErrSuffix for an unknown suffix such as "1Ki3" or "1e", kErrNumeric for a number with no
  // digits where kube's slow path needs one, e.g. "Pi"), or kErrTooLarge. Errors
  // have ErrorCode::kInvalidInput.
  static Result<Quantity> Parse(std::string_view s);

  // Exact constructors (kube NewMilliQuantity, NewQuantity).
  static Quantity FromMilli(int64_t milli, Format f = Format::kDecimalSI);
  static Quantity FromInt(int64_t value, Format f = Format::kDecimalSI);

  // Integer value, rounded away from zero (kube Value()); saturates at the int64 limits.
  int64_t Value() const;
  // Value × 1000, rounded away from zero (kube MilliValue()); saturates at the int64 limits.
  int64_t MilliValue() const;

  bool IsZero() const { return nano_ == 0; }
  int Sign() const { return nano_ > 0 ? 1 : (nano_ < 0 ? -1 : 0); }
  Format format() const { return format_; }

  // kube's canonical String() (see above). "0" for zero in every format.
  std::string String() const;

  // Exact comparison (format ignored), kube Cmp.
  std::strong_ordering operator<=>(const Quantity& o) const;
  bool operator==(const Quantity& o) const { return nano_ == o.nano_; }

  // Exact arithmetic; errors (kInvalidInput) when the magnitude of the result reaches 10^29. The
  // result keeps this quantity's format, except that a zero takes `o`'s format (kube Add/Sub: 0 +
  // 1Gi is "1Gi").
  Result<Quantity> Add(const Quantity& o) const;
  Result<Quantity> Sub(const Quantity& o) const;
  // -q, same format (kube Neg).
  Quantity Negated() const;

 private:
  Quantity(Int128 nano, Format f) : nano_(nano), format_(f) {}

  // Exact value = nano_ / 10^9; |nano_| < 10^38.
  Int128 nano_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace corral::api
