#pragma once
// The fleet's part of a simulation's outputs (RunResult::fleet): the summary's FLEET and WORK
// ITEMS sections, the `fleet` object of `-o json` (docs/output-schema.md), the Prometheus metrics
// of dispatching, and the HTML report's fleet panel. Pure functions of the result, deterministic
// like the rest of output.h.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corral/sim/fleet_spec.h"

namespace corral::sim {

std::string FormatFleetSummary(const FleetResult& f);
nlohmann::ordered_json FleetJson(const FleetResult& f);
std::string FormatFleetPrometheus(const FleetResult& f);
// The HTML report's fleet panel: <section id="fleet"> with nominations, retries and queued items
// over time (`x`: the samples' times in seconds) and the work-item table with "why not"
// per cluster.
std::string FleetReportSection(const FleetResult& f, const std::vector<double>& x);

}  // namespace corral::sim
