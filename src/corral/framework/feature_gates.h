#pragma once
// Feature gates by kube's names, with kube's versioned specs (pkg/features/kube_features.go): a
// gate's default, maturity and lock depend on the kube version the scheduler emulates, as with
// kube-scheduler's `--emulated-version` (component-base compatibility versions, KEP-4330). Corral
// is a v1.37 binary: it emulates v1.34 to v1.37 (binary − 3 minors), v1.37 by default. Set from
// the command line with `--feature-gates=Name=true|false,...` (kube's flag syntax) or from
// scheduler_perf featureGates maps.

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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
  // The NodeDeclaredFeatures plugin (KEP-5328) is in the default profile while the gate is on (GA
  // and locked in v1.37; beta and on in v1.36).
  kNodeDeclaredFeatures,
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

// A kube version major.minor (kube's version.MajorMinor; patch versions are not emulated).
struct KubeVersion {
  int major = 1;
  int minor = 37;
  auto operator<=>(const KubeVersion&) const = default;
  std::string String() const;  // "1.36"
};

// The binary version Corral implements and the lowest version it emulates (kube's
// emulationVersionFloor: binary − 3 minors).
inline constexpr KubeVersion kBinaryVersion{1, 37};
inline constexpr KubeVersion kEmulationVersionFloor{1, 34};

// kube's featuregate prerelease: PreAlpha is what a gate is at a version before its first spec (off
// and not settable).
enum class PreRelease : uint8_t { kPreAlpha, kAlpha, kBeta, kGA, kDeprecated };

// One entry of kube's VersionedSpecs: from `version` on (until the next entry), the gate has this
// default, maturity and lock.
struct VersionedSpec {
  KubeVersion version;
  bool default_value = false;
  PreRelease pre_release = PreRelease::kAlpha;
  bool locked = false;  // LockToDefault: setting the other value is an error
};

struct FeatureSpec {
  std::string_view name;
  std::span<const VersionedSpec> specs;  // ascending by version; Corral-only gates: one at 0.0
  // Corral enables the gate by default wherever kube has it (not PreAlpha), whatever kube's
  // default (docs/deviations.md: GenericWorkload, TopologyAwareWorkloadScheduling).
  bool corral_default_on = false;
  // Non-empty: Corral does not model the gate off (it behaves as with the gate on), so setting it
  // to false is an error saying why, never a silent true.
  std::string_view off_not_modelled;

  // kube's featureSpecAtEmulationVersion: the last spec whose version is <= v, or PreAlpha (off,
  // not settable) before the first one.
  VersionedSpec At(KubeVersion v) const;
  // The gate's default at v (Corral's where corral_default_on says so).
  bool DefaultAt(KubeVersion v) const;
};

// The table of known gates, indexed by Feature.
const FeatureSpec& SpecOf(Feature f);
// The gate of that kube name, or nullptr.
const FeatureSpec* FindFeature(std::string_view name);

// Parses kube-scheduler's `--emulated-version` value: "1.36" or "kube=1.36" (the component defaults
// to "kube", the only one Corral has), a major.minor version within [kEmulationVersionFloor,
// kBinaryVersion]. Errors have kube's wording (component-base compatibility and apimachinery's
// version parser): "component not registered: wardle", "patch version not allowed, got:
// kube=1.36.1", "emulation version 1.33 is not between [1.34, 1.37.0]", ...
Result<KubeVersion> ParseEmulatedVersion(std::string_view flag);

class FeatureGates {
 public:
  FeatureGates();  // kube v1.37 (the binary version) defaults
  // The defaults of emulated version v (validated by ParseEmulatedVersion).
  explicit FeatureGates(KubeVersion emulated);

  bool Enabled(Feature f) const { return values_[static_cast<size_t>(f)]; }
  KubeVersion emulation_version() const { return version_; }
  // Sets one gate by kube name, as kube's featureGate.SetFromMap at the emulated version: unknown
  // names, a gate locked to the other value and a PreAlpha gate are errors with kube's wording; a
  // gate whose off Corral does not model is an error saying so.
  Result<void> Set(std::string_view name, bool value);
  // Parses "A=true,B=false" (spaces around items allowed).
  Result<void> ParseFlag(std::string_view flag);
  // kube's SetEmulationVersion: every gate takes v's default and the gates set so far are set
  // again at v; when one is locked or PreAlpha there, that is the error and nothing changes.
  Result<void> SetEmulationVersion(KubeVersion v);
  // "Name=value" for every gate that differs from its default at the emulated version, by name.
  std::vector<std::string> NonDefault() const;

 private:
  KubeVersion version_ = kBinaryVersion;
  std::vector<bool> values_;
  // The gates set by Set, in order (kube's enabledRaw), re-applied by SetEmulationVersion.
  std::vector<std::pair<Feature, bool>> set_;
};

}  // namespace corral::framework
