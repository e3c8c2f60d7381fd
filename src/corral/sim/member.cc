#include "corral/sim/member.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/sim/api_client.h"
#include "corral/sim/controllers/controllers.h"
#include "corral/sim/pods.h"
#include "corral/sim/sampler.h"

namespace corral::sim {

namespace {

int64_t ResourceValue(const api::Quantity& q, bool milli) {
  return milli ? q.MilliValue() : q.Value();
}

}  // namespace

Member::Member(World& w, uint16_t index, scheduler::Scheduler& sched,
               const framework::FeatureGates& gates, const api::ObjectSet& objects)
    : w_(w), index_(index), sched_(sched), gates_(gates), objects_(objects) {
  pool_next_index_.assign(w_.spec.pools.size(), 0);
  decisions_.reserve(16);
  if (w_.spec.api_client.set) {
    api_ = std::make_unique<ApiClient>(w_.spec.api_client.qps, w_.spec.api_client.burst,
                                       w_.spec.api_client.dispatcher);
  }
  sched_.set_observer(this);
  sched_.SetClusterObjects(&objects_);
}

Member::~Member() {
  sched_.set_observer(nullptr);
}

// ---- nodes -------------------------------------------------------------------------------------

void Member::TrackNode(NodeSlot& n) {
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    const api::Quantity* q = api::FindResource(n.node.allocatable, w_.tracked[r].sym);
    n.alloc[r] = q == nullptr ? 0 : ResourceValue(*q, w_.tracked[r].milli);
    n.req[r] = 0;
  }
}

uint32_t Member::NewNodeSlot() {
  if (!free_nodes_.empty()) {
    uint32_t idx = free_nodes_.back();
    free_nodes_.pop_back();
    return idx;
  }
  nodes_.push_back(std::make_unique<NodeSlot>());
  return static_cast<uint32_t>(nodes_.size() - 1);
}

// Accounts a node that just became alive in slot `idx` and hands it to the scheduler.
void Member::NodeAdded(uint32_t idx, std::string_view pool) {
  NodeSlot& ns = *nodes_[idx];
  const api::Node& n = ns.node;
  ns.serial = node_serial_++;
  ns.alive = true;
  ns.pods.clear();
  TrackNode(ns);
  for (size_t r = 0; r < w_.tracked.size(); ++r) alloc_total[r] += ns.alloc[r];
  node_by_name_[n.meta.name] = idx;
  ++nodes_alive;
  if (!n.unschedulable) ++nodes_schedulable;
  nodes_max = std::max(nodes_max, nodes_alive);
  if (slot_names.size() <= idx) {
    slot_names.resize(idx + 1);
    slot_pools.resize(idx + 1);
  }
  slot_names[idx] = std::string(w_.in.Str(n.meta.name));
  slot_pools[idx] = std::string(pool);
  sched_.AddNode(&ns.node);
  if (w_.controllers != nullptr) w_.controllers->NodesChanged(index_);
}

void Member::AddInitialNode(const api::Node& n) {
  const uint32_t idx = NewNodeSlot();
  nodes_[idx]->node = n;
  NodeAdded(idx, "");
  w_.Log(index_, "node-add", w_.in.Str(n.meta.name));
}

void Member::CreateNode(uint32_t pool_idx) {
  const NodePool& pool = w_.spec.pools[pool_idx];
  Interner& in = w_.in;
  int64_t index = pool_next_index_[pool_idx]++;
  const uint32_t idx = NewNodeSlot();
  NodeSlot& ns = *nodes_[idx];
  if (pool.render) {
    auto r = pool.render(index);
    if (!r.ok()) {
      w_.Fail(r.error().message);
      free_nodes_.push_back(idx);
      return;
    }
    ns.node = std::move(r).value();
  } else {
    ns.node = pool.tmpl;
  }
  api::Node& n = ns.node;
  if (!pool.render || n.meta.name.empty()) n.meta.name = w_.NextName(pool.name_prefix);
  if (node_by_name_.contains(n.meta.name)) {
    w_.Fail(fmt::format(
        "node pool {:?}: node name {:?} is already in use (a template that renders a fixed "
        "name can only be created once)",
        pool.name, in.Str(n.meta.name)));
    free_nodes_.push_back(idx);
    return;
  }
  if (!n.meta.labels.Has(api::wk::kHostnameLabel))
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
  if (!pool.zones.empty()) {
    const size_t nz = pool.zones.size();
    Symbol zone = pool.zones[static_cast<size_t>(index) % nz];
    n.meta.labels.Set(api::wk::kZoneLabel, zone);
    if (pool.racks_per_zone > 0) {
      int64_t rack = (index / static_cast<int64_t>(nz)) % pool.racks_per_zone;
      n.meta.labels.Set(in.Intern("topology.corral.dev/rack"),
                        in.Intern(fmt::format("{}-rack-{}", in.Str(zone), rack)));
    }
  }
  for (const auto& rule : pool.label_rules) {
    switch (rule.mode) {
      case LabelRule::Mode::kCycle:
        if (!rule.values.empty())
          n.meta.labels.Set(rule.key, rule.values[static_cast<size_t>(index) % rule.values.size()]);
        break;
      case LabelRule::Mode::kRandom:
        if (!rule.values.empty())
          n.meta.labels.Set(rule.key, rule.values[w_.rng.Uniform(rule.values.size())]);
        break;
      case LabelRule::Mode::kUnique:
        n.meta.labels.Set(rule.key, in.Intern(fmt::format("{}{}", rule.prefix, index)));
        break;
    }
  }
  ns.pool = pool_idx;
  NodeAdded(idx, pool.name);
  Touch();
  if (w_.logging()) {
    std::string detail = fmt::format("{} pool={}", in.Str(n.meta.name), pool.name);
    if (const Symbol* z = n.meta.labels.Find(api::wk::kZoneLabel))
      detail += fmt::format(" zone={}", in.Str(*z));
    w_.Log(index_, "node-add", detail);
  }
}

void Member::EvictAll(uint32_t idx, std::string_view reason) {
  Pods& pods = *w_.pods;
  std::vector<uint32_t> victims = nodes_[idx]->pods;
  std::sort(victims.begin(), victims.end(), [&](uint32_t a, uint32_t b) {
    const PodSlot& pa = pods.Pod(a);
    const PodSlot& pb = pods.Pod(b);
    return pa.bound_ns != pb.bound_ns ? pa.bound_ns < pb.bound_ns : a < b;
  });
  // An eviction can recreate pods (and restart a gang) in freed slots: only the pods that were on
  // the node when the eviction began, in their generation of the slot, are evicted.
  std::vector<uint32_t> gens;
  gens.reserve(victims.size());
  for (uint32_t p : victims) gens.push_back(pods.Pod(p).gen);
  for (size_t i = 0; i < victims.size(); ++i) {
    if (pods.Pod(victims[i]).gen == gens[i]) pods.Evict(victims[i], reason, true);
  }
}

void Member::RemoveNode(uint32_t idx, std::string_view reason) {
  NodeSlot& ns = *nodes_[idx];
  if (!ns.alive) return;
  EvictAll(idx, reason);
  for (size_t r = 0; r < w_.tracked.size(); ++r) alloc_total[r] -= ns.alloc[r];
  --nodes_alive;
  if (!ns.node.unschedulable) --nodes_schedulable;
  ns.alive = false;
  Symbol name = ns.node.meta.name;
  node_by_name_.erase(name);
  sched_.RemoveNode(name);
  free_nodes_.push_back(idx);
  Touch();
  w_.Log(index_, "node-remove", fmt::format("{} reason={}", w_.in.Str(name), reason));
  if (w_.controllers != nullptr) w_.controllers->NodesChanged(index_);
}

void Member::SetCordon(uint32_t idx, bool cordon) {
  NodeSlot& ns = *nodes_[idx];
  if (!ns.alive || ns.node.unschedulable == cordon) return;
  ns.node.unschedulable = cordon;
  nodes_schedulable += cordon ? -1 : 1;
  sched_.UpdateNode(&ns.node);
  Touch();
  w_.Log(index_, cordon ? "node-cordon" : "node-uncordon", w_.in.Str(ns.node.meta.name));
}

void Member::UpdateNode(uint32_t idx, api::Node n) {
  NodeSlot& ns = *nodes_[idx];
  // As at creation, a node without a hostname label gets its name as one.
  if (!n.meta.labels.Has(api::wk::kHostnameLabel))
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
  for (size_t r = 0; r < w_.tracked.size(); ++r) alloc_total[r] -= ns.alloc[r];
  if (!ns.node.unschedulable) --nodes_schedulable;
  ns.node = std::move(n);
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    const api::Quantity* q = api::FindResource(ns.node.allocatable, w_.tracked[r].sym);
    ns.alloc[r] = q == nullptr ? 0 : ResourceValue(*q, w_.tracked[r].milli);
    alloc_total[r] += ns.alloc[r];
  }
  if (!ns.node.unschedulable) ++nodes_schedulable;
  sched_.UpdateNode(&ns.node);
  Touch();
  w_.Log(index_, "node-update", w_.in.Str(ns.node.meta.name));
  if (w_.controllers != nullptr) w_.controllers->NodesChanged(index_);
}

std::vector<uint32_t> Member::PickNodes(uint32_t pool, int64_t count, bool newest_first,
                                        int want) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const NodeSlot& ns = *nodes_[i];
    if (!ns.alive || (pool != kNone && ns.pool != pool)) continue;
    if (want == 1 && ns.node.unschedulable) continue;
    if (want == 2 && !ns.node.unschedulable) continue;
    out.push_back(i);
  }
  std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
    return newest_first ? nodes_[a]->serial > nodes_[b]->serial
                        : nodes_[a]->serial < nodes_[b]->serial;
  });
  if (count >= 0 && static_cast<size_t>(count) < out.size()) out.resize(static_cast<size_t>(count));
  return out;
}

uint32_t Member::NewestNode(uint32_t pool) const {
  uint32_t newest = kNone;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->alive && nodes_[i]->pool == pool &&
        (newest == kNone || nodes_[i]->serial > nodes_[newest]->serial)) {
      newest = i;
    }
  }
  return newest;
}

void Member::Place(uint32_t slot, uint32_t node) {
  PodSlot& s = w_.pods->Pod(slot);
  NodeSlot& ns = *nodes_[node];
  s.node = node;
  s.pos_in_node = static_cast<uint32_t>(ns.pods.size());
  ns.pods.push_back(slot);
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    ns.req[r] += s.req[r];
    req_total[r] += s.req[r];
  }
}

void Member::Unplace(uint32_t slot) {
  PodSlot& s = w_.pods->Pod(slot);
  if (s.node == kNone) return;
  NodeSlot& ns = *nodes_[s.node];
  uint32_t last = ns.pods.back();
  ns.pods[s.pos_in_node] = last;
  w_.pods->Pod(last).pos_in_node = s.pos_in_node;
  ns.pods.pop_back();
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    ns.req[r] -= s.req[r];
    req_total[r] -= s.req[r];
  }
  s.node = kNone;
}

void Member::Reaccount(uint32_t slot, const std::array<int64_t, kMaxTracked>& req) {
  PodSlot& s = w_.pods->Pod(slot);
  if (s.node != kNone) {
    NodeSlot& ns = *nodes_[s.node];
    for (size_t r = 0; r < w_.tracked.size(); ++r) {
      ns.req[r] += req[r] - s.req[r];
      req_total[r] += req[r] - s.req[r];
    }
  }
  s.req = req;
}

// ---- cluster objects ----------------------------------------------------------------------------

// The scheduler re-reads the object set, so pointers into its vectors stay fresh.
void Member::AddPodGroup(api::PodGroup pg) {
  objects_.pod_groups.push_back(std::move(pg));
  sched_.SetClusterObjects(&objects_);
}

void Member::RemovePodGroup(Symbol name) {
  auto& v = objects_.pod_groups;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].meta.name == name) {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
      sched_.SetClusterObjects(&objects_);
      return;
    }
  }
}

api::ObjectSet Member::TrialObjects() const {
  api::ObjectSet out = objects_;
  out.nodes.clear();
  out.pods.clear();
  size_t pods = 0;
  for (const auto& n : nodes_) pods += n->alive ? n->pods.size() : 0;
  out.pods.reserve(pods);
  for (const auto& n : nodes_) {
    if (!n->alive) continue;
    out.nodes.push_back(n->node);
    for (uint32_t slot : n->pods) out.pods.push_back(w_.pods->Pod(slot).pod);
  }
  return out;
}

// ---- SchedulerObserver --------------------------------------------------------------------------

void Member::OnScheduled(const api::Pod& pod, Symbol node, std::string_view) {
  decisions_.push_back({Decision::Kind::kScheduled, w_.pods->SlotOf(pod), node, {}, {}});
}

void Member::OnUnschedulable(const api::Pod& pod, const std::string& message) {
  decisions_.push_back({Decision::Kind::kUnschedulable,
                        w_.pods->SlotOf(pod),
                        Symbol{},
                        w_.logging() || api_ != nullptr ? message : std::string(),
                        {}});
}

void Member::OnExplain(const api::Pod& pod, const scheduler::CycleExplain& ex) {
  if (w_.opts.on_explain) w_.opts.on_explain(index_, pod, ex, w_.now);
}

void Member::OnPreempted(const scheduler::PreemptionRecord& rec) {
  Decision d{Decision::Kind::kPreempted, w_.pods->SlotOf(*rec.preemptor), rec.node, {}, {}};
  for (const auto& v : rec.victims) d.victims.push_back(w_.pods->SlotOf(*v.pod));
  decisions_.push_back(std::move(d));
}

// ---- lane --------------------------------------------------------------------------------------

void Member::Step() {
  decisions_.clear();
  const Clock* wall = w_.opts.wall;
  const scheduler::SchedulerStats& st = sched_.stats();
  const int64_t scheduled_groups_before = st.group_attempts_scheduled;
  const int64_t unschedulable_groups_before = st.group_attempts_unschedulable;
  TimePoint t0 = wall != nullptr ? wall->Now() : TimePoint{};
  const bool did = sched_.ScheduleOne();
  int64_t wall_ns = 0;
  if (wall != nullptr) {
    wall_ns = (wall->Now() - t0).count();
    sched_wall_ns += wall_ns;
  }
  if (!did) {
    idle_ = true;
    if (pending > 0 && !gates_.Enabled(framework::Feature::kSchedulerPopFromBackoffQ)) ArmRetry();
    return;
  }
  ++cycles;
  int64_t cost = 0;
  switch (w_.spec.cost.mode) {
    case CostModel::Mode::kInstant:
      break;
    case CostModel::Mode::kFixed:
      cost = w_.spec.cost.fixed_ns;
      break;
    case CostModel::Mode::kMeasured:
      cost = wall_ns;
      break;
  }
  attempt_cost_ns_ =
      wall != nullptr && w_.spec.cost.mode != CostModel::Mode::kFixed ? wall_ns : cost;
  // A ScheduleOne runs at most one workload cycle; its cost is that attempt's duration, kept for
  // corral perf when a member of the group is measured.
  if (st.group_attempts_scheduled != scheduled_groups_before ||
      st.group_attempts_unschedulable != unschedulable_groups_before) {
    bool measured = false;
    for (const Decision& d : decisions_) measured = measured || w_.pods->Pod(d.slot).measured;
    if (measured) {
      (st.group_attempts_scheduled != scheduled_groups_before ? w_.perf.group_attempt_scheduled
                                                              : w_.perf.group_attempt_unschedulable)
          .Add(attempt_cost_ns_);
    }
  }
  if (cost > 0) {
    busy_ = true;
    busy_until_ = cost > kForeverNs - w_.now ? kForeverNs : w_.now + cost;
    return;
  }
  for (const Decision& d : decisions_) ApplyDecision(d, attempt_cost_ns_);
  HoldForApi();
}

void Member::Complete() {
  busy_ = false;
  w_.sampler->SampleWhileBusy();
  for (const Decision& d : decisions_) ApplyDecision(d, attempt_cost_ns_);
  HoldForApi();
}

void Member::HoldForApi() {
  if (api_hold_until_ <= w_.now) return;
  // Unlike a cycle's cost, the wait is not atomic: bindings land and events happen meanwhile, as
  // they do while kube's scheduling goroutine waits in client-go's rate limiter.
  api_blocked_ = true;
  w_.Push(api_hold_until_, EventKind::kApiUnblock, 0, 0, index_);
}

void Member::OnApiUnblock() {
  if (api_hold_until_ > w_.now) return;  // a later hold is pending; its own event ends it
  api_blocked_ = false;
  Touch();
}

void Member::ApplyDecision(const Decision& d, int64_t cost_ns) {
  Pods& pods = *w_.pods;
  RunResult& res = w_.res;
  if (d.kind == Decision::Kind::kPreempted) {
    const PodSlot& pre = pods.Pod(d.slot);
    int32_t fresh = 0;
    // Under a rate limit each victim costs two calls, its DisruptionTarget status patch and its
    // delete, made by preemption's goroutine (or, with SchedulerAsyncPreemption off, by the loop,
    // which waits for them); the grace period starts when the delete lands.
    int64_t deleted_at = w_.now;
    if (api_ != nullptr) {
      for (uint32_t v : d.victims) {
        const PodSlot& s = pods.Pod(v);
        if (s.state != PodState::kFree && !s.terminating) api_->Direct(w_.now);
      }
    }
    for (uint32_t v : d.victims) {
      PodSlot& s = pods.Pod(v);
      if (s.state == PodState::kFree || s.terminating) continue;  // already on its way out
      s.terminating = true;
      ++fresh;
      ++res.pods_preempted;
      ++res.evictions.preemption;
      WorkloadStats& ws = pods.workload(s.workload).stats;
      ++ws.pods_preempted;
      ++ws.evictions.preemption;
      int64_t grace = s.pod.termination_grace_period_seconds.value_or(30) * kSecond;
      if (api_ != nullptr) {
        deleted_at = api_->Direct(w_.now);
        if (!gates_.Enabled(framework::Feature::kSchedulerAsyncPreemption))
          api_hold_until_ = std::max(api_hold_until_, deleted_at);
      }
      grace = SaturatingAdd(grace, deleted_at - w_.now);
      w_.Push(SaturatingAdd(w_.now, grace), EventKind::kVictimGone, v, s.gen);
      if (w_.logging()) {
        w_.Log(index_, "preempt",
               fmt::format("{} by {} node={} grace={}", w_.PodKey(s.pod), w_.PodKey(pre.pod),
                           w_.in.Str(d.node), FormatGoDuration(grace)));
      }
    }
    if (fresh > 0) ++res.preemptions;
    Touch(/*wake=*/false);
    return;
  }
  PodSlot& s = pods.Pod(d.slot);
  if (s.measured) w_.perf.attempt_duration.Add(cost_ns);
  if (d.kind == Decision::Kind::kUnschedulable) {
    if (api_ != nullptr) {
      PatchStatus(d);
    } else {
      // A first attempt may complete an Attempted barrier: the program looks again (the cluster
      // did not change, so the member's own epoch stays).
      if (!s.attempted) ++w_.epoch;
      s.attempted = true;
    }
    s.failed = true;
    ++res.unschedulable_attempts;
    if (s.fail_epoch == epoch_) {
      // The same pod failed again with nothing changed: no point in trying until something happens.
      idle_ = true;
      ArmRetry();
    }
    s.fail_epoch = epoch_;
    if (w_.logging())
      w_.Log(index_, "unschedulable", fmt::format("{} {:?}", w_.PodKey(s.pod), d.message));
    return;
  }
  const uint32_t node = FindNode(d.node);
  if (s.state != PodState::kPending) return;
  --pending;
  s.state = PodState::kBinding;
  s.pod.node_name = d.node;  // the binding, as the API server would record it
  ++binding;
  if (node != kNone) Place(d.slot, node);
  Touch(/*wake=*/false);
  if (api_ != nullptr) {
    // The binding goroutine's POST pods/binding waits for its token; the pod stays assumed (its
    // node holds it) and counts as scheduled once the binding lands.
    const int64_t at = api_->Issue(d.slot, s.gen, ApiClient::Call::kBinding, w_.now);
    if (at > w_.now) {
      s.bind_in_flight = true;
      w_.Push(at, EventKind::kBindLanded, d.slot, s.gen, index_);
      return;
    }
  }
  BindLanded(d.slot);
}

void Member::BindLanded(uint32_t slot) {
  Pods& pods = *w_.pods;
  RunResult& res = w_.res;
  PodSlot& s = pods.Pod(slot);
  s.attempted = true;
  WorkloadState& ws = pods.workload(s.workload);
  w_.sampler->AdvanceOverall(w_.now);
  ++res.pods_scheduled;
  ++scheduled;
  ++ws.stats.pods_scheduled;
  if (!s.bound_once) {
    s.bound_once = true;
    ++ws.pods_bound_once;
  }
  if (s.measured) ++w_.perf.measured_scheduled;
  if (s.bind_in_flight) {
    s.bind_in_flight = false;
    Touch(/*wake=*/false);
  }
  w_.last_progress_ns = w_.now;
  retry_backoff_ns_ = kSecond;
  w_.Log(index_, "bind",
         fmt::format("{} node={} wait={}", w_.PodKey(s.pod), w_.in.Str(s.pod.node_name),
                     FormatGoDuration(w_.now - s.arrival_ns)));
  int64_t lat = w_.spec.bind_latency.is_zero() ? 0 : w_.spec.bind_latency.SampleNs(w_.rng);
  if (lat > 0 && lat != kForeverNs) {
    w_.Push(w_.now + lat, EventKind::kBindDone, slot, s.gen);
  } else {
    pods.StartRunning(slot);
  }
}

void Member::OnBindLanded(uint32_t slot, uint32_t gen) {
  const PodSlot& s = w_.pods->Pod(slot);
  // A pod deleted while its binding waited is gone (kube's bind fails with NotFound).
  if (s.gen == gen && s.state == PodState::kBinding && s.bind_in_flight) BindLanded(slot);
}

void Member::PatchStatus(const Decision& d) {
  PodSlot& s = w_.pods->Pod(d.slot);
  // kube's updatePod patches only a changed condition or nominatedNodeName: the key is both.
  std::string key = d.message;
  for (const Decision& o : decisions_) {
    if (o.kind == Decision::Kind::kPreempted && o.slot == d.slot) {
      key += '\n';
      key += w_.in.Str(o.node);
    }
  }
  if (!api_->ConditionChanged(d.slot, s.gen, key)) return;
  const int64_t at = api_->Issue(d.slot, s.gen, ApiClient::Call::kStatusPatch, w_.now);
  if (!api_->dispatcher()) api_hold_until_ = std::max(api_hold_until_, at);
  if (at <= w_.now) {
    if (!s.attempted) ++w_.epoch;  // a first attempt may complete an Attempted barrier
    s.attempted = true;
  } else {
    w_.Push(at, EventKind::kStatusLanded, d.slot, s.gen, index_);
  }
}

void Member::OnStatusLanded(uint32_t slot, uint32_t gen) {
  PodSlot& s = w_.pods->Pod(slot);
  if (s.gen != gen || s.attempted) return;
  s.attempted = true;  // scheduler_perf's barrier sees the PodScheduled condition now
  Touch(/*wake=*/false);
}

void Member::ArmRetry() {
  if (retry_armed_) return;
  retry_armed_ = true;
  w_.Push(w_.now + retry_backoff_ns_, EventKind::kRetryTick, 0, 0, index_);
  retry_backoff_ns_ = std::min<int64_t>(retry_backoff_ns_ * 2, 10 * kSecond);
}

void Member::OnRetryTick() {
  retry_armed_ = false;
  Touch();
}

void Member::OnFlushTick() {
  sched_.FlushUnschedulableLeftover();
  idle_ = false;
}

void Member::OnPermitTimer() {
  timer_armed_ = false;
  // A pod held in PreBind (DRA binding conditions) may be bound by this poll: its decision is
  // applied now, or with the cycle in progress when the lane is busy. (Decisions of Permit
  // timeouts alone are left as they were: the next Step clears them.)
  const bool prebind = sched_.NumWaitingInPreBind() > 0;
  if (!busy_ && prebind) decisions_.clear();
  sched_.FireTimers();
  if (!busy_ && prebind) {
    for (const Decision& d : decisions_) ApplyDecision(d, 0);
    decisions_.clear();
    HoldForApi();
  }
  Touch();
}

void Member::ArmPermitTimer() {
  if (auto deadline = sched_.NextTimerDeadline(); deadline.has_value()) {
    int64_t at = std::max(w_.now, (*deadline - w_.start).count());
    if (!timer_armed_ || at < timer_at_) {
      timer_armed_ = true;
      timer_at_ = at;
      w_.Push(at, EventKind::kPermitTimer, 0, 0, index_);
    }
  }
}

}  // namespace corral::sim
