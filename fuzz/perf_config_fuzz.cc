// Fuzzes kube's scheduler_perf performance-config.yaml reader (`corral perf`): parsing, the Go
// template subset of its pod/node templates, workload selection and compilation of every workload
// into a simulation. Bad input must only ever produce diagnostics or Errors: any crash, sanitizer
// report, hang or trap is a bug.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "corral/api/well_known.h"
#include "corral/core/diagnostics.h"
#include "corral/sim/input/perf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  corral::Interner interner = corral::api::NewInterner();
  corral::Diagnostics diags;
  // The directory does not exist, so template and config paths fail to read (a diagnostic).
  auto config = corral::sim::PerfConfig::Parse(input, "/nonexistent/performance-config.yaml",
                                               interner, diags);
  if (!config.ok()) {
    if (config.error().message.empty()) __builtin_trap();
    return 0;
  }
  for (const auto& ref : config->All()) {
    corral::Diagnostics compile_diags;
    auto spec = config->Compile(ref, interner, compile_diags);
    if (!spec.ok() && spec.error().message.empty()) __builtin_trap();
    (void)config->Threshold(ref);
  }
  return 0;
}
