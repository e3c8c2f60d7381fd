#include "corral/sim/resize_agent.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/api/pod_resize.h"
#include "corral/api/well_known.h"
#include "corral/sim/member.h"

namespace corral::sim {

namespace {

enum class Qos : uint8_t { kBestEffort, kBurstable, kGuaranteed };

constexpr std::string_view kQosNames[] = {"BestEffort", "Burstable", "Guaranteed"};

// kube's qos.GetPodQOS over the containers and init containers: BestEffort without any cpu or
// memory request or limit, Guaranteed when every container limits both and the summed requests
// equal the summed limits, Burstable otherwise.
Qos PodQos(const std::vector<api::Container>& containers,
           const std::vector<api::Container>& init_containers) {
  int64_t req[2] = {0, 0}, lim[2] = {0, 0};
  bool has_req[2] = {false, false}, has_lim[2] = {false, false};
  bool guaranteed = true;
  const Symbol kinds[2] = {api::wk::kCpu, api::wk::kMemory};
  auto visit = [&](const api::Container& c) {
    bool limits_both = true;
    for (int k = 0; k < 2; ++k) {
      if (const api::Quantity* q = api::FindResource(c.resources.requests, kinds[k]);
          q != nullptr && q->MilliValue() != 0) {
        req[k] += q->MilliValue();
        has_req[k] = true;
      }
      const api::Quantity* l = api::FindResource(c.resources.limits, kinds[k]);
      if (l != nullptr && l->MilliValue() != 0) {
        lim[k] += l->MilliValue();
        has_lim[k] = true;
      } else {
        limits_both = false;
      }
    }
    guaranteed = guaranteed && limits_both;
  };
  for (const auto& c : containers) visit(c);
  for (const auto& c : init_containers) visit(c);
  if (!has_req[0] && !has_req[1] && !has_lim[0] && !has_lim[1]) return Qos::kBestEffort;
  if (!guaranteed) return Qos::kBurstable;
  for (int k = 0; k < 2; ++k) {
    if (has_req[k] != has_lim[k] || req[k] != lim[k]) return Qos::kBurstable;
  }
  return Qos::kGuaranteed;
}

// Per resource, the larger of two resource lists (a resource in only one keeps its quantity).
api::ResourceList MaxList(const api::ResourceList& a, const api::ResourceList& b) {
  api::ResourceList out = a;
  for (const auto& [name, q] : b) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&key = name](const auto& e) { return e.first == key; });
    if (it == out.end()) {
      out.emplace_back(name, q);
    } else if (q > it->second) {
      it->second = q;
    }
  }
  return out;
}

void SetResizeCondition(api::Pod& pod, Interner& in, std::string_view reason) {
  const Symbol type = in.Intern(api::kPodResizePending);
  auto& cs = pod.conditions;
  cs.erase(std::remove_if(cs.begin(), cs.end(),
                          [&](const api::PodCondition& c) { return c.type == type; }),
           cs.end());
  if (!reason.empty()) cs.push_back({type, api::wk::kTrue, in.Intern(reason)});
}

}  // namespace

std::array<int64_t, kMaxTracked> ResizeAgent::RequestsOf(
    const PodSlot& s, const std::vector<api::Container>& containers) const {
  PodSlot probe;
  probe.pod.containers = containers;
  probe.pod.init_containers = s.pod.init_containers;
  probe.pod.overhead = s.pod.overhead;
  w_.pods->ComputeRequests(probe);
  return probe.req;
}

Result<void> ResizeAgent::Resize(uint32_t slot, const api::Pod& resize) {
  PodSlot& s = w_.pods->Pod(slot);
  const std::string key = w_.PodKey(s.pod);
  if (s.state != PodState::kRunning || s.node == kNone) {
    return Error::Invalid(
        fmt::format("updateAny: pods/resize of {}: the pod is not running on a node (Corral "
                    "resizes only bound, running pods)",
                    key));
  }
  auto it = pending_.find(slot);
  if (it != pending_.end() && it->second.gen != s.gen) {
    pending_.erase(it);
    it = pending_.end();
  }
  // kube's dropNonResizeUpdates: the containers it names take its resources, nothing else changes.
  const std::vector<api::Container>& current =
      it != pending_.end() ? it->second.desired : s.pod.containers;
  std::vector<api::Container> next = current;
  for (size_t i = 0; i < resize.containers.size(); ++i) {
    const api::Container& rc = resize.containers[i];
    auto c = std::find_if(next.begin(), next.end(),
                          [&](const api::Container& x) { return x.name == rc.name; });
    if (c == next.end()) {
      return Error::Invalid(fmt::format(
          "updateAny: pods/resize of {}: spec.containers[{}].name: Not found: {:?} (a resize "
          "changes the resources of existing containers only)",
          key, i, w_.in.Str(rc.name)));
    }
    c->resources = rc.resources;
  }
  const Qos before = PodQos(current, s.pod.init_containers);
  const Qos after = PodQos(next, s.pod.init_containers);
  if (before != after) {
    return Error::Invalid(fmt::format(
        "updateAny: pods/resize of {}: spec: Invalid value: {:?}: Pod QOS Class may not change "
        "as a result of resizing",
        key, kQosNames[static_cast<int>(after)]));
  }
  Pending fresh;
  if (it == pending_.end()) {
    fresh.gen = s.gen;
    fresh.seq = ++seq_;
    fresh.allocated = s.pod.containers;
    fresh.allocated_req = s.req;
    it = pending_.emplace(slot, std::move(fresh)).first;
  }
  Pending& p = it->second;
  p.desired = std::move(next);
  p.desired_req = RequestsOf(s, p.desired);
  std::string why;
  const Outcome outcome = Admit(slot, p, &why);
  Apply(slot, p, outcome, why);
  return {};
}

ResizeAgent::Outcome ResizeAgent::Admit(uint32_t slot, const Pending& p, std::string* why) const {
  const PodSlot& s = w_.pods->Pod(slot);
  const Member& m = *w_.members[s.member];
  const NodeSlot& ns = m.node(s.node);
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    if (r == w_.pods_res || p.desired_req[r] == 0) continue;
    if (p.desired_req[r] > ns.alloc[r]) {
      *why = fmt::format("Node didn't have enough capacity: {}, requested: {}, capacity: {}",
                         w_.in.Str(w_.tracked[r].sym), p.desired_req[r], ns.alloc[r]);
      return Outcome::kInfeasible;
    }
  }
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    if (r == w_.pods_res || p.desired_req[r] == 0) continue;
    // What the other pods of the node hold: their accounted requests, less what deferred resizes
    // of theirs add beyond their allocation.
    int64_t used = ns.req[r] - s.req[r];
    for (const auto& [other, q] : pending_) {
      const PodSlot& o = w_.pods->Pod(other);
      if (other == slot || o.gen != q.gen || o.state == PodState::kFree || o.member != s.member ||
          o.node != s.node) {
        continue;
      }
      used -= o.req[r] - q.allocated_req[r];
    }
    if (p.desired_req[r] + used > ns.alloc[r]) {
      *why =
          fmt::format("Node didn't have enough resource: {}, requested: {}, used: {}, capacity: {}",
                      w_.in.Str(w_.tracked[r].sym), p.desired_req[r], used, ns.alloc[r]);
      return Outcome::kDeferred;
    }
  }
  return Outcome::kActuated;
}

void ResizeAgent::Apply(uint32_t slot, Pending& p, Outcome outcome, const std::string& why) {
  PodSlot& s = w_.pods->Pod(slot);
  Member& m = *w_.members[s.member];
  std::array<int64_t, kMaxTracked> req{};
  std::string_view what;
  bool keep = false;
  switch (outcome) {
    case Outcome::kActuated:
      s.pod.containers = p.desired;
      SetResizeCondition(s.pod, w_.in, "");
      req = p.desired_req;
      ++actuated_;
      what = "actuated";
      break;
    case Outcome::kDeferred: {
      // kube's PodRequests while a resize is pending: max(spec, allocated) per container.
      std::vector<api::Container> accounted = p.desired;
      for (auto& c : accounted) {
        auto a = std::find_if(p.allocated.begin(), p.allocated.end(),
                              [&](const api::Container& x) { return x.name == c.name; });
        if (a == p.allocated.end()) continue;
        c.resources.requests = MaxList(c.resources.requests, a->resources.requests);
        c.resources.limits = MaxList(c.resources.limits, a->resources.limits);
      }
      if (!api::IsPodResizeDeferred(s.pod, w_.in)) ++deferred_;
      s.pod.containers = std::move(accounted);
      SetResizeCondition(s.pod, w_.in, api::kPodReasonDeferred);
      req = RequestsOf(s, s.pod.containers);
      keep = true;
      what = "deferred";
      break;
    }
    case Outcome::kInfeasible:
      // kube's PodRequests of an infeasible resize: the allocated resources.
      s.pod.containers = p.allocated;
      SetResizeCondition(s.pod, w_.in, api::kPodReasonInfeasible);
      req = p.allocated_req;
      ++infeasible_;
      what = "infeasible";
      break;
  }
  if (w_.logging()) {
    w_.Log(m.index(), "resize",
           fmt::format("{} {}{}{}", w_.PodKey(s.pod), what, why.empty() ? "" : ": ", why));
  }
  if (!keep) pending_.erase(slot);  // `p` is gone from here on
  m.Reaccount(slot, req);
  m.sched().UpdateAssignedPod(&s.pod);
  m.Touch();
}

void ResizeAgent::OnPodLeft(Member& m, uint32_t node) {
  if (pending_.empty()) return;
  std::vector<uint32_t> here;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const PodSlot& s = w_.pods->Pod(it->first);
    if (s.gen != it->second.gen || s.state == PodState::kFree) {
      pending_.erase(it++);
      continue;
    }
    if (s.member == m.index() && s.node == node) here.push_back(it->first);
    ++it;
  }
  // The kubelet's retry order: higher priority first, then the longest deferred.
  std::sort(here.begin(), here.end(), [&](uint32_t a, uint32_t b) {
    const int32_t pa = w_.pods->Pod(a).pod.priority, pb = w_.pods->Pod(b).pod.priority;
    if (pa != pb) return pa > pb;
    return pending_.at(a).seq < pending_.at(b).seq;
  });
  for (uint32_t slot : here) {
    Pending& p = pending_.at(slot);
    std::string why;
    if (Admit(slot, p, &why) == Outcome::kActuated) Apply(slot, p, Outcome::kActuated, why);
  }
}

}  // namespace corral::sim
