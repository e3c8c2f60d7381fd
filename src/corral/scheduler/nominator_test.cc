#include "corral/scheduler/nominator.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace corral::scheduler {
namespace {

class NominatorTest : public ::testing::Test {
 protected:
  testing::TestWorld w_;
  Nominator n_;
};

TEST_F(NominatorTest, AddReplacesTheEarlierNomination) {
  const framework::PodInfo& a = w_.Info(w_.Pod("a").Obj());
  const framework::PodInfo& b = w_.Info(w_.Pod("b").Obj());
  n_.Add(&a, w_.S("n1"));
  n_.Add(&b, w_.S("n1"));
  ASSERT_EQ(n_.PodsForNode(w_.S("n1")).size(), 2u);
  EXPECT_EQ(n_.PodsForNode(w_.S("n1"))[0], &a);  // nomination order
  n_.Add(&a, w_.S("n2"));
  EXPECT_EQ(n_.NodeOf(&a), w_.S("n2"));
  ASSERT_EQ(n_.PodsForNode(w_.S("n1")).size(), 1u);
  EXPECT_EQ(n_.PodsForNode(w_.S("n1"))[0], &b);
  EXPECT_EQ(n_.size(), 2u);
}

TEST_F(NominatorTest, EmptyNodeAndDeleteEndTheNomination) {
  const framework::PodInfo& a = w_.Info(w_.Pod("a").Obj());
  n_.Add(&a, w_.S("n1"));
  n_.Add(&a, Symbol());
  EXPECT_TRUE(n_.NodeOf(&a).empty());
  EXPECT_TRUE(n_.PodsForNode(w_.S("n1")).empty());
  n_.Add(&a, w_.S("n1"));
  EXPECT_EQ(n_.Delete(&a), w_.S("n1"));
  EXPECT_TRUE(n_.Delete(&a).empty());
  EXPECT_EQ(n_.size(), 0u);
}

}  // namespace
}  // namespace corral::scheduler
