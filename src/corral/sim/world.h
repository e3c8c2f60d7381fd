#pragma once
// World: the state of one simulation run that every part of the engine shares — the spec, the
// virtual clock and its event agenda, the event log, the run's counters (RunResult) and the first
// input error — and the parts themselves (the pod pools, the members, the program, the sampler), so
// that each part can reach the others without owning them. Engine::Impl owns a World and its parts.
//
// Contract: `now` only moves forward (SetNow), and every event is pushed through Push so that the
// count of "real" events (those that can change the cluster) stays exact; the run ends when none is
// left. `epoch` counts changes of any member's cluster state; the program re-checks its current op
// only when it moved.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/core/rng.h"
#include "corral/sim/engine.h"
#include "corral/sim/event_queue.h"
#include "corral/sim/metrics.h"
#include "corral/sim/spec.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim {

class FleetLane;
class Member;
class Pods;
namespace controllers {
class Controllers;
}
class Program;
class ResizeAgent;
class Sampler;

inline constexpr int64_t kSecond = 1'000'000'000;

// Events that cannot change the cluster by themselves (ticks, timers); a run without a duration
// ends when only these are left.
bool IsRealEvent(EventKind k);

struct World {
  World(const SimSpec& s, Interner& i, ManualClock& c, const EngineOptions& o)
      : spec(s), in(i), clock(c), opts(o), start(c.Now()), rng(s.seed) {}

  const SimSpec& spec;
  Interner& in;
  ManualClock& clock;
  const EngineOptions& opts;
  TimePoint start;
  int64_t now = 0;
  EventQueue events;
  // Times of the pending real events (a min-heap): real events leave the agenda in time order, so
  // the heap's top is always the earliest one still to come.
  std::vector<int64_t> real_times;
  Rng rng;  // binding latency, label rules
  uint64_t epoch = 1;
  int64_t last_progress_ns = 0;  // the last binding

  // Resources tracked for utilization (cpu, memory, extended resources, pods).
  std::vector<ResourceTrack> tracked;
  size_t pods_res = kMaxTracked;  // index of "pods" in `tracked`

  RunResult res;
  PerfWindow perf;
  bool window_all = false;  // startCollectingMetrics: every pod created from now on is measured
  // The startCollectingMetrics op of the window, whose namespaces and labelSelector (when set)
  // narrow `window_all` to the pods they match, as kube's throughput collector counts; null for
  // other windows.
  const Op* window_op = nullptr;
  std::string error;

  Pods* pods = nullptr;
  controllers::Controllers* controllers = nullptr;  // workload controllers (sim/controllers/)
  Program* program = nullptr;
  ResizeAgent* resize = nullptr;  // in-place pod resize (created by the first resize op)
  Sampler* sampler = nullptr;
  FleetLane* fleet = nullptr;  // the fleet in front of the members, when the spec has one
  std::vector<std::unique_ptr<Member>> members;

  void Push(int64_t t, EventKind k, uint32_t a = 0, uint32_t b = 0, uint16_t lane = 0) {
    if (IsRealEvent(k)) {
      real_times.push_back(t);
      std::push_heap(real_times.begin(), real_times.end(), std::greater<>());
    }
    events.Push(t, k, a, b, lane);
  }
  // Called for each real event taken off the agenda.
  void RealEventDone() {
    std::pop_heap(real_times.begin(), real_times.end(), std::greater<>());
    real_times.pop_back();
  }
  bool real_pending() const { return !real_times.empty(); }
  // The earliest pending real event, or kForeverNs.
  int64_t next_real_ns() const { return real_times.empty() ? kForeverNs : real_times.front(); }
  void SetNow(int64_t t) {
    now = t;
    clock.Set(start + Duration(t));
  }
  void Log(std::string_view what, std::string_view detail) const {
    if (opts.log != nullptr) opts.log->Event(now, what, detail);
  }
  // An event of one member cluster: in a scenario with clusters its detail ends with
  // " cluster=<name>"; without clusters it is Log(what, detail).
  void Log(uint16_t member, std::string_view what, std::string_view detail) const {
    if (opts.log == nullptr) return;
    if (spec.clusters.empty()) {
      opts.log->Event(now, what, detail);
      return;
    }
    std::string d(detail);
    d += " cluster=";
    d += spec.clusters[member].name;
    opts.log->Event(now, what, d);
  }
  bool logging() const { return opts.log != nullptr; }
  std::string PodKey(const api::Pod& p) const;
  // `prefix` followed by a per-prefix counter.
  Symbol NextName(const std::string& prefix);
  // Records the first input error; the loop stops at the next check.
  void Fail(std::string msg) {
    if (error.empty()) error = std::move(msg);
  }

 private:
  absl::flat_hash_map<std::string, uint64_t> name_counters_;
  std::string name_buf_;
};

}  // namespace corral::sim
