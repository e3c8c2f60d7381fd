#include "corral/fleet/karmada_scheduler.h"

#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

class KarmadaSchedulerTest : public ::testing::Test {
 protected:
  api::Cluster Cluster(const char* name, int64_t pods) {
    api::Cluster c;
    c.meta.name = in_.Intern(name);
    c.resource_summary.emplace();
    c.resource_summary->allocatable = {{api::wk::kPods, api::Quantity::FromInt(pods)}};
    c.api_enablements = {{in_.Intern("apps/v1"), {in_.Intern("Deployment")}}};
    return c;
  }
  // A Deployment's binding.
  api::FleetWork Work(int32_t replicas) {
    api::FleetWork w;
    w.replicas = replicas;
    w.resource.api_version = in_.Intern("apps/v1");
    w.resource.kind = in_.Intern("Deployment");
    return w;
  }
  Interner in_ = api::NewInterner();
};

// FitError's message: the reasons of the rejected clusters counted, sorted as strings.
TEST_F(KarmadaSchedulerTest, NoClusterFits) {
  std::vector<api::Cluster> clusters = {Cluster("a", 10), Cluster("b", 10), Cluster("c", 10)};
  clusters[0].taints = {{in_.Intern("k"), in_.Intern("v"), api::TaintEffect::kNoSchedule, {}}};
  api::FleetWork work = Work(2);
  work.placement.cluster_affinity.emplace();
  work.placement.cluster_affinity->cluster_names = {in_.Intern("a")};
  BindingSchedule s = ScheduleBinding(work, clusters, {}, in_);
  EXPECT_EQ(s.error,
            "0/3 clusters are available: 1 cluster(s) had untolerated taint {k=v:NoSchedule}, 2 "
            "cluster(s) did not match the placement cluster affinity constraint.");
  EXPECT_EQ(s.clusters[0].filter_plugin, "TaintToleration");
  EXPECT_EQ(s.clusters[1].filter_plugin, "ClusterAffinity");
  // A cluster without the Deployment API.
  clusters[2].api_enablements.clear();
  EXPECT_EQ(ScheduleBinding(work, clusters, {}, in_).clusters[2].reason,
            "cluster(s) did not have the API resource");
  EXPECT_EQ(ScheduleBinding(work, {}, {}, in_).error,
            "0/0 clusters are available: no cluster exists.");
}

// Divided by available replicas over the general estimator's pod budgets 6:4:2 → 6:4:2 of 12.
TEST_F(KarmadaSchedulerTest, DynamicWeightWithTheGeneralEstimator) {
  std::vector<api::Cluster> clusters = {Cluster("a", 6), Cluster("b", 4), Cluster("c", 2)};
  api::FleetWork work = Work(12);
  work.replica_requirements.emplace();
  api::ReplicaSchedulingStrategy rs;
  rs.type = api::ReplicaSchedulingType::kDivided;
  rs.division_preference = api::ReplicaDivisionPreference::kWeighted;
  rs.weight_preference.emplace();
  rs.weight_preference->dynamic_weight_by_available_replicas = true;
  work.placement.replica_scheduling = rs;
  GeneralEstimator general(in_);
  const ReplicaEstimator* estimators[] = {&general};
  BindingSchedule s = ScheduleBinding(work, clusters, estimators, in_);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.result, (std::vector<TargetReplicas>{{"a", 6}, {"b", 4}, {"c", 2}}));
  work.replicas = 13;
  s = ScheduleBinding(work, clusters, estimators, in_);
  EXPECT_EQ(s.error,
            "failed to assign replicas: failed to scale up: Clusters available replicas 12 are not "
            "enough to schedule.");
}

// Ordered clusterAffinities: the first term fails, the second places the work.
TEST_F(KarmadaSchedulerTest, ClusterAffinitiesFallBack) {
  std::vector<api::Cluster> clusters = {Cluster("local", 1), Cluster("cloud", 100)};
  api::FleetWork work = Work(5);
  work.replica_requirements.emplace();
  api::ReplicaSchedulingStrategy rs;
  rs.type = api::ReplicaSchedulingType::kDivided;
  rs.division_preference = api::ReplicaDivisionPreference::kAggregated;
  work.placement.replica_scheduling = rs;
  api::ClusterAffinityTerm local;
  local.affinity_name = in_.Intern("local-first");
  local.affinity.cluster_names = {in_.Intern("local")};
  api::ClusterAffinityTerm cloud;
  cloud.affinity_name = in_.Intern("cloud");
  cloud.affinity.cluster_names = {in_.Intern("cloud")};
  work.placement.cluster_affinities = {local, cloud};
  GeneralEstimator general(in_);
  const ReplicaEstimator* estimators[] = {&general};
  BindingSchedule s = ScheduleBinding(work, clusters, estimators, in_);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.affinity_name, "cloud");
  EXPECT_EQ(s.result, (std::vector<TargetReplicas>{{"cloud", 5}}));
}

}  // namespace
}  // namespace corral::fleet
