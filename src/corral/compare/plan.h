#pragma once
// The runs of a `corral compare`: every variant over the same seeds. Seeds are the scenario's own
// seed and the next ones (seed, seed + 1, ..., seed + n − 1), so `--seeds 1` reproduces
// `corral simulate` of the same scenario exactly.

#include <cstdint>
#include <string>
#include <vector>

#include "corral/compare/record.h"
#include "corral/core/result.h"

namespace corral::compare {

inline constexpr int kDefaultSeeds = 5;
inline constexpr int kMaxSeeds = 1000;

// `seeds` consecutive seeds from the scenario's seed. Errors: an unreadable scenario, a count
// outside 1..kMaxSeeds.
Result<std::vector<uint64_t>> SeedsFrom(const std::string& scenario_path, int seeds);

// Plans in matrix order (variant, then seed). Errors: no variant, or two with the same name.
Result<std::vector<RunPlan>> PlanCompare(const std::string& scenario_path,
                                         const std::vector<Variant>& variants,
                                         const std::vector<uint64_t>& seeds);

}  // namespace corral::compare
