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

TEST_F(NominatorTest, VersionChangesExactlyWhenANodesNominationsChange) {
  const framework::PodInfo& a = w_.Info(w_.Pod("a").Obj());
  const Symbol n1 = w_.S("n1"), n2 = w_.S("n2");
  EXPECT_EQ(n_.Version(n1), 0u);  // never touched
  n_.Add(&a, n1);
  const uint64_t v1 = n_.Version(n1);
  EXPECT_NE(v1, 0u);
  EXPECT_EQ(n_.Version(n1), v1);  // reading does not change it
  n_.Add(&a, n2);                 // moves: both nodes change
  EXPECT_NE(n_.Version(n1), v1);
  EXPECT_NE(n_.Version(n2), 0u);
  const uint64_t v2 = n_.Version(n2);
  n_.Delete(&a);
  EXPECT_NE(n_.Version(n2), v2);
  // Unique values never equal a node's version.
  const uint64_t u = n_.Unique();
  EXPECT_NE(u, n_.Version(n1));
  EXPECT_NE(u, n_.Version(n2));
  EXPECT_NE(n_.Unique(), u);
}

}  // namespace
}  // namespace corral::scheduler
