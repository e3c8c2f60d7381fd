#pragma once
// RunSimulation: assembles a simulation from a SimSpec — loads the KubeSchedulerConfiguration named
// by the spec (corral/config), builds the Scheduler with the in-tree plugin registry on a fresh
// ManualClock, and runs the sim::Engine. The simulator itself (corral/sim) never constructs a
// scheduler: this is the one place that knows how.

#include <functional>

#include "corral/core/clock.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/sim/engine.h"
#include "corral/sim/metrics.h"
#include "corral/sim/spec.h"

namespace corral::app {

struct RunRequest {
  const Clock* wall = nullptr;  // see sim::EngineOptions::wall
  sim::EventLog* log = nullptr;
  std::function<void(const sim::Progress&)> progress;
};

struct RunOutput {
  sim::RunResult result;
  sim::PerfWindow perf;
};

// Errors: invalid scheduler configuration (diagnostics in `diags`), or input errors found
// while running.
Result<RunOutput> RunSimulation(sim::SimSpec& spec, Interner& interner, Diagnostics& diags,
                                const RunRequest& req);

}  // namespace corral::app
