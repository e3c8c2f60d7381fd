#include "corral/api/quantity.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "corral/api/strconv.h"

namespace corral::api {
namespace {

using Format = Quantity::Format;

constexpr Uint128 Pow10(int n) {
  Uint128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

constexpr Uint128 kNanoPerUnit = Pow10(9);
constexpr Uint128 kNanoPerMilli = Pow10(6);
// Exclusive bound on |nano_| (invariant (3) in the header): 10^38 < 2^127.
constexpr Uint128 kLimit = Pow10(38);
// kube caps BinarySI magnitudes at 2^63-1 (its `maxAllowed`).
constexpr Uint128 kMaxBinaryNano =
    static_cast<Uint128>(std::numeric_limits<int64_t>::max()) * kNanoPerUnit;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// The letters kube's scanner accepts at the start of a suffix.
bool IsSuffixLetter(char c) {
  switch (c) {
    case 'e':
    case 'E':
    case 'i':
    case 'n':
    case 'u':
    case 'm':
    case 'k':
    case 'K':
    case 'M':
    case 'G':
    case 'T':
    case 'P':
      return true;
    default:
      return false;
  }
}

struct Suffix {
  int base = 10;         // 10 or 2
  int32_t exponent = 0;  // power of `base`
  Format format = Format::kDecimalSI;
};

// kube's suffix interpretation: the fixed decimal and binary suffixes, else "e"/"E" followed by an
// int64 exponent that is then narrowed to int32 (kube's `int32(parsed)`, which wraps).
std::optional<Suffix> InterpretSuffix(std::string_view s) {
  struct Entry {
    std::string_view text;
    Suffix suffix;
  };
  static constexpr Entry kTable[] = {
      {"", {10, 0, Format::kDecimalSI}},   {"n", {10, -9, Format::kDecimalSI}},
      {"u", {10, -6, Format::kDecimalSI}}, {"m", {10, -3, Format::kDecimalSI}},
      {"k", {10, 3, Format::kDecimalSI}},  {"M", {10, 6, Format::kDecimalSI}},
      {"G", {10, 9, Format::kDecimalSI}},  {"T", {10, 12, Format::kDecimalSI}},
      {"P", {10, 15, Format::kDecimalSI}}, {"E", {10, 18, Format::kDecimalSI}},
      {"Ki", {2, 10, Format::kBinarySI}},  {"Mi", {2, 20, Format::kBinarySI}},
      {"Gi", {2, 30, Format::kBinarySI}},  {"Ti", {2, 40, Format::kBinarySI}},
      {"Pi", {2, 50, Format::kBinarySI}},  {"Ei", {2, 60, Format::kBinarySI}},
  };
  for (const Entry& e : kTable) {
    if (e.text == s) return e.suffix;
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::optional<int64_t> exp = ParseInt64(s.substr(1));
    if (!exp) return std::nullopt;
    const auto narrowed = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(*exp)));
    return Suffix{10, narrowed, Format::kDecimalExponent};
  }
  return std::nullopt;
}

// x * mul + add, saturating at kLimit. REQUIRES: add <= kLimit.
Uint128 SatMulAdd(Uint128 x, Uint128 mul, Uint128 add) {
  if (x >= kLimit) return kLimit;
  if (mul != 0 && x > (kLimit - add) / mul) return kLimit;
  return std::min(x * mul + add, kLimit);
}

// The digits of the number part, int and fraction digits read as one digit string.
class Digits {
 public:
  Digits(std::string_view int_part, std::string_view frac_part) : a_(int_part), b_(frac_part) {}
  uint64_t size() const { return a_.size() + b_.size(); }
  unsigned At(uint64_t i) const {
    const char c = i < a_.size() ? a_[i] : b_[i - a_.size()];
    return static_cast<unsigned>(c - '0');
  }

 private:
  std::string_view a_, b_;
};

// |digits × mult × 10^e10| rounded away from zero to an integer, saturating at kLimit. mult ≤ 2^60.
// The result is the magnitude in nano units when e10 already includes the +9 for nano.
Uint128 ScaledMagnitude(const Digits& digits, int64_t e10, Uint128 mult) {
  const uint64_t n = digits.size();
  if (e10 >= 0) {
    Uint128 x = 0;
    for (uint64_t i = 0; i < n; ++i) x = SatMulAdd(x, 10, digits.At(i));
    x = SatMulAdd(x, mult, 0);
    for (int64_t j = 0; j < e10 && x != 0 && x < kLimit; ++j) x = SatMulAdd(x, 10, 0);
    return x;
  }
  // The value is H × mult + R × mult / 10^k, where H is the digit string without its last k digits
  // and R is those k digits (with zeros on the left when the string is shorter than k).
  const auto k = static_cast<uint64_t>(-e10);
  const uint64_t head = n > k ? n - k : 0;
  Uint128 x = 0;
  for (uint64_t i = 0; i < head; ++i) x = SatMulAdd(x, 10, digits.At(i));
  x = SatMulAdd(x, mult, 0);
  // R × mult / 10^k by long multiplication from the least significant digit of R: after step i,
  // `carry` holds the part of the product above the i+1 lowest decimal places. carry < mult, so t <
  // 10 × 2^60.
  Uint128 carry = 0;
  bool inexact = false;
  for (uint64_t i = 0; i < k; ++i) {
    unsigned d = 0;
    if (i < n) {
      d = digits.At(n - 1 - i);
    } else if (carry == 0) {
      break;  // only zeros remain, which change nothing
    }
    const Uint128 t = d * mult + carry;
    inexact |= t % 10 != 0;
    carry = t / 10;
  }
  x = SatMulAdd(x, 1, carry);
  if (inexact) x = SatMulAdd(x, 1, 1);
  return x;
}

Error InvalidError(std::string_view msg) {
  return Error::Invalid(std::string(msg));
}

std::string Uint128ToString(Uint128 v) {
  char buf[48];
  char* p = buf + sizeof(buf);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(p, buf + sizeof(buf));
}

Uint128 Magnitude(Int128 v) {
  return v < 0 ? static_cast<Uint128>(0) - static_cast<Uint128>(v) : static_cast<Uint128>(v);
}

// nano / kDivisor rounded away from zero, saturated to int64. The 128-bit division is done as a
// long division in 32-bit limbs (the divisor is below 2^32), each step a 64-bit division by a
// constant, which the compiler turns into a multiplication: the same quotient and remainder as
// Uint128 division, without its library call.
template <uint32_t kDivisor>
int64_t DivideAwayFromZero(Int128 nano) {
  const Uint128 mag = Magnitude(nano);
  Uint128 q = 0;
  uint64_t rem = 0;
  for (int shift = 96; shift >= 0; shift -= 32) {
    const uint64_t cur = (rem << 32) | static_cast<uint32_t>(mag >> shift);
    q = (q << 32) | (cur / kDivisor);
    rem = cur % kDivisor;
  }
  if (rem != 0) ++q;
  if (nano >= 0) {
    return q > static_cast<Uint128>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(q);
  }
  if (q >= static_cast<Uint128>(uint64_t{1} << 63)) return std::numeric_limits<int64_t>::min();
  return -static_cast<int64_t>(q);
}

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view s) {
  if (s.empty()) return InvalidError(kErrFormatWrong);

  // Scan: [sign] digits* [. digits*] suffix-letters* [sign] digits*, nothing else.
  size_t pos = 0;
  const size_t n = s.size();
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    ++pos;
  }
  const size_t int_begin = pos;
  while (pos < n && IsDigit(s[pos])) ++pos;
  const std::string_view int_digits = s.substr(int_begin, pos - int_begin);
  std::string_view frac_digits;
  if (pos < n && s[pos] == '.') {
    const size_t frac_begin = ++pos;
    while (pos < n && IsDigit(s[pos])) ++pos;
    frac_digits = s.substr(frac_begin, pos - frac_begin);
  }
  const size_t suffix_begin = pos;
  while (pos < n && IsSuffixLetter(s[pos])) ++pos;
  if (pos < n && (s[pos] == '+' || s[pos] == '-')) ++pos;
  while (pos < n && IsDigit(s[pos])) ++pos;
  if (pos != n) return InvalidError(kErrFormatWrong);

  const std::optional<Suffix> suffix = InterpretSuffix(s.substr(suffix_begin));
  if (!suffix) return InvalidError(kErrSuffix);

  if (int_digits.empty() && frac_digits.empty()) {
    // No digit at all ("", "-", ".", "k", "Gi", "e3"): kube's int64 fast path reads this as zero,
    // but its inf.Dec path (taken for decimal exponents below -9 and for Pi/Ei) cannot parse a
    // digitless number.
    const bool slow_path = suffix->base == 10 ? suffix->exponent < -9 : suffix->exponent >= 50;
    if (slow_path) return InvalidError(kErrNumeric);
    return Quantity(0, suffix->format);
  }

  const Digits digits(int_digits, frac_digits);
  Uint128 mag;
  Format format = suffix->format;
  if (suffix->base == 2) {
    const int64_t e10 = 9 - static_cast<int64_t>(frac_digits.size());
    mag = ScaledMagnitude(digits, e10, Uint128{1} << suffix->exponent);
    mag = std::min(mag, kMaxBinaryNano);
    // kube: a BinarySI value strictly between 0 and 1 in magnitude is DecimalSI.
    if (mag != 0 && mag < kNanoPerUnit) format = Format::kDecimalSI;
  } else {
    const int64_t e10 = int64_t{suffix->exponent} + 9 - static_cast<int64_t>(frac_digits.size());
    mag = ScaledMagnitude(digits, e10, 1);
    if (mag >= kLimit) return InvalidError(kErrTooLarge);
  }
  const auto nano = static_cast<Int128>(mag);
  return Quantity(negative ? -nano : nano, format);
}

Quantity Quantity::FromMilli(int64_t milli, Format f) {
  return Quantity(static_cast<Int128>(milli) * static_cast<Int128>(kNanoPerMilli), f);
}

Quantity Quantity::FromInt(int64_t value, Format f) {
  return Quantity(static_cast<Int128>(value) * static_cast<Int128>(kNanoPerUnit), f);
}

int64_t Quantity::Value() const {
  return DivideAwayFromZero<static_cast<uint32_t>(kNanoPerUnit)>(nano_);
}

int64_t Quantity::MilliValue() const {
  return DivideAwayFromZero<static_cast<uint32_t>(kNanoPerMilli)>(nano_);
}

std::string Quantity::String() const {
  if (nano_ == 0) return "0";
  const Uint128 mag = Magnitude(nano_);
  std::string out = nano_ < 0 ? "-" : "";

  Format f = format_;
  // kube: BinarySI is used only for |v| ≥ 1024 with no fractional part; otherwise DecimalSI.
  if (f == Format::kBinarySI && (mag < 1024 * kNanoPerUnit || mag % kNanoPerUnit != 0)) {
    f = Format::kDecimalSI;
  }
  if (f == Format::kBinarySI) {
    static constexpr std::string_view kBinarySuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    Uint128 v = mag / kNanoPerUnit;
    size_t times = 0;
    while (times + 1 < std::size(kBinarySuffixes) && v % 1024 == 0) {
      v /= 1024;
      ++times;
    }
    out += Uint128ToString(v);
    out += kBinarySuffixes[times];
    return out;
  }

  // Decimal: move factors of ten into the exponent, then lower the exponent to a multiple of three.
  // The exponent starts at -9 (a multiple of three), so the mantissa never exceeds `mag`.
  Uint128 mantissa = mag;
  int exponent = -9;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  while (exponent % 3 != 0) {
    mantissa *= 10;
    --exponent;
  }
  if (f == Format::kDecimalExponent) {
    out += Uint128ToString(mantissa);
    if (exponent != 0) {
      out += 'e';
      out += std::to_string(exponent);
    }
    return out;
  }
  static constexpr std::string_view kDecimalSuffixes[] = {"n", "u", "m", "",  "k",
                                                          "M", "G", "T", "P", "E"};
  if (exponent >
      18) {  // beyond "E": keep the E suffix with a longer mantissa (kube drops the suffix)
    mantissa *= Pow10(exponent - 18);
    exponent = 18;
  }
  out += Uint128ToString(mantissa);
  out += kDecimalSuffixes[(exponent + 9) / 3];
  return out;
}

std::strong_ordering Quantity::operator<=>(const Quantity& o) const {
  if (nano_ < o.nano_) return std::strong_ordering::less;
  if (nano_ > o.nano_) return std::strong_ordering::greater;
  return std::strong_ordering::equal;
}

Result<Quantity> Quantity::Add(const Quantity& o) const {
  // |each| < 10^38 but the sum can reach 2 × 10^38 > 2^127, so the addition itself is checked.
  Int128 sum;
  if (__builtin_add_overflow(nano_, o.nano_, &sum) || Magnitude(sum) >= kLimit) {
    return InvalidError(kErrTooLarge);
  }
  return Quantity(sum, IsZero() ? o.format_ : format_);
}

Result<Quantity> Quantity::Sub(const Quantity& o) const {
  return Add(o.Negated());
}

Quantity Quantity::Negated() const {
  return Quantity(-nano_, format_);
}

}  // namespace corral::api
