#pragma once
// RunSimulation: assembles a simulation from a SimSpec — loads the KubeSchedulerConfiguration named
// by the spec (corral/config), builds the Scheduler with the in-tree plugin registry on a fresh
// ManualClock, and runs the sim::Engine. The simulator itself (corral/sim) never constructs a
// scheduler: this is the one place that knows how.

#include <atomic>
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
  const std::atomic<int>* stop = nullptr;  // see sim::EngineOptions::stop
  // Pods every member's scheduler explains, and where their explained attempts go (as
  // sim::EngineOptions::on_explain says).
  std::function<bool(const api::Pod&)> explain;
  std::function<void(uint32_t member, const api::Pod& pod, const scheduler::CycleExplain& ex,
                     int64_t at_ns)>
      on_explain;
};

struct RunOutput {
  sim::RunResult result;
  sim::PerfWindow perf;
};

// The result's provenance holds the seed, the Corral version and each scheduler (configuration
// path and hash, profiles with their plugins per extension point, feature gates); the caller adds
// the inputs (sim::DescribeInputs) and the command.
//
// Errors: invalid scheduler configuration (diagnostics in `diags`), or input errors found
// while running.
Result<RunOutput> RunSimulation(sim::SimSpec& spec, Interner& interner, Diagnostics& diags,
                                const RunRequest& req);

}  // namespace corral::app
