#include "corral/pipeline/plugin_table.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

// A level with two extension points: every plugin is a Base; "a*" plugins also Alpha, "b*" Beta.
struct Base {
  virtual ~Base() = default;
};
struct Alpha : virtual Base {};
struct Beta : virtual Base {};
struct AlphaOnly : Alpha {};
struct BetaOnly : Beta {};
struct Both : Alpha, Beta {};

Result<std::unique_ptr<Base>> Make(const std::string& name) {
  if (name == "missing") return Error::Invalid("plugin \"missing\" does not exist");
  if (name[0] == 'a') return std::unique_ptr<Base>(std::make_unique<AlphaOnly>());
  if (name[0] == 'b') return std::unique_ptr<Base>(std::make_unique<BetaOnly>());
  return std::unique_ptr<Base>(std::make_unique<Both>());
}

PluginSet Set(std::vector<PluginEntry> enabled, std::vector<std::string> disabled = {}) {
  return {std::move(enabled), std::move(disabled)};
}

template <class P>
std::vector<std::string> Names(const std::vector<PointEntry<P>>& list) {
  std::vector<std::string> out;
  for (const auto& e : list) out.emplace_back(e.name);
  return out;
}

TEST(PluginTableTest, InstantiatesOncePerNameInFirstAppearanceOrder) {
  PluginSet multi = Set({{"x1", 0}, {"a1", 0}});
  PluginSet alpha = Set({{"a2", 0}, {"x1", 0}});
  const PluginSet* const sets[] = {&multi, &alpha};
  PluginTable<Base> t;
  ASSERT_TRUE(t.Instantiate(sets, Make).ok());
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.name(0), "x1");
  EXPECT_EQ(t.name(1), "a1");
  EXPECT_EQ(t.name(2), "a2");
  EXPECT_EQ(t.SlotOf("a2"), 2u);
  EXPECT_FALSE(t.SlotOf("nope").has_value());
}

TEST(PluginTableTest, InstantiateStopsAtTheFirstError) {
  PluginSet multi = Set({{"a1", 0}, {"missing", 0}});
  const PluginSet* const sets[] = {&multi};
  PluginTable<Base> t;
  Result<void> r = t.Instantiate(sets, Make);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "plugin \"missing\" does not exist");
}

// kube's TestNewFrameworkMultiPointExpansion shapes: the point's own plugins that multiPoint also
// names override and move to the front; then multiPoint's; then the point's others.
TEST(PluginTableTest, ExpandsMultiPointWithOverridesFirst) {
  PluginSet multi = Set({{"x1", 0}, {"a1", 0}, {"b1", 0}, {"x2", 0}});
  PluginSet alpha = Set({{"a9", 0}, {"x2", 0}});
  PluginSet beta = Set({}, {"x1"});
  const PluginSet* const sets[] = {&multi, &alpha, &beta};
  PluginTable<Base> t;
  ASSERT_TRUE(t.Instantiate(sets, Make).ok());
  auto a = t.Expand<Alpha>(alpha, multi, "AlphaPlugin");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Names(*a), (std::vector<std::string>{"x2", "x1", "a1", "a9"}));
  auto b = t.Expand<Beta>(beta, multi, "BetaPlugin");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Names(*b), (std::vector<std::string>{"b1", "x2"}));  // x1 disabled at the point
  auto star = t.Expand<Beta>(Set({}, {"*"}), multi, "BetaPlugin");
  ASSERT_TRUE(star.ok());
  EXPECT_TRUE(star->empty());
}

TEST(PluginTableTest, ExpandRejectsForeignAndDuplicatePlugins) {
  PluginSet multi;
  PluginSet alpha = Set({{"b1", 0}});
  PluginSet dup = Set({{"a1", 0}, {"a1", 0}});
  const PluginSet* const sets[] = {&alpha, &dup};
  PluginTable<Base> t;
  ASSERT_TRUE(t.Instantiate(sets, Make).ok());
  auto foreign = t.Expand<Alpha>(alpha, multi, "AlphaPlugin");
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().message, "plugin \"b1\" does not extend AlphaPlugin plugin");
  auto twice = t.Expand<Alpha>(dup, multi, "AlphaPlugin");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message, "plugin \"a1\" already registered as \"AlphaPlugin\"");
}

TEST(PluginTableTest, WeightsPreferThePointThenMultiPointAndCheckOverflow) {
  PluginSet multi = Set({{"a1", 3}, {"a2", 0}, {"a3", 5}});
  PluginSet alpha = Set({{"a3", 7}});
  const PluginSet* const sets[] = {&multi, &alpha};
  PluginTable<Base> t;
  ASSERT_TRUE(t.Instantiate(sets, Make).ok());
  auto a = t.Expand<Alpha>(alpha, multi, "AlphaPlugin");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(t.AssignWeights(*a, alpha, multi, 100).ok());
  ASSERT_EQ(Names(*a), (std::vector<std::string>{"a3", "a1", "a2"}));
  EXPECT_EQ((*a)[0].weight, 7);  // the point's weight wins
  EXPECT_EQ((*a)[1].weight, 3);
  EXPECT_EQ((*a)[2].weight, 1);  // 0 means 1
  Result<void> overflow = t.AssignWeights(*a, alpha, multi, INT64_MAX / 8);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message, "total score of Score plugins could overflow");
}

// kube's TestMergePlugins shapes.
TEST(MergePluginSetTest, ReplacesInPlaceAppendsAndHonoursStar) {
  PluginSet def = Set({{"A", 1}, {"B", 1}, {"C", 1}});
  PluginSet merged = MergePluginSet(def, Set({{"B", 5}, {"D", 2}}, {"C"}));
  EXPECT_EQ(merged.enabled, (std::vector<PluginEntry>{{"A", 1}, {"B", 5}, {"D", 2}}));
  EXPECT_EQ(merged.disabled, (std::vector<std::string>{"C"}));
  PluginSet star = MergePluginSet(def, Set({{"D", 2}}, {"*"}));
  EXPECT_EQ(star.enabled, (std::vector<PluginEntry>{{"D", 2}}));
}

}  // namespace
}  // namespace corral::pipeline
