#include "corral/fleet/division.h"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::fleet {
namespace {

using Targets = std::vector<TargetReplicas>;

// test/helper IsScheduleResultEqual: the same (name, replicas) pairs in any order.
bool SameResult(const Targets& a, const Targets& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(), [&](const TargetReplicas& x) {
    return std::find(b.begin(), b.end(), x) != b.end();
  });
}

std::string Show(const Targets& t) {
  std::string out;
  for (const TargetReplicas& x : t) out += x.name + ":" + std::to_string(x.replicas) + " ";
  return out;
}

// Candidates with their allocatable replicas (ClusterDetailInfo{Name, AllocatableReplicas}).
std::vector<ClusterDetail> Candidates(const Targets& allocatable) {
  std::vector<ClusterDetail> out;
  for (const TargetReplicas& a : allocatable) {
    ClusterDetail d;
    d.name = a.name;
    d.allocatable_replicas = a.replicas;
    out.push_back(d);
  }
  return out;
}

const char* const kUidEmpty = "";
const char* const kUidEven = "4858ca61-3ff8-4095-8267-f3d059d8074c";
const char* const kUidOdd = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c";

// ---- pkg/util/helper/binding_test.go

struct DispenserCase {
  std::string name;
  int32_t new_replicas;
  const char* uid;
  Targets initial;
  std::vector<ClusterWeightInfo> weights;
  Targets desired;
};

// Karmada Test_dispenser_AllocateByWeight.
TEST(DispenserTest, AllocateByWeight) {
  const std::vector<ClusterWeightInfo> w123 = {{"A", 1, 0}, {"B", 2, 0}, {"C", 3, 0}};
  const std::vector<ClusterWeightInfo> w21 = {{"A", 2, 0}, {"B", 1, 0}};
  const std::vector<ClusterWeightInfo> w170 = {{"A", 170, 0}, {"B", 110, 0}, {"C", 60, 0}};
  const std::vector<ClusterWeightInfo> w11 = {{"A", 1, 0}, {"B", 1, 0}};
  const Targets init123 = {{"A", 1}, {"B", 2}, {"C", 3}};
  const std::vector<DispenserCase> cases = {
      {"Scale up 6 replicas", 6, kUidEmpty, init123, w123, {{"A", 2}, {"B", 4}, {"C", 6}}},
      {"Scale up 3 replicas", 3, kUidEmpty, init123, w123, {{"A", 2}, {"B", 3}, {"C", 4}}},
      {"Scale up 2 replicas", 2, kUidEmpty, init123, w123, {{"A", 1}, {"B", 3}, {"C", 4}}},
      {"HA scenario with weight 2:1: assign 1 replica",
       1,
       kUidEmpty,
       {},
       w21,
       {{"A", 1}, {"B", 0}}},
      {"HA scenario with weight 2:1: assign 2 replicas",
       2,
       kUidEmpty,
       {},
       w21,
       {{"A", 1}, {"B", 1}}},
      {"HA scenario with weight 2:1: assign 3 replicas",
       3,
       kUidEmpty,
       {},
       w21,
       {{"A", 2}, {"B", 1}}},
      {"brand new assign 5 replicas", 5, kUidEmpty, {}, w170, {{"A", 2}, {"B", 2}, {"C", 1}}},
      {"brand new assign 6 replicas", 6, kUidEmpty, {}, w170, {{"A", 3}, {"B", 2}, {"C", 1}}},
      {"brand new assign 5 replicas with odd uuid", 5, kUidOdd, {}, w11, {{"A", 2}, {"B", 3}}},
      {"brand new assign 5 replicas with even uuid", 5, kUidEven, {}, w11, {{"A", 3}, {"B", 2}}},
  };
  for (const DispenserCase& c : cases) {
    SCOPED_TRACE(c.name);
    Dispenser d(c.new_replicas, c.initial, c.uid);
    d.AllocateByWeight(c.weights);
    EXPECT_TRUE(d.Done());
    EXPECT_TRUE(SameResult(d.result(), c.desired)) << Show(d.result());
  }
}

// Karmada TestDispenseReplicasByTargetClusters (any one of `wants` is right).
TEST(DispenserTest, SpreadReplicasByTargetClusters) {
  struct Case {
    std::string name;
    Targets clusters;
    int32_t sum;
    std::vector<Targets> wants;
  };
  const std::vector<Case> cases = {
      {"empty clusters", {}, 10, {{}}},
      {"1 cluster, 5 replicas, 10 sum", {{"member1", 5}}, 10, {{{"member1", 10}}}},
      {"3 cluster, 1:1:1, 12 sum",
       {{"member1", 5}, {"member2", 5}, {"member3", 5}},
       12,
       {{{"member1", 4}, {"member2", 4}, {"member3", 4}}}},
      {"3 cluster, 1:1:1, 10 sum",
       {{"member1", 5}, {"member2", 5}, {"member3", 5}},
       10,
       {{{"member1", 4}, {"member2", 3}, {"member3", 3}},
        {{"member1", 3}, {"member2", 4}, {"member3", 3}},
        {{"member1", 3}, {"member2", 3}, {"member3", 4}}}},
      {"3 cluster, 1:2:3, 13 sum",
       {{"member1", 1}, {"member2", 2}, {"member3", 3}},
       13,
       {{{"member1", 2}, {"member2", 4}, {"member3", 7}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Targets got = SpreadReplicasByTargetClusters(c.sum, c.clusters, {}, "");
    EXPECT_TRUE(std::any_of(c.wants.begin(), c.wants.end(), [&](const Targets& w) {
      return SameResult(got, w);
    })) << Show(got);
  }
}

// Karmada TestGetWeightSum.
TEST(DispenserTest, WeightSum) {
  EXPECT_EQ(WeightSum({}), 0);
  std::vector<ClusterWeightInfo> one = {{"cluster1", 5, 0}};
  EXPECT_EQ(WeightSum(one), 5);
  std::vector<ClusterWeightInfo> three = {
      {"cluster1", 1, 0}, {"cluster2", 2, 0}, {"cluster3", 3, 0}};
  EXPECT_EQ(WeightSum(three), 6);
}

// Karmada TestNewDispenser and TestDone.
TEST(DispenserTest, NewAndDone) {
  Dispenser nil_init(5, {}, "");
  EXPECT_EQ(nil_init.num_replicas(), 5);
  EXPECT_TRUE(nil_init.result().empty());
  Targets init = {{"cluster1", 3}, {"cluster2", 7}};
  Dispenser with_init(10, init, kUidEven);
  EXPECT_EQ(with_init.num_replicas(), 10);
  EXPECT_EQ(with_init.result(), init);

  EXPECT_TRUE(Dispenser(0, {{"cluster1", 3}}, "").Done());   // zero replicas, non-empty result
  EXPECT_FALSE(Dispenser(5, {{"cluster1", 3}}, "").Done());  // non-zero replicas
  EXPECT_FALSE(Dispenser(0, {}, "").Done());                 // zero replicas, empty result
}

// Karmada TestGetStaticWeightInfoListByTargetClusters.
TEST(DispenserTest, StaticWeightInfoListByTargetClusters) {
  EXPECT_TRUE(StaticWeightInfoListByTargetClusters({}, {}).empty());
  Targets tcs = {{"cluster1", 2}, {"cluster2", 3}};
  std::vector<ClusterWeightInfo> no_scheduled = {{"cluster1", 2, 0}, {"cluster2", 3, 0}};
  EXPECT_EQ(StaticWeightInfoListByTargetClusters(tcs, {}), no_scheduled);
  Targets scheduled = {{"cluster1", 5}};
  std::vector<ClusterWeightInfo> matching = {{"cluster1", 2, 5}, {"cluster2", 3, 0}};
  EXPECT_EQ(StaticWeightInfoListByTargetClusters(tcs, scheduled), matching);
}

// ---- pkg/scheduler/core/division_algorithm_test.go

// Karmada Test_dynamicDivideReplicas.
TEST(DivisionTest, DynamicDivideReplicas) {
  struct Case {
    std::string name;
    Targets available;
    int32_t target;
    DivisionStrategy strategy;
    Targets want;
  };
  const DivisionStrategy dyn = DivisionStrategy::kDynamicWeight;
  const DivisionStrategy agg = DivisionStrategy::kAggregated;
  const std::vector<Case> cases = {
      {"replica 12, dynamic weight 18:12:6",
       {{"member1", 18}, {"member2", 12}, {"member3", 6}},
       12,
       dyn,
       {{"member1", 6}, {"member2", 4}, {"member3", 2}}},
      {"replica 12, dynamic weight 20:12:6",
       {{"member1", 20}, {"member2", 12}, {"member3", 6}},
       12,
       dyn,
       {{"member1", 6}, {"member2", 4}, {"member3", 2}}},
      {"replica 12, dynamic weight 6:12:6",
       {{"member1", 6}, {"member2", 12}, {"member3", 6}},
       12,
       dyn,
       {{"member1", 3}, {"member2", 6}, {"member3", 3}}},
      {"replica 12, aggregated 12:6:6",
       {{"member2", 12}, {"member1", 6}, {"member3", 6}},
       12,
       agg,
       {{"member2", 12}}},
      {"replica 12, aggregated 6:6:6",
       {{"member1", 6}, {"member2", 6}, {"member3", 6}},
       12,
       agg,
       {{"member1", 6}, {"member2", 6}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Division d = DynamicDivideReplicas(c.strategy, c.available, c.target, {}, "");
    ASSERT_TRUE(d.ok()) << d.error;
    EXPECT_TRUE(SameResult(d.clusters, c.want)) << Show(d.clusters);
  }
}

// ---- pkg/scheduler/core/assignment_test.go

// Karmada Test_assignByStaticWeightStrategy.
TEST(DivisionTest, AssignByStaticWeight) {
  Interner interner;
  std::deque<api::Cluster> clusters;
  auto cluster = [&](const char* name) {
    api::Cluster& c = clusters.emplace_back();
    c.meta.name = interner.Intern(name);
    ClusterDetail d;
    d.name = name;
    d.cluster = &c;
    return d;
  };
  auto rule = [&](const char* name, int64_t weight) {
    api::StaticClusterWeight w;
    w.target_cluster.cluster_names = {interner.Intern(name)};
    w.weight = weight;
    return w;
  };
  std::vector<ClusterDetail> three = {cluster("member1"), cluster("member2"), cluster("member3")};
  std::vector<ClusterDetail> two = {three[0], three[1]};
  api::ClusterPreferences w321;
  w321.static_weight_list = {rule("member1", 3), rule("member2", 2), rule("member3", 1)};
  api::ClusterPreferences w11;
  w11.static_weight_list = {rule("member1", 1), rule("member2", 1)};
  api::ClusterPreferences w1;
  w1.static_weight_list = {rule("member1", 1)};
  api::ClusterPreferences multiple;
  multiple.static_weight_list = {rule("member1", 1), rule("member2", 1), rule("member1", 2)};

  struct Case {
    std::string name;
    std::vector<ClusterDetail> candidates;
    const api::ClusterPreferences* preference;
    int32_t replicas;
    Targets want;
  };
  const std::vector<Case> cases = {
      {"replica 12, weight 3:2:1",
       three,
       &w321,
       12,
       {{"member1", 6}, {"member2", 4}, {"member3", 2}}},
      {"replica 12, default weight",
       three,
       nullptr,
       12,
       {{"member1", 4}, {"member2", 4}, {"member3", 4}}},
      {"replica 13, weight 3:2:1",
       three,
       &w321,
       13,
       {{"member1", 7}, {"member2", 4}, {"member3", 2}}},
      {"replica 14, weight 3:2:1",
       three,
       &w321,
       14,
       {{"member1", 7}, {"member2", 5}, {"member3", 2}}},
      {"insufficient replica assignment should get 0 replica",
       two,
       &w11,
       0,
       {{"member1", 0}, {"member2", 0}}},
      {"selected cluster without weight should be ignored", two, &w1, 2, {{"member1", 2}}},
      {"cluster with multiple weights", two, &multiple, 3, {{"member1", 2}, {"member2", 1}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    DivisionRequest request;
    request.replicas = c.replicas;
    Targets got = AssignByStaticWeight(c.candidates, c.preference, request, interner);
    EXPECT_TRUE(SameResult(got, c.want)) << Show(got);
  }
}

struct DynamicCase {
  std::string name;
  Targets allocatable;  // candidates and their allocatable replicas
  int32_t replicas;
  Targets previous;
  DivisionStrategy strategy;
  Targets want;
  bool want_err = false;
};

const DivisionStrategy kDyn = DivisionStrategy::kDynamicWeight;
const DivisionStrategy kAgg = DivisionStrategy::kAggregated;

// Karmada Test_dynamicScale (assignByDynamicStrategy in Steady mode).
TEST(DivisionTest, DynamicScale) {
  const Targets prev246 = {{"member1", 2}, {"member2", 4}, {"member3", 6}};
  const Targets prev48 = {{"member1", 4}, {"member2", 8}};
  const Targets ones = {{"member1", 1}, {"member2", 1}, {"member3", 1}};
  const std::vector<DynamicCase> cases = {
      {"replica 12 -> 6, dynamic weighted 1:1:1",
       ones,
       6,
       prev246,
       kDyn,
       {{"member1", 1}, {"member2", 2}, {"member3", 3}}},
      {"replica 12 -> 24, dynamic weighted 10:10:10",
       {{"member1", 10}, {"member2", 10}, {"member3", 10}},
       24,
       prev246,
       kDyn,
       {{"member1", 6}, {"member2", 8}, {"member3", 10}}},
      {"replica 12 -> 24, dynamic weighted 1:1:1", ones, 24, prev246, kDyn, {}, true},
      {"replica 12 -> 6, aggregated 1:1:1", ones, 6, prev48, kAgg, {{"member2", 6}}},
      {"replica 12 -> 8, aggregated 100:100",
       {{"member1", 100}, {"member2", 100}},
       8,
       prev48,
       kAgg,
       {{"member2", 8}}},
      {"replica 12 -> 24, aggregated 4:6:8",
       {{"member1", 4}, {"member2", 6}, {"member3", 8}},
       24,
       prev48,
       kAgg,
       {{"member1", 7}, {"member2", 12}, {"member3", 5}}},
      {"replica 12 -> 24, aggregated 6:6:20",
       {{"member1", 6}, {"member2", 6}, {"member3", 20}},
       24,
       prev48,
       kAgg,
       {{"member1", 10}, {"member2", 14}}},
      {"replica 12 -> 24, aggregated 1:1:1", ones, 24, prev48, kAgg, {}, true},
      {"replica 12 -> 24, aggregated 4:8:12, with cluster2 disappeared and cluster4 appeared",
       {{"member1", 4}, {"member3", 8}, {"member4", 12}},
       24,
       prev48,
       kAgg,
       {{"member1", 7}, {"member3", 7}, {"member4", 10}}},
  };
  for (const DynamicCase& c : cases) {
    SCOPED_TRACE(c.name);
    DivisionRequest request;
    request.replicas = c.replicas;
    request.previous = c.previous;
    Division d = AssignByDynamic(c.strategy, Candidates(c.allocatable), request);
    ASSERT_EQ(!d.ok(), c.want_err) << d.error;
    if (!c.want_err) {
      EXPECT_TRUE(SameResult(d.clusters, c.want)) << Show(d.clusters);
    }
  }
}

// Karmada Test_dynamicScaleUp.
TEST(DivisionTest, DynamicScaleUp) {
  const Targets threes = {{"member1", 3}, {"member2", 3}, {"member3", 3}};
  const std::vector<DynamicCase> cases = {
      {"replica 12, dynamic weight 6:8:10",
       {{"member1", 6}, {"member2", 8}, {"member3", 10}},
       12,
       {},
       kDyn,
       {{"member1", 3}, {"member2", 4}, {"member3", 5}}},
      {"replica 12, dynamic weight 8:8:10",
       {{"member1", 8}, {"member2", 8}, {"member3", 10}},
       12,
       {},
       kDyn,
       {{"member1", 4}, {"member2", 4}, {"member3", 4}}},
      {"replica 12, dynamic weight 3:3:3", threes, 12, {}, kDyn, {}, true},
      {"replica 12, aggregated 6:8:10",
       {{"member1", 6}, {"member2", 8}, {"member3", 10}},
       12,
       {},
       kAgg,
       {{"member2", 5}, {"member3", 7}}},
      {"replica 12, aggregated 12:8:10",
       {{"member1", 12}, {"member2", 8}, {"member3", 10}},
       12,
       {},
       kAgg,
       {{"member1", 12}}},
      {"replica 12, aggregated 3:3:3", threes, 12, {}, kAgg, {}, true},
      {"replica 12, dynamic weight 3:3, with cluster3 disappeared and cluster2 appeared",
       {{"member1", 3}, {"member2", 3}},
       12,
       {{"member1", 6}, {"member3", 6}},
       kDyn,
       {{"member1", 9}, {"member2", 3}}},
  };
  for (const DynamicCase& c : cases) {
    SCOPED_TRACE(c.name);
    DivisionRequest request;
    request.replicas = c.replicas;
    request.previous = c.previous;
    Division d = DynamicScaleUp(c.strategy, Candidates(c.allocatable), request);
    ASSERT_EQ(!d.ok(), c.want_err) << d.error;
    if (!c.want_err) {
      EXPECT_TRUE(SameResult(d.clusters, c.want)) << Show(d.clusters);
    }
  }
}

// Karmada Test_assignByDuplicatedStrategy.
TEST(DivisionTest, AssignByDuplicated) {
  std::vector<ClusterDetail> two = Candidates({{"member1", 0}, {"member2", 0}});
  EXPECT_EQ(AssignByDuplicated(two, 2), (Targets{{"member1", 2}, {"member2", 2}}));
  EXPECT_EQ(AssignByDuplicated({}, 2), Targets{});
  EXPECT_EQ(AssignByDuplicated(two, 0), (Targets{{"member1", 0}, {"member2", 0}}));
}

// Karmada Test_assignByDynamicStrategy_UnschedulableErrorPreserved, with the full message.
TEST(DivisionTest, UnschedulableErrorPreserved) {
  DivisionRequest request;
  request.replicas = 10;
  Division d = AssignByDynamic(kDyn, Candidates({{"member1", 3}}), request);
  EXPECT_TRUE(d.unschedulable);
  EXPECT_EQ(d.error,
            "failed to scale up: Clusters available replicas 3 are not enough to schedule.");
}

// Fresh mode (dynamicFreshScale): allocatable plus held replicas weigh the whole re-deal.
TEST(DivisionTest, FreshScaleIgnoresPreviousSplit) {
  DivisionRequest request;
  request.replicas = 12;
  request.previous = {{"member1", 10}, {"member2", 2}};
  request.mode = AssignmentMode::kFresh;
  // Weights 0+10 : 4+2 : 2 → 12 replicas over 10:6:2 by Webster → 7:4:1.
  Division d =
      AssignByDynamic(kDyn, Candidates({{"member1", 0}, {"member2", 4}, {"member3", 2}}), request);
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_TRUE(SameResult(d.clusters, {{"member1", 7}, {"member2", 4}, {"member3", 1}}))
      << Show(d.clusters);
  request.replicas = 30;
  d = AssignByDynamic(kDyn, Candidates({{"member1", 0}, {"member2", 4}, {"member3", 2}}), request);
  EXPECT_EQ(d.error,
            "failed to do fresh scale: Clusters available replicas 18 are not enough to schedule.");
}

// ---- pkg/scheduler/core/common_test.go

api::Placement DividedPlacement(bool dynamic) {
  api::Placement p;
  api::ReplicaSchedulingStrategy rs;
  rs.type = api::ReplicaSchedulingType::kDivided;
  rs.division_preference = api::ReplicaDivisionPreference::kWeighted;
  if (dynamic) {
    rs.weight_preference.emplace();
    rs.weight_preference->dynamic_weight_by_available_replicas = true;
  }
  p.replica_scheduling = rs;
  return p;
}

ClusterDetail Tiered(const char* name, int32_t order, int64_t available, int32_t allocatable) {
  ClusterDetail d;
  d.name = name;
  d.overflow_order = order;
  d.available_replicas = available;
  d.allocatable_replicas = allocatable;
  return d;
}

// Karmada TestAssignReplicas. Its "Unsupported replica scheduling strategy" case names a type the
// decoder rejects; the nearest reachable input (Divided without a division preference) is used.
TEST(DivisionTest, AssignReplicas) {
  Interner interner;
  api::Placement static_placement = DividedPlacement(false);
  api::Placement dynamic = DividedPlacement(true);
  struct Case {
    std::string name;
    std::vector<ClusterDetail> clusters;
    const api::Placement* placement;
    int32_t replicas;
    Targets previous;
    bool overflow;
    Targets want;
    std::string err;
  };
  api::Placement duplicated;
  api::Placement no_preference;
  no_preference.replica_scheduling.emplace();
  no_preference.replica_scheduling->type = api::ReplicaSchedulingType::kDivided;
  const std::vector<Case> cases = {
      {"Assign replicas to single cluster",
       {Tiered("member1", 0, 0, 0)},
       &static_placement,
       3,
       {},
       false,
       {{"member1", 3}},
       ""},
      {"No clusters available",
       {},
       &duplicated,
       1,
       {},
       false,
       {},
       "no clusters available to schedule"},
      {"Non-workload scenario (zero replicas)",
       {Tiered("member1", 0, 0, 0), Tiered("member2", 0, 0, 0)},
       &duplicated,
       0,
       {},
       false,
       {{"member1", 0}, {"member2", 0}},
       ""},
      {"Overflow: primary group has enough capacity, no overflow needed",
       {Tiered("member1", 0, 10, 10), Tiered("member2", 1, 10, 10)},
       &dynamic,
       5,
       {},
       true,
       {{"member1", 5}},
       ""},
      {"Overflow: primary group capacity exhausted, remaining replicas overflow to next tier",
       {Tiered("member1", 0, 2, 2), Tiered("member2", 1, 10, 10)},
       &dynamic,
       5,
       {},
       true,
       {{"member1", 2}, {"member2", 3}},
       ""},
      {"Overflow: all tiers exhausted, scheduling fails",
       {Tiered("member1", 0, 2, 2), Tiered("member2", 1, 2, 2)},
       &dynamic,
       10,
       {},
       true,
       {},
       "Clusters available replicas are not enough to schedule."},
      {"Overflow: AvailableReplicas greater than AllocatableReplicas due to previously assigned "
       "replicas",
       {Tiered("member1", 0, 5, 2), Tiered("member2", 1, 10, 10)},
       &dynamic,
       8,
       {{"member1", 3}},
       true,
       {{"member1", 5}, {"member2", 3}},
       ""},
      {"Unsupported replica scheduling strategy",
       {Tiered("member1", 0, 0, 0)},
       &no_preference,
       3,
       {},
       false,
       {},
       "unsupported replica scheduling strategy, replicaSchedulingType: Divided, "
       "replicaDivisionPreference: , please try another scheduling strategy"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    DivisionRequest request;
    request.replicas = c.replicas;
    request.previous = c.previous;
    Division d = AssignReplicas(c.clusters, *c.placement, false, c.overflow, request, interner);
    EXPECT_EQ(d.error, c.err);
    if (c.err.empty()) {
      EXPECT_EQ(d.clusters, c.want) << Show(d.clusters);
    }
  }
}

// Karmada pkg/scheduler/core/generic_scheduler_test.go Test_DistributionOfReplicas: static weights
// through AssignReplicas (results in order).
TEST(DivisionTest, DistributionOfReplicas) {
  Interner interner;
  std::deque<api::Cluster> clusters;
  auto candidate = [&](int member) {
    api::Cluster& c = clusters.emplace_back();
    std::string name = "member" + std::to_string(member);
    c.meta.name = interner.Intern(name);
    ClusterDetail d;
    d.name = name;
    d.cluster = &c;
    return d;
  };
  struct Case {
    std::string name;
    std::vector<int> members;
    int32_t replicas;
    std::vector<std::pair<int, int64_t>> weights;
    Targets want;
  };
  const std::vector<Case> cases = {
      {"replica 3, static weighted 1:1",
       {1, 2},
       3,
       {{1, 1}, {2, 1}},
       {{"member1", 2}, {"member2", 1}}},
      {"replica 3, static weighted 1:1:1, change replicas from 3 to 5, before change",
       {1, 2, 3},
       3,
       {{1, 1}, {2, 1}, {3, 1}},
       {{"member1", 1}, {"member2", 1}, {"member3", 1}}},
      {"replica 3, static weighted 1:1:1, change replicas from 3 to 5, after change",
       {1, 2, 3},
       5,
       {{1, 1}, {2, 1}, {3, 1}},
       {{"member1", 2}, {"member2", 2}, {"member3", 1}}},
      {"replica 7, static weighted 2:1:1:1, change replicas from 7 to 8, before change",
       {1, 2, 3, 4},
       7,
       {{1, 2}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 3}, {"member2", 2}, {"member3", 1}, {"member4", 1}}},
      {"replica 7, static weighted 2:1:1:1, change replicas from 7 to 8, after change",
       {1, 2, 3, 4},
       8,
       {{1, 2}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 3}, {"member2", 2}, {"member3", 2}, {"member4", 1}}},
      {"replica 9, static weighted 2:1:1:1, change replicas from 9 to 8, before change",
       {1, 2, 3, 4},
       9,
       {{1, 2}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 3}, {"member2", 2}, {"member3", 2}, {"member4", 2}}},
      {"replica 9, static weighted 2:1:1:1, change replicas from 9 to 8, after change",
       {1, 2, 3, 4},
       8,
       {{1, 2}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 3}, {"member2", 2}, {"member3", 2}, {"member4", 1}}},
      {"replica 6, static weighted 1:1:1:1, change static weighted from 1:1:1:1 to 2:1:1:1, before "
       "change",
       {1, 2, 3, 4},
       6,
       {{1, 1}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 2}, {"member2", 2}, {"member3", 1}, {"member4", 1}}},
      {"replica 6, static weighted 1:1:1:1, change static weighted from 1:1:1:1 to 2:1:1:1, after "
       "change",
       {1, 2, 3, 4},
       6,
       {{1, 2}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 3}, {"member2", 1}, {"member3", 1}, {"member4", 1}}},
      {"replica 5, static weighted 1:1:1, add a new cluster and change static weight to 1:1:1:1, "
       "before change",
       {1, 2, 3},
       5,
       {{1, 1}, {2, 1}, {3, 1}},
       {{"member1", 2}, {"member2", 2}, {"member3", 1}}},
      {"replica 5, static weighted 1:1:1, add a new cluster and change static weight to 1:1:1:1, "
       "after change",
       {1, 2, 3, 4},
       5,
       {{1, 1}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 2}, {"member2", 1}, {"member3", 1}, {"member4", 1}}},
      {"replica 6, static weighted 1:1:1:1, remove a cluster and change static weight to 1:1:1, "
       "before change",
       {1, 2, 3, 4},
       6,
       {{1, 1}, {2, 1}, {3, 1}, {4, 1}},
       {{"member1", 2}, {"member2", 2}, {"member3", 1}, {"member4", 1}}},
      {"replica 6, static weighted 1:1:1:1, remove a cluster and change static weight to 1:1:1, "
       "after change",
       {1, 2, 3},
       6,
       {{1, 1}, {2, 1}, {3, 1}},
       {{"member1", 2}, {"member2", 2}, {"member3", 2}}},

  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<ClusterDetail> candidates;
    for (int m : c.members) candidates.push_back(candidate(m));
    api::Placement placement = DividedPlacement(false);
    placement.replica_scheduling->weight_preference.emplace();
    for (const auto& [member, weight] : c.weights) {
      api::StaticClusterWeight w;
      w.target_cluster.cluster_names = {interner.Intern("member" + std::to_string(member))};
      w.weight = weight;
      placement.replica_scheduling->weight_preference->static_weight_list.push_back(w);
    }
    DivisionRequest request;
    request.replicas = c.replicas;
    Division d = AssignReplicas(candidates, placement, false, false, request, interner);
    ASSERT_TRUE(d.ok()) << d.error;
    EXPECT_EQ(d.clusters, c.want) << Show(d.clusters);
  }
}

}  // namespace
}  // namespace corral::fleet
