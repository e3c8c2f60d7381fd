#include "corral/api/types.h"

#include <gtest/gtest.h>

namespace corral::api {
namespace {

TEST(LabelSetTest, SortedUniqueAndLastDuplicateWins) {
  Interner in;
  Symbol zone = in.Intern("zone"), app = in.Intern("app"), a = in.Intern("a"), b = in.Intern("b");
  LabelSet set({{app, a}, {zone, a}, {app, b}});
  EXPECT_EQ(set.size(), 2u);
  ASSERT_NE(set.Find(app), nullptr);
  EXPECT_EQ(*set.Find(app), b);
  EXPECT_EQ(set.Find(in.Intern("missing")), nullptr);
  set.Set(in.Intern("rack"), a);
  EXPECT_TRUE(set.Has(in.Intern("rack")));
  EXPECT_EQ(set.size(), 3u);
}

}  // namespace
}  // namespace corral::api

#include "corral/api/well_known.h"

namespace corral::api {
namespace {
TEST(WellKnownTest, ConstantsMatchPreloadedInterner) {
  Interner in = NewInterner();
  EXPECT_EQ(in.Intern("cpu"), wk::kCpu);
  EXPECT_EQ(in.Intern("topology.kubernetes.io/zone"), wk::kZoneLabel);
  EXPECT_EQ(in.Intern("False"), wk::kFalse);
  EXPECT_EQ(in.size(), std::size(wk::kWellKnown) + 1);
}
}  // namespace
}  // namespace corral::api
