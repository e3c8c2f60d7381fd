#include "corral/api/quantity.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace corral::api {
namespace {

using Format = Quantity::Format;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr Format kDec = Format::kDecimalSI;
constexpr Format kBin = Format::kBinarySI;
constexpr Format kExp = Format::kDecimalExponent;

struct ValidCase {
  std::string_view input;
  std::string_view want_string;
  int64_t want_value;
  int64_t want_milli;
  Format want_format;
};

// Cases from kube's TestQuantityParse, TestQuantityParseEmit and TestQuantityString, plus the
// corners of kube's scanner. Value() and MilliValue() round away from zero.
const std::vector<ValidCase>& ValidCases() {
  static const auto* cases = new std::vector<ValidCase>{
      // Zeros keep their suffix's format but always print "0".
      {"0", "0", 0, 0, kDec},
      {"0n", "0", 0, 0, kDec},
      {"0m", "0", 0, 0, kDec},
      {"0Ki", "0", 0, 0, kBin},
      {"0Ti", "0", 0, 0, kBin},
      {"-0", "0", 0, 0, kDec},
      {"0e-1000", "0", 0, 0, kExp},
      // Plain integers; trailing zeros move into the suffix.
      {"1", "1", 1, 1000, kDec},
      {"-1", "-1", -1, -1000, kDec},
      {"+1", "1", 1, 1000, kDec},             // kube's String() would echo "+1"
      {"01", "1", 1, 1000, kDec},             // kube's String() would echo "01"
      {"1000", "1k", 1000, 1000000, kDec},    // 1000 = 1 × 10^3
      {"1100", "1100", 1100, 1100000, kDec},  // 11 × 10^2: exponent lowered to 0
      {"12000", "12k", 12000, 12000000, kDec},
      {"9223372036854775807", "9223372036854775807", kMax, kMax, kDec},  // milli saturates
      {"-9223372036854775808", "-9223372036854775808", kMin, kMin, kDec},
      // Fractions.
      {"0.1", "100m", 1, 100, kDec},  // ceil(0.1) = 1
      {"100m", "100m", 1, 100, kDec},
      {"1.5", "1500m", 2, 1500, kDec},
      {"-1.5", "-1500m", -2, -1500, kDec},  // away from zero: -1.5 → -2
      {"-0.5", "-500m", -1, -500, kDec},
      {".5", "500m", 1, 500, kDec},
      {"5.", "5", 5, 5000, kDec},
      {"1.", "1", 1, 1000, kDec},
      {"1.G", "1G", 1000000000, 1000000000000, kDec},
      {".001", "1m", 1, 1, kDec},
      {"0.0005k", "500m", 1, 500, kDec},  // 0.0005 × 1000 = 0.5
      {"100.035k", "100035", 100035, 100035000, kDec},
      {"10.035M", "10035k", 10035000, 10035000000, kDec},
      {"9.01", "9010m", 10, 9010, kDec},
      {"1n", "1n", 1, 1, kDec},  // ceil(1e-6 milli) = 1
      {"5n", "5n", 1, 1, kDec},
      {"4u", "4u", 1, 1, kDec},
      {"1080u", "1080u", 1, 2, kDec},  // 1.08 milli → 2
      // Decimal SI suffixes.
      {"8k", "8k", 8000, 8000000, kDec},
      {"50k", "50k", 50000, 50000000, kDec},
      {"1000M", "1G", 1000000000, 1000000000000, kDec},
      {"5T", "5T", 5000000000000, 5000000000000000, kDec},
      {"2.5P", "2500T", 2500000000000000, 2500000000000000000, kDec},  // 2.5e18 < 2^63-1
      {"1E", "1E", 1000000000000000000, kMax, kDec},
      {"12E", "12E", kMax, kMax, kDec},      // 1.2e19 > 2^63-1: saturates
      {"1000E", "1000E", kMax, kMax, kDec},  // kube would print "1"
      // Decimal exponents print as <mantissa>e<multiple of 3>.
      {"1e3", "1e3", 1000, 1000000, kExp},
      {"1E3", "1e3", 1000, 1000000, kExp},  // kube's String() would echo "1E3"
      {"1e+3", "1e3", 1000, 1000000, kExp},
      {"5e-3", "5e-3", 1, 5, kExp},
      {"5e0", "5", 5, 5000, kExp},
      {"1E-3", "1e-3", 1, 1, kExp},
      {"1.2e3", "1200", 1200, 1200000, kExp},  // 12 × 10^2 → 1200 × 10^0
      {"1.3E+6", "1300e3", 1300000, 1300000000, kExp},
      {"0.5e-2", "5e-3", 1, 5, kExp},
      {"1e21", "1e21", kMax, kMax, kExp},
      {"1e4294967296", "1", 1, 1000, kExp},          // kube narrows 2^32 to int32: exponent 0
      {"1e4294967299", "1e3", 1000, 1000000, kExp},  // 2^32 + 3 → 3
      // Rounding finer than a nano: away from zero.
      {"3.001n", "4n", 1, 1, kDec},
      {"0.9n", "1n", 1, 1, kDec},
      {"0.0000000001", "1n", 1, 1, kDec},
      {"-0.0000000001", "-1n", -1, -1, kDec},
      {"0.00000012345", "124n", 1, 1, kDec},  // 123.45n → 124n
      {"1.1E-9", "2e-9", 1, 1, kExp},
      {"0.5e-9", "1e-9", 1, 1, kExp},
      {"1e-1000000", "1e-9", 1, 1, kExp},
      // Binary SI.
      {"1Ki", "1Ki", 1024, 1024000, kBin},
      {"8Ki", "8Ki", 8192, 8192000, kBin},
      {"1Mi", "1Mi", 1048576, 1048576000, kBin},
      {"1024Mi", "1Gi", 1073741824, 1073741824000, kBin},
      {"1.5Gi", "1536Mi", 1610612736, 1610612736000, kBin},  // 1.5 × 2^30 = 1536 × 2^20
      {"1.5Ki", "1536", 1536, 1536000, kBin},                // 1536 is not a multiple of 1024
      {"1025Ki", "1025Ki", 1049600, 1049600000, kBin},
      {"312.5Ki", "320000", 320000, 320000000,
       kBin},  // 320000 = 312.5 × 1024: no binary suffix fits
      {"100Ti", "100Ti", 109951162777600, 109951162777600000, kBin},
      {"7Ei", "7Ei", 8070450532247928832, kMax, kBin},  // 7 × 2^60
      {"100.035Ki", "102435840m", 102436, 102435840,
       kBin},  // 102435.84: not an integer → DecimalSI
      {"0.5Mi", "512Ki", 524288, 524288000, kBin},
      {".001Ki", "1024m", 2, 1024, kBin},  // 1.024: |v| < 1024 prints as DecimalSI
      {".000001Ki", "1024u", 1, 2, kDec},  // 0.001024 < 1: format becomes DecimalSI
      {".000000001Ki", "1024n", 1, 1, kDec},
      {".000000000001Ki", "2n", 1, 1, kDec},  // 1.024n → 2n
      {"-1Ki", "-1Ki", -1024, -1024000, kBin},
      // BinarySI magnitudes above 2^63-1 are capped, as kube does.
      {"8Ei", "9223372036854775807", kMax, kMax, kBin},  // 2^63 → 2^63-1
      {"9Ei", "9223372036854775807", kMax, kMax, kBin},
      {"9223372036854775807Ki", "9223372036854775807", kMax, kMax, kBin},
      {"9223372036854775808Ei", "9223372036854775807", kMax, kMax, kBin},
      {"-9Ei", "-9223372036854775807", -kMax, kMin, kBin},
      // The largest decimal magnitude Corral accepts: 10^29 - 1.
      {"99999999999999999999999999999", "99999999999999999999999999999", kMax, kMax, kDec},
      // kube's scanner reads a number without digits as zero (unless its inf.Dec path is needed).
      {"-", "0", 0, 0, kDec},
      {".", "0", 0, 0, kDec},
      {"-.", "0", 0, 0, kDec},
      {"k", "0", 0, 0, kDec},
      {"Gi", "0", 0, 0, kBin},
      {"e3", "0", 0, 0, kExp},
  };
  return *cases;
}

TEST(QuantityTest, ParsesLikeKube) {
  for (const ValidCase& tc : ValidCases()) {
    SCOPED_TRACE(tc.input);
    Result<Quantity> q = Quantity::Parse(tc.input);
    ASSERT_TRUE(q.ok()) << q.error().message;
    EXPECT_EQ(q->String(), tc.want_string);
    EXPECT_EQ(q->Value(), tc.want_value);
    EXPECT_EQ(q->MilliValue(), tc.want_milli);
    EXPECT_EQ(q->format(), tc.want_format);
    // The canonical string parses back to the same value.
    Result<Quantity> again = Quantity::Parse(q->String());
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(*again, *q);
  }
}

TEST(QuantityTest, RoundTripMayChangeFormatOnceLikeKube) {
  // A BinarySI value that no binary suffix divides prints as a plain number, which parses
  // as DecimalSI.
  const Quantity q = Quantity::Parse("312.5Ki").value();  // 320000 = 312.5 × 1024
  EXPECT_EQ(q.String(), "320000");
  const Quantity again = Quantity::Parse(q.String()).value();
  EXPECT_EQ(again, q);
  EXPECT_EQ(again.format(), Format::kDecimalSI);
  EXPECT_EQ(again.String(), "320k");
  EXPECT_EQ(Quantity::Parse("320k").value().String(), "320k");  // stable from here on
}

TEST(QuantityTest, NegatedInputParsesToNegatedValue) {
  // kube's TestQuantityParse also parses "-" + every input; the result is the exact negation.
  for (const ValidCase& tc : ValidCases()) {
    if (tc.input.starts_with('-') || tc.input.starts_with('+')) continue;
    SCOPED_TRACE(tc.input);
    Result<Quantity> pos = Quantity::Parse(tc.input);
    Result<Quantity> neg = Quantity::Parse("-" + std::string(tc.input));
    ASSERT_TRUE(pos.ok());
    ASSERT_TRUE(neg.ok());
    EXPECT_EQ(*neg, pos->Negated());
    EXPECT_EQ(neg->format(), pos->format());
    if (!pos->IsZero()) {
      EXPECT_EQ(neg->String(), "-" + pos->String());
    }
  }
}

struct InvalidCase {
  std::string_view input;
  std::string_view want_error;
};

TEST(QuantityTest, RejectsLikeKube) {
  const std::string_view format = Quantity::kErrFormatWrong;
  const std::string_view suffix = Quantity::kErrSuffix;
  const std::string_view numeric = Quantity::kErrNumeric;
  const std::string_view too_large = Quantity::kErrTooLarge;
  const InvalidCase cases[] = {
      {"", format},
      {" 1", format},  // whitespace is the caller's to trim
      {"1 ", format},
      {"aoeu", format},
      {"abc", format},
      {"1.1.M", format},
      {"1+1.0M", format},  // suffix "+1" then "." is left over
      {"0.1am", format},
      {"1,000", format},
      {"0x10", format},
      {"1e3.5", format},
      {"1E3k", format},
      {"1e3 ", format},
      {"0.1mi", suffix},
      {".5i", suffix},
      {"1i", suffix},
      {"-3.01i", suffix},
      {"-3.01e-", suffix},  // ParseInt("-") fails
      {"1e", suffix},
      {"1E+", suffix},
      {"1ee3", suffix},
      {"1K", suffix},  // the decimal kilo suffix is lower-case
      {"1ki", suffix},
      {"1KI", format},  // "I" is not a suffix letter
      {"1Ki3", suffix},
      {"1Mi1", suffix},
      {"--1", suffix},                    // sign, no digits, then suffix "-1"
      {"1e9223372036854775808", suffix},  // exponent overflows int64
      {"Pi", numeric},                    // kube's inf.Dec path needs a digit
      {"-Ei", numeric},
      {".e-10", numeric},
      {"1e29", too_large},  // Corral's bound: |value| < 10^29
      {"100000000000000000000000000000", too_large},
      {"-1e29", too_large},
      {"1e2147483647", too_large},
  };
  for (const InvalidCase& tc : cases) {
    SCOPED_TRACE(tc.input);
    Result<Quantity> q = Quantity::Parse(tc.input);
    ASSERT_FALSE(q.ok()) << q->String();
    EXPECT_EQ(q.error().message, tc.want_error);
    EXPECT_EQ(q.error().code, ErrorCode::kInvalidInput);
  }
}

Quantity Q(std::string_view s) {
  return Quantity::Parse(s).value();
}

TEST(QuantityTest, ComparesExactlyAcrossFormats) {
  struct Case {
    std::string_view x, y;
    int want;  // sign of x - y
  };
  const Case cases[] = {
      {"0", "0", 0},
      {"100m", "50m", 1},
      {"50m", "100m", -1},
      {"10000T", "100Gi", 1},  // 10^16 > 100 × 2^30 ≈ 1.07e11
      {"1Ki", "1024", 0},
      {"1k", "1e3", 0},
      {"1", "1000m", 0},
      {"1n", "0", 1},
      {"-1n", "0", -1},
      {"1Gi", "1G", 1},           // 1073741824 > 10^9
      {"0.0000000001", "1n", 0},  // rounded up at parse time
      {"9Ei", "9223372036854775807", 0},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(std::string(tc.x) + " vs " + std::string(tc.y));
    const Quantity x = Q(tc.x), y = Q(tc.y);
    const int got = (x <=> y) < 0 ? -1 : ((x <=> y) > 0 ? 1 : 0);
    EXPECT_EQ(got, tc.want);
    EXPECT_EQ(x == y, tc.want == 0);
  }
}

TEST(QuantityTest, AddAndSubAreExactAndZeroTakesTheOtherFormat) {
  struct Case {
    std::string_view a, b;
    std::string_view want_sum, want_diff;
  };
  const Case cases[] = {
      {"10", "1e1", "20", "0"},        // kube TestAdd/TestSub: 10 + 10 = 20
      {"10", "1Ki", "1034", "-1014"},  // DecimalSI keeps its format
      {"1Ki", "1", "1025", "1023"},    // 1025 is not a multiple of 1024: printed as DecimalSI
      {"2Ki", "1Ki", "3Ki", "1Ki"},
      {"0", "50", "50", "-50"},
      {"50", "0", "50", "50"},
      {"0", "1Gi", "1Gi", "-1Gi"},  // zero takes the other's format
                                    // (TestQuantityAddZeroPreservesSuffix)
      {"100m", "0", "100m", "100m"},
      {"100m", "900m", "1", "-800m"},
      {"1n", "1n", "2n", "0"},
      {"0", "0", "0", "0"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(std::string(tc.a) + " op " + std::string(tc.b));
    Result<Quantity> sum = Q(tc.a).Add(Q(tc.b));
    Result<Quantity> diff = Q(tc.a).Sub(Q(tc.b));
    ASSERT_TRUE(sum.ok());
    ASSERT_TRUE(diff.ok());
    EXPECT_EQ(sum->String(), tc.want_sum);
    EXPECT_EQ(diff->String(), tc.want_diff);
  }
  // Sums beyond int64 stay exact; 8Ei + 8Ei = 2^64 does not fit an int64 but is representable.
  Result<Quantity> big = Q("7Ei").Add(Q("7Ei"));  // 14 × 2^60
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->String(), "14Ei");
  EXPECT_EQ(big->Value(), kMax);
  Result<Quantity> bigger =
      Q("1024Ei").Add(Q("1024Ei"));  // parsed values are capped at 2^63-1 first
  ASSERT_TRUE(bigger.ok());
  EXPECT_EQ(bigger->String(), "18446744073709551614");  // 2 × (2^63 - 1)
  // Overflow of Corral's bound is an error, not a wrap.
  const Quantity near = Q("99999999999999999999999999999");
  Result<Quantity> over = near.Add(Q("1"));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, Quantity::kErrTooLarge);
  Result<Quantity> under = near.Negated().Sub(Q("1"));
  ASSERT_FALSE(under.ok());
  // Found by quantity_fuzz: the sum of two values near the bound exceeds Int128 itself (2e38
  // > 2^127).
  ASSERT_FALSE(near.Add(near).ok());
  ASSERT_FALSE(near.Negated().Sub(near).ok());
  ASSERT_FALSE(Q("92233720367580E15").Add(Q("92233720367580E15")).ok());  // the fuzzer's input
}

TEST(QuantityTest, ConstructorsMatchNewQuantityAndNewMilliQuantity) {
  // kube TestNewSet and TestMilliNewSet.
  EXPECT_EQ(Quantity::FromInt(1).String(), "1");
  EXPECT_EQ(Quantity::FromInt(1000).String(), "1k");
  EXPECT_EQ(Quantity::FromInt(1234000).String(), "1234k");
  EXPECT_EQ(Quantity::FromInt(1024, kBin).String(), "1Ki");
  EXPECT_EQ(Quantity::FromInt(1024 * 1024, kBin).String(), "1Mi");
  EXPECT_EQ(Quantity::FromInt(1000000, kExp).String(), "1e6");
  EXPECT_EQ(Quantity::FromMilli(1).String(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000).String(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000).String(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, kBin).String(), "1024m");            // |v| < 1024
  EXPECT_EQ(Quantity::FromMilli(1024 * 1024, kBin).String(), "1048576m");  // 1048.576 not integral
  EXPECT_EQ(Quantity::FromMilli(1000000, kExp).String(), "1e3");
  EXPECT_EQ(Quantity::FromMilli(kMax).MilliValue(), kMax);
  EXPECT_EQ(Quantity::FromMilli(kMin).MilliValue(), kMin);
  EXPECT_EQ(Quantity::FromInt(kMin).Value(), kMin);
  EXPECT_EQ(Quantity::FromInt(kMin).MilliValue(), kMin);  // saturates
  EXPECT_EQ(Quantity::FromMilli(-1).Value(), -1);         // away from zero
  EXPECT_EQ(Quantity().String(), "0");
  EXPECT_EQ(Quantity().format(), kDec);
  EXPECT_EQ(Q("-5").Sign(), -1);
  EXPECT_EQ(Q("0Ki").Sign(), 0);
  EXPECT_EQ(Q("1n").Sign(), 1);
}

TEST(QuantityTest, StringMatchesKubeCanonicalForms) {
  // kube TestQuantityString: (value, format) → canonical string, built here through FromMilli
  // or Parse.
  struct Case {
    Quantity q;
    std::string_view want;
  };
  const Case cases[] = {
      {Quantity::FromInt(300 * 1024 * 1024, kBin), "300Mi"},
      {Quantity::FromInt(int64_t{1001} * 1024 * 1024 * 1024, kBin), "1001Gi"},
      {Quantity::FromInt(int64_t{1024} * 1024 * 1024 * 1024, kBin), "1Ti"},
      {Quantity::FromInt(5, kBin), "5"},
      {Quantity::FromMilli(500, kBin), "500m"},
      {Quantity::FromInt(1000000000), "1G"},
      {Quantity::FromMilli(1080), "1080m"},
      {Quantity::FromInt(1234567000000), "1234567M"},
      {Quantity::FromMilli(1234567, kBin), "1234567m"},
      {Quantity::FromInt(1025, kBin), "1025"},
      {Quantity::FromMilli(80, kExp), "80e-3"},
      {Quantity::FromInt(300000000, kExp), "300e6"},
      {Quantity::FromInt(1000000000000, kExp), "1e12"},
      {Quantity::FromInt(3000, kExp), "3e3"},
      {Q("80n"), "80n"},
      {Q("1080n"), "1080n"},
      {Q("10800e-10"), "1080e-9"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.want);
    EXPECT_EQ(tc.q.String(), tc.want);
    if (!tc.q.IsZero()) {
      EXPECT_EQ(tc.q.Negated().String(), "-" + std::string(tc.want));
    }
  }
}

}  // namespace
}  // namespace corral::api
