// Fuzzes the variant and parameter reader of `corral compare`, `corral sweep` and `corral compact`
// (compare/variant.h): a `--variant` value NAME or NAME:OPT;OPT;... and its options (config,
// config.CLUSTER, feature-gates, pools, nodes.POOL, rate.WORKLOAD), then the overrides applied to a
// small compiled scenario. Contracts checked:
//   1. Bad input only ever yields an error with a non-empty message; applying overrides never
//      crashes, whatever pool, workload or count they name.
//   2. A parsed variant's Describe() is its command-line form: "NAME:" + Describe() parses back to
//      a variant with the same name and the same description.
//   3. After nodes.POOL=N is applied, the pool's initial size is N.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "corral/api/well_known.h"
#include "corral/compare/variant.h"
#include "corral/core/diagnostics.h"
#include "corral/sim/input/scenario.h"

namespace {

constexpr std::string_view kScenario = R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fuzz}
seed: 7
duration: 1h
nodePools:
- name: gpu
  count: 2
  resources: {cpu: "8", memory: 32Gi, pods: "20", nvidia.com/gpu: "4"}
- name: cpu
  count: 1
  resources: {cpu: "4", memory: 8Gi, pods: "20"}
workloads:
- name: train
  arrival: {rate: 2/h}
  resources: {cpu: "1", memory: 1Gi}
- name: web
  count: 3
  resources: {cpu: 500m, memory: 1Gi}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  // pools=FILE reads a file; a device or kernel file would block or never end (the user's choice).
  for (std::string_view special : {"/dev", "/proc", "/sys"}) {
    if (input.find(special) != std::string_view::npos) return 0;
  }
  auto v = corral::compare::ParseVariantFlag(input);
  if (!v.ok()) {
    if (v.error().message.empty()) __builtin_trap();
    return 0;
  }
  if (!corral::compare::ValidVariantName(v->name)) __builtin_trap();
  const std::string described = v->overrides.Describe();
  const std::string flag = described.empty() ? v->name : v->name + ":" + described;
  auto again = corral::compare::ParseVariantFlag(flag);
  if (!again.ok() || again->name != v->name || again->overrides.Describe() != described) {
    __builtin_trap();
  }

  corral::Interner interner = corral::api::NewInterner();
  corral::Diagnostics diags;
  auto spec = corral::sim::ParseScenario(kScenario, "fuzz.yaml", "/nonexistent", interner, diags);
  if (!spec.ok()) __builtin_trap();  // the fixed scenario is valid
  auto applied = corral::compare::ApplyOverrides(v->overrides, *spec, interner);
  if (!applied.ok()) {
    if (applied.error().message.empty()) __builtin_trap();
    return 0;
  }
  if (v->overrides.pools.empty()) {
    for (const auto& [pool, count] : v->overrides.nodes) {
      auto now = corral::compare::InitialPoolSize(*spec, pool);
      if (!now.ok() || *now != count) __builtin_trap();
    }
  }
  return 0;
}
