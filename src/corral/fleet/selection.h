#pragma once
// Cluster selection with spread constraints, as Karmada's scheduler does
// it (pkg/scheduler/core/spreadconstraint):
//
//   - GroupClusters: each scored cluster gets its overflow order (0 for the observed affinity term,
//     i for its i-th overflow affinity, 1000 for neither), its allocatable replicas from the
//     estimators and available replicas = allocatable + the replicas it already holds; clusters are
//     sorted by overflow order ascending, score descending, available replicas descending, name
//     ascending. With spread constraints by zone, region or provider (beyond a lone cluster
//     constraint, and unless static weights make Karmada ignore them) clusters are also grouped,
//     and each group scored: for Duplicated, 1000 × (clusters holding all replicas) + their mean
//     score; for Divided, the first clusters reaching max(minGroups of the group, of clusters) and
//     ceil(replicas / minGroups) replicas give 1000 × min(target, their replicas) + mean score.
//   - SelectBestClusters: no spread constraints, or Divided/Weighted with static weights → every
//     cluster. With a region constraint: regions chosen by SelectGroups, the best cluster of each,
//     then the rest by score up to the cluster constraint's maxGroups. With a cluster constraint:
//     at least minGroups clusters ("the number of feasible clusters is less than
//     spreadConstraint.MinGroups"), the top min(n, maxGroups), and unless Duplicated (which ignores
//     capacity) the lowest-scored are swapped from the tail for the remaining cluster with the most
//     available replicas until the selection holds the replicas ("no enough resource when
//     selecting N clusters"). Anything else: "just support cluster and region spread constraint".
//   - SelectGroups: the depth-first search over groups (sorted by cluster count ascending, weight
//     descending, name) for combinations of [min, max] groups holding `target` clusters, the best
//     by weight, then value, then discovery order, preferring a sub-path of the best.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/interner.h"
#include "corral/fleet/cluster_detail.h"

namespace corral::fleet {

// A filtered cluster and its total score.
struct ScoredCluster {
  const api::Cluster* cluster = nullptr;
  int64_t score = 0;
};

struct GroupInfo {
  std::string name;
  int64_t score = 0;
  int64_t available_replicas = 0;
  std::vector<ClusterDetail> clusters;  // in the order of GroupClustersInfo::clusters
};

struct GroupClustersInfo {
  std::vector<ClusterDetail> clusters;  // sorted as above
  std::map<std::string, GroupInfo> regions;
  std::map<std::string, GroupInfo> zones;
  std::map<std::string, GroupInfo> providers;
};

// getClusterOverflowOrder.
int32_t ClusterOverflowOrder(const api::Cluster& cluster, const api::FleetWork& work,
                             const Interner& interner);

// GroupClustersWithScore; `allocatable[i]` is the estimators' answer for `scored[i]`.
GroupClustersInfo GroupClusters(std::span<const ScoredCluster> scored,
                                std::span<const int32_t> allocatable, const api::FleetWork& work,
                                const Interner& interner);

// calcGroupScore for a group's clusters.
int64_t CalcGroupScore(std::span<const ClusterDetail> clusters, const api::FleetWork& work,
                       int32_t min_groups);

struct SelectGroup {
  std::string name;
  int value = 0;       // clusters in the group
  int64_t weight = 0;  // the group's score
};

// selectGroups: the chosen groups, empty when none is feasible.
std::vector<SelectGroup> SelectGroups(std::vector<SelectGroup> groups, int min_groups,
                                      int max_groups, int target);

struct Selection {
  std::vector<ClusterDetail> clusters;
  std::string error;
  bool ok() const { return error.empty(); }
};

// SelectBestClusters. `need_replicas` is spec.replicas.
Selection SelectBestClusters(const api::Placement& placement, const GroupClustersInfo& info,
                             int32_t need_replicas);
// The same, taking the candidates from `info` where the selection is all of them.
Selection SelectBestClusters(const api::Placement& placement, GroupClustersInfo&& info,
                             int32_t need_replicas);

}  // namespace corral::fleet
