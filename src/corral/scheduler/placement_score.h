#pragma once
// The default placement scorer of topology-aware workload scheduling (KEP-5732): kube's
// PlacementBinPacking (noderesources/placement_bin_packing.go, the NodeResourcesFit placement
// scorer, "tightest fit") with the default MostAllocated strategy over cpu and memory, weight
// 1 each.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "corral/framework/node_info.h"

namespace corral::scheduler {

// The resources of one candidate placement (a topology domain), summed over its nodes. `requested`
// is the committed non-zero request (kube NonZeroRequested) including the pod group members
// placed there.
struct PlacementResources {
  int64_t requested_milli_cpu = 0;
  int64_t allocatable_milli_cpu = 0;
  int64_t requested_memory = 0;
  int64_t allocatable_memory = 0;
};

// kube mostRequestedScore: min(requested, capacity) * 100 / capacity; 0 when capacity is 0.
inline int64_t PlacementMostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  return std::min(requested, capacity) * 100 / capacity;
}

// Σ score_r * weight_r / Σ weight_r over cpu and memory (weight 1), skipping a resource with no
// allocatable capacity; integer division as kube. In [0, 100], higher is a tighter fit.
inline int64_t PlacementBinPackingScore(const PlacementResources& r) {
  int64_t score = 0, weights = 0;
  if (r.allocatable_milli_cpu > 0) {
    score += PlacementMostRequestedScore(r.requested_milli_cpu, r.allocatable_milli_cpu);
    ++weights;
  }
  if (r.allocatable_memory > 0) {
    score += PlacementMostRequestedScore(r.requested_memory, r.allocatable_memory);
    ++weights;
  }
  return weights == 0 ? 0 : score / weights;
}

// PlacementBinPackingScore of a placement's nodes: their committed non-zero requests (with the
// members of the candidate placement assumed in the snapshot, as kube adds them to the nodes'
// allocated amounts) against their allocatable capacity.
inline int64_t PlacementBinPackingScoreOfNodes(
    const std::vector<const framework::NodeInfo*>& nodes) {
  PlacementResources r;
  for (const framework::NodeInfo* n : nodes) {
    r.requested_milli_cpu += n->non_zero_requested().milli_cpu;
    r.allocatable_milli_cpu += n->allocatable().milli_cpu;
    r.requested_memory += n->non_zero_requested().memory;
    r.allocatable_memory += n->allocatable().memory;
  }
  return PlacementBinPackingScore(r);
}

}  // namespace corral::scheduler
