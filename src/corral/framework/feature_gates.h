#pragma once
// Feature gates by kube's names, with kube-scheduler v1.37 defaults. Set from the command line with
// `--feature-gates=Name=true|false,...` (kube's flag syntax) or from scheduler_perf
// featureGates maps.

#include <string>
#include <string_view>
#include <vector>

#include "corral/core/result.h"

namespace corral::framework {

enum class Feature {
  kOpportunisticBatching,
  kGenericWorkload,
  kTopologyAwareWorkloadScheduling,
  kSchedulerQueueingHints,
  kSchedulerPopFromBackoffQ,
  kSchedulerAsyncPreemption,
  kPodLevelResources,
  kSidecarContainers,
  kDynamicResourceAllocation,
  kDRAExtendedResource,
  kDRAPrioritizedList,
  kDRADeviceTaints,
  kDRADeviceTaintRules,
  kMatchLabelKeysInPodTopologySpread,
  kNodeInclusionPolicyInPodTopologySpread,
  kMatchLabelKeysInPodAffinity,
  kCompositePodGroup,
  kStorageCapacityScoring,
  // In-place pod resize (KEP-1287, GA and locked in v1.37) and the scheduler's preemption for
  // deferred resizes (KEP-5836, alpha in v1.37).
  kInPlacePodVerticalScaling,
  kInPlacePodVerticalScalingSchedulerPreemption,
  kDRAListTypeAttributes,  // alpha, off: matchAttribute over list attributes intersects their sets
  // DRA gates of v1.37: device status and binding conditions, compatibility groups of shared
  // counters, resource claims of a PodGroup (plugins/dynamic_resources).
  kDRAResourceClaimDeviceStatus,  // GA, locked on
  kDRADeviceBindingConditions,    // beta, on
  kDRADeviceCompatibilityGroups,  // alpha, off
  kDRAWorkloadResourceClaims,     // beta, off
  // Corral-only (docs/deviations.md): batching beyond kube — PodTopologySpread signs pods that its
  // system default constraints select nothing of (no Service/RS/SS/RC selects them).
  kCorralBatchingExtensions,
  // Corral-only: InterPodAffinity signs pods whose pod (anti-)affinity is preferred only,
  // PodTopologySpread pods whose explicit constraints are all ScheduleAnyway; the batch rescores
  // them through the plugins' Rescore hook (framework/plugin.h RescoreExtension).
  kCorralBatchingRescoreHook,
  // Corral-only: batch rescoring updates kept PreScore state for the one added pod
  // (PreScoreExtensions::AddPod) instead of re-running PreScore.
  kCorralIncrementalPreScore,
  // Corral-only: the scheduler remembers the filter verdict of each node for pods with a signature
  // and node-local filters, and re-filters only nodes whose NodeInfo or nominations changed
  // (scheduler/filter_memo.h). Outputs are identical with it off.
  kCorralFilterMemo,
  // Corral-only: DefaultPreemption reuses a node's dry-run result (victims, or why it cannot help)
  // for later preemptors of the same signature while the node and everything the result reads is
  // unchanged (plugins/default_preemption/default_preemption.h).
  kCorralPreemptionMemo,
  kCount,
};

struct FeatureSpec {
  std::string_view name;
  bool default_value;
  bool locked;  // GA and locked to its default: setting the other value is an error, as in kube
};

// The table of known gates, indexed by Feature.
const FeatureSpec& SpecOf(Feature f);
// The gate of that kube name, or nullptr.
const FeatureSpec* FindFeature(std::string_view name);

class FeatureGates {
 public:
  FeatureGates();  // v1.37 defaults

  bool Enabled(Feature f) const { return values_[static_cast<size_t>(f)]; }
  // Sets one gate by kube name. Unknown names and writes to locked gates are errors with
  // kube's wording.
  Result<void> Set(std::string_view name, bool value);
  // Parses "A=true,B=false" (spaces around items allowed).
  Result<void> ParseFlag(std::string_view flag);
  // "Name=value" for every gate that differs from its default, sorted by name.
  std::vector<std::string> NonDefault() const;

 private:
  std::vector<bool> values_;
};

}  // namespace corral::framework
