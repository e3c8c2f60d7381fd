#include "corral/api/cluster.h"

#include <algorithm>

#include "corral/api/selectors.h"

namespace corral::api {

namespace {

bool Contains(const std::vector<Symbol>& list, Symbol s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// util.matchZones: the zone requirement against spec.zones. In needs one listed zone, NotIn needs
// none listed, Exists needs some zone, DoesNotExist none; any other operator fails.
bool MatchZones(const NodeSelectorRequirement& req, const std::vector<Symbol>& zones) {
  switch (req.op) {
    case NodeSelectorOp::kIn:
      for (Symbol z : zones) {
        if (Contains(req.values, z)) return true;
      }
      return false;
    case NodeSelectorOp::kNotIn:
      for (Symbol z : zones) {
        if (Contains(req.values, z)) return false;
      }
      return true;
    case NodeSelectorOp::kExists:
      return !zones.empty();
    case NodeSelectorOp::kDoesNotExist:
      return zones.empty();
    default:
      return false;
  }
}

}  // namespace

bool FleetWork::TargetContains(Symbol cluster) const {
  return std::any_of(clusters.begin(), clusters.end(),
                     [&](const TargetCluster& t) { return t.name == cluster; });
}

bool FleetWork::ClusterInGracefulEvictionTasks(Symbol cluster) const {
  return Contains(graceful_eviction_clusters, cluster);
}

bool ClusterMatches(const Cluster& cluster, const ClusterAffinity& affinity,
                    const Interner& interner) {
  if (Contains(affinity.exclude, cluster.meta.name)) return false;
  if (affinity.label_selector && !Matches(*affinity.label_selector, cluster.meta.labels)) {
    return false;
  }
  if (affinity.field_selector) {
    // extractClusterFields: provider and region, when set, are the cluster's fields.
    LabelSet fields;
    bool fields_built = false;
    for (const NodeSelectorRequirement& req : *affinity.field_selector) {
      std::string_view key = interner.Str(req.key);
      if (key == "zone") {
        if (!MatchZones(req, cluster.zones)) return false;
        continue;
      }
      if (!fields_built) {
        if (!cluster.provider.empty()) {
          if (auto k = interner.Find("provider")) fields.Set(*k, cluster.provider);
        }
        if (!cluster.region.empty()) {
          if (auto k = interner.Find("region")) fields.Set(*k, cluster.region);
        }
        fields_built = true;
      }
      if (!Matches(req, fields, interner)) return false;
    }
  }
  return affinity.cluster_names.empty() || Contains(affinity.cluster_names, cluster.meta.name);
}

ApiEnablementStatus ClusterApiEnablement(const Cluster& cluster, Symbol api_version, Symbol kind) {
  for (const ApiEnablement& e : cluster.api_enablements) {
    if (e.group_version != api_version) continue;
    if (Contains(e.kinds, kind)) return ApiEnablementStatus::kEnabled;
  }
  return cluster.complete_api_enablements ? ApiEnablementStatus::kDisabled
                                          : ApiEnablementStatus::kUnknown;
}

}  // namespace corral::api
