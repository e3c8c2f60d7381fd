// Fuzzes the fleet part of the scenario format (sim/input/fleet_scenario.h): a scenario's `fleet:`
// section (Karmada's scheduler or MultiKueue's dispatcher in front of its `clusters:`, members,
// outages, a dispatcher profile) and the `fleet:` map of workloads that arrive at the fleet. The
// whole scenario reader runs, as in scenario_fuzz, but from seeds that all have a fleet, so the
// fuzzer spends its time in the fleet decoder and compiler. Contracts checked:
//   1. Bad input only ever yields diagnostics: a failure has a non-empty message and at least one
//      error, and every diagnostic says something.
//   2. A compiled fleet is consistent: one api::Cluster per member cluster of the scenario, its
//      configOrder and outages name members, and every workload that arrives at the fleet names
//      one of its work items.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "corral/api/well_known.h"
#include "corral/core/diagnostics.h"
#include "corral/sim/fleet_spec.h"
#include "corral/sim/input/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  corral::Interner interner = corral::api::NewInterner();
  corral::Diagnostics diags;
  auto spec = corral::sim::ParseScenario(input, "fuzz.yaml", "/nonexistent", interner, diags);
  for (const auto& d : diags.items()) {
    if (d.message.empty()) __builtin_trap();
  }
  if (!spec.ok()) {
    if (spec.error().message.empty() || !diags.has_errors()) __builtin_trap();
    return 0;
  }
  const corral::sim::FleetSpec* fleet = spec->fleet.get();
  for (const auto& w : spec->workloads) {
    if (w.fleet_work == corral::sim::kNone) continue;
    if (fleet == nullptr || w.fleet_work >= fleet->works.size()) __builtin_trap();
  }
  if (fleet == nullptr) return 0;
  const size_t members = fleet->clusters.size();
  if (members != spec->clusters.size()) __builtin_trap();
  for (uint32_t m : fleet->config_order) {
    if (m >= members) __builtin_trap();
  }
  for (const auto& o : fleet->outages) {
    if (o.cluster >= members) __builtin_trap();
  }
  return 0;
}
