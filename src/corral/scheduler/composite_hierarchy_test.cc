// The CompositePodGroup hierarchy index of WorkloadManager: roots and readiness as kube's
// GangScheduling HierarchyTracker computes them. Cases translated, with kube's expected root names
// and readiness, from kube's hierarchy_tracker_test.go (in the plugin's folder,
// pkg/scheduler/framework/plugins/gangscheduling): TestHierarchyTracker_FindRootGroupReadiness,
// TestHierarchyTracker_FindRootGroupReadiness_MissingObjects and _Errors.

#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/scheduler/workload_manager.h"

namespace corral::scheduler {
namespace {

class HierarchyTest : public ::testing::Test {
 protected:
  Symbol S(std::string_view s) { return in_.Intern(s); }

  void Cpg(std::string_view name, std::string_view parent, int32_t min_group_count) {
    api::CompositePodGroup c;
    c.meta.namespace_ = S("ns1");
    c.meta.name = S(name);
    if (!parent.empty()) c.parent_name = S(parent);
    c.gang = min_group_count > 0;
    c.min_group_count = min_group_count;
    objects_.composite_pod_groups.push_back(c);
  }
  // min_count 0: the basic policy.
  void Pg(std::string_view name, std::string_view parent, int32_t min_count) {
    api::PodGroup g;
    g.meta.namespace_ = S("ns1");
    g.meta.name = S(name);
    if (!parent.empty()) g.parent_name = S(parent);
    if (min_count > 0) g.policy = {api::PodGroupPolicyKind::kGang, min_count};
    objects_.pod_groups.push_back(g);
  }
  void Pod(std::string_view name, std::string_view group) {
    api::Pod& p = pods_.emplace_back();
    p.meta.namespace_ = S("ns1");
    p.meta.name = S(name);
    p.scheduling_group = api::PodSchedulingGroup{S(group)};
    framework::PodInfo& info = infos_.emplace_back();
    info.pod = &p;
  }
  void Build() {
    wm_.SetObjects(&objects_);
    for (const framework::PodInfo& info : infos_) wm_.AddPod(&info, /*bound=*/false);
  }
  // The root above PodGroup `pg` (via its parent) or CompositePodGroup `cpg`, and its readiness.
  std::pair<std::string, bool> RootOfCpg(std::string_view cpg) {
    Symbol root_name;
    const api::CompositePodGroup* root = wm_.RootComposite(S("ns1"), S(cpg), &root_name);
    if (root == nullptr) return {"", false};
    return {std::string(in_.Str(root->meta.name)),
            wm_.ReadyChildren(*root) >= root->MinGroupCount()};
  }

  Interner in_;
  api::ObjectSet objects_;
  std::deque<api::Pod> pods_;
  std::deque<framework::PodInfo> infos_;
  WorkloadManager wm_;
};

// "Leaf PodGroup returns root CompositePodGroup when CPG enabled": mid-cpg is ready (pg1, pg2 each
// have minCount pods) but root-cpg needs 2 ready children and has 1.
TEST_F(HierarchyTest, LeafReturnsRootNotReady) {
  Cpg("root-cpg", "", 2);
  Cpg("mid-cpg", "root-cpg", 2);
  Pg("pg1", "mid-cpg", 2);
  Pg("pg2", "mid-cpg", 2);
  for (auto [p, g] : {std::pair{"p1", "pg1"}, {"p2", "pg1"}, {"p3", "pg2"}, {"p4", "pg2"}})
    Pod(p, g);
  Build();
  EXPECT_EQ(RootOfCpg("mid-cpg"), std::make_pair(std::string("root-cpg"), false));
  EXPECT_EQ(wm_.ReadyChildren(*wm_.GetCompositePodGroup(S("ns1"), S("mid-cpg"))), 2);
}

// "Leaf PodGroup returns ready root CompositePodGroup when quorum met": pg3 (minCount 1) makes the
// second ready child of root-cpg.
TEST_F(HierarchyTest, LeafReturnsReadyRootWhenQuorumMet) {
  Cpg("root-cpg", "", 2);
  Cpg("mid-cpg", "root-cpg", 2);
  Pg("pg1", "mid-cpg", 2);
  Pg("pg2", "mid-cpg", 2);
  Pg("pg3", "root-cpg", 1);
  for (auto [p, g] :
       {std::pair{"p1", "pg1"}, {"p2", "pg1"}, {"p3", "pg2"}, {"p4", "pg2"}, {"p5", "pg3"}}) {
    Pod(p, g);
  }
  Build();
  EXPECT_EQ(RootOfCpg("mid-cpg"), std::make_pair(std::string("root-cpg"), true));
  EXPECT_EQ(RootOfCpg("root-cpg"), std::make_pair(std::string("root-cpg"), true));
}

// "Mid/Root CompositePodGroup returns root CompositePodGroup": no pods, not ready.
TEST_F(HierarchyTest, MidAndRootWithoutPods) {
  Cpg("root-cpg", "", 2);
  Cpg("mid-cpg", "root-cpg", 2);
  Pg("pg1", "mid-cpg", 2);
  Pg("pg2", "mid-cpg", 2);
  Build();
  EXPECT_EQ(RootOfCpg("mid-cpg"), std::make_pair(std::string("root-cpg"), false));
  EXPECT_EQ(RootOfCpg("root-cpg"), std::make_pair(std::string("root-cpg"), false));
}

// "Basic root CompositePodGroup is ready with 1 ready child" (a basic child needs 1 pod) and "...
// is not ready with 0 ready children" (pg4 has 1 of its minCount 2).
TEST_F(HierarchyTest, BasicRoot) {
  Cpg("basic-root-cpg", "", 0);
  Pg("basic-child-pg", "basic-root-cpg", 0);
  Pod("p1", "basic-child-pg");
  Build();
  EXPECT_EQ(RootOfCpg("basic-root-cpg"), std::make_pair(std::string("basic-root-cpg"), true));
}

TEST_F(HierarchyTest, BasicRootWithUnreadyGangChild) {
  Cpg("basic-root-cpg", "", 0);
  Pg("pg4", "basic-root-cpg", 2);
  Pod("p1", "pg4");
  Build();
  EXPECT_EQ(RootOfCpg("basic-root-cpg"), std::make_pair(std::string("basic-root-cpg"), false));
}

// ..._MissingObjects: a dangling parent resolves to no root (kube: nil without error); the name
// reached is the missing one, which PreEnqueue's message names.
TEST_F(HierarchyTest, DanglingParent) {
  Cpg("dangling-cpg", "non-existent-cpg", 1);
  Pg("pg-under-dangling-cpg", "dangling-cpg", 1);
  Build();
  Symbol reached;
  EXPECT_EQ(wm_.RootComposite(S("ns1"), S("dangling-cpg"), &reached), nullptr);
  EXPECT_EQ(in_.Str(reached), "non-existent-cpg");
  EXPECT_EQ(wm_.RootComposite(S("ns1"), S("missing-cpg"), &reached), nullptr);
}

// ..._Errors: a cycle has no root.
TEST_F(HierarchyTest, Cycle) {
  Cpg("cycle1", "cycle2", 1);
  Cpg("cycle2", "cycle1", 1);
  Pg("pg1", "cycle1", 1);
  Build();
  Symbol reached;
  EXPECT_EQ(wm_.RootComposite(S("ns1"), S("cycle1"), &reached), nullptr);
}

// kube's WorkloadMaxTreeDepth: four levels of CompositePodGroups above a PodGroup are one too many
// ("Hierarchy exceeding max tree depth returns error").
TEST_F(HierarchyTest, DeeperThanFourLevels) {
  Cpg("cpg1", "", 1);
  Cpg("cpg2", "cpg1", 1);
  Cpg("cpg3", "cpg2", 1);
  Cpg("cpg4", "cpg3", 1);
  Pg("deep-pg", "cpg4", 1);
  Build();
  Symbol reached;
  EXPECT_EQ(wm_.RootComposite(S("ns1"), S("cpg4"), &reached), nullptr);
  EXPECT_NE(wm_.RootComposite(S("ns1"), S("cpg3"), &reached), nullptr);
}

// Children are listed child CompositePodGroups first, then PodGroups, each in load order.
TEST_F(HierarchyTest, ChildrenOrder) {
  Cpg("root", "", 1);
  Pg("b", "root", 1);
  Cpg("mid", "root", 1);
  Pg("a", "root", 1);
  Build();
  const auto& c = wm_.ChildrenOf(*wm_.GetCompositePodGroup(S("ns1"), S("root")));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(in_.Str(c[0].composite->meta.name), "mid");
  EXPECT_EQ(in_.Str(c[1].pod_group->meta.name), "b");
  EXPECT_EQ(in_.Str(c[2].pod_group->meta.name), "a");
}

}  // namespace
}  // namespace corral::scheduler
