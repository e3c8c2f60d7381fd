#pragma once
// Sampler: what a run measures over time — the resources it tracks, the time-series samples and
// node heat maps (at most 2,000 samples: the resolution halves when full), the whole-run throughput
// collector, the scheduler_perf measurement window, and the final RunResult.
//
// Contract: a sample is taken once the members have caught up with everything that happened at its
// instant (SampleIfDue from the engine's idle point), or while a member is busy for more than half
// an interval (SampleWhileBusy), so that a completion and the binding it makes possible do not show
// up as a dip. Ticks of the throughput collectors are fed lazily and in bulk (ThroughputCollector
// ::TickMany), so empty virtual time costs nothing.

#include <cstdint>

#include "corral/sim/metrics.h"
#include "corral/sim/world.h"

namespace corral::sim {

class Sampler {
 public:
  explicit Sampler(World& w) : w_(w) {}

  // Chooses the tracked resources (cpu, memory, extended resources by name up to the limit, pods)
  // and the sample interval.
  void Setup();
  int64_t interval() const { return sample_interval_; }

  void OnSampleTick();
  void SampleWhileBusy();
  void SampleIfDue();
  void TakeSample();

  // Feeds the whole-run throughput collector its 1 s ticks up to `t`.
  void AdvanceOverall(int64_t t);
  void StartOverall() { overall_.Start(0, 0); }

  // scheduler_perf's measured window.
  void StartCollecting(bool all);
  void StopCollecting();
  void OnCollectorTick();

  // Moves the run's counters into `r` and completes it (utilization means, pending reasons, feature
  // notes). REQUIRES: called once, at the end.
  void Finish(RunResult& r);

 private:
  World& w_;
  int64_t sample_interval_ = 0;
  int64_t next_sample_ = 0;
  bool sample_due_ = false;
  ThroughputCollector overall_;
  int64_t next_overall_tick_ = kSecond;
};

}  // namespace corral::sim
