#pragma once
// The scheduler the end-to-end benchmarks measure: default plugins, OpportunisticBatching off (the
// batching benchmarks compare both), on an injected clock.

#include <memory>

#include <benchmark/benchmark.h>

#include "corral/core/clock.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral {

// Null (after state.SkipWithError) when the scheduler cannot be built.
inline std::unique_ptr<scheduler::Scheduler> NewBenchScheduler(benchmark::State& state,
                                                               Interner& in, const Clock& clock) {
  scheduler::Scheduler::Options opts;
  opts.gates.ParseFlag("OpportunisticBatching=false").ok();
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto s = scheduler::Scheduler::New(in, clock, std::move(opts), registry);
  if (!s.ok()) {
    state.SkipWithError(s.error().message.c_str());
    return nullptr;
  }
  return std::move(s).value();
}

}  // namespace corral
