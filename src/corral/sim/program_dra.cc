// scheduler_perf's ops for DRA device binding conditions (kube's test/integration/scheduler_perf
// dra.go), on the virtual clock:
//   - updateDeviceConditions: polls every second, the first time at once, until the namespace has
//     ResourceClaims; then, claim by claim in name order, polls until the claim's allocation has a
//     device with binding conditions and appends to its status.devices one entry per device with
//     binding or binding-failure conditions, holding the op's condition (reason and message
//     "Test"). The op fails when its duration passes first ("no claims found in namespace N within
//     D" / "no devices found in claim N/C within D"). kube's op dereferences the claim's
//     allocation without a check (a claim not yet allocated crashes the test); Corral polls again.
//   - checkPodScheduled: polls every second until every pod of the namespace is bound (expected
//     scheduled), or none is and that held for 5 s (expected unscheduled); when the duration passes
//     with a violation seen last, it fails with kube's message, otherwise it passes.
// Each claim update reaches the scheduler as a driver's status write (Scheduler::
// UpdateClaimDeviceStatus); pods waiting in PreBind see it at their next poll.

#include <algorithm>

#include <fmt/format.h>

#include "corral/sim/member.h"
#include "corral/sim/pods.h"
#include "corral/sim/program.h"

namespace corral::sim {

namespace res = api::resource;

void Program::StartPoll(const Op& op) {
  poll_ = PollState{};
  poll_.deadline = SaturatingAdd(w_.now, op.duration_ns);
  poll_.next_check = w_.now;
}

bool Program::PollDue() {
  return w_.now >= poll_.next_check && w_.now < poll_.deadline;
}

void Program::NextPoll() {
  // kube's poll ticks every second from its start; a tick at the deadline loses to the deadline.
  while (poll_.next_check <= w_.now) poll_.next_check += kSecond;
  w_.Push(std::min(poll_.next_check, poll_.deadline), EventKind::kOpWake);
}

bool Program::UpdateDeviceConditionsDone(const Op& op) {
  const std::string duration = FormatGoDuration(op.duration_ns);
  const std::string_view ns = w_.in.Str(op.namespaces[0]);
  if (w_.now >= poll_.deadline) {
    if (!poll_.listed) {
      w_.Fail(
          fmt::format("updateDeviceConditions: no claims found in namespace {} within {}: "
                      "context deadline exceeded",
                      ns, duration));
    } else {
      w_.Fail(
          fmt::format("updateDeviceConditions: no devices found in claim {}/{} within {}: "
                      "context deadline exceeded",
                      ns, w_.in.Str(poll_.claims[poll_.cursor].second), duration));
    }
    return false;
  }
  if (!PollDue()) return false;
  scheduler::Scheduler& sched = w_.members[0]->sched();
  const state::DraStore& dra = sched.dra_state();
  if (!poll_.listed) {
    dra.ForEachClaim([&](const res::ResourceClaim& c) {
      if (c.meta.namespace_ == op.namespaces[0]) {
        poll_.claims.emplace_back(c.meta.namespace_, c.meta.name);
      }
    });
    if (poll_.claims.empty()) {
      NextPoll();
      return false;
    }
    std::sort(poll_.claims.begin(), poll_.claims.end(), [&](const auto& a, const auto& b) {
      return w_.in.Str(a.second) < w_.in.Str(b.second);
    });
    poll_.listed = true;
  }
  // Each claim's poll starts at once after the previous claim's update.
  while (poll_.cursor < poll_.claims.size()) {
    const auto& [cns, cname] = poll_.claims[poll_.cursor];
    const res::ResourceClaim* claim = dra.GetClaim(cns, cname);
    if (claim == nullptr) {
      w_.Fail(
          fmt::format("updateDeviceConditions: no devices found in claim {}/{} within {}: "
                      "resourceclaims.resource.k8s.io {:?} not found",
                      ns, w_.in.Str(cname), duration, w_.in.Str(cname)));
      return false;
    }
    bool ready = false;
    if (claim->allocation.has_value()) {
      for (const auto& r : claim->allocation->devices) ready |= !r.binding_conditions.empty();
    }
    if (!ready) {
      NextPoll();
      return false;
    }
    std::vector<res::AllocatedDeviceStatus> devices = claim->devices;
    for (const auto& r : claim->allocation->devices) {
      if (r.binding_conditions.empty() && r.binding_failure_conditions.empty()) continue;
      res::AllocatedDeviceStatus s{r.driver, r.pool, r.device, {}};
      s.conditions.push_back({op.condition_type, op.condition_status, "Test", "Test"});
      devices.push_back(std::move(s));
    }
    if (w_.logging()) {
      w_.Log("op", fmt::format("updateDeviceConditions claim={}/{} {}", ns, w_.in.Str(cname),
                               w_.in.Str(op.condition_type)));
    }
    sched.UpdateClaimDeviceStatus(cns, cname, std::move(devices));
    w_.members[0]->Touch();
    ++poll_.cursor;
    poll_.next_check = w_.now;
  }
  return true;
}

bool Program::CheckPodScheduledDone(const Op& op) {
  if (w_.now >= poll_.deadline) {
    // kube fails only when a violation was seen last.
    if (!poll_.last_violation.empty()) {
      w_.Fail(fmt::format("checkPodScheduled: {}. Last violation: {}",
                          op.expect_scheduled ? "Timeout waiting for pods to be scheduled"
                                              : "Pods were unexpectedly scheduled",
                          poll_.last_violation));
      return false;
    }
    return true;
  }
  if (!PollDue()) return false;
  const Pods& pods = *w_.pods;
  std::string violation;
  for (uint32_t i = 0; i < pods.slots() && violation.empty(); ++i) {
    const PodSlot& s = pods.Pod(i);
    if (s.state == PodState::kFree || s.pod.meta.namespace_ != op.namespaces[0]) continue;
    const bool scheduled = s.state == PodState::kBinding || s.state == PodState::kRunning;
    if (scheduled != op.expect_scheduled) {
      violation = fmt::format("Pod {}: ExpectedScheduled={}, ActualScheduled={} (Node={})",
                              w_.in.Str(s.pod.meta.name), op.expect_scheduled, scheduled,
                              w_.in.Str(s.pod.node_name));
    }
  }
  if (!violation.empty()) {
    poll_.last_violation = std::move(violation);
    poll_.stable_since.reset();
    NextPoll();
    return false;
  }
  if (op.expect_scheduled) return true;
  if (!poll_.stable_since.has_value()) {
    poll_.stable_since = w_.now;
  } else if (w_.now - *poll_.stable_since >= 5 * kSecond) {
    return true;
  }
  NextPoll();
  return false;
}

}  // namespace corral::sim
