#include "corral/pipeline/normalize.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

// kube's TestDefaultNormalizeScore.
TEST(DefaultNormalizeScoreTest, MatchesKube) {
  struct Case {
    std::string name;
    bool reverse;
    std::vector<int64_t> scores;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      // max 10: 100*s/10.
      {"forward",
       false,
       {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
       {10, 20, 30, 40, 50, 60, 70, 80, 90, 100}},
      // then 100 - that.
      {"reverse", true, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {90, 80, 70, 60, 50, 40, 30, 20, 10, 0}},
      // max 10000: 100*s/10000 truncates (1000 -> 10, 1500 -> 15, 3333 -> 33).
      {"forward large", false, {1000, 1500, 3333, 10000}, {10, 15, 33, 100}},
      {"reverse large", true, {1000, 1500, 3333, 10000}, {90, 85, 67, 0}},
      {"all zero forward", false, {0, 0, 0}, {0, 0, 0}},
      {"all zero reverse", true, {0, 0, 0}, {100, 100, 100}},
      {"empty", true, {}, {}},
      // kube's own table: max 4 -> 25, 50, 75, 100; max 1000 -> 100*10/1000 = 1, ...
      {"kube forward", false, {1, 2, 3, 4}, {25, 50, 75, 100}},
      {"kube reverse", true, {1, 2, 3, 4}, {75, 50, 25, 0}},
      {"kube forward uneven", false, {1000, 10, 20, 30}, {100, 1, 2, 3}},
      {"kube reverse uneven", true, {1000, 10, 20, 30}, {0, 99, 98, 97}},
      {"kube all equal", false, {1, 1, 1, 1}, {100, 100, 100, 100}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<TargetScore> scores;
    for (int64_t s : tc.scores) scores.push_back({Symbol(), s});
    EXPECT_TRUE(DefaultNormalizeScore(kMaxScore, tc.reverse, scores).ok());
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, tc.want);
  }
}

}  // namespace
}  // namespace corral::pipeline
