#include "corral/sim/engine.h"

#include <fmt/format.h>

#include "corral/sim/fleet_lane.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"
#include "corral/sim/program.h"
#include "corral/sim/sampler.h"
#include "corral/sim/world.h"

namespace corral::sim {

std::string FormatClock(int64_t ns) {
  int64_t ms = ns / 1'000'000;
  int64_t h = ms / 3'600'000, m = (ms / 60'000) % 60, s = (ms / 1000) % 60, r = ms % 1000;
  return fmt::format("{:02}:{:02}:{:02}.{:03}", h, m, s, r);
}

void TextEventLog::Event(int64_t t_ns, std::string_view kind, std::string_view detail) {
  line_.clear();
  fmt::format_to(std::back_inserter(line_), "{} {} {}", FormatClock(t_ns), kind, detail);
  Line(line_);
}

bool IsRealEvent(EventKind k) {
  switch (k) {
    case EventKind::kFlushTick:
    case EventKind::kSampleTick:
    case EventKind::kCollectorTick:
    case EventKind::kRetryTick:
    case EventKind::kPermitTimer:
    case EventKind::kFleetTimer:
    case EventKind::kFleetRefresh:
      return false;
    default:
      return true;
  }
}

std::string World::PodKey(const api::Pod& p) const {
  return fmt::format("{}/{}", in.Str(p.meta.namespace_), in.Str(p.meta.name));
}

Symbol World::NextName(const std::string& prefix) {
  uint64_t& c = name_counters_[prefix];
  name_buf_.clear();
  fmt::format_to(std::back_inserter(name_buf_), "{}{}", prefix, c++);
  return in.Intern(name_buf_);
}

namespace {

constexpr int64_t kFlushIntervalNs = 30 * kSecond;
constexpr int64_t kStallNs = 6 * 60 * kSecond;

}  // namespace

class Engine::Impl {
 public:
  Impl(const SimSpec& spec, Interner& in, std::span<const EngineMember> members, ManualClock& clock,
       EngineOptions opts)
      : opts_(std::move(opts)), w_(spec, in, clock, opts_), pods_(w_), program_(w_), sampler_(w_) {
    w_.pods = &pods_;
    w_.program = &program_;
    w_.sampler = &sampler_;
    sampler_.Setup();
    for (size_t i = 0; i < members.size(); ++i) {
      w_.members.push_back(std::make_unique<Member>(w_, static_cast<uint16_t>(i), *members[i].sched,
                                                    *members[i].gates, *members[i].objects));
      w_.members.back()->set_trial_source(members[i].options, members[i].registry);
    }
    if (spec.fleet != nullptr) {
      fleet_ = std::make_unique<FleetLane>(w_, *spec.fleet);
      w_.fleet = fleet_.get();
    }
  }

  Result<RunResult> Run();
  const PerfWindow& perf() const { return w_.perf; }

 private:
  void Handle(const Event& e);
  void ReportProgress() {
    int64_t pending = 0;
    for (const auto& m : w_.members) pending += m->pending;
    opts_.progress({w_.now, w_.spec.duration_ns, program_.pc(), w_.spec.program.size(),
                    w_.res.pods_arrived, w_.res.pods_scheduled, pending, events_});
  }
  bool StopRequested() const {
    return opts_.stop != nullptr && opts_.stop->load(std::memory_order_relaxed) != 0;
  }

  EngineOptions opts_;
  World w_;
  Pods pods_;
  Program program_;
  Sampler sampler_;
  uint64_t events_ = 0;  // real events handled
  std::unique_ptr<FleetLane> fleet_;
};

void Engine::Impl::Handle(const Event& e) {
  if (IsRealEvent(e.kind)) {
    w_.RealEventDone();
    ++events_;
  }
  switch (e.kind) {
    case EventKind::kArrival:
      pods_.Arrive(e.a);
      break;
    case EventKind::kBindDone: {
      PodSlot& s = pods_.Pod(e.a);
      if (s.gen == e.b && s.state == PodState::kBinding) pods_.StartRunning(e.a);
      break;
    }
    case EventKind::kPodDone:
      pods_.PodDone(e.a, e.b);
      break;
    case EventKind::kFlushTick: {
      Member& m = *w_.members[e.lane];
      m.OnFlushTick();
      int64_t next = SaturatingAdd(w_.now, kFlushIntervalNs);
      if (m.pending == 0 && m.sched().NumPendingPods() == 0) {
        // Nothing to flush until a real event brings a pod (or, once the program is done, ever):
        // the flushes before that are no-ops, so skip to the last one on the 30 s grid at or before
        // it. Virtual time is free to skip.
        int64_t until = w_.next_real_ns();
        if (until == kForeverNs && program_.done() && w_.spec.duration_ns > 0)
          until = w_.spec.duration_ns;
        if (until != kForeverNs && until > next)
          next += (until - next) / kFlushIntervalNs * kFlushIntervalNs;
      }
      if (next != kForeverNs) w_.Push(next, EventKind::kFlushTick, 0, 0, e.lane);
      break;
    }
    case EventKind::kSampleTick:
      // Taken once the members have caught up with everything that happened at this instant.
      sampler_.OnSampleTick();
      break;
    case EventKind::kCollectorTick:
      sampler_.OnCollectorTick();
      break;
    case EventKind::kRetryTick:
      w_.members[e.lane]->OnRetryTick();
      break;
    case EventKind::kOpWake:
      program_.OnWake();
      break;
    case EventKind::kChurnTick:
      program_.OnChurnTick(e.a);
      break;
    case EventKind::kDeleteTick:
      program_.OnDeleteTick(e.a);
      break;
    case EventKind::kUpdateTick:
      program_.OnUpdateTick(e.a);
      break;
    case EventKind::kVictimGone: {
      PodSlot& s = pods_.Pod(e.a);
      if (s.gen == e.b && s.state != PodState::kFree) pods_.Evict(e.a, "preempted", true);
      break;
    }
    case EventKind::kPermitTimer:
      w_.members[e.lane]->OnPermitTimer();
      break;
    case EventKind::kFleetTimer:
      fleet_->OnTimer(e.a);
      break;
    case EventKind::kFleetRefresh:
      fleet_->OnRefresh();
      break;
    case EventKind::kFleetOutage:
      fleet_->OnOutage(e.a, e.b != 0);
      break;
    case EventKind::kBindLanded:
      w_.members[e.lane]->OnBindLanded(e.a, e.b);
      break;
    case EventKind::kStatusLanded:
      w_.members[e.lane]->OnStatusLanded(e.a, e.b);
      break;
    case EventKind::kApiUnblock:
      w_.members[e.lane]->OnApiUnblock();
      break;
  }
}

// The loop: complete the cycles that end now, run the events due, let the program advance, then
// step each ready member in index order; when none is ready, jump to the earliest cycle end (a
// cycle is atomic: events inside it wait for its end) or else to the next event.
Result<RunResult> Engine::Impl::Run() {
  const SimSpec& spec = w_.spec;
  w_.events.Reserve(1024);
  w_.SetNow(0);
  // Initial nodes and pods (manifests).
  for (const auto& n : spec.initial_nodes) w_.members.front()->AddInitialNode(n);
  sampler_.StartOverall();
  for (const auto& m : w_.members)
    w_.Push(kFlushIntervalNs, EventKind::kFlushTick, 0, 0, m->index());
  w_.Push(0, EventKind::kSampleTick);
  if (fleet_) fleet_->Start();
  program_.Advance();

  uint64_t steps = 0;
  bool stalled = false;
  bool stopped = false;
  for (;;) {
    if (!w_.error.empty()) break;
    // A stop request ends the run between two steps: every event handled so far is complete.
    if (StopRequested()) {
      stopped = true;
      break;
    }
    for (const auto& m : w_.members) {
      if (m->busy() && m->busy_until() <= w_.now) m->Complete();
    }
    while (!w_.events.empty() && w_.events.Top().time_ns <= w_.now && w_.error.empty())
      Handle(w_.events.Pop());
    if (!w_.error.empty()) break;
    if (program_.due()) program_.Advance();
    if (opts_.progress && (++steps & 4095) == 0) ReportProgress();
    bool stepped = false;
    // The fleet's dispatcher runs before the members, so that the copies it creates now are
    // scheduled now.
    if (fleet_ && fleet_->ready()) fleet_->Step();
    int64_t busy_until = kForeverNs;
    for (const auto& m : w_.members) {
      if (m->ready()) {
        m->Step();
        stepped = true;
      }
      if (m->busy()) busy_until = std::min(busy_until, m->busy_until());
    }
    if (stepped) continue;
    if (busy_until != kForeverNs) {
      w_.SetNow(busy_until);
      continue;
    }
    for (const auto& m : w_.members) m->ArmPermitTimer();
    if (fleet_) fleet_->ArmTimer();
    sampler_.SampleIfDue();
    // Nothing to do now: end, or advance to the next event.
    if (spec.duration_ns == 0) {
      if (program_.done() && !w_.real_pending()) break;
      if (!program_.done() && !w_.real_pending() && w_.now - w_.last_progress_ns >= kStallNs) {
        stalled = true;
        break;
      }
    }
    if (w_.events.empty()) break;
    int64_t next = w_.events.Top().time_ns;
    if (spec.duration_ns > 0 && next > spec.duration_ns) {
      w_.SetNow(spec.duration_ns);
      break;
    }
    w_.SetNow(next);
  }
  if (!w_.error.empty()) return Error::Invalid(w_.error);
  if (stalled) {
    const Op& op = spec.program[program_.pc()];
    int64_t pending = 0;
    for (const auto& m : w_.members) pending += m->pending;
    w_.res.failure = fmt::format(
        "op {} ({}) never completed: {} pods still pending with no event left that could "
        "help",
        program_.pc() + 1, op.describe, pending);
  }
  sampler_.StopCollecting();
  if (opts_.progress) ReportProgress();
  RunResult r;
  sampler_.Finish(r);
  r.partial = stopped;
  if (fleet_) r.fleet = fleet_->Finish();
  return r;
}

// -------------------------------------------------------------------------------------------------

Engine::Engine(const SimSpec& spec, Interner& interner, scheduler::Scheduler& sched,
               ManualClock& clock, EngineOptions opts) {
  const EngineMember one{&sched, &spec.gates, &spec.objects};
  impl_ = std::make_unique<Impl>(spec, interner, std::span<const EngineMember>(&one, 1), clock,
                                 std::move(opts));
}
Engine::Engine(const SimSpec& spec, Interner& interner, std::span<const EngineMember> members,
               ManualClock& clock, EngineOptions opts)
    : impl_(std::make_unique<Impl>(spec, interner, members, clock, std::move(opts))) {}
Engine::~Engine() = default;
Result<RunResult> Engine::Run() {
  return impl_->Run();
}
const PerfWindow& Engine::perf() const {
  return impl_->perf();
}

}  // namespace corral::sim
