#pragma once
// The declared-feature registry of kube's k8s.io/component-helpers nodedeclaredfeatures: each
// feature has a name (what a node lists in status.declaredFeatures when its kubelet provides it),
// an optional last version (inclusive) in which a pod still needs a node to declare it, and a rule
// that tells whether scheduling a pod needs it. The registry keeps its features sorted by name, as
// kube's framework does.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "corral/api/types.h"

namespace corral::plugins::ndf {

// A semantic version (major.minor.patch); compared field by field, as kube's version.GreaterThan.
struct Version {
  int32_t major = 0, minor = 0, patch = 0;
  friend auto operator<=>(const Version&, const Version&) = default;
};

// The version Corral's scheduler answers for (kube's version.Get() in the plugin).
inline constexpr Version kSchedulerVersion{1, 37, 0};

struct Feature {
  std::string name;
  // Past this version no pod requires the feature (every supported node has it); nullopt: none.
  std::optional<Version> max_version;
  // Whether scheduling the pod needs a node that declares the feature (kube's InferForScheduling).
  bool (*infer_for_scheduling)(const api::Pod& pod) = nullptr;
};

class FeatureRegistry {
 public:
  // Sorts `features` by name (kube's ndf.New).
  explicit FeatureRegistry(std::vector<Feature> features);

  // kube's InferForPodScheduling: the names of the features that scheduling `pod` requires at
  // `target`, in registry (name) order; a feature is skipped when `target` is past its version.
  std::vector<std::string> InferForPodScheduling(const api::Pod& pod, const Version& target) const;

  const std::vector<Feature>& features() const { return features_; }

 private:
  std::vector<Feature> features_;
};

// The features of kube v1.37's registry. Two infer a requirement at scheduling time in kube: a
// container or init container with a restartPolicyRules entry whose action is RestartAllContainers
// (RestartAllContainersOnContainerExits), and hostNetwork with hostUsers false
// (UserNamespacesHostNetworkSupport). Corral's loader refuses those inputs at their position, so
// for every pod Corral holds they infer nothing; the others (in-place resize of guaranteed CPU and
// of pod-level resources) infer a requirement only for updates, which Corral does not make.
FeatureRegistry DefaultRegistry();

// kube's scheduler_perf nodedeclaredfeatures test replaces the registry with `n` mock features
// named Feature1..Feature<n> (no max version), each required by every pod with pod-level resources
// (spec.resources set).
FeatureRegistry PerfMockRegistry(int32_t n);
// The names PerfMockRegistry's nodes declare: Feature1..Feature<n> sorted as strings (the test's
// sort.Strings, so Feature10 sorts before Feature2).
std::vector<std::string> PerfMockFeatureNames(int32_t n);

}  // namespace corral::plugins::ndf
