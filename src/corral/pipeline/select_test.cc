#include "corral/pipeline/select.h"

#include <vector>

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

TEST(SelectBestTest, HighestScoreThenHighestTieKeyThenFirst) {
  const std::vector<int64_t> score = {5, 9, 9, 9, 1};
  const std::vector<uint64_t> tie = {99, 3, 7, 7, 100};
  auto s = [&](size_t i) { return score[i]; };
  auto t = [&](size_t i) { return tie[i]; };
  EXPECT_EQ(SelectBest(score.size(), s, t), 2u);  // 9 with tie 7; index 3 ties it and is later
  EXPECT_EQ(SelectBest(score.size(), s, [](size_t) { return uint64_t{0}; }), 1u);
  EXPECT_EQ(SelectBest(0, s, t), kNone);
}

TEST(SelectBestTest, NegativeScoresAreComparedToo) {
  const std::vector<int64_t> score = {-5, -1, -3};
  EXPECT_EQ(SelectBest(
                3, [&](size_t i) { return score[i]; }, [](size_t) { return uint64_t{0}; }),
            1u);
}

TEST(SelectTopKTest, SameOrderAsSelectBest) {
  const std::vector<int64_t> score = {5, 9, 9, 9, 1};
  const std::vector<uint64_t> tie = {99, 3, 7, 7, 100};
  std::vector<size_t> out;
  auto s = [&](size_t i) { return score[i]; };
  auto t = [&](size_t i) { return tie[i]; };
  SelectTopK(score.size(), 3, s, t, &out);
  EXPECT_EQ(out, (std::vector<size_t>{2, 3, 1}));
  SelectTopK(score.size(), 10, s, t, &out);
  EXPECT_EQ(out, (std::vector<size_t>{2, 3, 1, 0, 4}));
  EXPECT_EQ(out.front(), SelectBest(score.size(), s, t));
}

}  // namespace
}  // namespace corral::pipeline
