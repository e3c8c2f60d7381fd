#include "corral/fleet/estimator.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

class EstimatorTest : public ::testing::Test {
 protected:
  api::ResourceList List(std::vector<std::pair<std::string, std::string>> items) {
    api::ResourceList out;
    for (const auto& [name, value] : items) {
      out.emplace_back(in_.Intern(name), *api::Quantity::Parse(value));
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }
  api::ReplicaRequirements Request(std::vector<std::pair<std::string, std::string>> items) {
    api::ReplicaRequirements r;
    r.resource_request = List(std::move(items));
    return r;
  }
  // Grades 0, 1, 2 with the given cpu (and optionally memory) minimums, one node each.
  api::Cluster Graded(std::vector<std::vector<std::pair<std::string, std::string>>> mins) {
    api::Cluster c;
    c.resource_summary.emplace();
    for (uint32_t g = 0; g < mins.size(); ++g) {
      api::ResourceModel m;
      m.grade = g;
      for (const auto& [name, q] : mins[g]) {
        m.ranges.push_back({in_.Intern(name), *api::Quantity::Parse(q), {}});
      }
      c.resource_models.push_back(m);
      c.resource_summary->allocatable_modelings.push_back({g, 1});
    }
    return c;
  }

  Interner in_ = api::NewInterner();
};

// Karmada TestGetMaximumReplicasBasedOnResourceModels.
TEST_F(EstimatorTest, MaxReplicasBasedOnResourceModels) {
  Result<int64_t> none =
      MaxReplicasBasedOnResourceModels(api::Cluster{}, Request({{"cpu", "1"}}), in_);
  EXPECT_FALSE(none.ok());  // "No grade defined should result in an error"

  api::Cluster cpu_grades = Graded({{{"cpu", "0"}}, {{"cpu", "1"}}, {{"cpu", "2"}}});
  // "Partially compliant grades"
  EXPECT_EQ(*MaxReplicasBasedOnResourceModels(cpu_grades, Request({{"cpu", "1.5"}}), in_), 1);
  // "No compliant grades"
  EXPECT_EQ(*MaxReplicasBasedOnResourceModels(cpu_grades, Request({{"cpu", "3"}}), in_), 0);

  api::Cluster two_resources = Graded({{{"cpu", "0"}, {"memory", "0"}},
                                       {{"cpu", "1"}, {"memory", "1Gi"}},
                                       {{"cpu", "2"}, {"memory", "2Gi"}}});
  // "Multi resource request"
  EXPECT_EQ(*MaxReplicasBasedOnResourceModels(two_resources,
                                              Request({{"cpu", "1"}, {"memory", "1.5Gi"}}), in_),
            1);
  // "request exceeds highest grade"
  EXPECT_EQ(*MaxReplicasBasedOnResourceModels(two_resources,
                                              Request({{"cpu", "1"}, {"memory", "2.5Gi"}}), in_),
            0);
}

// Karmada TestMaxAvailableReplicas (its cases without assumed workloads).
TEST_F(EstimatorTest, MaxAvailableReplicasOverClusters) {
  GeneralEstimator estimator(in_);
  api::Cluster with_resources;
  with_resources.resource_summary.emplace();
  with_resources.resource_summary->allocatable =
      List({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "100"}});
  with_resources.resource_summary->allocated =
      List({{"cpu", "1"}, {"memory", "2Gi"}, {"pods", "20"}});
  api::Cluster no_resources;
  std::vector<const api::Cluster*> clusters = {&with_resources, &no_resources};
  api::ReplicaRequirements half = Request({{"cpu", "500m"}, {"memory", "1Gi"}});
  EXPECT_EQ(estimator.MaxAvailableReplicas(std::span<const api::Cluster* const>(clusters), &half),
            (std::vector<int32_t>{6, 0}));
}

// Karmada TestMaxAvailableReplicasGeneral (its cases without assumed workloads).
TEST_F(EstimatorTest, MaxAvailableReplicasGeneral) {
  GeneralEstimator estimator(in_);
  api::Cluster nil_summary;
  EXPECT_EQ(estimator.MaxAvailableReplicas(nil_summary, nullptr), 0);

  api::Cluster no_pods;
  no_pods.resource_summary.emplace();
  no_pods.resource_summary->allocatable = List({{"pods", "10"}});
  no_pods.resource_summary->allocated = List({{"pods", "10"}});
  EXPECT_EQ(estimator.MaxAvailableReplicas(no_pods, nullptr), 0);

  api::Cluster ten_pods;
  ten_pods.resource_summary.emplace();
  ten_pods.resource_summary->allocatable = List({{"pods", "10"}});
  EXPECT_EQ(estimator.MaxAvailableReplicas(ten_pods, nullptr), 10);

  api::Cluster basic;
  basic.resource_summary.emplace();
  basic.resource_summary->allocatable = List({{"pods", "100"}, {"cpu", "4"}, {"memory", "8Gi"}});
  basic.resource_summary->allocated = List({{"pods", "20"}, {"cpu", "1"}, {"memory", "2Gi"}});
  api::ReplicaRequirements half = Request({{"cpu", "500m"}, {"memory", "1Gi"}});
  EXPECT_EQ(estimator.MaxAvailableReplicas(basic, &half), 6);
}

// Karmada TestMaxAvailableReplicasGeneralWithResourceModels (its baseline without assumed
// workloads: 3 grade-1 nodes of 1 cpu hold 2 replicas of 500m each).
TEST_F(EstimatorTest, ResourceModelsBaseline) {
  api::Cluster c;
  api::ResourceModel g0;
  g0.grade = 0;
  g0.ranges = {{api::wk::kCpu, *api::Quantity::Parse("0"), *api::Quantity::Parse("1")}};
  api::ResourceModel g1;
  g1.grade = 1;
  g1.ranges = {{api::wk::kCpu, *api::Quantity::Parse("1"), *api::Quantity::Parse("2")}};
  c.resource_models = {g0, g1};
  c.resource_summary.emplace();
  c.resource_summary->allocatable = List({{"pods", "100"}, {"cpu", "3"}});
  c.resource_summary->allocatable_modelings = {{0, 0}, {1, 3}};
  api::ReplicaRequirements req = Request({{"cpu", "500m"}});
  EXPECT_EQ(GeneralEstimator(in_).MaxAvailableReplicas(c, &req), 6);
  // With CustomizedClusterResourceModeling off, the summary alone: 3 cpu / 500m.
  EXPECT_EQ(GeneralEstimator(in_, false).MaxAvailableReplicas(c, &req), 6);
  // Models exist but allocatable modelings do not: the summary path.
  c.resource_summary->allocatable_modelings.clear();
  EXPECT_EQ(GeneralEstimator(in_).MaxAvailableReplicas(c, &req), 6);
}

// Karmada TestGetAllowedPodNumber.
TEST_F(EstimatorTest, AllowedPodNumber) {
  api::ResourceSummary normal;
  normal.allocatable = List({{"pods", "100"}});
  normal.allocated = List({{"pods", "40"}});
  normal.allocating = List({{"pods", "10"}});
  EXPECT_EQ(AllowedPodNumber(normal), 50);
  api::ResourceSummary no_allocatable;
  no_allocatable.allocated = List({{"pods", "10"}});
  EXPECT_EQ(AllowedPodNumber(no_allocatable), 0);
  api::ResourceSummary over;
  over.allocatable = List({{"pods", "100"}});
  over.allocated = List({{"pods", "90"}});
  over.allocating = List({{"pods", "20"}});
  EXPECT_EQ(AllowedPodNumber(over), 0);
}

// Karmada TestGetMaximumReplicasBasedOnClusterSummary.
TEST_F(EstimatorTest, MaxReplicasBasedOnClusterSummary) {
  api::ReplicaRequirements half = Request({{"cpu", "500m"}, {"memory", "1Gi"}});
  api::ResourceSummary sufficient;
  sufficient.allocatable = List({{"cpu", "4"}, {"memory", "8Gi"}});
  sufficient.allocated = List({{"cpu", "1"}, {"memory", "2Gi"}});
  EXPECT_EQ(MaxReplicasBasedOnClusterSummary(sufficient, half, in_), 6);
  api::ResourceSummary short_memory;
  short_memory.allocatable = List({{"cpu", "4"}, {"memory", "2Gi"}});
  short_memory.allocated = List({{"cpu", "1"}, {"memory", "1.5Gi"}});
  EXPECT_EQ(MaxReplicasBasedOnClusterSummary(short_memory, half, in_), 0);
}

// calAvailableReplicas's merge (pkg/scheduler/core/util.go): minimum over authentic answers, then
// INT32_MAX becomes spec.replicas.
class FixedEstimator final : public ReplicaEstimator {
 public:
  explicit FixedEstimator(std::vector<int32_t> answers) : answers_(std::move(answers)) {}
  std::vector<int32_t> MaxAvailableReplicas(std::span<const api::Cluster* const>,
                                            const api::ReplicaRequirements*) const override {
    return answers_;
  }

 private:
  std::vector<int32_t> answers_;
};

TEST_F(EstimatorTest, CalAvailableReplicasTakesTheMinimum) {
  api::Cluster a, b, c;
  std::vector<const api::Cluster*> clusters = {&a, &b, &c};
  FixedEstimator e1({5, kUnauthenticReplica, kUnauthenticReplica});
  FixedEstimator e2({7, 3, kUnauthenticReplica});
  std::vector<const ReplicaEstimator*> estimators = {&e1, &e2};
  EXPECT_EQ(CalAvailableReplicas(estimators, clusters, 9, nullptr),
            (std::vector<int32_t>{5, 3, 9}));
  // A work item without replicas is not estimated.
  EXPECT_EQ(CalAvailableReplicas(estimators, clusters, 0, nullptr),
            (std::vector<int32_t>{0, 0, 0}));
}

}  // namespace
}  // namespace corral::fleet
