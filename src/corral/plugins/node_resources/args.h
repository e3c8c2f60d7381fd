#pragma once
// Typed args of the node-resources plugins (kube's pkg/scheduler/apis/config NodeResourcesFitArgs
// and NodeResourcesBalancedAllocationArgs). Field names are kube's JSON fields in snake_case
// (ignoredResources -> ignored_resources). A default-constructed struct equals kube's defaulted
// args (what a profile without pluginConfig for the plugin gets); decoders fill the fields present
// in the YAML, call SetDefaults() (kube's v1 SetDefaults_*) and then Validate().

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/handle.h"

namespace corral::plugins {

// config.ResourceSpec: a resource to score and its weight.
struct ResourceSpec {
  std::string name;
  int64_t weight = 0;
  bool operator==(const ResourceSpec&) const = default;
};

// config.UtilizationShapePoint: utilization in [0, 100] -> score in [0, kMaxCustomPriorityScore].
struct UtilizationShapePoint {
  int32_t utilization = 0;
  int32_t score = 0;
  bool operator==(const UtilizationShapePoint&) const = default;
};

// config.MaxCustomPriorityScore: shape scores are scaled by kMaxNodeScore / this (x10).
inline constexpr int32_t kMaxCustomPriorityScore = 10;

// config.RequestedToCapacityRatioParam.
struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;
  bool operator==(const RequestedToCapacityRatioParam&) const = default;
};

// config.ScoringStrategyType values.
inline constexpr std::string_view kLeastAllocated = "LeastAllocated";
inline constexpr std::string_view kMostAllocated = "MostAllocated";
inline constexpr std::string_view kRequestedToCapacityRatio = "RequestedToCapacityRatio";

// config.ScoringStrategy. `type` stays a string so that an unknown value reaches Validate() and is
// reported with kube's "Unsupported value" message.
struct ScoringStrategy {
  std::string type;
  std::vector<ResourceSpec> resources;
  std::optional<RequestedToCapacityRatioParam> requested_to_capacity_ratio;
  bool operator==(const ScoringStrategy&) const = default;
};

// kube's defaultResourceSpec: [{cpu, 1}, {memory, 1}].
std::vector<ResourceSpec> DefaultResourceSpecs();

struct NodeResourcesFitArgs final : framework::PluginArgs {
  // Extended resources Filter does not check (exact names).
  std::vector<std::string> ignored_resources;
  // Extended-resource groups Filter does not check: the part of the name before '/'.
  std::vector<std::string> ignored_resource_groups;
  // nullopt only for args built without defaulting; New() then fails as kube's NewFit does.
  std::optional<ScoringStrategy> scoring_strategy =
      ScoringStrategy{std::string(kLeastAllocated), DefaultResourceSpecs(), std::nullopt};

  // SetDefaults_NodeResourcesFitArgs: a missing strategy becomes LeastAllocated over the default
  // resources; an empty resource list becomes the default list; weight 0 becomes 1. `type` is not
  // defaulted (an empty type fails validation, as in kube).
  void SetDefaults();
  // ValidateNodeResourcesFitArgs, with field paths under `path` (kube's NewFit validates with a nil
  // path; config validation passes "profiles[i].pluginConfig[j].args").
  Result<void> Validate(std::string_view path = {}) const;
};

struct NodeResourcesBalancedAllocationArgs final : framework::PluginArgs {
  std::vector<ResourceSpec> resources = DefaultResourceSpecs();

  // SetDefaults_NodeResourcesBalancedAllocationArgs: an empty list becomes the default list; weight
  // 0 becomes 1.
  void SetDefaults();
  // ValidateNodeResourcesBalancedAllocationArgs: names unique, every weight exactly 1.
  Result<void> Validate(std::string_view path = {}) const;
};

}  // namespace corral::plugins
