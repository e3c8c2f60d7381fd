#include "corral/app/simulate.h"

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "corral/config/scheduler_config.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"
#include "corral/sim/scenario.h"

namespace corral::app {

using sim::CostModel;
using sim::Engine;
using sim::EngineOptions;

namespace {

// Loads the KubeSchedulerConfiguration at `path` into `cfg` unless it is decoded already.
Result<void> LoadConfig(const std::string& path, const framework::FeatureGates& gates,
                        std::optional<framework::SchedulerConfig>& cfg, Interner& interner,
                        Diagnostics& diags) {
  if (cfg.has_value() || path.empty()) return Result<void>::Ok();
  auto loaded = config::LoadSchedulerConfig(path, interner, gates, diags);
  if (!loaded.ok()) {
    if (diags.has_errors()) return Error::Invalid(sim::DiagnosticsMessage(diags));
    return loaded.error();
  }
  cfg = std::move(loaded).value();
  return Result<void>::Ok();
}

// One member's scheduler on the run's clock.
Result<std::unique_ptr<scheduler::Scheduler>> BuildScheduler(
    const sim::SimSpec& spec, const std::optional<framework::SchedulerConfig>& cfg,
    const framework::FeatureGates& gates, Interner& interner, ManualClock& clock,
    const framework::Registry& registry, const RunRequest& req) {
  scheduler::Scheduler::Options opts;
  if (cfg.has_value()) opts.config = *cfg;
  opts.gates = gates;
  opts.seed = spec.seed;
  opts.workload_cycle = spec.gang_workload_cycle;
  // Victims stay on their nodes, terminating, until the engine deletes them after their
  // grace period.
  opts.delete_victims_immediately = false;
  // Duration histograms only when virtual time is wall time anyway (measured cost): everything else
  // stays deterministic.
  if (spec.cost.mode == CostModel::Mode::kMeasured) opts.wall_clock = req.wall;
  return scheduler::Scheduler::New(interner, clock, std::move(opts), registry);
}

}  // namespace

Result<RunOutput> RunSimulation(sim::SimSpec& spec, Interner& interner, Diagnostics& diags,
                                const RunRequest& req) {
  if (spec.clusters.empty()) {
    if (auto st = LoadConfig(spec.scheduler_config_path, spec.gates, spec.scheduler_config,
                             interner, diags);
        !st.ok()) {
      return st.error();
    }
  }
  for (auto& c : spec.clusters) {
    if (auto st = LoadConfig(c.scheduler_config_path, c.gates, c.scheduler_config, interner, diags);
        !st.ok()) {
      return st.error();
    }
  }
  ManualClock clock;
  framework::Registry registry = plugins::NewInTreeRegistry();
  std::vector<std::unique_ptr<scheduler::Scheduler>> scheds;
  std::vector<sim::EngineMember> members;
  if (spec.clusters.empty()) {
    auto s =
        BuildScheduler(spec, spec.scheduler_config, spec.gates, interner, clock, registry, req);
    if (!s.ok()) return s.error();
    scheds.push_back(std::move(s).value());
    members.push_back({scheds.back().get(), &spec.gates, &spec.objects});
  } else {
    for (const auto& c : spec.clusters) {
      auto s = BuildScheduler(spec, c.scheduler_config, c.gates, interner, clock, registry, req);
      if (!s.ok())
        return Error::Invalid(fmt::format("cluster {:?}: {}", c.name, s.error().message));
      scheds.push_back(std::move(s).value());
      members.push_back({scheds.back().get(), &c.gates, &spec.objects});
    }
  }
  EngineOptions eo;
  eo.wall = req.wall;
  eo.log = req.log;
  eo.progress = req.progress;
  if (spec.cost.mode == CostModel::Mode::kMeasured && eo.wall == nullptr) {
    return Error::Internal("the measured scheduling cost needs a wall clock");
  }
  Engine engine(spec, interner, members, clock, std::move(eo));
  auto r = engine.Run();
  if (!r.ok()) return r.error();
  RunOutput out;
  out.result = std::move(r).value();
  out.perf = engine.perf();
  if (!spec.scheduler_config_path.empty()) {
    out.result.notes.push_back(
        fmt::format("scheduler configuration: {}", spec.scheduler_config_path));
  }
  for (const auto& c : spec.clusters) {
    if (!c.scheduler_config_path.empty()) {
      out.result.notes.push_back(
          fmt::format("cluster {} scheduler configuration: {}", c.name, c.scheduler_config_path));
    }
  }
  return out;
}

}  // namespace corral::app
