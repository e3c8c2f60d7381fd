#pragma once
// What a preemption PostFilter's dry run did at its last call, for `--explain`: how many nodes were
// potential (filter status Unschedulable), where the walk started and how many candidates it
// wanted (kube's GetOffsetAndNumCandidates: a random offset in [0, potential) and
// max(potential × minCandidateNodesPercentage / 100, minCandidateNodesAbsolute), capped at
// potential), how many nodes it visited and how many candidates it found. A PostFilter plugin that
// has a dry run implements PreemptionDryRunReporter; the scheduler asks it only for explained pods.

#include <cstdint>

namespace corral::framework {

struct PreemptionDryRun {
  bool ran = false;            // false: no dry run (ineligible pod, or no potential node)
  int32_t potential = 0;       // nodes whose filter status was Unschedulable
  int32_t offset = 0;          // the walk's first node, an index into the potential nodes
  int32_t num_candidates = 0;  // the candidates the walk stops at
  int32_t evaluated = 0;       // nodes the walk visited
  int32_t found = 0;           // candidates found (kept: at most num_candidates)
  // No node holds a pod of lower priority (the cluster-wide minimum says so): every potential node
  // was counted as "No preemption victims found" without a visit.
  bool none_lower = false;
};

class PreemptionDryRunReporter {
 public:
  virtual ~PreemptionDryRunReporter() = default;
  // The dry run of the last PostFilter call.
  virtual const PreemptionDryRun& LastDryRun() const = 0;
};

}  // namespace corral::framework
