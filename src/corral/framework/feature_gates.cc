#include "corral/framework/feature_gates.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace corral::framework {

namespace {
// Defaults as of kube-scheduler v1.37 (KK pkg/features/kube_features.go). GenericWorkload is beta
// in v1.37; Corral enables it by default (documented deviation: docs/deviations.md).
constexpr std::array<FeatureSpec, static_cast<size_t>(Feature::kCount)> kSpecs = {{
    {"OpportunisticBatching", true, false},
    {"GenericWorkload", true, false},
    {"TopologyAwareWorkloadScheduling", true, false},
    {"SchedulerQueueingHints", true, true},
    {"SchedulerPopFromBackoffQ", true, false},
    {"SchedulerAsyncPreemption", true, false},
    {"PodLevelResources", true, false},
    {"SidecarContainers", true, true},
    {"DynamicResourceAllocation", true, true},
    {"DRAExtendedResource", true, true},
    {"DRAPrioritizedList", true, true},
    {"DRADeviceTaints", true, false},
    {"DRADeviceTaintRules", true, false},
    {"MatchLabelKeysInPodTopologySpread", true, false},
    {"NodeInclusionPolicyInPodTopologySpread", true, true},
    {"MatchLabelKeysInPodAffinity", true, true},
    {"CompositePodGroup", false, false},
    {"StorageCapacityScoring", true, false},
    {"InPlacePodVerticalScaling", true, true},
    {"InPlacePodVerticalScalingSchedulerPreemption", false, false},
    {"DRAListTypeAttributes", false, false},
    {"DRAResourceClaimDeviceStatus", true, true},
    {"DRADeviceBindingConditions", true, false},
    {"DRADeviceCompatibilityGroups", false, false},
    {"DRAWorkloadResourceClaims", false, false},
    {"CorralBatchingExtensions", true, false},
    {"CorralBatchingRescoreHook", true, false},
    {"CorralIncrementalPreScore", true, false},
    {"CorralFilterMemo", true, false},
    {"CorralPreemptionMemo", true, false},
}};
}  // namespace

const FeatureSpec& SpecOf(Feature f) {
  return kSpecs[static_cast<size_t>(f)];
}

const FeatureSpec* FindFeature(std::string_view name) {
  for (const auto& s : kSpecs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

FeatureGates::FeatureGates() {
  values_.reserve(kSpecs.size());
  for (const auto& s : kSpecs) values_.push_back(s.default_value);
}

Result<void> FeatureGates::Set(std::string_view name, bool value) {
  for (size_t i = 0; i < kSpecs.size(); ++i) {
    if (kSpecs[i].name != name) continue;
    if (kSpecs[i].locked && value != kSpecs[i].default_value) {
      return Error::Invalid(fmt::format("cannot set feature gate {} to {}, feature is locked to {}",
                                        name, value, kSpecs[i].default_value));
    }
    values_[i] = value;
    return {};
  }
  return Error::Invalid(fmt::format("unrecognized feature gate: {}", name));
}

Result<void> FeatureGates::ParseFlag(std::string_view flag) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  while (!flag.empty()) {
    size_t comma = flag.find(',');
    std::string_view item = trim(flag.substr(0, comma));
    flag = comma == std::string_view::npos ? std::string_view() : flag.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Error::Invalid(fmt::format("missing bool value for {}", item));
    }
    std::string_view name = trim(item.substr(0, eq));
    std::string_view val = trim(item.substr(eq + 1));
    bool b;
    if (val == "true" || val == "True" || val == "TRUE" || val == "1" || val == "t" || val == "T") {
      b = true;
    } else if (val == "false" || val == "False" || val == "FALSE" || val == "0" || val == "f" ||
               val == "F") {
      b = false;
    } else {
      return Error::Invalid(fmt::format(
          "invalid value of {}={}, err: strconv.ParseBool: parsing \"{}\": invalid syntax", name,
          val, val));
    }
    Result<void> st = Set(name, b);
    if (!st.ok()) return st;
  }
  return {};
}

std::vector<std::string> FeatureGates::NonDefault() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < kSpecs.size(); ++i) {
    if (values_[i] != kSpecs[i].default_value) {
      out.push_back(fmt::format("{}={}", kSpecs[i].name, values_[i] ? "true" : "false"));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace corral::framework
