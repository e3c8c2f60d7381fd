#pragma once
// The Corral scenario format (YAML, `kind: Scenario`, documented in docs/scenarios.md with examples
// under examples/scenarios/): node pools, workload streams, priority classes, scheduler settings
// and timed ops, compiled into a SimSpec.
//
// Contract:
//  (1) Every problem is a Diagnostic with the scenario file, the line and the field path
//      (`default.yaml:42: workloads[3].resources.cpu: ...`); all problems are reported, not only
//      the first. Pod and node templates are validated by the manifest loader (object_set.h), with
//      its messages, mapped back to the scenario's lines and paths.
//  (2) Relative paths in the scenario (manifests, scheduler.configPath) are resolved against
//      `base_dir` (the scenario file's directory).
//  (3) Compiling is deterministic and does not run anything: node and pod objects are created by
//      the Engine when the program runs.

#include <string>
#include <string_view>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/sim/spec.h"

namespace corral::sim {

struct ScenarioOptions {
  bool strict = false;  // unknown fields (in the scenario and in templates) are errors
  // `simulate --estimator`: "general" or "accurate" in place of the fleet section's `estimator`
  // ("" keeps it); an error for a scenario without a fleet.
  std::string fleet_estimator;
  // Member clusters absent from this run (`corral compact --clusters`, a variant's
  // `clusters.NAME=absent`): each is dropped from the scenario before it compiles, as if it had
  // never been declared — with its node pools, its `fleet.members` entry, its outages and its
  // place in `fleet.configOrder`. What still names it is an error at its position: a workload's
  // `cluster:`, a fleet workload's placement, an op on one of its pools; so is a scenario without
  // clusters, an unknown name, every member absent, or `fleet.objects` (whose objects may name it).
  std::vector<std::string> absent_clusters;
};

// Returns the spec, or an Error when `diags` has errors (the Error's message lists them).
Result<SimSpec> ParseScenario(std::string_view text, std::string_view file,
                              const std::string& base_dir, Interner& interner, Diagnostics& diags,
                              const ScenarioOptions& opts = {});
Result<SimSpec> LoadScenarioFile(const std::string& path, Interner& interner, Diagnostics& diags,
                                 const ScenarioOptions& opts = {});

// True when `text` is a Corral scenario document (a map with `kind: Scenario`).
bool LooksLikeScenario(std::string_view text);

// Parses a rate: a number (per second) or "N/s", "N/m" ("N/min"), "N/h", "N/d". False
// when malformed.
bool ParseRate(std::string_view s, double& per_second);

// Joins every error diagnostic into one message (one per line).
std::string DiagnosticsMessage(const Diagnostics& diags);

}  // namespace corral::sim
