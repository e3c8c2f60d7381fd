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
