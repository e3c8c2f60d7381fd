#pragma once
// Engine: the discrete-event simulator. Executes a SimSpec against one Scheduler per member cluster
// on a virtual clock (ManualClock), driving each only through its public interface:
// AddNode/RemoveNode/AddPod/DeletePod in, ScheduleOne to make decisions, SchedulerObserver
// callbacks out, FlushUnschedulableLeftover every 30 s of virtual time as kube-scheduler's
// queue does.
//
// Contract:
//  (1) Deterministic: the same spec, seed and cost model (kNone or kFixed) give byte-identical
//      results and event logs. Events at the same virtual time run in scheduling order (EventQueue
//      seq); members step in index order; every random draw comes from per-workload Rngs derived
//      from the seed.
//  (2) Virtual time advances only between events or by the cost model: with kNone scheduling is
//      instantaneous; kFixed charges a constant per ScheduleOne call; kMeasured charges the wall
//      time the call took (read from EngineOptions::wall), so the virtual clock runs at the
//      scheduler's real speed. Each member has its own lane (member.h): decisions take effect at
//      the end of the cycle's cost. Binding latency delays a bound pod's start. Empty virtual time
//      costs nothing to skip, and time arithmetic saturates (virtual_time.h).
//  (3) Pods are created lazily from templates at arrival, in pooled slots whose api::Pod objects
//      are reused after deletion (stable addresses for the scheduler, no per-pod heap churn once
//      warm); node and pod state is compact; memory is proportional to the live objects (plus the
//      interned pod names).
//  (4) A pod that fails twice at the same cluster state (an error retried from backoff) stops its
//      member's lane until the next event or a retry tick (1 s doubling to 10 s), so a hopeless pod
//      cannot spin virtual time at zero cost.
//  (5) Run ends at spec.duration_ns, or — without a duration — when the program has finished and
//      nothing is left to happen. A blocking op (barrier, createPods wait) that can no longer be
//      satisfied (no pending event and no binding for 6 virtual minutes) ends the run with
//      RunResult::failure set.
//
// Not thread-safe. The spec, interner, scheduler and clock must outlive the Engine.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/scheduler/scheduler.h"
#include "corral/sim/metrics.h"
#include "corral/sim/spec.h"

namespace corral::sim {

// Receives the event log: every event of the run in virtual-time order (ties in processing order),
// each a kind ("bind", "node-add", "preempt", ...; docs/output-schema.md) and a detail text.
class EventLog {
 public:
  virtual ~EventLog() = default;
  virtual void Event(int64_t t_ns, std::string_view kind, std::string_view detail) = 0;
};

// The text form: one line per event, "HH:MM:SS.mmm kind detail" (the golden-test format).
class TextEventLog : public EventLog {
 public:
  void Event(int64_t t_ns, std::string_view kind, std::string_view detail) final;
  // Receives one line at a time, without the newline.
  virtual void Line(std::string_view line) = 0;

 private:
  std::string line_;
};

struct Progress {
  int64_t now_ns = 0;
  int64_t end_ns = 0;  // 0 when the run has no fixed duration
  size_t op = 0, ops = 0;
  int64_t pods_arrived = 0, pods_scheduled = 0, pending = 0;
  uint64_t events = 0;  // events processed so far (arrivals, bindings, completions, ops, ...)
};

struct EngineOptions {
  // Wall clock for CostModel::kMeasured and for RunResult::scheduler_wall_seconds. May be
  // null otherwise.
  const Clock* wall = nullptr;
  EventLog* log = nullptr;
  // Called every few thousand steps and once at the end.
  std::function<void(const Progress&)> progress;
  // When set and non-zero (a signal handler stores the signal number), the run stops at the next
  // event boundary and Run returns the result so far with RunResult::partial set.
  const std::atomic<int>* stop = nullptr;
  int64_t collector_interval_ns = 1'000'000'000;  // scheduler_perf throughputSampleInterval
  // Called with every explained attempt (the pods each member's scheduler was built to explain,
  // scheduler::Scheduler::Options::explain): the member's index, the pod, the record and the
  // virtual time of the attempt. Only explained pods reach it: runs without targets pay nothing.
  std::function<void(uint32_t member, const api::Pod& pod, const scheduler::CycleExplain& ex,
                     int64_t at_ns)>
      on_explain;
};

// scheduler_perf results of the measured window (createPods collectMetrics
// / start/stopCollectingMetrics).
struct PerfWindow {
  ThroughputCollector collector;
  LogHistogram attempt_duration;  // cost of each ScheduleOne of a measured pod (ns)
  // Cost of each pod group scheduling attempt (the ScheduleOne that ran the workload cycle) with a
  // measured member, by its result (scheduler_podgroup_scheduling_attempt_duration_seconds).
  LogHistogram group_attempt_scheduled, group_attempt_unschedulable;
  int64_t measured_pods = 0, measured_scheduled = 0;
  int64_t start_ns = 0, stop_ns = 0;
};

// One member cluster of a run: its scheduler (built on the run's interner and clock), the feature
// gates it was built with, and the cluster objects it starts with. All must outlive the Engine.
struct EngineMember {
  scheduler::Scheduler* sched = nullptr;
  const framework::FeatureGates* gates = nullptr;
  const api::ObjectSet* objects = nullptr;
  // What `sched` was built from (both or neither), for the fleet's trial placements on a copy of
  // the member (fleet_estimate.h); both must outlive the engine. Without them the accurate
  // estimator answers nothing for pods that need a trial placement.
  const scheduler::Scheduler::Options* options = nullptr;
  const framework::Registry* registry = nullptr;
};

class Engine {
 public:
  // A run of one cluster: the spec's gates and objects.
  Engine(const SimSpec& spec, Interner& interner, scheduler::Scheduler& sched, ManualClock& clock,
         EngineOptions opts);
  // A run of several member clusters on one clock (member i is cluster i of the spec).
  Engine(const SimSpec& spec, Interner& interner, std::span<const EngineMember> members,
         ManualClock& clock, EngineOptions opts);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs to the end, or until EngineOptions::stop is raised (a partial result). Errors are input
  // errors discovered while running (a template that fails to render). REQUIRES: called once.
  Result<RunResult> Run();

  // The scheduler_perf window (valid after Run).
  const PerfWindow& perf() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// "HH:MM:SS.mmm" of a virtual time offset (hours grow beyond 24).
std::string FormatClock(int64_t ns);

}  // namespace corral::sim
