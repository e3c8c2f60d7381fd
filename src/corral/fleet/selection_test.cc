#include "corral/fleet/selection.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::fleet {
namespace {

std::vector<std::string> Names(const std::vector<ClusterDetail>& cs) {
  std::vector<std::string> out;
  for (const ClusterDetail& c : cs) out.push_back(c.name);
  return out;
}

ClusterDetail Detail(const char* name, int64_t score, int64_t available) {
  ClusterDetail d;
  d.name = name;
  d.score = score;
  d.available_replicas = available;
  return d;
}

api::SpreadConstraint By(api::SpreadByField f, int32_t max_groups, int32_t min_groups) {
  api::SpreadConstraint c;
  c.spread_by_field = f;
  c.max_groups = max_groups;
  c.min_groups = min_groups;
  return c;
}

std::vector<ClusterDetail> Scores(std::vector<int64_t> scores, std::vector<int64_t> replicas) {
  std::vector<ClusterDetail> out;
  for (size_t i = 0; i < scores.size(); ++i) {
    out.push_back(Detail(("member" + std::to_string(i + 1)).c_str(), scores[i], replicas[i]));
  }
  return out;
}

api::FleetWork Work(int32_t replicas, api::ReplicaSchedulingType type,
                    api::ReplicaDivisionPreference preference, bool dynamic) {
  api::FleetWork w;
  w.replicas = replicas;
  w.placement.replica_scheduling.emplace();
  w.placement.replica_scheduling->type = type;
  w.placement.replica_scheduling->division_preference = preference;
  if (preference == api::ReplicaDivisionPreference::kWeighted) {
    w.placement.replica_scheduling->weight_preference.emplace();
    w.placement.replica_scheduling->weight_preference->dynamic_weight_by_available_replicas =
        dynamic;
  }
  return w;
}

// Karmada group_clusters_test.go Test_CalcGroupScore (generateArgs: does group 1 score at least as
// high as group 2) and Test_CalcGroupScoreForDuplicate.
TEST(SelectionTest, CalcGroupScore) {
  using T = api::ReplicaSchedulingType;
  using P = api::ReplicaDivisionPreference;
  const api::FleetWork dup20 = Work(20, T::kDuplicated, P::kNone, false);
  const api::FleetWork agg100 = Work(100, T::kDivided, P::kAggregated, false);
  const api::FleetWork dyn100 = Work(100, T::kDivided, P::kWeighted, true);
  const api::FleetWork static100 = Work(100, T::kDivided, P::kWeighted, false);
  struct Case {
    int id;
    std::vector<ClusterDetail> clusters1, clusters2;
    const api::FleetWork* work;
    int32_t min_groups;
    bool group1_wins;
  };
  const std::vector<Case> cases = {
      {1, Scores({100, 100, 0, 0, 0}, {30, 30, 30, 30, 30}),
       Scores({100, 100, 100, 100, 100}, {30, 30, 30, 10, 10}), &dup20, 0, true},
      {2, Scores({100, 100, 0, 0, 0}, {30, 30, 30, 10, 10}),
       Scores({100, 100, 100, 100, 100}, {30, 30, 30, 10, 10}), &dup20, 0, false},
      {3, Scores({100, 100, 0, 0, 0}, {30, 30, 30, 10, 10}),
       Scores({100, 100, 100, 100, 100}, {10, 10, 10, 5, 5}), &agg100, 2, true},
      {4, Scores({100, 100, 0, 0, 0}, {10, 10, 10, 10, 5}),
       Scores({100, 100, 100, 100, 100}, {10, 10, 10, 5, 5}), &dyn100, 2, true},
      {5, Scores({100, 100, 0, 0, 0}, {10, 10, 10, 5, 5}),
       Scores({100, 100, 100, 100, 100}, {10, 10, 10, 5, 5}), &static100, 2, false},
      {6, Scores({0, 0, 0, 0, 0}, {100, 100, 100, 100, 100}),
       Scores({100, 100, 100, 100, 100}, {50, 50, 50, 50, 50}), &agg100, 2, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    int64_t s1 = CalcGroupScore(c.clusters1, *c.work, c.min_groups);
    int64_t s2 = CalcGroupScore(c.clusters2, *c.work, c.min_groups);
    EXPECT_EQ(s1 >= s2, c.group1_wins) << s1 << " vs " << s2;
  }
  api::FleetWork ten;
  ten.replicas = 10;
  EXPECT_EQ(CalcGroupScore({}, ten, 0), 0);  // "get 0 score when clusters is empty"
  // "get 0 score when all clusters can not meet the replica requirements"
  EXPECT_EQ(CalcGroupScore(Scores({50, 50}, {5, 5}), ten, 0), 0);
}

// Karmada pkg/scheduler/core/spreadconstraint/select_groups_test.go TestSelectGroups.
TEST(SelectionTest, SelectGroups) {
  struct Case {
    std::string name;
    std::vector<SelectGroup> groups;
    int min, max, target;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"empty groups", {}, 2, 3, 1, {}},
      {"no enough groups", {{"R1", 1, 80}}, 2, 3, 1, {}},
      {"no enough value", {{"R1", 1, 80}, {"R2", 2, 30}}, 2, 3, 4, {}},
      {"select one group", {{"R1", 1, 80}}, 1, 3, 1, {"R1"}},
      {"prioritize one path",
       {{"R1", 1, 80}, {"R3", 1, 80}, {"R2", 1, 60}, {"R5", 2, 60}, {"R4", 5, 50}, {"R6", 3, 50}},
       1,
       3,
       10,
       {"R5", "R4", "R6"}},
      {"select groups with less total number",
       {{"R1", 1, 80}, {"R2", 4, 40}, {"R3", 1, 30}, {"R4", 3, 30}, {"R5", 3, 20}, {"R6", 5, 10}},
       2,
       6,
       5,
       {"R1", "R2"}},
      {"select groups with the highest score",
       {{"R1", 1, 60}, {"R2", 1, 50}, {"R3", 1, 40}, {"R4", 3, 30}, {"R5", 3, 20}, {"R6", 3, 10}},
       1,
       3,
       6,
       {"R1", "R4", "R5"}},
      {"select groups that are chosen earlier",
       {{"R1", 1, 60}, {"R2", 2, 50}, {"R3", 3, 40}, {"R4", 4, 30}},
       1,
       2,
       5,
       {"R1", "R4"}},
      {"select groups with greater value",
       {{"R4", 1, 60}, {"R3", 3, 50}, {"R1", 3, 40}, {"R2", 4, 30}},
       1,
       2,
       5,
       {"R3", "R1"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> got;
    for (const SelectGroup& g : SelectGroups(c.groups, c.min, c.max, c.target)) {
      got.push_back(g.name);
    }
    EXPECT_EQ(got, c.expected);
  }
}

// Karmada select_clusters_test.go TestSelectBestClusters (generateClusterInfo: member4 60/50,
// member2 40/60, member3 30/80, member1 20/40 as score/available replicas).
TEST(SelectionTest, SelectBestClustersByCluster) {
  GroupClustersInfo info;
  info.clusters = {Detail("member4", 60, 50), Detail("member2", 40, 60), Detail("member3", 30, 80),
                   Detail("member1", 20, 40)};
  const auto kCluster = api::SpreadByField::kCluster;
  api::Placement by_cluster;
  by_cluster.spread_constraints = {By(kCluster, 2, 1)};
  api::Placement duplicated = by_cluster;
  duplicated.replica_scheduling.emplace();
  duplicated.replica_scheduling->type = api::ReplicaSchedulingType::kDuplicated;
  api::Placement static_weight = by_cluster;
  static_weight.replica_scheduling.emplace();
  static_weight.replica_scheduling->type = api::ReplicaSchedulingType::kDivided;
  static_weight.replica_scheduling->division_preference = api::ReplicaDivisionPreference::kWeighted;
  static_weight.replica_scheduling->weight_preference.emplace();
  static_weight.replica_scheduling->weight_preference->static_weight_list.push_back({{}, 2});
  api::Placement divided = by_cluster;
  divided.replica_scheduling.emplace();
  divided.replica_scheduling->type = api::ReplicaSchedulingType::kDivided;
  api::Placement seven;
  seven.spread_constraints = {By(kCluster, 7, 7)};

  struct Case {
    std::string name;
    const api::Placement* placement;
    int32_t need;
    std::vector<std::string> want;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"select clusters by cluster score", &by_cluster, 100, {"member4", "member2"}, ""},
      {"select clusters by cluster score and ignore available resources when scheduling strategy "
       "is duplicated",
       &duplicated,
       120,
       {"member4", "member2"},
       ""},
      {"select clusters by cluster score and ignore available resources when scheduling strategy "
       "is static weight",
       &static_weight,
       120,
       {"member4", "member2", "member3", "member1"},
       ""},
      {"select clusters by cluster score and satisfy available resources",
       &divided,
       120,
       {"member4", "member3"},
       ""},
      {"select clusters by cluster score and insufficient resources",
       &divided,
       200,
       {},
       "no enough resource when selecting 2 clusters"},
      {"select clusters by cluster score and exceeded the number of available clusters.",
       &seven,
       30,
       {},
       "the number of feasible clusters is less than spreadConstraint.MinGroups"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Selection s = SelectBestClusters(*c.placement, info, c.need);
    EXPECT_EQ(s.error, c.err);
    EXPECT_EQ(Names(s.clusters), c.want);
  }
}

// Karmada select_clusters_by_region_test.go Test_selectBestClustersByRegion.
TEST(SelectionTest, SelectBestClustersByRegion) {
  using Region = std::pair<int64_t, std::vector<ClusterDetail>>;
  auto info = [](std::vector<std::pair<std::string, Region>> regions) {
    GroupClustersInfo g;
    for (auto& [name, r] : regions) {
      GroupInfo& gi = g.regions[name];
      gi.name = name;
      gi.score = r.first;
      gi.clusters = r.second;
      g.clusters.insert(g.clusters.end(), r.second.begin(), r.second.end());
    }
    return g;
  };
  const Region r1_two = {100, {Detail("member1", 100, 40), Detail("member2", 80, 40)}};
  const Region r2_three = {
      80, {Detail("member3", 80, 40), Detail("member4", 80, 40), Detail("member5", 60, 40)}};
  struct Case {
    std::string name;
    int32_t region_max, region_min, cluster_max, cluster_min;
    GroupClustersInfo groups;
    std::vector<std::string> want;
    bool want_err;
  };
  const std::vector<Case> cases = {
      {"select cluster from the region with the higher score",
       1,
       1,
       2,
       2,
       info({{"R1", r1_two}, {"R2", r2_three}}),
       {"member1", "member2"},
       false},
      {"select cluster from the region with enough clusters",
       1,
       1,
       3,
       3,
       info({{"R1", r1_two}, {"R2", r2_three}}),
       {"member3", "member4", "member5"},
       false},
      {"select cluster from the region with enough clusters and higher score",
       2,
       2,
       5,
       4,
       info({{"R1", {90, {Detail("member1", 90, 40)}}},
             {"R2",
              {70,
               {Detail("member2", 70, 40), Detail("member3", 60, 40), Detail("member4", 30, 40)}}},
             {"R3", {80, {Detail("member5", 80, 40), Detail("member6", 50, 60)}}},
             {"R4",
              {50,
               {Detail("member7", 50, 50), Detail("member8", 40, 50), Detail("member9", 10, 50),
                Detail("member10", 0, 50)}}}}),
       {"member1", "member2", "member3", "member4"},
       false},
      {"select cluster from more than `minGroups` regions with enough clusters and higher score",
       3,
       1,
       8,
       6,
       info({{"R1", {70, {Detail("member1", 70, 40)}}},
             {"R2",
              {40,
               {Detail("member2", 40, 40), Detail("member3", 40, 40), Detail("member4", 40, 40)}}},
             {"R3", {60, {Detail("member5", 60, 40), Detail("member6", 50, 60)}}},
             {"R4", {70, {Detail("member7", 70, 100)}}},
             {"R5", {50, {Detail("member8", 50, 50)}}}}),
       {"member1", "member5", "member2", "member6", "member3", "member4"},
       false},
      {"no enough region", 3, 3, 3, 3, info({{"R1", r1_two}, {"R2", r2_three}}), {}, true},
      {"no enough clusters",
       1,
       1,
       4,
       4,
       info({{"R1", {100, {Detail("member1", 100, 40), Detail("member2", 80, 60)}}},
             {"R2", r2_three}}),
       {},
       true},
      {"no more regions to replace",
       1,
       1,
       4,
       3,
       info({{"R1", {100, {Detail("member1", 100, 40), Detail("member2", 80, 20)}}}}),
       {},
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Placement p;
    p.spread_constraints = {By(api::SpreadByField::kRegion, c.region_max, c.region_min),
                            By(api::SpreadByField::kCluster, c.cluster_max, c.cluster_min)};
    p.replica_scheduling.emplace();
    p.replica_scheduling->type = api::ReplicaSchedulingType::kDivided;
    Selection s = SelectBestClusters(p, c.groups, 0);
    EXPECT_EQ(!s.ok(), c.want_err) << s.error;
    EXPECT_EQ(Names(s.clusters), c.want);
  }
}

}  // namespace
}  // namespace corral::fleet
