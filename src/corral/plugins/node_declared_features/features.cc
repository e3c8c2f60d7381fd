#include "corral/plugins/node_declared_features/features.h"

#include <algorithm>

#include <fmt/format.h>

namespace corral::plugins::ndf {

namespace {

bool NeverForScheduling(const api::Pod& pod) {
  (void)pod;
  return false;
}

bool HasPodLevelResources(const api::Pod& pod) {
  return pod.resources.has_value();
}

}  // namespace

FeatureRegistry::FeatureRegistry(std::vector<Feature> features) : features_(std::move(features)) {
  std::sort(features_.begin(), features_.end(),
            [](const Feature& a, const Feature& b) { return a.name < b.name; });
}

std::vector<std::string> FeatureRegistry::InferForPodScheduling(const api::Pod& pod,
                                                                const Version& target) const {
  std::vector<std::string> out;
  for (const Feature& f : features_) {
    if (f.max_version.has_value() && target > *f.max_version) continue;
    if (f.infer_for_scheduling(pod)) out.push_back(f.name);
  }
  return out;
}

FeatureRegistry DefaultRegistry() {
  return FeatureRegistry({
      {"GuaranteedQoSPodCPUResize", std::nullopt, &NeverForScheduling},
      {"InPlacePodLevelResourcesVerticalScaling", std::nullopt, &NeverForScheduling},
      // Their inputs (restartPolicyRules with action RestartAllContainers; hostNetwork with
      // hostUsers false) are refused by Corral's loader, so no pod Corral holds requires them.
      {"RestartAllContainersOnContainerExits", std::nullopt, &NeverForScheduling},
      {"UserNamespacesHostNetworkSupport", std::nullopt, &NeverForScheduling},
  });
}

FeatureRegistry PerfMockRegistry(int32_t n) {
  std::vector<Feature> fs;
  for (int32_t i = 1; i <= n; ++i) {
    fs.push_back({fmt::format("Feature{}", i), std::nullopt, &HasPodLevelResources});
  }
  return FeatureRegistry(std::move(fs));
}

std::vector<std::string> PerfMockFeatureNames(int32_t n) {
  std::vector<std::string> names;
  for (int32_t i = 1; i <= n; ++i) names.push_back(fmt::format("Feature{}", i));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace corral::plugins::ndf
