// Fuzzes the KubeSchedulerConfiguration reader (`--config`): decoding (lenient and strict),
// defaulting, plugin-set merging and validation of every plugin's args. Bad input must only ever
// produce diagnostics: any crash, sanitizer report, hang or trap is a bug.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "corral/api/well_known.h"
#include "corral/config/scheduler_config.h"
#include "corral/core/diagnostics.h"
#include "corral/framework/feature_gates.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  for (bool strict : {false, true}) {
    corral::Interner interner = corral::api::NewInterner();
    corral::Diagnostics diags;
    corral::framework::FeatureGates gates;
    auto cfg = corral::config::ParseSchedulerConfig(input, "fuzz.yaml", interner, gates, diags,
                                                    {.strict = strict});
    if (!cfg.ok() && (cfg.error().message.empty() || !diags.has_errors())) __builtin_trap();
    for (const auto& d : diags.items()) {
      if (d.message.empty()) __builtin_trap();
    }
  }
  return 0;
}
