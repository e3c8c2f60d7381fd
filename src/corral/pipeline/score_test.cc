#include "corral/pipeline/score.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

struct Target {
  int64_t value;
};
struct Entry {
  std::string name;
  int32_t weight;
  int64_t factor;  // raw = value × factor
  bool normalize;  // normalized = raw / 2
};

Status RunTable(const std::vector<Entry>& entries, const std::vector<const Target*>& targets,
                ScoreTable<Target>* out, size_t skip = SIZE_MAX) {
  return RunScoreTable<Target>(
      std::span<const Entry>(entries), std::span<const Target* const>(targets), out,
      [&](size_t i) { return i != skip; },
      [](const Entry& e, const Target& t, int64_t* raw) {
        if (e.factor < 0) return Status::Error("boom");
        *raw = t.value * e.factor;
        return Status();
      },
      [](const Entry& e, std::span<const int64_t> raw, std::span<int64_t> norm) {
        for (size_t j = 0; j < raw.size(); ++j) norm[j] = e.normalize ? raw[j] / 2 : raw[j];
        return Status();
      });
}

TEST(ScoreTableTest, WeighsNormalizedScoresIntoTotals) {
  const Target t1{10}, t2{40};
  const std::vector<Entry> entries = {{"P", 2, 1, false}, {"Q", 3, 2, true}, {"R", 1, 1, false}};
  ScoreTable<Target> table;
  ASSERT_TRUE(RunTable(entries, {&t1, &t2}, &table, /*skip=*/2).ok());
  EXPECT_EQ(table.plugins, (std::vector<size_t>{0, 1}));  // R skipped
  EXPECT_EQ(table.raw, (std::vector<int64_t>{10, 40, 20, 80}));
  EXPECT_EQ(table.normalized, (std::vector<int64_t>{10, 40, 10, 40}));
  EXPECT_EQ(table.total, (std::vector<int64_t>{10 * 2 + 10 * 3, 40 * 2 + 40 * 3}));
}

// kube's TestRunScorePlugins "plugin returns score out of range" and "plugin Score fails".
TEST(ScoreTableTest, RejectsScoresOutsideTheRangeAndNamesFailingPlugins) {
  const Target t1{101};
  ScoreTable<Target> table;
  Status range = RunTable({{"P", 1, 1, false}}, {&t1}, &table);
  EXPECT_EQ(range.code(), Code::kError);
  EXPECT_EQ(range.Message(),
            "applying score defaultWeights on Score plugins: plugin \"P\" returns an invalid score "
            "101, it should in the range of [0, 100] after normalizing");
  Status failed = RunTable({{"F", 1, -1, false}}, {&t1}, &table);
  EXPECT_EQ(failed.Message(), "running Score plugins: plugin \"F\" failed with: boom");
}

}  // namespace
}  // namespace corral::pipeline
