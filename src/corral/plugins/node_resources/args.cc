#include "corral/plugins/node_resources/args.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "corral/plugins/helper/field_errors.h"

namespace corral::plugins {

namespace {

using helper::FieldErrors;
using helper::FieldPath;

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
bool MatchesDns1123Subdomain(std::string_view s) {
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !IsLowerAlnum(label.front()) || !IsLowerAlnum(label.back())) return false;
    for (char c : label) {
      if (!IsLowerAlnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

constexpr std::string_view kQualifiedNameRegexError =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// apimachinery validation.IsQualifiedName: one message per violation, in kube's order.
std::vector<std::string> QualifiedNameErrors(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  const size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(
          fmt::format("a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. "
                      "'example.com/MyName')",
                      kQualifiedNameRegexError));
      return errs;
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.emplace_back("prefix part must be no more than 253 characters");
      if (!MatchesDns1123Subdomain(prefix)) {
        errs.emplace_back(
            "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
      }
    }
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.emplace_back("name part must be no more than 63 characters");
  }
  if (!MatchesQualifiedNamePart(name))
    errs.push_back(fmt::format("name part {}", kQualifiedNameRegexError));
  return errs;
}

// metav1validation.ValidateLabelName: one Invalid error per IsQualifiedName message.
void ValidateLabelName(std::string_view value, const FieldPath& path, FieldErrors& errs) {
  for (const std::string& msg : QualifiedNameErrors(value)) errs.Invalid(path, value, msg);
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
      // kube validates the shape under "scoringStrategy.shape", not
      // "...requestedToCapacityRatio.shape".
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
