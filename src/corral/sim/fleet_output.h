#pragma once
// The fleet's part of a simulation's outputs (RunResult::fleet): the summary's FLEET and WORK
// ITEMS sections, the `fleet` object of `-o json` (docs/output-schema.md), and the Prometheus
// metrics of dispatching. Pure functions of the result, deterministic like the rest of output.h.

#include <string>

#include <nlohmann/json.hpp>

#include "corral/sim/fleet_spec.h"

namespace corral::sim {

std::string FormatFleetSummary(const FleetResult& f);
nlohmann::ordered_json FleetJson(const FleetResult& f);
std::string FormatFleetPrometheus(const FleetResult& f);

}  // namespace corral::sim
