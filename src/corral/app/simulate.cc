#include "corral/app/simulate.h"

#include <fmt/format.h>

#include "corral/config/scheduler_config.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"
#include "corral/sim/scenario.h"

namespace corral::app {

using sim::CostModel;
using sim::Engine;
using sim::EngineOptions;

Result<RunOutput> RunSimulation(sim::SimSpec& spec, Interner& interner, Diagnostics& diags,
                                const RunRequest& req) {
  if (!spec.scheduler_config.has_value() && !spec.scheduler_config_path.empty()) {
    auto cfg = config::LoadSchedulerConfig(spec.scheduler_config_path, interner, spec.gates, diags);
    if (!cfg.ok()) {
      if (diags.has_errors()) return Error::Invalid(sim::DiagnosticsMessage(diags));
      return cfg.error();
    }
    spec.scheduler_config = std::move(cfg).value();
  }
  ManualClock clock;
  scheduler::Scheduler::Options opts;
  if (spec.scheduler_config.has_value()) opts.config = *spec.scheduler_config;
  opts.gates = spec.gates;
  opts.seed = spec.seed;
  opts.workload_cycle = spec.gang_workload_cycle;
  // Victims stay on their nodes, terminating, until the engine deletes them after their grace
  // period.
  opts.delete_victims_immediately = false;
  // Duration histograms only when virtual time is wall time anyway (measured cost): everything else
  // stays deterministic.
  if (spec.cost.mode == CostModel::Mode::kMeasured) opts.wall_clock = req.wall;
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto sched = scheduler::Scheduler::New(interner, clock, std::move(opts), registry);
  if (!sched.ok()) return sched.error();
  EngineOptions eo;
  eo.wall = req.wall;
  eo.log = req.log;
  eo.progress = req.progress;
  if (spec.cost.mode == CostModel::Mode::kMeasured && eo.wall == nullptr) {
    return Error::Internal("the measured scheduling cost needs a wall clock");
  }
  Engine engine(spec, interner, **sched, clock, std::move(eo));
  auto r = engine.Run();
  if (!r.ok()) return r.error();
  RunOutput out;
  out.result = std::move(r).value();
  out.perf = engine.perf();
  if (!spec.scheduler_config_path.empty()) {
    out.result.notes.push_back(
        fmt::format("scheduler configuration: {}", spec.scheduler_config_path));
  }
  return out;
}

}  // namespace corral::app
