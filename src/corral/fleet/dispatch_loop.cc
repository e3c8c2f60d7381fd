#include "corral/fleet/dispatch_loop.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "corral/fleet/karmada_scheduler.h"
#include "corral/fleet/kueue_dispatcher.h"

namespace corral::fleet {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// Go's time.Duration String for whole seconds and above ("15m0s", "5m0s", "10s").
std::string GoDuration(int64_t ns) {
  int64_t s = ns / kQueueSecond;
  const int64_t h = s / 3600, m = (s / 60) % 60;
  s %= 60;
  if (h > 0) return fmt::format("{}h{}m{}s", h, m, s);
  if (m > 0) return fmt::format("{}m{}s", m, s);
  return fmt::format("{}s", s);
}

bool Healthy(const api::Cluster& c) {
  return c.ready && c.active;
}

}  // namespace

DispatchLoop::DispatchLoop(DispatchLoopConfig config, std::vector<api::Cluster> clusters,
                           std::vector<const ReplicaEstimator*> estimators, Interner& interner,
                           DispatchActions& actions, std::vector<uint32_t> config_order)
    : config_(std::move(config)),
      reported_(std::move(clusters)),
      estimators_(std::move(estimators)),
      in_(interner),
      actions_(actions),
      config_order_(std::move(config_order)),
      lost_since_(reported_.size(), -1),
      queue_(config_.queue),
      not_ready_taint_(interner.Intern("cluster.karmada.io/unreachable")) {
  if (config_order_.empty()) {
    for (uint32_t i = 0; i < reported_.size(); ++i) config_order_.push_back(i);
  }
  lost_fired_.assign(reported_.size(), 0);
  RebuildView();
}

uint32_t DispatchLoop::ClusterIndex(std::string_view name) const {
  for (uint32_t i = 0; i < clusters_.size(); ++i) {
    if (in_.Str(clusters_[i].meta.name) == name) return i;
  }
  return UINT32_MAX;
}

bool DispatchLoop::Connected(uint32_t c) const {
  return lost_since_[c] < 0 && Healthy(clusters_[c]);
}

void DispatchLoop::RebuildView() {
  clusters_ = reported_;
  for (uint32_t i = 0; i < clusters_.size(); ++i) {
    if (lost_since_[i] < 0) continue;
    // The cluster status controller marks a member it cannot reach Ready=Unknown and Karmada's
    // cluster controller taints it; MultiKueue's cluster controller sets Active=False.
    api::Cluster& c = clusters_[i];
    c.ready = false;
    c.active = false;
    c.taints.push_back({not_ready_taint_, Symbol{}, api::TaintEffect::kNoSchedule, {}});
  }
}

uint32_t DispatchLoop::AddWork(api::FleetWork work, int64_t now_ns) {
  const uint32_t id = static_cast<uint32_t>(items_.size());
  WorkItem& it = items_.emplace_back();
  it.work = std::move(work);
  it.arrival_ns = now_ns;
  queue_.Push(id, it.work.priority, now_ns);
  return id;
}

void DispatchLoop::OnFinished(uint32_t id, int64_t /*now_ns*/) {
  WorkItem& it = items_[id];
  if (it.phase == WorkPhase::kFinished) return;
  it.copies.clear();  // the members removed them as they completed
  it.phase = WorkPhase::kFinished;
  ClearDeadline(id);
  queue_.Delete(id);
  actions_.Record({DispatchRecord::Kind::kFinished, id, {}, {}});
}

void DispatchLoop::RefreshClusters(std::span<const api::Cluster> clusters, int64_t now_ns) {
  std::vector<uint8_t> was(clusters_.size());
  for (size_t i = 0; i < clusters_.size(); ++i) was[i] = Healthy(clusters_[i]);
  reported_.assign(clusters.begin(), clusters.end());
  RebuildView();
  bool event = false;
  for (size_t i = 0; i < clusters_.size(); ++i) event |= was[i] != Healthy(clusters_[i]);
  // Readiness and activity show in the cluster's taints and conditions, which Karmada's and
  // MultiKueue's cluster handlers treat as a cluster event; a new resource summary alone is not.
  if (event) queue_.MoveUnschedulable([](uint32_t) { return true; }, now_ns);
}

void DispatchLoop::SetReachable(uint32_t cluster, bool reachable, int64_t now_ns) {
  if (reachable) {
    const bool was_lost = lost_since_[cluster] >= 0;
    lost_since_[cluster] = -1;
    lost_fired_[cluster] = 0;
    if (!was_lost) return;
    // nominateAndSynchronizeWorkers: a nominated worker that connects gets its copy.
    for (uint32_t id = 0; id < items_.size(); ++id) {
      const WorkItem& it = items_[id];
      if (it.phase != WorkPhase::kPending) continue;
      if (std::find(it.nominated.begin(), it.nominated.end(), cluster) != it.nominated.end())
        CreateCopies(id, {cluster}, now_ns);
    }
  } else if (lost_since_[cluster] < 0) {
    lost_since_[cluster] = now_ns;
  }
}

void DispatchLoop::ArmDeadline(uint32_t id, int64_t at_ns) {
  ClearDeadline(id);
  items_[id].deadline_ns = at_ns;
  deadlines_.insert({at_ns, id});
}

void DispatchLoop::ClearDeadline(uint32_t id) {
  WorkItem& it = items_[id];
  if (it.deadline_ns >= 0) deadlines_.erase({it.deadline_ns, id});
  it.deadline_ns = -1;
}

void DispatchLoop::DeleteCopy(uint32_t id, size_t copy_index) {
  WorkItem& it = items_[id];
  const uint32_t c = it.copies[copy_index].cluster;
  it.copies.erase(it.copies.begin() + static_cast<std::ptrdiff_t>(copy_index));
  actions_.DeleteCopy(id, c);
}

void DispatchLoop::DeleteAllCopies(uint32_t id) {
  WorkItem& it = items_[id];
  while (!it.copies.empty()) DeleteCopy(id, it.copies.size() - 1);
}

void DispatchLoop::Retry(uint32_t id, std::string why, int64_t now_ns) {
  WorkItem& it = items_[id];
  DeleteAllCopies(id);
  ClearDeadline(id);
  it.phase = WorkPhase::kQueued;
  it.nominated.clear();
  ++it.retries;
  it.last_error = why;
  actions_.Record({DispatchRecord::Kind::kRetry, id, {}, std::move(why)});
  queue_.Push(id, it.work.priority, now_ns);
}

void DispatchLoop::CreateCopies(uint32_t id, const std::vector<uint32_t>& targets, int64_t now_ns) {
  WorkItem& it = items_[id];
  for (uint32_t c : targets) {
    if (lost_since_[c] >= 0) continue;  // not connected: nominated, nothing created
    bool held = false;
    for (const WorkCopy& w : it.copies) held |= w.cluster == c;
    if (held) continue;
    it.copies.push_back({c, it.work.replicas, now_ns, false});
    actions_.CreateCopy(id, c, it.work.replicas);
  }
}

bool DispatchLoop::DispatchOne(int64_t now_ns) {
  std::optional<uint32_t> id = queue_.Pop();
  if (!id) return false;
  WorkItem& it = items_[*id];
  if (it.phase != WorkPhase::kFinished) {
    ++it.attempts;
    if (config_.kind == FleetKind::kKarmada) {
      AttemptKarmada(*id, now_ns);
    } else {
      AttemptKueue(*id, now_ns);
    }
  }
  queue_.Done(*id, now_ns);
  return true;
}

void DispatchLoop::AttemptKarmada(uint32_t id, int64_t now_ns) {
  WorkItem& it = items_[id];
  auto& tasks = it.eviction_tasks;
  const size_t before = tasks.size();
  tasks.erase(
      std::remove_if(tasks.begin(), tasks.end(), [&](const auto& t) { return now_ns >= t.second; }),
      tasks.end());
  if (tasks.size() != before) {
    it.work.graceful_eviction_clusters.clear();
    for (const auto& t : tasks)
      it.work.graceful_eviction_clusters.push_back(clusters_[t.first].meta.name);
  }
  actions_.BeforeAttempt(id);
  BindingSchedule s = ScheduleBinding(it.work, clusters_, estimators_, in_);
  it.why_not.clear();
  for (uint32_t i = 0; i < s.clusters.size(); ++i) {
    const ClusterVerdict& v = s.clusters[i];
    std::string why;
    if (v.deleting) {
      why = "being deleted";
    } else if (!v.passed) {
      why = fmt::format("{}: {}", v.filter_plugin, v.reason);
    } else if (!v.selected) {
      why = fmt::format("not selected (score {}, available replicas {})", v.score,
                        v.available_replicas);
    }
    it.why_not.push_back({i, std::move(why)});
  }
  if (!s.ok()) {
    if (s.failure == FailureKind::kInsufficientCapacity) {
      if (std::optional<std::string> preempting = actions_.OnCapacityShortage(id, s, now_ns)) {
        // handleErr treats PreemptingError as UnschedulableError: the preemptor waits in the
        // unschedulable pool for its victims' capacity.
        it.last_error = std::move(*preempting);
        queue_.PushUnschedulableIfNotPresent(id);
        return;
      }
    }
    it.last_error = s.error;
    actions_.Record({DispatchRecord::Kind::kUnschedulable, id, {}, s.error});
    if (s.failure == FailureKind::kNoFeasibleCluster) {
      queue_.PushUnschedulableIfNotPresent(id);
    } else {
      queue_.PushBackoffIfNotPresent(id);
    }
    return;
  }
  // Apply the assignment: copies whose cluster left it or whose replicas changed go, new ones come.
  std::vector<std::pair<uint32_t, int32_t>> want;
  for (const TargetReplicas& t : s.result) {
    if (t.replicas > 0) want.push_back({ClusterIndex(t.name), t.replicas});
  }
  for (size_t i = it.copies.size(); i-- > 0;) {
    const WorkCopy& w = it.copies[i];
    const bool keep = std::any_of(want.begin(), want.end(), [&](const auto& p) {
      return p.first == w.cluster && p.second == w.replicas;
    });
    if (!keep) DeleteCopy(id, i);
  }
  std::vector<uint32_t> clusters;
  for (const auto& [c, r] : want) {
    clusters.push_back(c);
    bool held = false;
    for (const WorkCopy& w : it.copies) held |= w.cluster == c;
    if (held) continue;
    it.copies.push_back({c, r, now_ns, false});
    actions_.CreateCopy(id, c, r);
  }
  it.work.clusters.clear();
  for (const auto& [c, r] : want) it.work.clusters.push_back({clusters_[c].meta.name, r});
  it.work.last_scheduled_time = TimePoint{} + Duration(now_ns);
  it.work.scheduler_observed_affinity_name = in_.Intern(s.affinity_name);
  it.phase = WorkPhase::kReady;
  if (it.placed_ns < 0) it.placed_ns = now_ns;
  it.last_error.clear();
  it.eviction_tasks.clear();
  it.work.graceful_eviction_clusters.clear();
  queue_.Forget(id);
  actions_.Record({DispatchRecord::Kind::kDispatched, id, std::move(clusters), {}});
}

void DispatchLoop::AttemptKueue(uint32_t id, int64_t now_ns) {
  WorkItem& it = items_[id];
  it.why_not.clear();
  std::vector<uint32_t> nominated;
  std::string error;
  switch (config_.dispatcher) {
    case KueueDispatcherKind::kComposable: {
      // The clusters that timed out are left out; when none would remain, they are tried again.
      std::vector<uint32_t> index;
      std::vector<api::Cluster> candidates;
      auto build = [&] {
        index.clear();
        candidates.clear();
        for (uint32_t i = 0; i < clusters_.size(); ++i) {
          if (std::find(it.excluded.begin(), it.excluded.end(), i) != it.excluded.end()) continue;
          index.push_back(i);
          candidates.push_back(clusters_[i]);
        }
      };
      build();
      if (candidates.empty()) {
        it.excluded.clear();
        build();
      }
      Nomination n = Nominate(it.work, candidates, config_.profile, in_, workload_estimators_);
      if (!n.ok() && !it.excluded.empty()) {
        it.excluded.clear();
        build();
        n = Nominate(it.work, candidates, config_.profile, in_, workload_estimators_);
      }
      std::vector<std::string> why(clusters_.size());
      for (uint32_t e : it.excluded)
        why[e] = "not admitted within workerLostTimeout when nominated";
      for (size_t k = 0; k < n.clusters.size(); ++k) {
        const NominationVerdict& v = n.clusters[k];
        if (!v.passed) {
          why[index[k]] = fmt::format("{}: {}", v.filter_plugin, v.reason);
        } else if (!v.nominated) {
          why[index[k]] = fmt::format("not nominated (score {})", v.total);
        }
      }
      for (uint32_t i = 0; i < why.size(); ++i) it.why_not.push_back({i, std::move(why[i])});
      if (!n.ok()) {
        error = n.error;
        break;
      }
      for (const std::string& name : n.nominated) nominated.push_back(ClusterIndex(name));
      break;
    }
    case KueueDispatcherKind::kAllAtOnce: {
      std::vector<uint32_t> all;
      for (uint32_t i = 0; i < clusters_.size(); ++i) {
        if (Connected(i)) {
          all.push_back(i);
          it.why_not.push_back({i, ""});
        } else {
          it.why_not.push_back({i, "not connected (Active=False)"});
        }
      }
      std::sort(all.begin(), all.end(), [&](uint32_t a, uint32_t b) {
        return in_.Str(clusters_[a].meta.name) < in_.Str(clusters_[b].meta.name);
      });
      if (all.empty()) {
        error = fmt::format("0/{} clusters are available: no connected worker cluster.",
                            clusters_.size());
      }
      nominated = std::move(all);
      break;
    }
    case KueueDispatcherKind::kIncremental:
      it.nominated.clear();
      if (!NominateNextBatch(id, now_ns)) error = "no more workers to nominate";
      for (uint32_t i = 0; i < clusters_.size(); ++i) it.why_not.push_back({i, ""});
      break;
  }
  if (!error.empty()) {
    it.last_error = error;
    actions_.Record({DispatchRecord::Kind::kUnschedulable, id, {}, error});
    queue_.PushUnschedulableIfNotPresent(id);
    return;
  }
  it.last_error.clear();
  if (config_.dispatcher == KueueDispatcherKind::kIncremental) {
    it.phase = WorkPhase::kPending;
    ArmDeadline(id, now_ns + config_.round_timeout_ns);
    return;
  }
  it.nominated = nominated;
  ++it.nominations;
  actions_.Record({DispatchRecord::Kind::kNominated, id, nominated, {}});
  CreateCopies(id, nominated, now_ns);
  const bool must = it.work.dispatch_mode == api::DispatchMode::kMustBeAdmitted;
  if (config_.dispatcher == KueueDispatcherKind::kComposable && !must && nominated.size() == 1 &&
      !it.copies.empty()) {
    // BestEffort top-1: Ready as soon as the copy exists.
    it.phase = WorkPhase::kReady;
    if (it.placed_ns < 0) it.placed_ns = now_ns;
    actions_.Record({DispatchRecord::Kind::kDispatched, id, nominated, {}});
    return;
  }
  it.phase = WorkPhase::kPending;
  if (config_.dispatcher == KueueDispatcherKind::kComposable && must)
    ArmDeadline(id, now_ns + config_.worker_lost_timeout_ns);
}

std::vector<uint32_t> NextNominatedWorkers(std::span<const uint32_t> remote,
                                           std::span<const uint32_t> nominated, int32_t step_size,
                                           bool respect_config_order,
                                           const std::function<std::string_view(uint32_t)>& name) {
  std::vector<uint32_t> workers;
  for (uint32_t c : remote) {
    if (std::find(nominated.begin(), nominated.end(), c) == nominated.end()) workers.push_back(c);
  }
  if (!respect_config_order) {
    std::sort(workers.begin(), workers.end(),
              [&](uint32_t a, uint32_t b) { return name(a) < name(b); });
  }
  if (workers.size() > static_cast<size_t>(step_size)) workers.resize(step_size);
  return workers;
}

bool DispatchLoop::NominateNextBatch(uint32_t id, int64_t now_ns) {
  WorkItem& it = items_[id];
  const std::vector<uint32_t> workers = NextNominatedWorkers(
      config_order_, it.nominated, config_.step_size, config_.respect_config_order,
      [&](uint32_t c) { return in_.Str(clusters_[c].meta.name); });
  if (workers.empty()) return false;
  it.nominated.insert(it.nominated.end(), workers.begin(), workers.end());
  ++it.nominations;
  actions_.Record({DispatchRecord::Kind::kNominated, id, it.nominated, {}});
  CreateCopies(id, workers, now_ns);
  return true;
}

void DispatchLoop::OnAdmitted(uint32_t id, uint32_t cluster, int64_t now_ns) {
  WorkItem& it = items_[id];
  if (it.phase == WorkPhase::kFinished || it.phase == WorkPhase::kQueued) return;
  size_t mine = it.copies.size();
  for (size_t i = 0; i < it.copies.size(); ++i) {
    if (it.copies[i].cluster == cluster) mine = i;
  }
  if (mine == it.copies.size() || it.copies[mine].admitted) return;
  it.copies[mine].admitted = true;
  if (config_.kind == FleetKind::kKarmada) return;
  // The first copy admitted wins; every other copy is withdrawn.
  std::vector<uint32_t> withdrawn;
  for (size_t i = it.copies.size(); i-- > 0;) {
    if (it.copies[i].cluster == cluster) continue;
    withdrawn.push_back(it.copies[i].cluster);
    DeleteCopy(id, i);
  }
  ClearDeadline(id);
  it.nominated.clear();
  const bool was_ready = it.phase == WorkPhase::kReady;
  it.phase = WorkPhase::kReady;
  if (it.placed_ns < 0) it.placed_ns = now_ns;
  if (!withdrawn.empty()) {
    std::reverse(withdrawn.begin(), withdrawn.end());
    actions_.Record({DispatchRecord::Kind::kWithdrawn, id, std::move(withdrawn),
                     fmt::format("admitted on {:?}", in_.Str(clusters_[cluster].meta.name))});
  }
  if (!was_ready) {
    actions_.Record(
        {DispatchRecord::Kind::kAdmitted,
         id,
         {cluster},
         fmt::format("The workload was admitted on {:?}", in_.Str(clusters_[cluster].meta.name))});
  }
}

void DispatchLoop::OnEvicted(uint32_t id, uint32_t cluster, int64_t now_ns) {
  WorkItem& it = items_[id];
  if (it.phase == WorkPhase::kFinished || config_.kind == FleetKind::kKarmada) return;
  size_t mine = it.copies.size();
  for (size_t i = 0; i < it.copies.size(); ++i) {
    if (it.copies[i].cluster == cluster) mine = i;
  }
  if (mine == it.copies.size()) return;
  if (it.copies[mine].admitted || it.phase == WorkPhase::kReady) {
    Retry(id,
          fmt::format("Workload evicted on worker cluster: {:?}, resetting for re-admission",
                      in_.Str(clusters_[cluster].meta.name)),
          now_ns);
    return;
  }
  DeleteCopy(id, mine);
  if (it.copies.empty()) {
    Retry(id,
          fmt::format("Workload evicted on worker cluster: {:?} before admission",
                      in_.Str(clusters_[cluster].meta.name)),
          now_ns);
  }
}

bool DispatchLoop::EvictFromCluster(uint32_t id, uint32_t cluster, int64_t grace_ns,
                                    std::string why, int64_t now_ns) {
  WorkItem& it = items_[id];
  if (it.phase == WorkPhase::kFinished) return false;
  const Symbol name = clusters_[cluster].meta.name;
  auto& tc = it.work.clusters;
  const auto assigned = std::find_if(tc.begin(), tc.end(),
                                     [&](const api::TargetCluster& t) { return t.name == name; });
  if (assigned == tc.end()) return false;
  tc.erase(assigned);
  for (size_t i = 0; i < it.copies.size(); ++i) {
    if (it.copies[i].cluster == cluster) {
      it.copies.erase(it.copies.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  it.work.graceful_eviction_clusters.push_back(name);
  it.eviction_tasks.push_back({cluster, now_ns + grace_ns});
  it.phase = WorkPhase::kQueued;
  ++it.retries;
  it.last_error = why;
  actions_.Record({DispatchRecord::Kind::kRetry, id, {cluster}, std::move(why)});
  queue_.Push(id, it.work.priority, now_ns);
  return true;
}

void DispatchLoop::MoveAllUnschedulable(int64_t now_ns) {
  queue_.MoveUnschedulable([](uint32_t) { return true; }, now_ns);
}

int64_t DispatchLoop::NextTimerDeadline(int64_t now_ns) const {
  int64_t next = queue_.NextDeadline(now_ns);
  if (!deadlines_.empty()) next = std::min(next, deadlines_.begin()->first);
  for (uint32_t c = 0; c < lost_since_.size(); ++c) {
    if (lost_since_[c] >= 0 && !lost_fired_[c])
      next = std::min(next, lost_since_[c] + config_.worker_lost_timeout_ns);
  }
  return std::max(next, now_ns);
}

void DispatchLoop::FireTimers(int64_t now_ns) {
  queue_.OnTick(now_ns);
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ns) {
    const uint32_t id = deadlines_.begin()->second;
    ClearDeadline(id);
    WorkItem& it = items_[id];
    if (it.phase != WorkPhase::kPending) continue;
    if (config_.dispatcher == KueueDispatcherKind::kIncremental) {
      // A round ended without admission: the next batch joins the nomination.
      if (NominateNextBatch(id, now_ns)) ArmDeadline(id, now_ns + config_.round_timeout_ns);
      continue;
    }
    std::string names;
    for (const WorkCopy& w : it.copies) {
      it.excluded.push_back(w.cluster);
      names +=
          fmt::format("{}{:?}", names.empty() ? "" : ", ", in_.Str(clusters_[w.cluster].meta.name));
    }
    Retry(id,
          fmt::format("not admitted within workerLostTimeout ({}) on {}",
                      GoDuration(config_.worker_lost_timeout_ns), names),
          now_ns);
  }
  for (uint32_t c = 0; c < lost_since_.size(); ++c) {
    if (lost_since_[c] < 0 || lost_fired_[c] ||
        lost_since_[c] + config_.worker_lost_timeout_ns > now_ns)
      continue;
    lost_fired_[c] = 1;
    const std::string name(in_.Str(clusters_[c].meta.name));
    for (uint32_t id = 0; id < items_.size(); ++id) {
      WorkItem& it = items_[id];
      if (it.phase == WorkPhase::kFinished || it.phase == WorkPhase::kQueued) continue;
      size_t mine = it.copies.size();
      for (size_t i = 0; i < it.copies.size(); ++i) {
        if (it.copies[i].cluster == c) mine = i;
      }
      if (mine == it.copies.size()) continue;
      if (config_.kind == FleetKind::kKarmada) {
        // Failover: the replicas on the lost cluster are evicted and the binding rescheduled.
        DeleteCopy(id, mine);
        auto& tc = it.work.clusters;
        tc.erase(std::remove_if(
                     tc.begin(), tc.end(),
                     [&](const api::TargetCluster& t) { return t.name == clusters_[c].meta.name; }),
                 tc.end());
        it.work.graceful_eviction_clusters.push_back(clusters_[c].meta.name);
        it.eviction_tasks.push_back({c, now_ns + config_.graceful_eviction_timeout_ns});
        it.phase = WorkPhase::kQueued;
        ++it.retries;
        it.last_error = fmt::format("cluster {:?} lost for {}: failover", name,
                                    GoDuration(config_.worker_lost_timeout_ns));
        actions_.Record({DispatchRecord::Kind::kRetry, id, {c}, it.last_error});
        queue_.Push(id, it.work.priority, now_ns);
        continue;
      }
      if (it.copies[mine].admitted || it.phase == WorkPhase::kReady) {
        Retry(id, "Admitting remote lost", now_ns);
      }
    }
  }
}

}  // namespace corral::fleet
