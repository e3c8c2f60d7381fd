// Parses arbitrary bytes as a resource.Quantity and checks the invariants the scheduler relies on:
//   1. Parse never crashes, and a failure carries one of Quantity's documented messages.
//   2. String() of a parsed quantity re-parses to an equal quantity, and printing is a fixed point
//      after that round trip. (The first round may change the format, as in kube: BinarySI
//      "312.5Ki" prints "320000", not a multiple of 1024, which re-parses as DecimalSI and
//      prints "320k".)
//   3. "-" + input parses to the negation, in the same format (input without a leading sign).
//   4. Value() is MilliValue() rounded away from zero again (nested rounding), unless either
//   saturates. 5. q + q - q == q whenever q + q is representable.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "corral/api/quantity.h"
#include "corral/core/check.h"

namespace {

using corral::Result;
using corral::api::Quantity;

bool IsKnownError(std::string_view msg) {
  return msg == Quantity::kErrFormatWrong || msg == Quantity::kErrNumeric ||
         msg == Quantity::kErrSuffix || msg == Quantity::kErrTooLarge;
}

// ceil-away(milli / 1000).
int64_t MilliToValue(int64_t milli) {
  const int64_t q = milli / 1000;
  if (milli % 1000 == 0) return q;
  return milli > 0 ? q + 1 : q - 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const Result<Quantity> q = Quantity::Parse(input);
  if (!q.ok()) {
    CORRAL_CHECK_MSG(IsKnownError(q.error().message), "unexpected parse error message");
    return 0;
  }

  const std::string s = q->String();
  const Result<Quantity> again = Quantity::Parse(s);
  CORRAL_CHECK_MSG(again.ok(), "String() does not re-parse");
  CORRAL_CHECK_MSG(*again == *q, "String() re-parses to a different value");
  const std::string s2 = again->String();
  const Result<Quantity> third = Quantity::Parse(s2);
  CORRAL_CHECK_MSG(third.ok() && *third == *q, "the second String() re-parses differently");
  CORRAL_CHECK_MSG(third->String() == s2, "String() is not a fixed point after a round trip");

  if (!input.empty() && input[0] != '-' && input[0] != '+') {
    const Result<Quantity> neg = Quantity::Parse("-" + std::string(input));
    CORRAL_CHECK_MSG(neg.ok(), "negated input does not parse");
    CORRAL_CHECK_MSG(*neg == q->Negated(), "negated input is not the negation");
    CORRAL_CHECK_MSG(neg->format() == q->format(), "negated input changes format");
  }

  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t milli = q->MilliValue();
  const int64_t value = q->Value();
  if (milli != kMax && milli != kMin) {
    CORRAL_CHECK_MSG(value == MilliToValue(milli), "Value() disagrees with MilliValue()");
  }
  CORRAL_CHECK_MSG(q->Sign() == (value > 0) - (value < 0), "Value() has the wrong sign");

  const Result<Quantity> twice = q->Add(*q);
  if (twice.ok()) {
    const Result<Quantity> back = twice->Sub(*q);
    CORRAL_CHECK_MSG(back.ok() && *back == *q, "q + q - q != q");
  }
  return 0;
}
