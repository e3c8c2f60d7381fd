#include "corral/sim/program.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/sim/controllers/controllers.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"
#include "corral/sim/sampler.h"

namespace corral::sim {

namespace {

// The member an op on node pool `pool` acts on (kNone: the first).
Member& MemberOfPool(World& w, uint32_t pool) {
  return *w.members[pool == kNone ? 0 : w.spec.pools[pool].cluster];
}

}  // namespace

bool Program::Matches(const Op& op, const api::Pod& pod) const {
  if (!op.namespaces.empty() && std::find(op.namespaces.begin(), op.namespaces.end(),
                                          pod.meta.namespace_) == op.namespaces.end()) {
    return false;
  }
  return !op.selector.has_value() || api::Matches(*op.selector, pod.meta.labels);
}

void Program::Execute(const Op& op) {
  const SimSpec& spec = w_.spec;
  Pods& pods = *w_.pods;
  if (w_.logging() && !op.describe.empty()) w_.Log("op", op.describe);
  switch (op.kind) {
    case Op::Kind::kCreateNodes: {
      Member& m = MemberOfPool(w_, op.pool);
      for (int64_t i = 0; i < op.count && w_.error.empty(); ++i) m.CreateNode(op.pool);
      break;
    }
    case Op::Kind::kDeleteNodes: {
      Member& m = MemberOfPool(w_, op.pool);
      for (uint32_t idx : m.PickNodes(op.pool, op.count, /*newest_first=*/true, 0))
        m.RemoveNode(idx, "delete");
      break;
    }
    case Op::Kind::kCordon: {
      Member& m = MemberOfPool(w_, op.pool);
      for (uint32_t idx : m.PickNodes(op.pool, op.count, false, 1)) m.SetCordon(idx, true);
      break;
    }
    case Op::Kind::kUncordon: {
      Member& m = MemberOfPool(w_, op.pool);
      for (uint32_t idx : m.PickNodes(op.pool, op.count, false, 2)) m.SetCordon(idx, false);
      break;
    }
    case Op::Kind::kDrain: {
      Member& m = MemberOfPool(w_, op.pool);
      for (uint32_t idx : m.PickNodes(op.pool, op.count, false, 1)) {
        m.SetCordon(idx, true);
        m.EvictAll(idx, "drain");
        if (op.remove) m.RemoveNode(idx, "drain");
      }
      break;
    }
    case Op::Kind::kStartWorkload: {
      const Workload& wk = spec.workloads[op.workload];
      WorkloadState& ws = pods.workload(op.workload);
      ws.active = true;
      if (wk.arrival.kind == Arrival::Kind::kBurst) {
        ws.target_pods = std::max<int64_t>(0, wk.arrival.count) * std::max(1, wk.pods_per_arrival);
      }
      if (wk.collect_metrics) w_.sampler->StartCollecting(false);
      if (wk.arrival.kind == Arrival::Kind::kBurst) {
        pods.Arrive(op.workload);  // all at once, now
      } else {
        pods.ScheduleNextArrival(op.workload);
      }
      if (wk.steady_ns > 0) {
        sleep_until_ = SaturatingAdd(w_.now, wk.steady_ns);
        if (sleep_until_ != kForeverNs) w_.Push(sleep_until_, EventKind::kOpWake);
      }
      break;
    }
    case Op::Kind::kStopWorkload:
      pods.workload(op.workload).stopped = true;
      break;
    case Op::Kind::kBarrier:
      break;
    case Op::Kind::kSleep:
      // Saturates: a sleep past the end of representable time never wakes (the run ends at its
      // duration, or when nothing is left to happen).
      sleep_until_ = SaturatingAdd(w_.now, op.duration_ns);
      if (sleep_until_ != kForeverNs) w_.Push(sleep_until_, EventKind::kOpWake);
      break;
    case Op::Kind::kChurn: {
      ChurnState c;
      c.spec = &op.churn;
      c.active = true;
      size_t n = op.churn.node_pools.size() + op.churn.workloads.size();
      const auto per = static_cast<size_t>(std::max<int64_t>(1, op.churn.number));
      c.ring.assign(n, std::vector<uint32_t>(per, kNone));
      c.ring_gen.assign(n, std::vector<uint32_t>(per, 0));
      churns_.push_back(std::move(c));
      auto ci = static_cast<uint32_t>(churns_.size() - 1);
      if (op.churn.mode == ChurnSpec::Mode::kRecreate) {
        for (int64_t k = 0; k < op.churn.number; ++k) ChurnTick(ci);
      }
      w_.Push(SaturatingAdd(w_.now, op.churn.interval_ns), EventKind::kChurnTick, ci);
      break;
    }
    case Op::Kind::kDeletePods: {
      Deleter del;
      for (uint32_t i = 0; i < pods.slots(); ++i) {
        const PodSlot& s = pods.Pod(i);
        if (s.state == PodState::kFree || !Matches(op, s.pod)) continue;
        del.pods.emplace_back(i, s.gen);
      }
      std::sort(del.pods.begin(), del.pods.end(), [&](const auto& a, const auto& b) {
        return pods.Pod(a.first).arrival_ns != pods.Pod(b.first).arrival_ns
                   ? pods.Pod(a.first).arrival_ns < pods.Pod(b.first).arrival_ns
                   : a.first < b.first;
      });
      if (op.rate_per_s <= 0) {
        for (const auto& [slot, gen] : del.pods) {
          if (pods.Pod(slot).gen == gen) pods.Evict(slot, "deletePods", false);
        }
        op_deleter_ = SIZE_MAX;
        break;
      }
      del.interval_ns = static_cast<int64_t>(1e9 / op.rate_per_s);
      deleters_.push_back(std::move(del));
      op_deleter_ = deleters_.size() - 1;
      w_.Push(w_.now + deleters_.back().interval_ns, EventKind::kDeleteTick,
              static_cast<uint32_t>(op_deleter_));
      break;
    }
    case Op::Kind::kUpdateNodes:
    case Op::Kind::kResizePods:
    case Op::Kind::kUpdatePods: {
      op_updater_ = SIZE_MAX;
      if (op.count <= 0) break;
      if (op.kind == Op::Kind::kResizePods && resize_ == nullptr) {
        resize_ = std::make_unique<ResizeAgent>(w_);
        w_.resize = resize_.get();
      }
      if (op.rate_per_s <= 0) {
        for (int64_t i = 0; i < op.count && w_.error.empty(); ++i) UpdateOne(op, i);
        break;
      }
      // kube's updateAny ticks at 1/rate, one object per tick, the first after one interval.
      Updater u;
      u.op = &op;
      u.interval_ns = static_cast<int64_t>(1e9 / op.rate_per_s);
      updaters_.push_back(u);
      op_updater_ = updaters_.size() - 1;
      w_.Push(w_.now + u.interval_ns, EventKind::kUpdateTick, static_cast<uint32_t>(op_updater_));
      break;
    }
    case Op::Kind::kSetPriority:
      pods.SetPriority(op.priority_class, op.priority_value);
      break;
    case Op::Kind::kStartCollecting:
      w_.sampler->StartCollecting(true);
      w_.window_op = &op;
      break;
    case Op::Kind::kStopCollecting:
      w_.sampler->StopCollecting();
      break;
    case Op::Kind::kScale:
      w_.controllers->Scale(op.controller, static_cast<int32_t>(op.count));
      break;
    case Op::Kind::kUpdateDeviceConditions:
    case Op::Kind::kCheckPodScheduled:
      StartPoll(op);
      break;
  }
}

bool Program::BarrierMet(const Op& op) const {
  const Pods& pods = *w_.pods;
  for (uint32_t i = 0; i < pods.slots(); ++i) {
    const PodSlot& s = pods.Pod(i);
    // A pod whose binding still waits for the API client's rate limit has no nodeName yet.
    if ((s.state != PodState::kPending && !s.bind_in_flight) || !Matches(op, s.pod)) continue;
    // scheduler_perf's isAttempted: the pod has a PodScheduled condition. The API server gives a
    // gated pod one (False, SchedulingGated) when it is created, so gated pods count as attempted.
    if (op.attempted_only && (s.attempted || !s.pod.scheduling_gates.empty())) continue;
    return false;
  }
  return true;
}

bool Program::Done(const Op& op) {
  switch (op.kind) {
    case Op::Kind::kStartWorkload: {
      const Workload& wk = w_.spec.workloads[op.workload];
      WorkloadState& ws = w_.pods->workload(op.workload);
      if (wk.steady_ns > 0) {
        // kube's createPodsSteadily: the op ends when its duration is over, and fails when no pod
        // at all got scheduled in that time.
        if (w_.now < sleep_until_) return false;
        ws.stopped = true;
        if (ws.pods_bound_once == 0) {
          w_.Fail(
              fmt::format("{}: createPods steadyState: no pod at all got scheduled, either "
                          "because of a problem or because the test interval was too small",
                          wk.name));
          return false;
        }
        if (wk.collect_metrics) w_.sampler->StopCollecting();
        return true;
      }
      if (!wk.wait) return true;
      if (!(ws.exhausted || ws.stopped)) return false;
      if (ws.pods_bound_once < ws.pods_created) return false;
      if (wk.collect_metrics) w_.sampler->StopCollecting();
      return true;
    }
    case Op::Kind::kBarrier: {
      int64_t pending = 0;
      for (const auto& m : w_.members) pending += m->pending;
      // Under an API rate limit a barrier also waits for conditions and bindings on their way.
      return (pending == 0 && !w_.spec.api_client.set) || BarrierMet(op);
    }
    case Op::Kind::kSleep:
      return w_.now >= sleep_until_;
    case Op::Kind::kUpdateNodes:
    case Op::Kind::kResizePods:
    case Op::Kind::kUpdatePods:
      return op_updater_ == SIZE_MAX || updaters_[op_updater_].next >= op.count;
    case Op::Kind::kDeletePods:
      if (!op.wait || op_deleter_ == SIZE_MAX) return true;
      return deleters_[op_deleter_].next >= deleters_[op_deleter_].pods.size();
    case Op::Kind::kUpdateDeviceConditions:
      return UpdateDeviceConditionsDone(op);
    case Op::Kind::kCheckPodScheduled:
      return CheckPodScheduledDone(op);
    default:
      return true;
  }
}

void Program::Advance() {
  const SimSpec& spec = w_.spec;
  checked_epoch_ = w_.epoch;
  while (pc_ < spec.program.size() && w_.error.empty()) {
    const Op& op = spec.program[pc_];
    if (!op_started_) {
      if (op.at_ns.has_value() && w_.now < *op.at_ns) {
        if (!op_wake_armed_) {
          op_wake_armed_ = true;
          w_.Push(*op.at_ns, EventKind::kOpWake);
        }
        return;
      }
      op_started_ = true;
      Execute(op);
      if (!w_.error.empty()) return;
    }
    if (!Done(op)) return;
    ++pc_;
    op_started_ = false;
  }
  if (pc_ >= spec.program.size() && !done_) {
    done_ = true;
    // Churn runs until the workload ends (kube), or to its stop time or the end of a run with
    // a duration.
    for (auto& c : churns_) {
      if (c.spec->stop_ns == kForeverNs && spec.duration_ns == 0) c.active = false;
    }
    w_.sampler->StopCollecting();
  }
}

void Program::OnWake() {
  op_wake_armed_ = false;
  checked_epoch_ = 0;  // force Advance
}

void Program::OnChurnTick(uint32_t c) {
  ChurnState& cs = churns_[c];
  if (w_.now >= cs.spec->stop_ns) cs.active = false;
  if (!cs.active) return;
  ChurnTick(c);
  w_.Push(SaturatingAdd(w_.now, cs.spec->interval_ns), EventKind::kChurnTick, c);
}

void Program::ChurnTick(uint32_t ci) {
  ChurnState& c = churns_[ci];
  if (!c.active) return;
  const ChurnSpec& cs = *c.spec;
  const SimSpec& spec = w_.spec;
  Pods& pods = *w_.pods;
  const size_t n_nodes = cs.node_pools.size();
  const size_t n = n_nodes + cs.workloads.size();
  if (cs.mode == ChurnSpec::Mode::kCreate) {
    if (cs.number > 0 && c.next >= static_cast<size_t>(cs.number)) {
      c.active = false;  // kube's churnOp in Create mode stops after `number` ticks
      return;
    }
    ++c.next;
    for (uint32_t p : cs.node_pools) MemberOfPool(w_, p).CreateNode(p);
    for (uint32_t w : cs.workloads) {
      pods.workload(w).active = true;
      pods.CreatePod(w, kNone, spec.workloads[w].tmpl,
                     spec.workloads[w].duration.SampleNs(pods.workload(w).rng), Symbol{});
    }
    return;
  }
  // Recreate and Ring: for each template, the object at the ring position is deleted if it is still
  // there and the slot emptied; Recreate then creates one in its place, Ring (kube's churnOp) only
  // fills a slot that was empty.
  const size_t k = c.next % c.ring[0].size();
  const bool ring = cs.mode == ChurnSpec::Mode::kRing;
  for (size_t t = 0; t < n && w_.error.empty(); ++t) {
    uint32_t& cur = c.ring[t][k];
    uint32_t& gen = c.ring_gen[t][k];
    const bool had = cur != kNone;
    if (had) {
      if (t < n_nodes) {
        Member& m = MemberOfPool(w_, cs.node_pools[t]);
        if (m.node(cur).alive && m.node(cur).serial == gen) m.RemoveNode(cur, "churn");
      } else if (pods.Pod(cur).gen == gen && pods.Pod(cur).state != PodState::kFree) {
        pods.Evict(cur, "churn", false);
      }
      cur = kNone;
      gen = 0;
    }
    if (ring && had) continue;
    if (t < n_nodes) {
      Member& m = MemberOfPool(w_, cs.node_pools[t]);
      m.CreateNode(cs.node_pools[t]);
      // The newest node of the pool is the one just created.
      cur = m.NewestNode(cs.node_pools[t]);
      gen = cur == kNone ? 0 : static_cast<uint32_t>(m.node(cur).serial);
    } else {
      uint32_t w = cs.workloads[t - n_nodes];
      pods.workload(w).active = true;
      cur = pods.CreatePod(w, kNone, spec.workloads[w].tmpl, kForeverNs, Symbol{});
      gen = cur == kNone ? 0 : pods.Pod(cur).gen;
    }
  }
  ++c.next;
}

void Program::OnDeleteTick(uint32_t d) {
  Deleter& del = deleters_[d];
  Pods& pods = *w_.pods;
  while (del.next < del.pods.size()) {
    auto [slot, gen] = del.pods[del.next++];
    if (pods.Pod(slot).gen == gen && pods.Pod(slot).state != PodState::kFree) {
      pods.Evict(slot, "deletePods", false);
      break;
    }
  }
  if (del.next < del.pods.size()) w_.Push(w_.now + del.interval_ns, EventKind::kDeleteTick, d);
}

void Program::OnUpdateTick(uint32_t u) {
  Updater& up = updaters_[u];
  if (up.next >= up.op->count || !w_.error.empty()) return;
  UpdateOne(*up.op, up.next++);
  if (up.next < up.op->count) w_.Push(w_.now + up.interval_ns, EventKind::kUpdateTick, u);
}

void Program::UpdateOne(const Op& op, int64_t index) {
  if (op.kind == Op::Kind::kResizePods) {
    ResizeOnePod(op, index);
    return;
  }
  if (op.kind == Op::Kind::kUpdatePods) {
    UpdateOnePod(op, index);
    return;
  }
  auto r = op.render_node(index);
  if (!r.ok()) {
    w_.Fail(r.error().message);
    return;
  }
  api::Node n = std::move(r).value();
  for (auto& m : w_.members) {
    const uint32_t idx = m->FindNode(n.meta.name);
    if (idx == kNone) continue;
    m->UpdateNode(idx, std::move(n));
    return;
  }
  // kube's update of an object that does not exist fails the workload.
  w_.Fail(fmt::format("updateAny: failed to update object: nodes {:?} not found",
                      w_.in.Str(n.meta.name)));
}

void Program::ResizeOnePod(const Op& op, int64_t index) {
  auto r = op.render_pod(index);
  if (!r.ok()) {
    w_.Fail(r.error().message);
    return;
  }
  const api::Pod& resize = *r;
  const Pods& pods = *w_.pods;
  for (uint32_t i = 0; i < pods.slots(); ++i) {
    const PodSlot& s = pods.Pod(i);
    if (s.state == PodState::kFree || s.pod.meta.name != resize.meta.name ||
        s.pod.meta.namespace_ != op.pod_namespace) {
      continue;
    }
    if (!resize.node_name.empty() && resize.node_name != s.pod.node_name) {
      // kube's pods/resize ignores the body's nodeName; Corral refuses a change kube would drop.
      w_.Fail(fmt::format(
          "updateAny: pods/resize of {}: spec.nodeName {:?} is not the pod's node {:?} (a resize "
          "does not move a pod; kube ignores the field)",
          w_.PodKey(s.pod), w_.in.Str(resize.node_name), w_.in.Str(s.pod.node_name)));
      return;
    }
    if (auto done = resize_->Resize(i, resize); !done.ok()) w_.Fail(done.error().message);
    return;
  }
  // kube's update of an object that does not exist fails the workload.
  w_.Fail(fmt::format("updateAny: failed to update object in namespace {:?}: pods {:?} not found",
                      w_.in.Str(op.pod_namespace), w_.in.Str(resize.meta.name)));
}

}  // namespace corral::sim
