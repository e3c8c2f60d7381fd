#include "corral/fleet/plugins/cluster_affinity/cluster_affinity.h"

#include <gtest/gtest.h>

#include "corral/api/well_known.h"
#include "corral/fleet/plugins/normalize.h"

namespace corral::fleet {
namespace {

// Karmada TestClusterAffinity_Filter and TestClusterAffinity_Score.
TEST(ClusterAffinityTest, Filter) {
  Interner in = api::NewInterner();
  ClusterAffinity plugin(in);
  api::Cluster cluster1;
  cluster1.meta.name = in.Intern("cluster1");
  auto names = [&](const char* n) {
    api::ClusterAffinity a;
    a.cluster_names = {in.Intern(n)};
    return a;
  };

  api::FleetWork matching;
  matching.placement.cluster_affinity = names("cluster1");
  EXPECT_TRUE(plugin.Filter(matching, cluster1).ok());  // "matching affinity"

  api::FleetWork non_matching;
  non_matching.placement.cluster_affinity = names("cluster2");
  framework::Status s = plugin.Filter(non_matching, cluster1);  // "non-matching affinity"
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "cluster(s) did not match the placement cluster affinity constraint");

  api::FleetWork terms;  // "matching affinity from ClusterAffinities"
  terms.placement.cluster_affinities = {{in.Intern("affinity1"), names("cluster1"), {}}};
  terms.scheduler_observed_affinity_name = in.Intern("affinity1");
  EXPECT_TRUE(plugin.Filter(terms, cluster1).ok());

  EXPECT_TRUE(plugin.Filter(api::FleetWork{}, cluster1).ok());  // "no affinity specified"

  EXPECT_EQ(plugin.Score(api::FleetWork{}, api::Cluster{}), kMinClusterScore);
}

// Overflow affinities widen the observed term for workloads only (cluster_affinity.go).
TEST(ClusterAffinityTest, OverflowAffinitiesOnlyForWorkloads) {
  Interner in = api::NewInterner();
  ClusterAffinity plugin(in);
  api::Cluster cluster2;
  cluster2.meta.name = in.Intern("cluster2");
  api::ClusterAffinityTerm term;
  term.affinity_name = in.Intern("primary");
  term.affinity.cluster_names = {in.Intern("cluster1")};
  api::ClusterAffinityTerm overflow;
  overflow.affinity.cluster_names = {in.Intern("cluster2")};
  term.overflow = {overflow};
  api::FleetWork work;
  work.placement.cluster_affinities = {term};
  work.scheduler_observed_affinity_name = term.affinity_name;
  EXPECT_FALSE(plugin.Filter(work, cluster2).ok());  // not a workload: primary group only
  work.replicas = 3;
  EXPECT_TRUE(plugin.Filter(work, cluster2).ok());
}

}  // namespace
}  // namespace corral::fleet
