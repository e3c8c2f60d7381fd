#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/helper/field_errors.h"
#include "corral/plugins/helper/shape_score.h"

namespace corral::plugins::helper {
namespace {

// kube's TestBrokenLinearFunction.
TEST(BrokenLinearTest, MatchesKube) {
  struct Case {
    std::vector<FunctionShapePoint> shape;
    std::vector<std::pair<int64_t, int64_t>> points;  // p -> f(p)
  };
  const Case cases[] = {
      // 1 + (9-1)*(p-10)/(90-10): p=15 -> 1 + 8*5/80 = 1; p=20 -> 1 + 80/80 = 2; p=89 -> 1 + 632/80
      // = 8
      {{{10, 1}, {90, 9}},
       {{-10, 1},
        {0, 1},
        {9, 1},
        {10, 1},
        {15, 1},
        {19, 1},
        {20, 2},
        {89, 8},
        {90, 9},
        {99, 9},
        {100, 9},
        {110, 9}}},
      // p=20 -> 2 + 8*20/40 = 6; p=70 -> 10 + (0-10)*30/60 = 5
      {{{0, 2}, {40, 10}, {100, 0}},
       {{-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}}},
      {{{0, 2}, {40, 2}, {100, 2}},
       {{-10, 2}, {0, 2}, {20, 2}, {30, 2}, {40, 2}, {70, 2}, {100, 2}, {110, 2}}},
  };
  for (const Case& c : cases) {
    for (const auto& [p, want] : c.points) EXPECT_EQ(BrokenLinear(c.shape, p), want) << "p=" << p;
  }
}

TEST(FieldErrorsTest, FormatsLikeApimachinery) {
  FieldErrors errs;
  EXPECT_TRUE(errs.ToResult().ok());
  const FieldPath strategy = FieldPath().Child("scoringStrategy");
  errs.Invalid(strategy.Child("resources").Index(0).Child("weight"), int64_t{101},
               "resource weight of cpu not in valid range (0, 100]");
  ASSERT_FALSE(errs.ToResult().ok());
  EXPECT_EQ(errs.ToResult().error().message,
            "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not "
            "in valid "
            "range (0, 100]");
  const std::string_view supported[] = {"A", "B"};
  errs.NotSupported(strategy.Child("type"), "C", supported);
  errs.Duplicate(FieldPath("args").Child("resources").Index(1).Child("name"), "cpu");
  errs.Required(strategy.Child("shape"), "at least one point must be specified");
  EXPECT_EQ(
      errs.ToResult().error().message,
      "[scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in "
      "valid "
      "range (0, 100], scoringStrategy.type: Unsupported value: \"C\": supported values: \"A\", "
      "\"B\", args.resources[1].name: Duplicate value: \"cpu\", scoringStrategy.shape: Required "
      "value: at least one point must be specified]");
}

TEST(FieldErrorsTest, AggregateDropsDuplicateMessages) {
  FieldErrors errs;
  errs.Invalid(FieldPath().Child("x"), "a\"b\n", "bad");
  errs.Invalid(FieldPath().Child("x"), "a\"b\n", "bad");
  EXPECT_EQ(errs.ToResult().error().message, "x: Invalid value: \"a\\\"b\\n\": bad");
}

}  // namespace
}  // namespace corral::plugins::helper
