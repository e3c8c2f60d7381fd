#include "corral/sim/pods.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "corral/sim/controllers/controllers.h"
#include "corral/sim/controllers/pv_controller.h"
#include "corral/sim/fleet_lane.h"
#include "corral/sim/member.h"
#include "corral/sim/program.h"
#include "corral/sim/resize_agent.h"
#include "corral/sim/sampler.h"

namespace corral::sim {

namespace {

int64_t ResourceValue(const api::Quantity& q, bool milli) {
  return milli ? q.MilliValue() : q.Value();
}

// The counter of an eviction's cause. Preemption victims are counted when chosen, not here.
int64_t* EvictionCause(Evictions& e, std::string_view reason) {
  if (reason == "drain") return &e.drain;
  if (reason == "gang-restart") return &e.gang_restart;
  CORRAL_CHECK_MSG(reason == "delete" || reason == "churn", "eviction with an unknown cause");
  return &e.node_failure;  // the node was deleted
}

}  // namespace

Pods::Pods(World& w) : w_(w) {
  wl_.resize(w_.spec.workloads.size());
  for (size_t i = 0; i < wl_.size(); ++i) {
    wl_[i].rng.Seed(w_.spec.seed * 0x9e3779b97f4a7c15ULL + i + 1);
  }
  if (!w_.spec.controllers.empty()) {
    controllers_ = std::make_unique<controllers::Controllers>(w_);
    w_.controllers = controllers_.get();
  }
}

Pods::~Pods() = default;

uint16_t Pods::MemberOf(uint32_t w) const {
  return static_cast<uint16_t>(w_.spec.workloads[w].cluster);
}

uint32_t Pods::AllocPod() {
  if (!free_pods_.empty()) {
    uint32_t i = free_pods_.back();
    free_pods_.pop_back();
    return i;
  }
  uint32_t i = pod_slots_++;
  if ((i >> kChunkBits) >= pod_chunks_.size())
    pod_chunks_.push_back(std::make_unique<PodSlot[]>(kChunkSize));
  slot_of_[&Pod(i).pod] = i;
  return i;
}

void Pods::FreePod(uint32_t i) {
  PodSlot& s = Pod(i);
  if (s.group != kNone) {
    auto& m = groups_[s.group].members;
    if (auto it = std::find(m.begin(), m.end(), i); it != m.end()) m.erase(it);
  }
  s.state = PodState::kFree;
  s.terminating = false;
  ++s.gen;
  s.node = kNone;
  s.group = kNone;
  free_pods_.push_back(i);
}

uint32_t Pods::CreatePod(uint32_t w, uint32_t group, uint32_t tmpl_idx, int64_t duration_ns,
                         Symbol name, bool recreated, const api::Pod* pod) {
  const SimSpec& spec = w_.spec;
  Interner& in = w_.in;
  const PodTemplate& tmpl = spec.pod_templates[tmpl_idx];
  WorkloadState& ws = wl_[w];
  Member& m = *w_.members[group != kNone ? MemberOfGroup(group) : MemberOf(w)];
  const api::Pod* src = pod != nullptr ? pod : &tmpl.pod;
  if (pod == nullptr && tmpl.render) {
    auto r = tmpl.render(ws.pods_created, ws.target_pods);
    if (!r.ok()) {
      w_.Fail(r.error().message);
      return kNone;
    }
    src = *r;
  }
  uint32_t i = AllocPod();
  PodSlot& s = Pod(i);
  s.pod = *src;
  // A pod recreated by its workload is a new pending pod: its controller does not copy the binding
  // (a manifest pod given with spec.nodeName is bound only at its first creation).
  if (recreated) s.pod.node_name = Symbol{};
  if (!name.empty()) {
    s.pod.meta.name = name;
  } else if (group != kNone) {
    name_buf_.clear();
    fmt::format_to(std::back_inserter(name_buf_), "{}-{}", in.Str(groups_[group].name),
                   groups_[group].next_pod++);
    s.pod.meta.name = in.Intern(name_buf_);
  } else if (!(tmpl.render && tmpl.keep_rendered_name)) {
    s.pod.meta.name = w_.NextName(tmpl.name_prefix);
  }
  // A workload's own pod (not a controller's, which made its claims already) gets the claims of its
  // generic ephemeral volumes and ResourceClaimTemplates before it is queued, as kube's
  // resourceclaim and ephemeral volume controllers create them for any pod.
  if (pod == nullptr && (!s.pod.resource_claims.empty() || !s.pod.volumes.empty()) &&
      !controllers::CreatePodClaims(w_, group != kNone ? MemberOfGroup(group) : MemberOf(w), s.pod,
                                    ws.rng)) {
    FreePod(i);
    return kNone;
  }
  if (!priority_override_.empty() && !s.pod.priority_class_name.empty()) {
    if (auto it = priority_override_.find(s.pod.priority_class_name);
        it != priority_override_.end()) {
      s.pod.priority = it->second;
    }
  }
  if (group != kNone && spec.workloads[w].kind == WorkloadKind::kGang) {
    s.pod.scheduling_group = api::PodSchedulingGroup{groups_[group].name};
  }
  ComputeRequests(s);
  s.arrival_ns = w_.now;
  s.bound_ns = 0;
  s.duration_ns = duration_ns;
  s.fail_epoch = UINT64_MAX;
  s.workload = w;
  s.group = group;
  s.node = kNone;
  s.tmpl = tmpl_idx;
  s.ordinal = -1;
  s.member = m.index();
  if (group != kNone) groups_[group].members.push_back(i);
  s.attempted = false;
  s.failed = false;
  s.bound_once = false;
  s.bind_in_flight = false;
  s.measured = spec.workloads[w].collect_metrics ||
               (w_.window_all && w_.perf.collector.running() &&
                (w_.window_op == nullptr || w_.program->Matches(*w_.window_op, s.pod)));
  if (s.measured) ++w_.perf.measured_pods;
  ++ws.pods_created;
  ++ws.stats.pods_arrived;
  ++w_.res.pods_arrived;
  m.Touch();
  w_.Log(m.index(), "arrive",
         fmt::format("{} workload={}", w_.PodKey(s.pod), spec.workloads[w].name));
  if (s.pod.IsBound()) {
    const uint32_t node = m.FindNode(s.pod.node_name);
    s.state = PodState::kBinding;
    ++m.binding;
    m.sched().AddPod(&s.pod);
    if (node != kNone) m.Place(i, node);
    s.bound_once = true;
    ++ws.pods_bound_once;
    StartRunning(i);
    return i;
  }
  s.state = PodState::kPending;
  ++m.pending;
  if (!m.sched().AddPod(&s.pod)) {
    // No profile serves its schedulerName: kube leaves it to another scheduler, and so does
    // the simulator.
    --m.pending;
    ++w_.res.pods_ignored;
    w_.Log(m.index(), "ignored",
           fmt::format("{} schedulerName={} (no profile)", w_.PodKey(s.pod),
                       in.Str(s.pod.scheduler_name)));
    FreePod(i);
    return kNone;
  }
  return i;
}

void Pods::StartRunning(uint32_t slot) {
  PodSlot& s = Pod(slot);
  Member& m = *w_.members[s.member];
  const int64_t now = w_.now;
  if (s.state == PodState::kBinding) --m.binding;
  s.state = PodState::kRunning;
  s.bound_ns = now;
  ++m.running;
  const int64_t wait = now - s.arrival_ns;
  w_.res.latency.Add(wait);
  if (!w_.spec.clusters.empty()) m.latency.Add(wait);
  WorkloadState& ws = wl_[s.workload];
  ws.stats.latency.Add(wait);
  if (s.group != kNone) {
    GroupSlot& g = groups_[s.group];
    ++g.bound;
    if (!g.complete && g.bound >= g.size) {
      g.complete = true;
      const bool first = !g.ever_complete;
      g.ever_complete = true;
      const int64_t gwait = now - g.arrival_ns;
      ws.stats.group_wait.Add(gwait);
      if (first) ++ws.stats.groups_complete;
      if (w_.spec.workloads[s.workload].kind == WorkloadKind::kGang) {
        RunResult& res = w_.res;
        res.gang_wait.Add(gwait);
        if (first) ++res.gangs_complete;
        if (res.gang_waits.size() < 100000) res.gang_waits.emplace_back(g.arrival_ns, gwait);
        w_.Log(s.member, "gang-ready",
               fmt::format("{}/{} size={} wait={}", w_.in.Str(s.pod.meta.namespace_),
                           w_.in.Str(g.name), g.size, FormatGoDuration(gwait)));
      }
      if (g.fleet_work != kNone && w_.fleet != nullptr) w_.fleet->OnGroupComplete(s.group);
    }
  }
  if (s.duration_ns != kForeverNs) {
    const int64_t end = SaturatingAdd(now, s.duration_ns);
    if (end != kForeverNs) w_.Push(end, EventKind::kPodDone, slot, s.gen);
  }
  if (w_.spec.workloads[s.workload].controller != kNone) w_.controllers->PodRunning(slot);
}

void Pods::PodDone(uint32_t slot, uint32_t gen) {
  PodSlot& s = Pod(slot);
  if (s.gen != gen || s.state != PodState::kRunning) return;
  Member& m = *w_.members[s.member];
  w_.Log(m.index(), "complete",
         fmt::format(
             "{} node={}", w_.PodKey(s.pod),
             s.node == kNone ? std::string_view("-") : w_.in.Str(m.node(s.node).node.meta.name)));
  m.sched().DeletePod(&s.pod);
  const uint32_t left = s.node;
  m.Unplace(slot);
  --m.running;
  ++w_.res.pods_completed;
  ++wl_[s.workload].stats.pods_completed;
  if (s.group != kNone) {
    GroupSlot& g = groups_[s.group];
    ++g.finished;
    if (g.finished >= g.size) FreeGroup(s.group);
  }
  const uint32_t w = s.workload;
  const int32_t ordinal = s.ordinal;
  FreePod(slot);
  m.Touch();
  if (w_.resize != nullptr && left != kNone) w_.resize->OnPodLeft(m, left);
  const Workload& wk = w_.spec.workloads[w];
  if (wk.controller != kNone) {
    w_.controllers->PodEnded(w, slot, ordinal, controllers::PodEnd::kSucceeded);
  } else if (wk.steady_ns > 0 && !wl_[w].stopped) {
    // A steady-state pod was deleted once bound: a new one takes its place at once.
    CreatePod(w, kNone, wk.tmpl, wk.duration.SampleNs(wl_[w].rng), Symbol{});
  }
}

void Pods::Evict(uint32_t slot, std::string_view reason, bool recreate) {
  PodSlot& s = Pod(slot);
  if (s.state == PodState::kFree) return;
  Member& m = *w_.members[s.member];
  const uint32_t w = s.workload, group = s.group, tmpl = s.tmpl;
  const int64_t duration = s.duration_ns;
  // A preemption victim in its grace period was counted when it was chosen (Member::ApplyDecision).
  const bool counted_victim = s.terminating;
  const int32_t ordinal = s.ordinal;
  w_.Log(m.index(), recreate ? "evict" : "delete",
         fmt::format("{} reason={}", w_.PodKey(s.pod), reason));
  m.sched().DeletePod(&s.pod);
  const uint32_t left = s.node;
  if (s.state == PodState::kPending) {
    --m.pending;
  } else {
    m.Unplace(slot);
    if (s.state == PodState::kRunning) {
      --m.running;
      if (group != kNone) --groups_[group].bound;  // counted as bound once it started running
    } else {
      --m.binding;
    }
  }
  FreePod(slot);
  m.Touch();
  // The node agent retries the node's deferred resizes when a pod leaves it.
  if (w_.resize != nullptr && left != kNone) w_.resize->OnPodLeft(m, left);
  RunResult& res = w_.res;
  if (reason == "withdrawn") {
    // A fleet copy taken back by its dispatcher: neither evicted nor completed.
  } else if (recreate) {
    if (!counted_victim && reason != "preempted") {
      ++res.pods_evicted;
      ++wl_[w].stats.pods_evicted;
      ++*EvictionCause(res.evictions, reason);
      ++*EvictionCause(wl_[w].stats.evictions, reason);
    }
  } else {
    ++res.pods_completed;
    ++wl_[w].stats.pods_completed;
  }
  // A fleet copy's eviction goes back to its dispatcher, which may withdraw the copy and retry the
  // work elsewhere (MultiKueue) or leave the member to recreate its pods (Karmada).
  if (recreate && group != kNone && groups_[group].fleet_work != kNone && w_.fleet != nullptr &&
      w_.fleet->OnGroupEvicted(group)) {
    return;
  }
  if (w_.spec.workloads[w].controller != kNone) {
    // Its controller decides (a deleted pod is replaced whatever the reason).
    w_.controllers->PodEnded(w, slot, ordinal, controllers::PodEnd::kDeleted);
  } else if (recreate && w_.spec.workloads[w].recreate_on_evict) {
    CreatePod(w, group, tmpl, duration, Symbol{}, /*recreated=*/true);
    // A gang restarts as a whole, as its training controller would: its other bound members go too,
    // and the gang waits again for all of its pods.
    if (group != kNone && w_.spec.workloads[w].kind == WorkloadKind::kGang && !restarting_gang_) {
      restarting_gang_ = true;
      std::vector<uint32_t> others = groups_[group].members;
      for (uint32_t o : others) {
        PodSlot& os = Pod(o);
        if (os.state == PodState::kRunning || os.state == PodState::kBinding)
          Evict(o, "gang-restart", true);
      }
      restarting_gang_ = false;
      GroupSlot& g = groups_[group];
      if (g.complete) ++res.gang_restarts;
      g.complete = false;
      g.arrival_ns = w_.now;
      w_.Log(m.index(), "gang-restart",
             fmt::format("{}/{} after {}",
                         w_.in.Str(Pod(groups_[group].members.front()).pod.meta.namespace_),
                         w_.in.Str(g.name), reason));
    }
  } else if (group != kNone) {
    GroupSlot& g = groups_[group];
    ++g.finished;
    if (g.finished >= g.size && g.alive) FreeGroup(group);
  }
}

void Pods::FreeGroup(uint32_t group) {
  GroupSlot& g = groups_[group];
  if (!g.alive) return;
  g.alive = false;
  if (w_.spec.workloads[g.workload].kind == WorkloadKind::kGang)
    w_.members[MemberOfGroup(group)]->RemovePodGroup(g.name);
  free_groups_.push_back(group);
  if (g.fleet_work != kNone && w_.fleet != nullptr) {
    g.fleet_work = kNone;
    w_.fleet->OnGroupFinished(group);
  }
}

uint32_t Pods::CreateFleetGroup(uint32_t w, uint16_t member, int32_t size, int64_t duration_ns,
                                uint32_t fleet_work, Symbol name) {
  const Workload& wk = w_.spec.workloads[w];
  const uint32_t group = NewGroup(w, size);
  groups_[group].member = member;
  groups_[group].name = name;
  if (wk.kind == WorkloadKind::kGang) {
    ++w_.res.gangs_arrived;
    const api::Pod& t = w_.spec.pod_templates[wk.tmpl].pod;
    api::PodGroup pg;
    pg.meta.name = groups_[group].name;
    pg.meta.namespace_ = t.meta.namespace_;
    pg.policy.kind = api::PodGroupPolicyKind::kGang;
    pg.policy.min_count = size;
    pg.priority_class_name = t.priority_class_name;
    if (!t.priority_class_name.empty()) pg.priority = t.priority;
    // The work item's required topology (Kueue TAS): the member places the gang in one domain.
    const FleetSpec* fleet = w_.spec.fleet.get();
    if (fleet != nullptr && wk.fleet_work < fleet->work_topology_key.size() &&
        !fleet->work_topology_key[wk.fleet_work].empty()) {
      pg.topology_keys.push_back(fleet->work_topology_key[wk.fleet_work]);
    }
    w_.members[member]->AddPodGroup(std::move(pg));
  }
  for (int32_t k = 0; k < size && w_.error.empty(); ++k)
    CreatePod(w, group, wk.tmpl, duration_ns, Symbol{});
  // Set last, so that a copy that cannot even be created does not call back.
  groups_[group].fleet_work = fleet_work;
  return group;
}

void Pods::WithdrawGroup(uint32_t group) {
  GroupSlot& g = groups_[group];
  if (!g.alive) return;
  g.fleet_work = kNone;
  const std::vector<uint32_t> pods = g.members;
  for (uint32_t p : pods) Evict(p, "withdrawn", false);
  FreeGroup(group);
}

// A new group (job, gang) of workload `w` arriving now. A gang's PodGroup object (current Workload
// API generation) is created before its pods, as kube's controllers do.
uint32_t Pods::NewGroup(uint32_t w, int32_t size) {
  const Workload& wk = w_.spec.workloads[w];
  uint32_t group = kNone;
  if (!free_groups_.empty()) {
    group = free_groups_.back();
    free_groups_.pop_back();
  } else {
    group = static_cast<uint32_t>(groups_.size());
    groups_.emplace_back();
  }
  GroupSlot& g = groups_[group];
  std::vector<uint32_t> keep = std::move(g.members);
  g = GroupSlot{};
  g.members = std::move(keep);
  g.members.clear();
  g.workload = w;
  g.size = size;
  g.arrival_ns = w_.now;
  g.alive = true;
  g.name = w_.NextName(wk.name + "-");
  return group;
}

void Pods::ScheduleNextArrival(uint32_t w) {
  const Workload& wk = w_.spec.workloads[w];
  WorkloadState& ws = wl_[w];
  const int64_t now = w_.now;
  if (ws.stopped || ws.exhausted) return;
  if (wk.arrival.count >= 0 && ws.arrivals >= wk.arrival.count) {
    ws.exhausted = true;
    return;
  }
  int64_t next = now;
  switch (wk.arrival.kind) {
    case Arrival::Kind::kBurst:
      next = now;
      break;
    case Arrival::Kind::kFixedRate:
      next = ws.arrivals == 0 ? now : now + static_cast<int64_t>(1e9 / wk.arrival.rate_per_s);
      break;
    case Arrival::Kind::kPoisson: {
      double gap = -std::log(1.0 - ws.rng.UniformDouble()) / wk.arrival.rate_per_s;
      next = now + static_cast<int64_t>(gap * 1e9);
      break;
    }
    case Arrival::Kind::kExplicit:
      if (ws.cursor >= wk.explicit_arrivals.size()) {
        ws.exhausted = true;
        return;
      }
      next = std::max(now, wk.explicit_arrivals[ws.cursor].time_ns);
      break;
  }
  if (next >= wk.arrival.stop_ns || (w_.spec.duration_ns > 0 && next > w_.spec.duration_ns)) {
    ws.exhausted = true;
    return;
  }
  w_.Push(next, EventKind::kArrival, w);
}

void Pods::Arrive(uint32_t w) {
  const Workload& wk = w_.spec.workloads[w];
  if (wk.controller != kNone) {
    w_.controllers->Arrive(w);  // started, or woken to reconcile
    return;
  }
  WorkloadState& ws = wl_[w];
  if (ws.stopped || ws.exhausted) return;
  auto one = [&](int64_t duration, uint32_t tmpl, Symbol name) {
    ++ws.arrivals;
    ++ws.stats.arrivals;
    if (wk.fleet_work != kNone) {
      // Work for the fleet: one work item, its copies' pods running one sampled duration.
      w_.fleet->Arrive(w, duration != -1 ? duration : wk.duration.SampleNs(ws.rng));
      return;
    }
    uint32_t group = kNone;
    const int32_t n = std::max(1, wk.pods_per_arrival);
    if (wk.kind != WorkloadKind::kPods) {
      group = NewGroup(w, n);
      if (wk.kind == WorkloadKind::kGang) {
        ++w_.res.gangs_arrived;
        const api::Pod& t = w_.spec.pod_templates[tmpl].pod;
        api::PodGroup pg;
        pg.meta.name = groups_[group].name;
        pg.meta.namespace_ = t.meta.namespace_;
        pg.policy.kind = api::PodGroupPolicyKind::kGang;
        pg.policy.min_count = wk.min_count > 0 ? wk.min_count : wk.pods_per_arrival;
        pg.priority_class_name = t.priority_class_name;
        if (!t.priority_class_name.empty()) pg.priority = t.priority;
        w_.members[MemberOf(w)]->AddPodGroup(std::move(pg));
      }
    }
    // A gang's members run for one sampled duration (the workers of one training job end together),
    // so a gang never has completed members next to running ones that a restart would have to
    // bring back.
    const int64_t gang_d =
        wk.kind == WorkloadKind::kGang && duration == -1 ? wk.duration.SampleNs(ws.rng) : duration;
    for (int32_t k = 0; k < n; ++k) {
      int64_t d = gang_d != -1 ? gang_d : wk.duration.SampleNs(ws.rng);
      CreatePod(w, group, tmpl, d, n == 1 ? name : Symbol{});
      if (!w_.error.empty()) return;
    }
  };
  switch (wk.arrival.kind) {
    case Arrival::Kind::kBurst: {
      int64_t count = wk.arrival.count < 0 ? 1 : wk.arrival.count;
      for (int64_t i = ws.arrivals; i < count && w_.error.empty(); ++i) one(-1, wk.tmpl, Symbol{});
      ws.exhausted = true;
      return;
    }
    case Arrival::Kind::kExplicit:
      while (ws.cursor < wk.explicit_arrivals.size() &&
             wk.explicit_arrivals[ws.cursor].time_ns <= w_.now && w_.error.empty()) {
        const ExplicitArrival& ex = wk.explicit_arrivals[ws.cursor++];
        one(ex.duration_ns, ex.tmpl, ex.name);
      }
      break;
    default:
      one(-1, wk.tmpl, Symbol{});
      break;
  }
  ScheduleNextArrival(w);
}

void Pods::ComputeRequests(PodSlot& s) const {
  // Requests of the tracked resources: max(sum of containers, each init container) + overhead.
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    if (r == w_.pods_res) {
      s.req[r] = 1;
      continue;
    }
    const Symbol sym = w_.tracked[r].sym;
    const bool milli = w_.tracked[r].milli;
    int64_t sum = 0, init_max = 0;
    for (const auto& c : s.pod.containers) {
      if (const api::Quantity* q = api::FindResource(c.resources.requests, sym))
        sum += ResourceValue(*q, milli);
    }
    for (const auto& c : s.pod.init_containers) {
      if (const api::Quantity* q = api::FindResource(c.resources.requests, sym)) {
        init_max = std::max(init_max, ResourceValue(*q, milli));
      }
    }
    int64_t v = std::max(sum, init_max);
    if (const api::Quantity* q = api::FindResource(s.pod.overhead, sym))
      v += ResourceValue(*q, milli);
    s.req[r] = v;
  }
}

}  // namespace corral::sim
