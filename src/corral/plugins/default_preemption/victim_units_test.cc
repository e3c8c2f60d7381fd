#include "corral/plugins/default_preemption/victim_units.h"

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/api/well_known.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

// FakeHandle plus PodGroup objects and their run-time states (every member of the test's groups).
class GroupHandle : public testing::FakeHandle {
 public:
  using FakeHandle::FakeHandle;
  const api::PodGroup* GetPodGroup(Symbol, Symbol name) const override {
    auto it = groups.find(name);
    return it == groups.end() ? nullptr : it->second;
  }
  framework::PodGroupState* GetPodGroupState(const PodInfo& pod) override {
    if (!pod.pod->scheduling_group.has_value()) return nullptr;
    auto it = states.find(pod.pod->scheduling_group->pod_group_name);
    return it == states.end() ? nullptr : &it->second;
  }
  std::map<Symbol, const api::PodGroup*> groups;
  std::map<Symbol, framework::PodGroupState> states;
};

class VictimUnitsTest : public ::testing::Test {
 protected:
  api::PodGroup& Group(std::string_view name, api::DisruptionMode mode) {
    api::PodGroup& g = pod_groups_.emplace_back();
    g.meta.name = w_.S(name);
    g.meta.namespace_ = api::wk::kDefaultNamespace;
    g.disruption_mode = mode;
    h_.groups[g.meta.name] = &g;
    h_.states[g.meta.name];
    return g;
  }
  // A pod and its one PodInfo (members are listed in their group's state).
  const PodInfo& Pod(std::string_view name, int32_t prio, int start, std::string_view group = "",
                     bool db = false) {
    auto b = w_.Pod(name).Priority(prio).Req({{"cpu", "1"}});
    if (db) b.Label("app", "db");
    api::Pod& p = b.Obj();
    p.start_time = TimePoint(std::chrono::seconds(start));
    if (!group.empty()) p.scheduling_group = api::PodSchedulingGroup{w_.S(group)};
    const PodInfo& info = w_.Info(p);
    if (!group.empty()) h_.states[w_.S(group)].all.push_back(&info);
    return info;
  }
  NodeInfo& NodeOf(std::string_view name, std::vector<const PodInfo*> pods) {
    NodeInfo& n = w_.NodeWith(w_.Node(name).Capacity({{"cpu", "8"}, {"pods", "110"}}).Obj());
    for (const PodInfo* p : pods) n.AddPod(p);
    return n;
  }
  std::vector<std::string> Names(const VictimUnit& u) {
    std::vector<std::string> out;
    for (const PodInfo* p : u.pods) out.emplace_back(w_.in.Str(p->pod->meta.name));
    return out;
  }
  // A dry run on a node copy modelled by a pod count: the preemptor fits while at most `room` of
  // the units' pods are back on the node.
  UnitDryRun Ops(int room) {
    back_ = 0;
    return {[this](const PodInfo*) {
              ++back_;
              return Status();
            },
            [this](const PodInfo*) {
              --back_;
              return Status();
            },
            [this, room] { return back_ <= room; }};
  }
  std::vector<std::string> VictimStrings(const std::vector<framework::PreemptionVictim>& vs) {
    std::vector<std::string> out;
    for (const auto& v : vs) {
      out.push_back(fmt::format("{}@{}{}{}", w_.in.Str(v.pod->pod->meta.name), w_.in.Str(v.node),
                                v.group != nullptr ? "+group" : "", v.violates_pdb ? "!" : ""));
    }
    return out;
  }

  testing::TestWorld w_;
  GroupHandle h_{w_};
  std::deque<api::PodGroup> pod_groups_;
  int back_ = 0;
};

TEST_F(VictimUnitsTest, OnlyLowerPriorityMembersOfOtherAllGroupsCount) {
  Group("all", api::DisruptionMode::kAll);
  Group("single", api::DisruptionMode::kSingle);
  const auto& s0 = Pod("s0", 10, 0, "single");
  const auto& a0 = Pod("a0", 10, 0, "all");
  const auto& hi = Pod("hi", 100, 0);
  const auto& peer = Pod("peer", 100, 0, "all");  // a member of the same group as a0
  NodeInfo& single_only = NodeOf("n0", {&s0});
  NodeInfo& with_all = NodeOf("n1", {&a0});
  h_.SetNodes({&single_only, &with_all});
  EXPECT_FALSE(VictimUnits::HostsAllModeMember(h_, single_only, hi));
  EXPECT_TRUE(VictimUnits::HostsAllModeMember(h_, with_all, hi));
  // Not lower than the preemptor: nothing to do.
  EXPECT_FALSE(VictimUnits::HostsAllModeMember(h_, with_all, Pod("lo", 10, 0)));
  // The preemptor's own group is never a victim.
  EXPECT_FALSE(VictimUnits::HostsAllModeMember(h_, with_all, peer));
  VictimUnits units;
  EXPECT_FALSE(units.Build(h_, single_only, hi));
  EXPECT_TRUE(units.units().empty());
}

TEST_F(VictimUnitsTest, UnitsAreOrderedGroupsFirstAtEqualPriority) {
  Group("g", api::DisruptionMode::kAll);
  Group("big", api::DisruptionMode::kAll);
  const auto& l5 = Pod("l5", 5, 0);
  const auto& l10 = Pod("l10", 10, 0);  // started before the groups: still after them
  const auto& g0 = Pod("g0", 10, 5, "g");
  const auto& g1 = Pod("g1", 10, 5, "g");
  const auto& b0 = Pod("b0", 10, 7, "big");
  const auto& b1 = Pod("b1", 10, 7, "big");
  const auto& b2 = Pod("b2", 10, 7, "big");
  NodeInfo& n0 = NodeOf("n0", {&l5, &l10, &g0, &b0});
  NodeInfo& n1 = NodeOf("n1", {&g1, &b1, &b2});
  h_.SetNodes({&n0, &n1});
  VictimUnits units;
  ASSERT_TRUE(units.Build(h_, n0, Pod("hi", 100, 0)));
  ASSERT_EQ(units.units().size(), 4u);
  // Equal priority: groups first, the bigger group first; then the lone pods by start.
  EXPECT_EQ(Names(units.units()[0]), (std::vector<std::string>{"b0", "b1", "b2"}));
  EXPECT_EQ(units.units()[0].on_node, 1u);
  EXPECT_EQ(Names(units.units()[1]), (std::vector<std::string>{"g0", "g1"}));
  EXPECT_EQ(Names(units.units()[2]), (std::vector<std::string>{"l10"}));
  EXPECT_EQ(Names(units.units()[3]), (std::vector<std::string>{"l5"}));
  std::vector<std::string> on_node;
  for (const PodInfo* p : units.OnNodePods()) on_node.emplace_back(w_.in.Str(p->pod->meta.name));
  EXPECT_EQ(on_node, (std::vector<std::string>{"l5", "l10", "g0", "b0"}));
}

TEST_F(VictimUnitsTest, AGroupIsReprievedOrEvictedWhole) {
  Group("g", api::DisruptionMode::kAll);
  const auto& g0 = Pod("g0", 10, 0, "g");
  const auto& g1 = Pod("g1", 10, 0, "g");
  const auto& l5 = Pod("l5", 5, 0);
  NodeInfo& n0 = NodeOf("n0", {&g0, &l5});
  NodeInfo& n1 = NodeOf("n1", {&g1});
  h_.SetNodes({&n0, &n1});
  VictimUnits units;
  ASSERT_TRUE(units.Build(h_, n0, Pod("hi", 100, 0)));
  std::vector<framework::PreemptionVictim> victims;
  int32_t violations = -1;
  // Room for one pod back: the group (more important) is reprieved, l5 goes.
  ASSERT_TRUE(units.Reprieve(Ops(1), &victims, &violations).ok());
  EXPECT_EQ(VictimStrings(victims), (std::vector<std::string>{"l5@"}));
  EXPECT_EQ(violations, 0);
  // No room: everything goes, g1 from n1 too, most important first.
  victims.clear();
  ASSERT_TRUE(units.Reprieve(Ops(0), &victims, &violations).ok());
  EXPECT_EQ(VictimStrings(victims),
            (std::vector<std::string>{"g0@n0+group", "g1@n1+group", "l5@"}));
}

TEST_F(VictimUnitsTest, PdbsAreCountedOverEveryPodOfAUnit) {
  Group("g", api::DisruptionMode::kAll);
  const auto& g0 = Pod("g0", 10, 0, "g", /*db=*/true);
  const auto& g1 = Pod("g1", 10, 0, "g", /*db=*/true);
  const auto& other = Pod("other", 10, 0, "", /*db=*/true);
  NodeInfo& n0 = NodeOf("n0", {&g0});
  NodeInfo& n1 = NodeOf("n1", {&g1, &other});
  h_.SetNodes({&n0, &n1});
  // Three healthy pods, minAvailable 1: two disruptions allowed. The group alone uses both (its
  // member on n1 included); on n0 the group is the only unit, so it does not violate.
  api::PodDisruptionBudget pdb;
  pdb.meta.name = w_.S("db");
  pdb.meta.namespace_ = api::wk::kDefaultNamespace;
  pdb.selector = w_.Sel().Label("app", "db").Obj();
  pdb.min_available = api::IntOrPercent{1, false};
  h_.AddPdb(&pdb);
  VictimUnits units;
  ASSERT_TRUE(units.Build(h_, n0, Pod("hi", 100, 0)));
  ASSERT_EQ(units.units().size(), 1u);
  EXPECT_FALSE(units.units()[0].violates_pdb);
  // On n1 the group comes first (group before lone pod) and uses both; `other` violates.
  ASSERT_TRUE(units.Build(h_, n1, Pod("hi2", 100, 0)));
  ASSERT_EQ(units.units().size(), 2u);
  EXPECT_FALSE(units.units()[0].violates_pdb);
  EXPECT_TRUE(units.units()[1].violates_pdb);
  // With minAvailable 2 one disruption is allowed: the group (two pods) violates.
  pdb.min_available = api::IntOrPercent{2, false};
  ASSERT_TRUE(units.Build(h_, n0, Pod("hi3", 100, 0)));
  EXPECT_TRUE(units.units()[0].violates_pdb);
  std::vector<framework::PreemptionVictim> victims;
  int32_t violations = 0;
  ASSERT_TRUE(units.Reprieve(Ops(0), &victims, &violations).ok());
  EXPECT_EQ(violations, 2);
  EXPECT_EQ(VictimStrings(victims), (std::vector<std::string>{"g0@n0+group!", "g1@n1+group!"}));
}

}  // namespace
}  // namespace corral::plugins
