#include "corral/sim/fleet_lane.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/sim/member.h"
#include "corral/sim/pods.h"

namespace corral::sim {

namespace {

uint64_t CopyKey(uint32_t work, uint32_t cluster) {
  return (static_cast<uint64_t>(work) << 16) | cluster;
}

std::string_view PhaseName(fleet::WorkPhase p) {
  switch (p) {
    case fleet::WorkPhase::kQueued:
      return "queued";
    case fleet::WorkPhase::kPending:
      return "pending";
    case fleet::WorkPhase::kReady:
      return "ready";
    case fleet::WorkPhase::kFinished:
      return "finished";
  }
  return "";
}

}  // namespace

FleetLane::FleetLane(World& w, const FleetSpec& spec) : w_(w), spec_(spec) {
  // The estimators (fleet_estimate.h): the general estimator reads the refreshed summaries; the
  // accurate one asks each member's own scheduler, read-only. calAvailableReplicas takes the
  // minimum over them.
  estimators_ = std::make_unique<FleetEstimators>(
      w_, spec_.estimator, [this](uint32_t m) { return loop_->reachable(m); });
  if (spec_.config.kind == fleet::FleetKind::kKarmada && spec_.gates.PreemptionEnabled()) {
    // The scheduler consults the general estimator less the claims each requester must respect;
    // preemption itself reads the raw summaries. The accurate estimator, when on, stays beside
    // it (its answer is the member's own view, which claims do not change).
    // Phase 2 and the gang check try the member's real nodes without the victims' pods.
    victims_ = std::make_unique<SimVictimSimulator>(
        w_, [this](const api::FleetWork* b, uint32_t member) -> uint32_t {
          auto id = work_by_name_.find(b->meta.name);
          if (id == work_by_name_.end()) return kNone;
          auto g = group_of_.find(CopyKey(id->second, member));
          return g == group_of_.end() ? kNone : g->second;
        });
    fleet::PreemptionOptions options;
    options.mode = spec_.preemption_mode;
    if (spec_.simulate_victims) options.simulator = victims_.get();
    options.gang_check = victims_.get();
    preempt_ = std::make_unique<FleetPreemption>(w_.clock, w_.start, spec_.gates,
                                                 estimators_->general(), w_.in, options);
    estimators_->ReplaceGeneral(preempt_->estimator());
  }
  std::vector<const fleet::ReplicaEstimator*> estimators = estimators_->replica();
  loop_ = std::make_unique<fleet::DispatchLoop>(spec_.config, Snapshot(), std::move(estimators),
                                                w_.in, *this, spec_.config_order);
  loop_->SetWorkloadEstimators(estimators_->workload());
  const fleet::DispatchLoopConfig& c = spec_.config;
  res_.scheduler = c.kind == fleet::FleetKind::kKarmada ? "karmada" : "kueue";
  if (c.kind == fleet::FleetKind::kKarmada) {
    res_.dispatcher = spec_.estimator == FleetEstimatorKind::kAccurate
                          ? "Karmada generic scheduler, accurate estimator"
                          : "Karmada generic scheduler, general estimator";
  } else if (c.dispatcher == fleet::KueueDispatcherKind::kAllAtOnce) {
    res_.dispatcher = "AllAtOnce";
  } else if (c.dispatcher == fleet::KueueDispatcherKind::kIncremental) {
    res_.dispatcher = fmt::format("Incremental (step {})", c.step_size);
  } else {
    res_.dispatcher = c.profile.nomination == api::NominationMode::kTopK
                          ? fmt::format("composable top-{}", c.profile.top_k)
                          : std::string("composable top-1");
  }
  if (c.kind == fleet::FleetKind::kKueue && spec_.estimator == FleetEstimatorKind::kAccurate)
    res_.dispatcher += ", accurate estimator";
  res_.refresh_interval_ns = spec_.refresh_interval_ns;
  res_.accurate = spec_.estimator == FleetEstimatorKind::kAccurate;
  for (const api::Cluster& cl : spec_.clusters)
    res_.members.push_back({std::string(w_.in.Str(cl.meta.name))});
}

FleetLane::~FleetLane() = default;

std::vector<api::Cluster> FleetLane::Snapshot() const {
  std::vector<api::Cluster> out = spec_.clusters;
  for (size_t i = 0; i < out.size() && i < w_.members.size(); ++i) {
    const Member& m = *w_.members[i];
    api::ResourceSummary s;
    for (size_t r = 0; r < w_.tracked.size(); ++r) {
      const ResourceTrack& t = w_.tracked[r];
      auto q = [&](int64_t v) {
        return t.milli ? api::Quantity::FromMilli(v) : api::Quantity::FromInt(v);
      };
      s.allocatable.push_back({t.sym, q(m.alloc_total[r])});
      s.allocated.push_back({t.sym, q(m.req_total[r])});
    }
    out[i].resource_summary = std::move(s);
  }
  return out;
}

void FleetLane::Start() {
  w_.Push(0, EventKind::kFleetRefresh);
  for (size_t i = 0; i < spec_.outages.size(); ++i) {
    const FleetOutage& o = spec_.outages[i];
    w_.Push(o.at_ns, EventKind::kFleetOutage, static_cast<uint32_t>(i), 1);
    const int64_t back = SaturatingAdd(o.at_ns, o.duration_ns);
    if (back != kForeverNs) w_.Push(back, EventKind::kFleetOutage, static_cast<uint32_t>(i), 0);
  }
}

void FleetLane::Arrive(uint32_t workload, int64_t duration_ns) {
  const Workload& wk = w_.spec.workloads[workload];
  api::FleetWork work = spec_.works[wk.fleet_work];
  ItemInfo info;
  info.workload = workload;
  info.duration_ns = duration_ns;
  info.name = fmt::format("{}-{}", wk.name, w_.pods->workload(workload).arrivals - 1);
  work.meta.name = w_.in.Intern(info.name);
  info_.push_back(std::move(info));
  if (preempt_ != nullptr) {
    // metadata.creationTimestamp, the victims' second tie-break.
    work.meta.creation_timestamp = TimePoint{} + Duration(w_.now);
  }
  const Symbol work_name = work.meta.name;
  const uint32_t id = loop_->AddWork(std::move(work), w_.now);
  work_by_name_[work_name] = id;
  if (wk.fleet_work < spec_.work_deadline_ns.size() && spec_.work_deadline_ns[wk.fleet_work] >= 0)
    deadlines_.insert({SaturatingAdd(w_.now, spec_.work_deadline_ns[wk.fleet_work]), id});
  ++res_.items;
  w_.Log("fleet-arrive", fmt::format("{} workload={} replicas={}", info_.back().name, wk.name,
                                     spec_.works[wk.fleet_work].replicas));
}

void FleetLane::Step() {
  while (loop_->DispatchOne(w_.now)) {
  }
}

void FleetLane::ArmTimer() {
  int64_t next = loop_->NextTimerDeadline(w_.now);
  for (const auto& [group, e] : evicting_) next = std::min(next, e.until_ns);
  if (!deadlines_.empty()) next = std::min(next, deadlines_.begin()->first);
  if (preempt_ != nullptr) next = std::min(next, preempt_->NextExpiry());
  next = std::max(next, w_.now);
  if (next == INT64_MAX || next == timer_at_) return;
  timer_at_ = next;
  w_.Push(next, EventKind::kFleetTimer, ++timer_gen_);
}

void FleetLane::OnTimer(uint32_t generation) {
  if (generation != timer_gen_) return;
  timer_at_ = -1;
  loop_->FireTimers(w_.now);
  FireOwnTimers();
}

void FleetLane::FireOwnTimers() {
  for (auto it = evicting_.begin(); it != evicting_.end();) {
    if (it->second.until_ns > w_.now) {
      ++it;
      continue;
    }
    const uint32_t group = it->first;
    const Evicting e = it->second;
    it = evicting_.erase(it);
    w_.pods->WithdrawGroup(group);
    VictimGone(e, "grace period ended");
  }
  while (!deadlines_.empty() && deadlines_.begin()->first <= w_.now) {
    const uint32_t id = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    const fleet::WorkItem& it = loop_->item(id);
    const bool placed =
        it.phase == fleet::WorkPhase::kReady || it.phase == fleet::WorkPhase::kFinished;
    if (!placed && info_[id].live_copies == 0) DeleteWork(id, "deadline");
  }
  if (preempt_ != nullptr) {
    preempt_->Sweep(w_.now);
  }
}

void FleetLane::VictimGone(const Evicting& e, std::string_view how) {
  FleetPreemptionResult& r = preempt_->record(e.record);
  FleetVictimResult& v = e.gang ? r.gang_victims[e.victim] : r.victims[e.victim];
  v.gone_ns = w_.now;
  v.gone_how = std::string(how);
  w_.Log("fleet-victim-gone", fmt::format("{} cluster={} {}", info_[e.work].name,
                                          preempt_->record(e.record).cluster, how));
}

void FleetLane::DeleteWork(uint32_t id, std::string_view why) {
  w_.Log("fleet-delete", fmt::format("{} reason={}", info_[id].name, why));
  if (preempt_ != nullptr)
    preempt_->Deleted(fleet::BindingKey(loop_->item(id).work, w_.in), w_.now);
  ++res_.deleted;
  deleting_ = true;
  loop_->OnFinished(id, w_.now);
  deleting_ = false;
}

void FleetLane::BeforeAttempt(uint32_t work) {
  if (preempt_ != nullptr) preempt_->BeforeAttempt(loop_->item(work).work);
}

std::optional<std::string> FleetLane::OnCapacityShortage(uint32_t work,
                                                         const fleet::BindingSchedule& failed,
                                                         int64_t now_ns) {
  if (preempt_ == nullptr) return std::nullopt;
  // Every binding with its current assignment (spec.clusters), and who is who by "ns/name".
  std::vector<api::FleetWork> bindings;
  std::map<std::string, uint32_t> by_name;
  for (uint32_t id = 0; id < loop_->items(); ++id) {
    const fleet::WorkItem& it = loop_->item(id);
    if (it.phase == fleet::WorkPhase::kFinished) continue;
    bindings.push_back(it.work);
    by_name[fmt::format("{}/{}", w_.in.Str(it.work.meta.namespace_),
                        w_.in.Str(it.work.meta.name))] = id;
  }
  const fleet::WorkItem& me = loop_->item(work);
  const std::string& name = info_[work].name;
  const std::string qualified =
      fmt::format("{}/{}", w_.in.Str(me.work.meta.namespace_), w_.in.Str(me.work.meta.name));
  std::optional<FleetPreemption::Attempt> a =
      preempt_->Try(me.work, qualified, failed, loop_->clusters(), bindings, now_ns);
  if (!a) return std::nullopt;
  const fleet::PreemptionOutcome& o = a->outcome;
  if (!o.preempting) {
    w_.Log("fleet-preemption-skipped", fmt::format("{} {:?}", name, o.skipped));
    return std::nullopt;
  }
  for (const std::string& ev : o.events) w_.Log("fleet-event", ev);
  uint32_t cluster = UINT32_MAX;
  for (uint32_t c = 0; c < loop_->clusters().size(); ++c) {
    if (ClusterName(c) == o.cluster) cluster = c;
  }
  const std::string key = fleet::BindingKey(me.work, w_.in);
  // handlePreemptionResult: the victims one by one; the first that cannot be evicted aborts the
  // rest, clears the claim and returns the error (the victims already evicted stay evicted).
  auto cluster_index = [&](const std::string& n) {
    for (uint32_t c = 0; c < loop_->clusters().size(); ++c) {
      if (ClusterName(c) == n) return c;
    }
    return UINT32_MAX;
  };
  const size_t victims = o.victims.size();
  for (size_t k = 0; k < victims + o.gang_evictions.size(); ++k) {
    const bool gang = k >= victims;
    const fleet::Victim& v = gang ? o.gang_evictions[k - victims].victim : o.victims[k];
    const uint32_t at = gang ? cluster_index(o.gang_evictions[k - victims].cluster) : cluster;
    auto found = by_name.find(v.name);
    const std::string failure = found == by_name.end()
                                    ? fmt::format("victim {} no longer exists", v.name)
                                    : EvictVictim(found->second, at, v.name, name, v, a->record,
                                                  gang ? k - victims : k, gang, now_ns);
    if (!failure.empty()) {
      w_.Log("fleet-preemption-failed",
             fmt::format("{} cluster={} {:?}", name, o.cluster, failure));
      preempt_->EvictionFailed(a->record, key, failure, now_ns);
      return std::nullopt;
    }
  }
  w_.Log("fleet-preempting", fmt::format("{} cluster={} victims={} {:?}", name, o.cluster,
                                         o.victims.size(), o.condition_message));
  return o.condition_message;
}

std::string FleetLane::EvictVictim(uint32_t id, uint32_t cluster, const std::string& victim_name,
                                   const std::string& preemptor, const fleet::Victim& v,
                                   size_t record, size_t victim, bool gang, int64_t now_ns) {
  const std::string cluster_name = cluster == UINT32_MAX ? "" : ClusterName(cluster);
  if (cluster == UINT32_MAX || !loop_->reachable(cluster)) {
    return fmt::format("cluster {:?} is not reachable", cluster_name);
  }
  const std::string message = fmt::format(
      "ResourceBinding {} was preempted by higher-priority ResourceBinding {} on cluster {:?}",
      victim_name, preempt_->record(record).preemptor, preempt_->record(record).cluster);
  auto g = group_of_.find(CopyKey(id, cluster));
  if (!loop_->EvictFromCluster(id, cluster, spec_.preemption_grace_ns, message, now_ns)) {
    return fmt::format("victim {} is no longer assigned to cluster {:?}", victim_name,
                       cluster_name);
  }
  preempt_->VictimEvicted();
  w_.Log("fleet-preempt-victim",
         fmt::format("{} cluster={} priority={} replicas={} by={} grace={}{}", info_[id].name,
                     cluster_name, v.priority, v.replicas, preemptor,
                     FormatGoDuration(spec_.preemption_grace_ns), gang ? " gang=whole" : ""));
  if (g != group_of_.end()) {
    // The copy is no longer the item's: its pods stay until the grace period ends.
    const uint32_t group = g->second;
    group_of_.erase(g);
    copy_of_.erase(group);
    --info_[id].live_copies;
    evicting_[group] = {id, SaturatingAdd(now_ns, spec_.preemption_grace_ns), record, victim, gang};
  }
  return "";
}

void FleetLane::OnRefresh() {
  loop_->RefreshClusters(Snapshot(), w_.now);
  if (preempt_ != nullptr) {
    // A member whose allocation changed is a ResourceSummary change: the preemptors (and the
    // rest of the unschedulable pool) try again.
    std::vector<std::vector<int64_t>> now;
    for (const auto& m : w_.members) now.emplace_back(m->req_total.begin(), m->req_total.end());
    if (!last_allocated_.empty() && now != last_allocated_) loop_->MoveAllUnschedulable(w_.now);
    last_allocated_ = std::move(now);
  }
  // Refreshes keep coming while anything may still need the fleet.
  const int64_t next = SaturatingAdd(w_.now, spec_.refresh_interval_ns);
  if (next != kForeverNs && (w_.real_pending() || res_.items > res_.finished))
    w_.Push(next, EventKind::kFleetRefresh);
}

void FleetLane::OnOutage(uint32_t outage, bool down) {
  const FleetOutage& o = spec_.outages[outage];
  w_.Log(down ? "fleet-lost" : "fleet-reconnect",
         fmt::format("cluster={}", ClusterName(o.cluster)));
  loop_->SetReachable(o.cluster, !down, w_.now);
  // A member coming back reports the copies it admitted meanwhile.
  if (!down) {
    // In work-item order (the map's own order is not deterministic).
    std::vector<uint64_t> admitted;
    for (const auto& [key, group] : group_of_) {
      const uint32_t cluster = static_cast<uint32_t>(key & 0xffff);
      if (cluster == o.cluster && w_.pods->group(group).complete) admitted.push_back(key);
    }
    std::sort(admitted.begin(), admitted.end());
    for (uint64_t key : admitted) {
      loop_->OnAdmitted(static_cast<uint32_t>(key >> 16), o.cluster, w_.now);
    }
  }
}

void FleetLane::CreateCopy(uint32_t work, uint32_t cluster, int32_t replicas) {
  ItemInfo& info = info_[work];
  ++res_.copies_created;
  ++res_.members[cluster].copies;
  res_.members[cluster].replicas += replicas;
  w_.Log("fleet-copy",
         fmt::format("{} cluster={} replicas={}", info.name, ClusterName(cluster), replicas));
  // The copy's pods are named after the work item and the cluster, as the worker's Job would be.
  const uint32_t group = w_.pods->CreateFleetGroup(
      info.workload, static_cast<uint16_t>(cluster), replicas, info.duration_ns, work,
      w_.in.Intern(fmt::format("{}-{}", info.name, ClusterName(cluster))));
  group_of_[CopyKey(work, cluster)] = group;
  copy_of_[group] = {work, cluster};
  ++info.live_copies;
  // A copy whose pods are already all bound (manifest-bound templates) is admitted at once.
  if (w_.pods->group(group).complete) OnGroupComplete(group);
}

void FleetLane::DeleteCopy(uint32_t work, uint32_t cluster) {
  auto it = group_of_.find(CopyKey(work, cluster));
  if (it == group_of_.end()) return;
  const uint32_t group = it->second;
  group_of_.erase(it);
  copy_of_.erase(group);
  --info_[work].live_copies;
  ++res_.members[cluster].withdrawn;
  w_.Log("fleet-withdraw", fmt::format("{} cluster={}", info_[work].name, ClusterName(cluster)));
  w_.pods->WithdrawGroup(group);
}

void FleetLane::OnGroupComplete(uint32_t group) {
  auto it = copy_of_.find(group);
  if (it == copy_of_.end()) return;
  const auto [work, cluster] = it->second;
  if (!loop_->reachable(cluster)) return;  // reported when the member comes back
  loop_->OnAdmitted(work, cluster, w_.now);
}

bool FleetLane::OnGroupEvicted(uint32_t group) {
  auto it = copy_of_.find(group);
  if (it == copy_of_.end()) return false;
  const auto [work, cluster] = it->second;
  if (spec_.config.kind == fleet::FleetKind::kKarmada) return false;
  loop_->OnEvicted(work, cluster, w_.now);
  // Withdrawn by the dispatcher: the pod is not recreated; otherwise the member recreates it.
  return !copy_of_.contains(group);
}

void FleetLane::OnGroupFinished(uint32_t group) {
  if (auto e = evicting_.find(group); e != evicting_.end()) {
    // A preempted copy whose pods completed within the grace period: the job is done unless the
    // binding was placed again meanwhile.
    const Evicting ev = e->second;
    evicting_.erase(e);
    VictimGone(ev, "finished");
    const fleet::WorkItem& item = loop_->item(ev.work);
    if (info_[ev.work].live_copies == 0 && item.phase == fleet::WorkPhase::kQueued)
      loop_->OnFinished(ev.work, w_.now);
    return;
  }
  auto it = copy_of_.find(group);
  if (it == copy_of_.end()) return;
  const auto [work, cluster] = it->second;
  copy_of_.erase(it);
  group_of_.erase(CopyKey(work, cluster));
  ItemInfo& info = info_[work];
  if (--info.live_copies > 0) return;
  loop_->OnFinished(work, w_.now);
}

void FleetLane::Record(const fleet::DispatchRecord& r) {
  using K = fleet::DispatchRecord::Kind;
  const std::string& name = info_[r.work].name;
  std::string clusters;
  for (uint32_t c : r.clusters) clusters += (clusters.empty() ? "" : ",") + ClusterName(c);
  switch (r.kind) {
    case K::kNominated:
      ++res_.nominations;
      w_.Log("fleet-nominate", fmt::format("{} clusters={}", name, clusters));
      break;
    case K::kDispatched:
      if (preempt_ != nullptr)
        preempt_->Scheduled(fleet::BindingKey(loop_->item(r.work).work, w_.in), w_.now);
      [[fallthrough]];
    case K::kAdmitted: {
      const fleet::WorkItem& it = loop_->item(r.work);
      w_.Log(r.kind == K::kAdmitted ? "fleet-admit" : "fleet-dispatch",
             fmt::format("{} clusters={} wait={}", name, clusters,
                         FormatGoDuration(w_.now - it.arrival_ns)));
      break;
    }
    case K::kWithdrawn:
      res_.copies_withdrawn += static_cast<int64_t>(r.clusters.size());
      break;
    case K::kUnschedulable:
      ++res_.unschedulable;
      w_.Log("fleet-unschedulable", fmt::format("{} {:?}", name, r.message));
      break;
    case K::kRetry:
      ++res_.retries;
      w_.Log("fleet-retry", fmt::format("{} {:?}", name, r.message));
      break;
    case K::kFinished:
      if (deleting_) break;
      ++res_.finished;
      w_.Log("fleet-finish", name);
      break;
  }
}

void FleetLane::Sample() {
  res_.sample_nominations.push_back(res_.nominations);
  res_.sample_retries.push_back(res_.retries);
  res_.sample_queued.push_back(static_cast<int64_t>(loop_->queue().active_len() +
                                                    loop_->queue().backoff_len() +
                                                    loop_->queue().unschedulable_len()));
}

std::shared_ptr<const FleetResult> FleetLane::Finish() const {
  auto r = std::make_shared<FleetResult>(res_);
  r->general_estimates = estimators_->general_counts();
  if (r->accurate) {
    r->accurate_estimates = estimators_->accurate()->counts();
    r->accurate_member_estimates = estimators_->accurate()->member_counts();
  }
  for (uint32_t id = 0; id < loop_->items(); ++id) {
    const fleet::WorkItem& it = loop_->item(id);
    r->attempts += it.attempts;
    if (it.placed_ns >= 0) {
      ++r->placed;
      r->dispatch_latency_ns.push_back(it.placed_ns - it.arrival_ns);
    }
    if (it.phase == fleet::WorkPhase::kQueued) ++r->queued_end;
    if (it.phase == fleet::WorkPhase::kPending) ++r->pending_end;
    if (r->items_detail.size() >= FleetResult::kMaxItemDetails) continue;
    FleetItemResult d;
    d.name = info_[id].name;
    d.workload = w_.spec.workloads[info_[id].workload].name;
    d.arrival_ns = it.arrival_ns;
    d.placed_ns = it.placed_ns;
    d.phase = std::string(PhaseName(it.phase));
    for (const fleet::WorkCopy& c : it.copies) {
      if (!d.clusters.empty()) d.clusters += " ";
      d.clusters += spec_.config.kind == fleet::FleetKind::kKarmada
                        ? fmt::format("{}:{}", ClusterName(c.cluster), c.replicas)
                        : ClusterName(c.cluster);
    }
    d.attempts = it.attempts;
    d.nominations = it.nominations;
    d.retries = it.retries;
    d.last_error = it.last_error;
    for (const fleet::ClusterWhyNot& why : it.why_not) {
      if (!why.reason.empty()) d.why_not.push_back({ClusterName(why.cluster), why.reason});
    }
    r->items_detail.push_back(std::move(d));
  }
  std::sort(r->dispatch_latency_ns.begin(), r->dispatch_latency_ns.end());
  if (preempt_ != nullptr) {
    r->preemption_enabled = true;
    r->preemption_grace_ns = spec_.preemption_grace_ns;
    r->preemption_mode = std::string(fleet::PreemptionModeName(spec_.preemption_mode));
    r->preemption_simulated_victims = spec_.simulate_victims;
    preempt_->Fill(*r, w_.now);
  }
  return r;
}

}  // namespace corral::sim
