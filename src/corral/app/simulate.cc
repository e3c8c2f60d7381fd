#include "corral/app/simulate.h"

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "corral/config/scheduler_config.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/provenance.h"

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

// The options of one member's scheduler.
scheduler::Scheduler::Options SchedulerOptions(const sim::SimSpec& spec,
                                               const std::optional<framework::SchedulerConfig>& cfg,
                                               const framework::FeatureGates& gates,
                                               const RunRequest& req) {
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
  opts.explain = req.explain;
  return opts;
}

// What one scheduler of the run is made of: its configuration file, feature gates and the plugins
// each profile runs at each extension point (as instantiated, so defaults and merges are resolved).
Result<sim::SchedulerProvenance> DescribeScheduler(
    const std::string& cluster, const std::string& config_path,
    const std::optional<framework::SchedulerConfig>& cfg, const framework::FeatureGates& gates,
    const std::vector<std::string>& explicit_gates, const scheduler::Scheduler& sched) {
  sim::SchedulerProvenance p;
  p.cluster = cluster;
  p.config_path = config_path;
  if (!config_path.empty()) {
    auto h = sim::HashPath(config_path);
    if (!h.ok()) return h.error();
    p.config_hash = *h;
  }
  p.gates_explicit = explicit_gates;
  p.gates_non_default = gates.NonDefault();
  if (gates.emulation_version() != framework::kBinaryVersion) {
    p.emulated_version = gates.emulation_version().String();
  }
  std::vector<std::string> names;
  if (cfg.has_value()) {
    for (const auto& prof : cfg->profiles) names.push_back(prof.scheduler_name);
  }
  if (names.empty()) names.emplace_back("default-scheduler");
  static constexpr const char* kPoints[] = {"PreEnqueue", "QueueSort", "PreFilter", "Filter",
                                            "PostFilter", "PreScore",  "Score",     "Reserve",
                                            "Permit",     "PreBind",   "Bind",      "PostBind"};
  for (const auto& name : names) {
    const framework::Framework* fwk = sched.profile(name);
    if (fwk == nullptr) return Error::Internal(fmt::format("profile {:?} was not built", name));
    sim::ProfileProvenance prof;
    prof.scheduler_name = name;
    for (const char* point : kPoints) prof.points.push_back({point, fwk->ListPlugins(point)});
    p.profiles.push_back(std::move(prof));
  }
  return p;
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
  // Kept for the fleet's trial placements on copies of the members (EngineMember::options).
  std::vector<std::unique_ptr<scheduler::Scheduler::Options>> options;
  std::vector<sim::EngineMember> members;
  auto build =
      [&](const std::optional<framework::SchedulerConfig>& cfg,
          const framework::FeatureGates& gates) -> Result<std::unique_ptr<scheduler::Scheduler>> {
    options.push_back(
        std::make_unique<scheduler::Scheduler::Options>(SchedulerOptions(spec, cfg, gates, req)));
    return scheduler::Scheduler::New(interner, clock, *options.back(), registry);
  };
  std::vector<sim::SchedulerProvenance> described;
  if (spec.clusters.empty()) {
    auto s = build(spec.scheduler_config, spec.gates);
    if (!s.ok()) return s.error();
    scheds.push_back(std::move(s).value());
    members.push_back(
        {scheds.back().get(), &spec.gates, &spec.objects, options.back().get(), &registry});
    auto d = DescribeScheduler("", spec.scheduler_config_path, spec.scheduler_config, spec.gates,
                               spec.explicit_gates, *scheds.back());
    if (!d.ok()) return d.error();
    described.push_back(std::move(d).value());
  } else {
    for (const auto& c : spec.clusters) {
      auto s = build(c.scheduler_config, c.gates);
      if (!s.ok())
        return Error::Invalid(fmt::format("cluster {:?}: {}", c.name, s.error().message));
      scheds.push_back(std::move(s).value());
      members.push_back(
          {scheds.back().get(), &c.gates, &spec.objects, options.back().get(), &registry});
      auto d = DescribeScheduler(c.name, c.scheduler_config_path, c.scheduler_config, c.gates,
                                 c.explicit_gates, *scheds.back());
      if (!d.ok()) return d.error();
      described.push_back(std::move(d).value());
    }
  }
  EngineOptions eo;
  eo.wall = req.wall;
  eo.log = req.log;
  eo.progress = req.progress;
  eo.stop = req.stop;
  eo.on_explain = req.on_explain;
  if (spec.cost.mode == CostModel::Mode::kMeasured && eo.wall == nullptr) {
    return Error::Internal("the measured scheduling cost needs a wall clock");
  }
  Engine engine(spec, interner, members, clock, std::move(eo));
  auto r = engine.Run();
  if (!r.ok()) return r.error();
  RunOutput out;
  out.result = std::move(r).value();
  out.perf = engine.perf();
  sim::Provenance& prov = out.result.provenance;
  prov.corral_version = sim::CorralVersion();
  prov.seed = spec.seed;
  prov.schedulers = std::move(described);
  if (spec.fleet != nullptr) {
    auto d = sim::DescribeDispatcher(*spec.fleet, interner);
    if (!d.ok()) return d.error();
    prov.dispatcher.push_back(std::move(d).value());
  }
  return out;
}

}  // namespace corral::app
