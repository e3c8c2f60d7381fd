#include "corral/plugins/gang_scheduling/gang_scheduling.h"

#include <deque>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;

// A handle with Workload/PodGroup objects, group states and waiting pods, as the
// scheduler provides.
class GangHandle : public testing::FakeHandle {
 public:
  using FakeHandle::FakeHandle;
  const api::Workload* GetWorkload(Symbol ns, Symbol name) const override {
    for (const auto* w : workloads) {
      if (w->meta.namespace_ == ns && w->meta.name == name) return w;
    }
    return nullptr;
  }
  const api::PodGroup* GetPodGroup(Symbol ns, Symbol name) const override {
    for (const auto* g : pod_groups) {
      if (g->meta.namespace_ == ns && g->meta.name == name) return g;
    }
    return nullptr;
  }
  framework::PodGroupState* GetPodGroupState(const framework::PodInfo& pod) override {
    auto key = framework::PodGroupKeyOf(*pod.pod);
    if (!key) return nullptr;
    for (auto& [k, g] : states) {
      if (k == *key) return &g;
    }
    return nullptr;
  }
  void IterateWaitingPods(const std::function<void(const framework::PodInfo&)>& fn) const override {
    for (const auto* p : waiting) fn(*p);
  }
  bool AllowWaitingPod(const framework::PodInfo& pod, std::string_view plugin) override {
    allowed.push_back({&pod, std::string(plugin)});
    return true;
  }
  // Registers `pod` as a member of its group.
  framework::PodGroupState& Member(const framework::PodInfo& pod) {
    auto key = *framework::PodGroupKeyOf(*pod.pod);
    for (auto& [k, g] : states) {
      if (k == key) {
        g.all.push_back(&pod);
        return g;
      }
    }
    states.emplace_back(key, framework::PodGroupState{});
    states.back().second.key = key;
    states.back().second.all.push_back(&pod);
    return states.back().second;
  }

  std::vector<const api::Workload*> workloads;
  std::vector<const api::PodGroup*> pod_groups;
  std::vector<std::pair<framework::PodGroupKey, framework::PodGroupState>> states;
  std::vector<const framework::PodInfo*> waiting;
  std::vector<std::pair<const framework::PodInfo*, std::string>> allowed;
};

class GangSchedulingTest : public ::testing::Test {
 protected:
  GangScheduling& Plugin() {
    if (!plugin_) {
      auto made = GangScheduling::New(nullptr, h_);
      EXPECT_TRUE(made.ok());
      plugin_ = std::move(*made);
    }
    return dynamic_cast<GangScheduling&>(*plugin_);
  }
  // A v1alpha1 Workload with one pod group per (name, minCount); minCount 0 ⇒ basic.
  api::Workload& Workload(std::string_view name, std::map<std::string, int32_t> groups) {
    workloads_.emplace_back();
    auto& w = workloads_.back();
    w.meta.name = w_.S(name);
    w.meta.namespace_ = api::wk::kDefaultNamespace;
    w.generation = api::WorkloadApiGeneration::kV1Alpha1;
    for (const auto& [g, min] : groups) {
      api::WorkloadPodGroup pg;
      pg.name = w_.S(g);
      pg.policy.kind = min > 0 ? api::PodGroupPolicyKind::kGang : api::PodGroupPolicyKind::kBasic;
      pg.policy.min_count = min;
      w.pod_groups.push_back(pg);
    }
    h_.workloads.push_back(&w);
    return w;
  }
  api::PodGroup& Group(std::string_view name, int32_t min_count) {
    groups_.emplace_back();
    auto& g = groups_.back();
    g.meta.name = w_.S(name);
    g.meta.namespace_ = api::wk::kDefaultNamespace;
    g.policy.kind =
        min_count > 0 ? api::PodGroupPolicyKind::kGang : api::PodGroupPolicyKind::kBasic;
    g.policy.min_count = min_count;
    h_.pod_groups.push_back(&g);
    return g;
  }
  const framework::PodInfo& LegacyPod(std::string_view name, std::string_view workload,
                                      std::string_view group, std::string_view replica = "") {
    api::Pod& p = w_.Pod(name).Obj();
    p.workload_ref = api::WorkloadReference{w_.S(workload), w_.S(group), w_.S(replica)};
    return w_.Info(p);
  }
  const framework::PodInfo& GroupPod(std::string_view name, std::string_view group) {
    api::Pod& p = w_.Pod(name).Obj();
    p.scheduling_group = api::PodSchedulingGroup{w_.S(group)};
    return w_.Info(p);
  }

  testing::TestWorld w_;
  GangHandle h_{w_};
  std::deque<api::Workload> workloads_;
  std::deque<api::PodGroup> groups_;
  std::unique_ptr<framework::Plugin> plugin_;
  framework::CycleState state_;
};

TEST_F(GangSchedulingTest, PodWithoutGroupPassesEveryPoint) {
  const auto& pod = w_.Info(w_.Pod("p").Obj());
  EXPECT_TRUE(Plugin().PreEnqueue(pod).ok());
  Duration t{};
  EXPECT_TRUE(Plugin().Permit(state_, pod, w_.S("n"), &t).ok());
}

TEST_F(GangSchedulingTest, PreEnqueueWaitsForTheWorkloadObject) {
  const auto& pod = LegacyPod("p", "job", "workers");
  auto st = Plugin().PreEnqueue(pod);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "waiting for pods's workload \"job\" to appear in scheduling queue");
}

TEST_F(GangSchedulingTest, PreEnqueueRejectsAnUnknownPodGroupOfTheWorkload) {
  Workload("job", {{"workers", 2}});
  const auto& pod = LegacyPod("p", "job", "drivers");
  auto st = Plugin().PreEnqueue(pod);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "pod group \"drivers\" doesn't exist for a workload \"job\"");
}

TEST_F(GangSchedulingTest, PreEnqueueWaitsForThePodGroupObject) {
  const auto& pod = GroupPod("p", "train-0");
  auto st = Plugin().PreEnqueue(pod);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "waiting for pod's pod group \"train-0\" to appear in scheduling queue");
}

TEST_F(GangSchedulingTest, PreEnqueueWaitsForMinCountMembersInBothGenerations) {
  Workload("job", {{"workers", 2}});
  Group("train-0", 2);
  const auto& a = LegacyPod("a", "job", "workers");
  const auto& b = GroupPod("b", "train-0");
  h_.Member(a);
  h_.Member(b);
  for (const auto* p : {&a, &b}) {
    auto st = Plugin().PreEnqueue(*p);
    EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(st.Message(), "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  h_.Member(LegacyPod("a2", "job", "workers"));
  h_.Member(GroupPod("b2", "train-0"));
  EXPECT_TRUE(Plugin().PreEnqueue(a).ok());
  EXPECT_TRUE(Plugin().PreEnqueue(b).ok());
}

TEST_F(GangSchedulingTest, ReplicaKeysAreIndependentGangs) {
  Workload("job", {{"workers", 2}});
  const auto& r0a = LegacyPod("r0a", "job", "workers", "r0");
  const auto& r1a = LegacyPod("r1a", "job", "workers", "r1");
  h_.Member(r0a);
  h_.Member(r1a);
  h_.Member(LegacyPod("r0b", "job", "workers", "r0"));
  EXPECT_TRUE(Plugin().PreEnqueue(r0a).ok());   // r0 has 2 members
  EXPECT_FALSE(Plugin().PreEnqueue(r1a).ok());  // r1 has 1
}

TEST_F(GangSchedulingTest, BasicGroupsAreNotGated) {
  Workload("job", {{"web", 0}});
  Group("basic-0", 0);
  const auto& a = LegacyPod("a", "job", "web");
  const auto& b = GroupPod("b", "basic-0");
  h_.Member(a);
  h_.Member(b);
  EXPECT_TRUE(Plugin().PreEnqueue(a).ok());
  EXPECT_TRUE(Plugin().PreEnqueue(b).ok());
  Duration t{};
  EXPECT_TRUE(Plugin().Permit(state_, a, w_.S("n"), &t).ok());
}

TEST_F(GangSchedulingTest, MixedSchedulerNamesRejectTheGroup) {
  Group("g", 2);
  const auto& a = GroupPod("a", "g");
  auto& state = h_.Member(a);
  h_.Member(GroupPod("b", "g"));
  state.mixed_scheduler_names = true;
  auto st = Plugin().PreEnqueue(a);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "pods of the pod group have different schedulerNames");
}

TEST_F(GangSchedulingTest, ReserveAndUnreserveTrackAssumedMembers) {
  Group("g", 2);
  const auto& a = GroupPod("a", "g");
  auto& state = h_.Member(a);
  ASSERT_TRUE(Plugin().Reserve(state_, a, w_.S("n")).ok());
  EXPECT_TRUE(state.assumed.contains(&a));
  Plugin().Unreserve(state_, a, w_.S("n"));
  Plugin().Unreserve(state_, a, w_.S("n"));  // idempotent
  EXPECT_FALSE(state.assumed.contains(&a));
}

TEST_F(GangSchedulingTest, PermitWaitsWithTheSharedDeadlineAndActivatesSiblings) {
  Group("g", 3);
  const auto& a = GroupPod("a", "g");
  const auto& b = GroupPod("b", "g");
  const auto& c = GroupPod("c", "g");
  auto& state = h_.Member(a);
  h_.Member(b);
  h_.Member(c);
  ASSERT_TRUE(Plugin().Reserve(state_, a, w_.S("n")).ok());
  Duration t{};
  auto st = Plugin().Permit(state_, a, w_.S("n"), &t);
  EXPECT_EQ(st.code(), Code::kWait);
  EXPECT_EQ(st.Message(), "waiting for minCount pods from a gang to be waiting on permit");
  EXPECT_EQ(t, std::chrono::minutes(5));
  EXPECT_EQ(h_.activated, (std::vector<const framework::PodInfo*>{&b, &c}));

  // The second member, 90 s later, gets the rest of the same deadline.
  h_.clock_.Advance(std::chrono::seconds(90));
  ASSERT_TRUE(Plugin().Reserve(state_, b, w_.S("n")).ok());
  st = Plugin().Permit(state_, b, w_.S("n"), &t);
  EXPECT_EQ(st.code(), Code::kWait);
  EXPECT_EQ(t, std::chrono::seconds(210));

  // After the deadline has passed, a fresh one starts.
  h_.clock_.Advance(std::chrono::minutes(4));
  st = Plugin().Permit(state_, b, w_.S("n"), &t);
  EXPECT_EQ(t, std::chrono::minutes(5));
  EXPECT_TRUE(state.deadline.has_value());
}

TEST_F(GangSchedulingTest, PermitAllowsEveryWaitingMemberAtQuorum) {
  Group("g", 3);
  const auto& a = GroupPod("a", "g");
  const auto& b = GroupPod("b", "g");
  const auto& c = GroupPod("c", "g");
  const auto& other = GroupPod("x", "g2");
  auto& state = h_.Member(a);
  h_.Member(b);
  h_.Member(c);
  state.assigned.insert(&a);  // already bound
  ASSERT_TRUE(Plugin().Reserve(state_, b, w_.S("n")).ok());
  h_.waiting = {&b, &other};
  ASSERT_TRUE(Plugin().Reserve(state_, c, w_.S("n")).ok());
  Duration t{};
  EXPECT_TRUE(Plugin().Permit(state_, c, w_.S("n"), &t).ok());
  ASSERT_EQ(h_.allowed.size(), 1u);  // only members of this group
  EXPECT_EQ(h_.allowed[0].first, &b);
  EXPECT_EQ(h_.allowed[0].second, "GangScheduling");
}

TEST_F(GangSchedulingTest, PermitErrorsWhenTheGroupObjectOrStateIsGone) {
  Group("g", 2);
  const auto& a = GroupPod("a", "g");
  Duration t{};
  // No group state (the scheduler does not know the member): an error, retried with backoff.
  auto st = Plugin().Permit(state_, a, w_.S("n"), &t);
  EXPECT_EQ(st.code(), framework::Code::kError);
  EXPECT_EQ(st.Message(), "pod group state not found");
  // The PodGroup object was deleted after the member passed PreEnqueue (kube: an error, not
  // a wait).
  h_.Member(a);
  h_.pod_groups.clear();
  st = Plugin().Permit(state_, a, w_.S("n"), &t);
  EXPECT_EQ(st.code(), framework::Code::kError);
}

TEST_F(GangSchedulingTest, PlacementFeasibleRejectsEarlyWaitsThenSucceeds) {
  Group("g", 4);
  const auto& a = GroupPod("a", "g");
  auto& state = h_.Member(a);
  framework::ResolvedPodGroup gang;
  gang.policy = {api::PodGroupPolicyKind::kGang, 4};
  auto st = Plugin().PlacementFeasible(state, gang, {.scheduled = 1, .remaining = 2});
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "minCount (4) cannot be satisfied: 1 scheduled, 2 remaining");
  st = Plugin().PlacementFeasible(state, gang, {.scheduled = 2, .remaining = 2});
  EXPECT_EQ(st.code(), Code::kWait);
  EXPECT_EQ(st.Message(), "minCount (4) is not yet satisfied: 2 scheduled, 2 remaining");
  EXPECT_TRUE(Plugin().PlacementFeasible(state, gang, {.scheduled = 4, .remaining = 0}).ok());
  framework::ResolvedPodGroup basic;  // minCount 1
  EXPECT_EQ(Plugin().PlacementFeasible(state, basic, {.scheduled = 0, .remaining = 0}).code(),
            Code::kUnschedulable);
  EXPECT_TRUE(Plugin().PlacementFeasible(state, basic, {.scheduled = 1, .remaining = 3}).ok());
}

TEST_F(GangSchedulingTest, HintsQueueOnlyMembersOfTheSameGroup) {
  Workload("job", {{"workers", 2}});
  const auto& pod = GroupPod("p", "g");
  const auto& legacy = LegacyPod("l", "job", "workers");
  api::Pod& same = w_.Pod("q").Obj();
  same.scheduling_group = api::PodSchedulingGroup{w_.S("g")};
  const api::Pod& other = w_.Pod("r").Obj();
  const framework::ClusterEvent pod_add{framework::EventResource::kPod,
                                        framework::ActionType::kAdd};
  EXPECT_EQ(Plugin().Hint(pod, pod_add, &same), QueueingHint::kQueue);
  EXPECT_EQ(Plugin().Hint(pod, pod_add, &other), QueueingHint::kQueueSkip);
  const auto& g = Group("g", 2);
  const auto& g2 = Group("g2", 2);
  const framework::ClusterEvent pg_add{framework::EventResource::kPodGroup,
                                       framework::ActionType::kAdd};
  EXPECT_EQ(Plugin().Hint(pod, pg_add, &g), QueueingHint::kQueue);
  EXPECT_EQ(Plugin().Hint(pod, pg_add, &g2), QueueingHint::kQueueSkip);
  const framework::ClusterEvent w_add{framework::EventResource::kWorkload,
                                      framework::ActionType::kAdd};
  EXPECT_EQ(Plugin().Hint(legacy, w_add, h_.workloads[0]), QueueingHint::kQueue);
  EXPECT_EQ(Plugin().Hint(pod, w_add, h_.workloads[0]), QueueingHint::kQueueSkip);
}

TEST_F(GangSchedulingTest, RejectsArgs) {
  framework::PluginArgs args;
  auto made = GangScheduling::New(&args, h_);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message, "GangScheduling takes no args");
}

}  // namespace
}  // namespace corral::plugins
