#include "corral/compare/plan.h"

#include <fmt/format.h>

namespace corral::compare {

Result<std::vector<uint64_t>> SeedsFrom(const std::string& scenario_path, int seeds) {
  if (seeds < 1 || seeds > kMaxSeeds) {
    return Error::Invalid(fmt::format("--seeds: want 1 to {}, got {}", kMaxSeeds, seeds));
  }
  auto first = ScenarioSeed(scenario_path);
  if (!first.ok()) return first.error();
  std::vector<uint64_t> out;
  for (int k = 0; k < seeds; ++k) out.push_back(*first + static_cast<uint64_t>(k));
  return out;
}

Result<std::vector<RunPlan>> PlanCompare(const std::string& scenario_path,
                                         const std::vector<Variant>& variants,
                                         const std::vector<uint64_t>& seeds) {
  if (variants.empty()) return Error::Invalid("--variant: at least one variant is needed");
  for (size_t i = 0; i < variants.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (variants[i].name == variants[j].name) {
        return Error::Invalid(
            fmt::format("--variant: two variants are named {:?}", variants[i].name));
      }
    }
  }
  std::vector<RunPlan> plans;
  const size_t total = variants.size() * seeds.size();
  for (const auto& v : variants) {
    for (uint64_t seed : seeds) {
      RunPlan p;
      p.scenario_path = scenario_path;
      p.variant = v;
      p.seed = seed;
      p.index = plans.size();
      p.total = total;
      plans.push_back(std::move(p));
    }
  }
  return plans;
}

}  // namespace corral::compare
