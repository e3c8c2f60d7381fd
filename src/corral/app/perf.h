#pragma once
// RunPerfWorkload: compiles one scheduler_perf workload (sim/perf_config.h), runs it on the
// simulator (RunSimulation) and checks its threshold (sim/perf.h has the rules and the formats).

#include <functional>
#include <optional>

#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/framework/feature_gates.h"
#include "corral/sim/engine.h"
#include "corral/sim/input/perf_config.h"
#include "corral/sim/perf.h"
#include "corral/sim/spec.h"

namespace corral::app {

struct PerfRunOptions {
  const Clock* wall = nullptr;  // required unless `cost` is kInstant/kFixed
  std::optional<sim::CostModel> cost;
  std::function<void(const sim::Progress&)> progress;
  sim::EventLog* log = nullptr;  // the run's event log, when given (one after another per workload)
  // kube-scheduler's --emulated-version: the gates' defaults and locks of that version.
  framework::KubeVersion emulated_version = framework::kBinaryVersion;
};

sim::PerfResult RunPerfWorkload(const sim::PerfConfig& config, const sim::PerfWorkloadRef& ref,
                                Interner& interner, const PerfRunOptions& opts);

}  // namespace corral::app
