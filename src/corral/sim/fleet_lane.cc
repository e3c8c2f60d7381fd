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
  // accurate one asks each member's own scheduler, read-only.
  estimators_ = std::make_unique<FleetEstimators>(
      w_, spec_.estimator, [this](uint32_t m) { return loop_->reachable(m); });
  loop_ = std::make_unique<fleet::DispatchLoop>(spec_.config, Snapshot(), estimators_->replica(),
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
  loop_->AddWork(std::move(work), w_.now);
  ++res_.items;
  w_.Log("fleet-arrive", fmt::format("{} workload={} replicas={}", info_.back().name, wk.name,
                                     spec_.works[wk.fleet_work].replicas));
}

void FleetLane::Step() {
  while (loop_->DispatchOne(w_.now)) {
  }
}

void FleetLane::ArmTimer() {
  const int64_t next = loop_->NextTimerDeadline(w_.now);
  if (next == INT64_MAX || next == timer_at_) return;
  timer_at_ = next;
  w_.Push(next, EventKind::kFleetTimer, ++timer_gen_);
}

void FleetLane::OnTimer(uint32_t generation) {
  if (generation != timer_gen_) return;
  timer_at_ = -1;
  loop_->FireTimers(w_.now);
}

void FleetLane::OnRefresh() {
  loop_->RefreshClusters(Snapshot(), w_.now);
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
  if (r->accurate) {
    r->estimates_computed = estimators_->accurate()->computed();
    r->estimates_memoized = estimators_->accurate()->memo_hits();
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
  return r;
}

}  // namespace corral::sim
