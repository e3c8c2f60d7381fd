#include "corral/plugins/node_resources/args.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/plugins/helper/field_errors.h"

namespace corral::plugins {

namespace {

using helper::FieldErrors;
using helper::FieldPath;

// metav1validation.ValidateLabelName: one Invalid error per IsQualifiedName message.
void ValidateLabelName(std::string_view value, const FieldPath& path, FieldErrors& errs) {
  for (const std::string& msg : api::QualifiedNameMessages(value)) errs.Invalid(path, value, msg);
}

void ValidateResources(const std::vector<ResourceSpec>& resources, const FieldPath& path,
                       FieldErrors& errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs.Invalid(path.Index(i).Child("weight"), r.weight,
                   fmt::format("resource weight of {} not in valid range (0, 100]", r.name));
    }
  }
}

void ValidateFunctionShape(const std::vector<UtilizationShapePoint>& shape, const FieldPath& path,
                           FieldErrors& errs) {
  if (shape.empty()) {
    errs.Required(path, "at least one point must be specified");
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.Invalid(path.Index(i).Child("utilization"), shape[i].utilization,
                   "values must be sorted in increasing order");
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const UtilizationShapePoint& p = shape[i];
    if (p.utilization < 0 || p.utilization > 100) {
      errs.Invalid(path.Index(i).Child("utilization"), p.utilization,
                   "not in valid range [0, 100]");
    }
    if (p.score < 0 || p.score > kMaxCustomPriorityScore) {
      errs.Invalid(path.Index(i).Child("score"), p.score,
                   fmt::format("not in valid range [0, {}]", kMaxCustomPriorityScore));
    }
  }
}

void DefaultWeights(std::vector<ResourceSpec>& resources) {
  for (ResourceSpec& r : resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

}  // namespace

std::vector<ResourceSpec> DefaultResourceSpecs() {
  return {{"cpu", 1}, {"memory", 1}};
}

void NodeResourcesFitArgs::SetDefaults() {
  if (!scoring_strategy.has_value()) {
    scoring_strategy =
        ScoringStrategy{std::string(kLeastAllocated), DefaultResourceSpecs(), std::nullopt};
  }
  if (scoring_strategy->resources.empty()) scoring_strategy->resources = DefaultResourceSpecs();
  DefaultWeights(scoring_strategy->resources);
}

Result<void> NodeResourcesFitArgs::Validate(std::string_view path) const {
  FieldErrors errs;
  const FieldPath root(path);
  const FieldPath res_path = root.Child("ignoredResources");
  for (size_t i = 0; i < ignored_resources.size(); ++i) {
    ValidateLabelName(ignored_resources[i], res_path.Index(i), errs);
  }
  const FieldPath group_path = root.Child("ignoredResourceGroups");
  for (size_t i = 0; i < ignored_resource_groups.size(); ++i) {
    const std::string& group = ignored_resource_groups[i];
    if (group.find('/') != std::string::npos) {
      errs.Invalid(group_path.Index(i), group, "resource group name can't contain '/'");
    }
    ValidateLabelName(group, group_path.Index(i), errs);
  }
  if (scoring_strategy.has_value()) {
    const FieldPath strategy_path = root.Child("scoringStrategy");
    static constexpr std::string_view kSupported[] = {kLeastAllocated, kMostAllocated,
                                                      kRequestedToCapacityRatio};
    if (std::find(std::begin(kSupported), std::end(kSupported), scoring_strategy->type) ==
        std::end(kSupported)) {
      errs.NotSupported(strategy_path.Child("type"), scoring_strategy->type, kSupported);
    }
    ValidateResources(scoring_strategy->resources, strategy_path.Child("resources"), errs);
    if (scoring_strategy->requested_to_capacity_ratio.has_value()) {
      // kube validates the shape under "scoringStrategy.shape",
      // not "...requestedToCapacityRatio.shape".
      ValidateFunctionShape(scoring_strategy->requested_to_capacity_ratio->shape,
                            strategy_path.Child("shape"), errs);
    }
  }
  return errs.ToResult();
}

void NodeResourcesBalancedAllocationArgs::SetDefaults() {
  if (resources.empty()) {
    resources = DefaultResourceSpecs();
    return;
  }
  DefaultWeights(resources);
}

Result<void> NodeResourcesBalancedAllocationArgs::Validate(std::string_view path) const {
  FieldErrors errs;
  const FieldPath res_path = FieldPath(path).Child("resources");
  std::vector<std::string_view> seen;
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (std::find(seen.begin(), seen.end(), r.name) != seen.end()) {
      errs.Duplicate(res_path.Index(i).Child("name"), r.name);
    } else {
      seen.push_back(r.name);
    }
    if (r.weight != 1) errs.Invalid(res_path.Index(i).Child("weight"), r.weight, "must be 1");
  }
  return errs.ToResult();
}

}  // namespace corral::plugins
