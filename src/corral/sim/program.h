#pragma once
// Program: the run's ops executed in order on the virtual clock (scheduler_perf style) — node and
// workload ops, barriers, sleeps, rate-limited pod deletion and node updates — and the background
// churn they start.
//
// Contract: an op may first wait for its absolute time (`at`); it then executes once, and the
// program moves on when the op is done (most ops at once; a barrier, a waiting createPods or
// deletePods, and a sleep block). Advance() is called again only when some member's state changed
// (World::epoch) or a program event fired, so a blocked op costs nothing per loop turn. When the
// last op is done, background churn without an end stops (kube's semantics) unless the run has a
// duration, and the scheduler_perf window closes.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "corral/sim/resize_agent.h"
#include "corral/sim/spec.h"
#include "corral/sim/world.h"

namespace corral::sim {

class Program {
 public:
  explicit Program(World& w) : w_(w) {}

  // Runs ops until one blocks or the program ends.
  void Advance();
  // Advance() is due: the state changed since the last call, or a program event fired.
  bool due() const { return !done_ && checked_epoch_ != w_.epoch; }
  bool done() const { return done_; }
  size_t pc() const { return pc_; }

  void OnWake();
  void OnChurnTick(uint32_t c);
  void OnDeleteTick(uint32_t d);
  void OnUpdateTick(uint32_t u);

  // `pod` is in one of the op's namespaces (any when it names none) and matches its labelSelector.
  bool Matches(const Op& op, const api::Pod& pod) const;

 private:
  struct ChurnState {
    const ChurnSpec* spec = nullptr;
    std::vector<std::vector<uint32_t>> ring;  // per template: node slots or pod slots (recreate)
    std::vector<std::vector<uint32_t>> ring_gen;
    size_t next = 0;
    bool active = false;
  };
  struct Deleter {
    std::vector<std::pair<uint32_t, uint32_t>> pods;  // (slot, gen)
    size_t next = 0;
    int64_t interval_ns = 0;
  };

  struct Updater {
    const Op* op = nullptr;
    int64_t next = 0;
    int64_t interval_ns = 0;
  };

  void Execute(const Op& op);
  bool Done(const Op& op);
  bool BarrierMet(const Op& op) const;
  void ChurnTick(uint32_t c);
  void DeleteTick(uint32_t d);
  // updateAny: replaces the live node that object `index` of `op` names, or resizes the live pod
  // it names (pods/resize); a failure ends the run.
  void UpdateOne(const Op& op, int64_t index);
  void ResizeOnePod(const Op& op, int64_t index);
  // updateAny of a Pod (program_pod_update.cc): the live pod that object `index` of `op` names
  // takes the update (labels, tolerations, scheduling gates, ...) and its scheduler is told.
  void UpdateOnePod(const Op& op, int64_t index);
  // scheduler_perf's DRA binding-condition ops (program_dra.cc): started by Execute, polled by
  // Done every second of virtual time (kube's wait.PollUntilContextTimeout, immediate).
  void StartPoll(const Op& op);
  bool UpdateDeviceConditionsDone(const Op& op);
  bool CheckPodScheduledDone(const Op& op);
  // Whether a poll check is due now (a tick before the op's deadline); NextPoll puts the next tick
  // (or the deadline) on the agenda after a check that did not finish the op.
  bool PollDue();
  void NextPoll();

  World& w_;
  size_t pc_ = 0;
  bool op_started_ = false;
  bool op_wake_armed_ = false;
  bool done_ = false;
  int64_t sleep_until_ = 0;
  uint64_t checked_epoch_ = 0;
  std::vector<ChurnState> churns_;
  std::vector<Deleter> deleters_;
  size_t op_deleter_ = SIZE_MAX;
  std::vector<Updater> updaters_;
  size_t op_updater_ = SIZE_MAX;
  std::unique_ptr<ResizeAgent> resize_;  // created by the first resize op
  // The running poll op's state.
  struct PollState {
    int64_t deadline = 0;
    int64_t next_check = 0;
    bool listed = false;  // updateDeviceConditions: the claims were listed
    std::vector<std::pair<Symbol, Symbol>> claims;  // (namespace, name), by name
    size_t cursor = 0;
    std::optional<int64_t> stable_since;  // checkPodScheduled (unscheduled expected)
    std::string last_violation;
  };
  PollState poll_;
};

}  // namespace corral::sim
