// Fuzzes the workload controllers' input as `corral simulate` reads manifests
// (sim/input/manifests.h): Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs (with the
// pods, PodGroups and other objects beside them) are loaded with controllers on, then compiled into
// a simulation: one pod template and one workload per controller, with the labels, tolerations and
// selector owners the controller gives its pods. Contracts checked:
//   1. Bad input only ever yields diagnostics with a non-empty message; never a crash, a sanitizer
//      report or a hang.
//   2. Every controller that compiles without an error becomes exactly one workload, and every
//      workload names a pod template and a controller that exist.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/api/well_known.h"
#include "corral/core/diagnostics.h"
#include "corral/loader/loader.h"
#include "corral/sim/controllers/compile.h"
#include "corral/sim/input/manifests.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  for (bool strict : {false, true}) {
    corral::Interner interner = corral::api::NewInterner();
    corral::loader::LoadResult loaded = corral::loader::LoadString(
        input, "fuzz.yaml", interner, {.strict = strict, .controllers = true});
    for (const auto& d : loaded.diagnostics.items()) {
      if (d.message.empty()) __builtin_trap();
    }
    if (!loaded.ok()) continue;
    corral::Diagnostics diags;
    corral::sim::SimSpec spec;
    spec.initial_nodes = std::move(loaded.objects.nodes);
    std::vector<const corral::api::Pod*> pods;
    for (const auto& p : loaded.objects.pods) pods.push_back(&p);
    corral::sim::AddManifestPods(pods, interner, spec, diags);
    const size_t controllers = loaded.controllers.size();
    const size_t workloads_before = spec.workloads.size();
    corral::sim::AddControllers(std::move(loaded.controllers), interner, spec, diags,
                                spec.program.empty() ? 0 : 1);
    for (const auto& d : diags.items()) {
      if (d.message.empty()) __builtin_trap();
    }
    if (diags.has_errors()) continue;
    if (spec.workloads.size() != workloads_before + controllers) __builtin_trap();
    if (spec.controllers.size() != controllers) __builtin_trap();
    for (const auto& w : spec.workloads) {
      if (w.tmpl >= spec.pod_templates.size()) __builtin_trap();
      if (w.controller != corral::sim::kNone && w.controller >= spec.controllers.size()) {
        __builtin_trap();
      }
    }
  }
  return 0;
}
