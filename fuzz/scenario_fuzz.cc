// Fuzzes the simulator's scenario parser (the Corral scenario YAML format, docs/scenarios.md):
// decoding, defaulting, validation and compilation into a SimSpec. Bad input must only ever produce
// diagnostics with file/line/field paths: any crash, sanitizer report, hang or trap is a bug.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "corral/api/well_known.h"
#include "corral/core/diagnostics.h"
#include "corral/sim/input/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  corral::Interner interner = corral::api::NewInterner();
  corral::Diagnostics diags;
  // No base directory: a scenario that names files (manifests, a scheduler config) fails to read
  // them, which is itself a diagnostic path worth exercising.
  auto spec = corral::sim::ParseScenario(input, "fuzz.yaml", "/nonexistent", interner, diags);
  if (!spec.ok()) {
    // A failure always says why, in the diagnostics (ParseScenario's contract).
    if (spec.error().message.empty() || !diags.has_errors()) __builtin_trap();
  }
  for (const auto& d : diags.items()) {
    if (d.message.empty()) __builtin_trap();
  }
  return 0;
}
