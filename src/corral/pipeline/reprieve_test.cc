#include "corral/pipeline/reprieve.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

TimePoint At(int s) {
  return TimePoint{} + std::chrono::seconds(s);
}

struct Unit {
  std::string name;
  VictimRank rank;
  bool violates = false;
};

std::vector<std::string> Sorted(std::vector<Unit> units) {
  SortByImportance(std::span<Unit>(units), [](const Unit& u) { return u.rank; });
  std::vector<std::string> out;
  for (const Unit& u : units) out.push_back(u.name);
  return out;
}

// kube's MoreImportantVictim rules (pkg/scheduler/framework/preemption): priority, then a group
// before a lone pod, then two groups by size and earliest start, two pods by start.
TEST(MoreImportantVictimTest, KubeRules) {
  std::vector<Unit> units = {
      {"pod-late", {.priority = 5, .group = false, .size = 1, .start = At(9), .order = 0}},
      {"group-small-early", {.priority = 5, .group = true, .size = 2, .start = At(1), .order = 1}},
      {"pod-early", {.priority = 5, .group = false, .size = 1, .start = At(2), .order = 2}},
      {"group-big-late", {.priority = 5, .group = true, .size = 4, .start = At(8), .order = 3}},
      {"low", {.priority = 1, .group = true, .size = 9, .start = At(0), .order = 4}},
      {"high", {.priority = 7, .group = false, .size = 1, .start = At(9), .order = 5}},
      {"group-small-late", {.priority = 5, .group = true, .size = 2, .start = At(3), .order = 6}},
      {"pod-early-twin", {.priority = 5, .group = false, .size = 1, .start = At(2), .order = 7}},
  };
  EXPECT_EQ(Sorted(units), (std::vector<std::string>{"high", "group-big-late", "group-small-early",
                                                     "group-small-late", "pod-early",
                                                     "pod-early-twin", "pod-late", "low"}));
}

// The rule the two preemptors once disagreed on: between two groups of equal priority the one with
// more pods is more important even when it started later (docs/preemption.md).
TEST(MoreImportantVictimTest, MoreMembersBeatsEarlierStartBetweenGroups) {
  const VictimRank big{.priority = 0, .group = true, .size = 3, .start = At(10), .order = 1};
  const VictimRank small{.priority = 0, .group = true, .size = 2, .start = At(0), .order = 0};
  EXPECT_TRUE(MoreImportantVictim(big, small));
  EXPECT_FALSE(MoreImportantVictim(small, big));
  // Size is not compared between lone pods (size is 1 for them anyway) or across kinds.
  const VictimRank pod{.priority = 0, .group = false, .size = 1, .start = At(0), .order = 2};
  EXPECT_TRUE(MoreImportantVictim(small, pod));
}

// Each unit fits back only if the total load stays within capacity; the trace shows the
// visit order.
struct Trial {
  std::vector<Unit> units;
  std::vector<int> load;  // parallel to units
  int capacity;
  int used = 0;  // of kept units
  std::vector<std::string> trace;
  std::vector<bool> kept;

  Status Run(SecondPass second) {
    kept.assign(units.size(), false);
    return ReprieveUnits(
        std::span<Unit>(units), second, [](const Unit& u) { return u.violates; },
        [&](Unit& u) {
          const size_t i = static_cast<size_t>(&u - units.data());
          trace.push_back(u.name);
          if (kept[i]) return Status();
          if (used + load[i] <= capacity) {
            used += load[i];
            kept[i] = true;
          }
          return Status();
        },
        [&] {
          trace.push_back("|");
          return Status();
        });
  }
};

TEST(ReprieveUnitsTest, ViolatorsFirstThenTheRestInOrder) {
  Trial t{.units = {{"a", {}, false}, {"b", {}, true}, {"c", {}, false}, {"d", {}, true}},
          .load = {2, 2, 1, 3},
          .capacity = 4};
  ASSERT_TRUE(t.Run(SecondPass::kNonViolators).ok());
  EXPECT_EQ(t.trace, (std::vector<std::string>{"b", "d", "|", "a", "c"}));
  EXPECT_EQ(t.kept, (std::vector<bool>{true, true, false, false}));  // b (2) + a (2)
}

TEST(ReprieveUnitsTest, SecondPassAllRetriesViolatorsAndErrorsStop) {
  Trial t{.units = {{"a", {}, false}, {"b", {}, true}}, .load = {1, 1}, .capacity = 1};
  ASSERT_TRUE(t.Run(SecondPass::kAll).ok());
  EXPECT_EQ(t.trace, (std::vector<std::string>{"b", "|", "a", "b"}));
  std::vector<Unit> units = {{"x", {}, true}, {"y", {}, false}};
  int visits = 0;
  Status s = ReprieveUnits(
      std::span<Unit>(units), SecondPass::kAll, [](const Unit& u) { return u.violates; },
      [&](Unit&) {
        ++visits;
        return Status::Error("plugin failed");
      },
      [] { return Status(); });
  EXPECT_EQ(s.Message(), "plugin failed");
  EXPECT_EQ(visits, 1);
}

}  // namespace
}  // namespace corral::pipeline
