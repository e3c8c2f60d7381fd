#pragma once
// RunSimulation: assembles a run from a SimSpec — loads the KubeSchedulerConfiguration named by the
// spec (corral/config), builds the Scheduler with the in-tree plugin registry on a fresh
// ManualClock, and runs the Engine. The only place in the simulator that knows how a scheduler is
// constructed.

#include <functional>

#include "corral/core/clock.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/sim/engine.h"
#include "corral/sim/metrics.h"
#include "corral/sim/spec.h"

namespace corral::sim {

struct RunRequest {
  const Clock* wall = nullptr;  // see EngineOptions::wall
  EventLog* log = nullptr;
  std::function<void(const Progress&)> progress;
};

struct RunOutput {
  RunResult result;
  PerfWindow perf;
};

// Errors: invalid scheduler configuration (diagnostics in `diags`), or input errors found while
// running.
Result<RunOutput> RunSimulation(SimSpec& spec, Interner& interner, Diagnostics& diags,
                                const RunRequest& req);

}  // namespace corral::sim
