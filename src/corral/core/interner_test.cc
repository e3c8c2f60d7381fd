#include "corral/core/interner.h"

#include <string>

#include <gtest/gtest.h>

#include "corral/core/rng.h"

namespace corral {
namespace {

TEST(InternerTest, EmptyStringIsSymbolZero) {
  Interner in;
  EXPECT_EQ(in.Intern(""), Symbol());
  EXPECT_EQ(in.Str(Symbol()), "");
  EXPECT_EQ(in.size(), 1u);
}

TEST(InternerTest, SameStringSameSymbolAndStableViews) {
  Interner in;
  Symbol a = in.Intern("zone");
  std::string_view view = in.Str(a);
  for (int i = 0; i < 100000; ++i) in.Intern("label-" + std::to_string(i));
  in.Intern(std::string(100000, 'x'));  // a large string gets its own block
  EXPECT_EQ(in.Intern(std::string("zone")), a);
  EXPECT_EQ(view, "zone");
  EXPECT_EQ(in.Str(in.Intern("label-77")), "label-77");
  EXPECT_EQ(in.size(), 100003u);
}

TEST(InternerTest, FindDoesNotInsert) {
  Interner in;
  EXPECT_FALSE(in.Find("nope").has_value());
  EXPECT_EQ(in.size(), 1u);
  Symbol s = in.Intern("yes");
  EXPECT_EQ(in.Find("yes"), s);
}

TEST(RngTest, SameSeedSameStreamAndUniformInRange) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    differs |= x != c.Next();
  }
  EXPECT_TRUE(differs);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 3000; ++i) ++counts[a.Uniform(3)];
  for (int c3 : counts) EXPECT_GT(c3, 800);  // each bucket ~1000 of 3000
  double d = a.UniformDouble();
  EXPECT_GE(d, 0.0);
  EXPECT_LT(d, 1.0);
}

}  // namespace
}  // namespace corral
