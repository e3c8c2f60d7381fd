// The workload scheduling cycle (kube's beta design, KEP-4671 §Scheduler Changes for Beta) and
// topology-aware placement (KEP-5732):
//   1. Popping any member of a pod group pops the group: every pending member of the same profile is taken
//      out of the queue (gated members stay gated).
//   2. Members are ordered in homogeneous sub-groups (same KEP-5598 signature, first-seen order, arrival
//      order within), then placed one by one on the live snapshot: PreFilter/Filter/Score as a pod cycle
//      (batching hints apply), then assume + Reserve. A member whose signature already failed in this cycle
//      fails without evaluation (same filters, less capacity).
//   3. PlacementFeasible (GangScheduling) is asked after each member and stops the cycle early when the
//      quorum is out of reach.
//   4. A gang commits only if members already assumed/bound + members placed ≥ minCount; otherwise every
//      placement of this cycle is rolled back (invariant: no reservation of a failed cycle survives) and
//      the group backs off as a whole. Basic groups commit whatever fits.
//   5. Committed members go through Permit and bind; members that did not fit are requeued.
// With `schedulingConstraints.topology[].key` (and TopologyAwareWorkloadScheduling), step 2–4 run once per
// domain (one candidate placement per value of the key; a running group keeps its domain); feasible
// placements are scored by the tightest fit (the domain's cpu+memory utilization once the members are
// assumed, highest wins, ties to the first domain by value) and the members are placed in the winner.

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

using framework::Code;
using framework::PodInfo;
using framework::Status;

namespace {

// Candidate placements for one topology key: value → nodes, in value order (deterministic).
std::map<std::string_view, absl::flat_hash_set<Symbol>> Domains(const framework::Snapshot& snapshot,
                                                                const Interner& in, Symbol key) {
  std::map<std::string_view, absl::flat_hash_set<Symbol>> out;
  for (const framework::NodeInfo* n : snapshot.nodes()) {
    if (const Symbol* v = n->node()->meta.labels.Find(key)) out[in.Str(*v)].insert(n->name());
  }
  return out;
}

// The tightest-fit placement score: cpu and memory utilization of the domain, in parts per million.
int64_t TightestFit(const framework::Snapshot& snapshot, const absl::flat_hash_set<Symbol>& domain) {
  double req_cpu = 0, alloc_cpu = 0, req_mem = 0, alloc_mem = 0;
  for (Symbol name : domain) {
    const framework::NodeInfo* n = snapshot.Get(name);
    if (n == nullptr) continue;
    req_cpu += static_cast<double>(n->requested().milli_cpu);
    alloc_cpu += static_cast<double>(n->allocatable().milli_cpu);
    req_mem += static_cast<double>(n->requested().memory);
    alloc_mem += static_cast<double>(n->allocatable().memory);
  }
  double cpu = alloc_cpu > 0 ? req_cpu / alloc_cpu : 0;
  double mem = alloc_mem > 0 ? req_mem / alloc_mem : 0;
  return static_cast<int64_t>((cpu + mem) / 2 * 1e6);
}

}  // namespace

void Scheduler::RecordGroupAttempt(const framework::Framework& fwk, std::string_view result, TimePoint wall_start) {
  metrics::Labels labels = {{"profile", fwk.profile_name()}, {"result", std::string(result)}};
  metrics_.GetCounter("scheduler_podgroup_schedule_attempts_total",
                      "Number of attempts to schedule pod groups, by the result.", labels)
      .Inc();
  if (options_.wall_clock != nullptr) {
    static const std::vector<double> kBuckets = metrics::ExponentialBuckets(0.001, 2, 15);
    double seconds = std::chrono::duration<double>(options_.wall_clock->Now() - wall_start).count();
    metrics_.GetHistogram("scheduler_podgroup_scheduling_attempt_duration_seconds",
                          "Pod group scheduling attempt latency in seconds (scheduling algorithm + binding)",
                          kBuckets, labels)
        .Observe(seconds);
  }
}

int32_t Scheduler::PlaceMembers(const std::vector<QueuedPod*>& members, framework::PodGroupState& group,
                                const framework::ResolvedPodGroup& resolved,
                                const absl::flat_hash_set<Symbol>* domain, std::vector<MemberResult>& results) {
  results.clear();
  results.resize(members.size());
  for (size_t i = 0; i < members.size(); ++i) results[i].qp = members[i];
  if (members.empty()) return 0;
  framework::Framework& fwk = *members.front()->fwk;
  auto pf = placement_feasible_.find(&fwk);
  if (pf == placement_feasible_.end()) {
    pf = placement_feasible_.emplace(&fwk, fwk.PluginsImplementing<framework::PlacementFeasiblePlugin>()).first;
  }
  const auto already = static_cast<int32_t>(group.assumed.size() + group.assigned.size());
  int32_t placed = 0;
  // Signatures that failed in this cycle, with the member that failed (its message and rejectors).
  absl::flat_hash_map<std::string, const MemberResult*> failed;
  for (size_t i = 0; i < members.size(); ++i) {
    MemberResult& r = results[i];
    QueuedPod* qp = members[i];
    r.qp = qp;
    const MemberResult* same = nullptr;
    if (qp->signature.has_value()) {
      if (auto it = failed.find(*qp->signature); it != failed.end()) same = it->second;
    }
    if (same != nullptr) {
      r.failure = same->failure;
      qp->unschedulable_plugins = same->qp->unschedulable_plugins;
      qp->pending_plugins.clear();
    } else {
      framework::CycleState state;
      Symbol node;
      if (ScheduleMember(qp, state, domain, &node, &r.failure)) {
        cache_.AddPod(&qp->info, node, /*assumed=*/true);
        Status rs = fwk.RunReservePluginsReserve(state, qp->info, node);
        if (rs.ok()) {
          r.placed = true;
          r.node = node;
          r.state = std::move(state);
          ++placed;
        } else {
          fwk.RunReservePluginsUnreserve(state, qp->info, node);
          cache_.RemovePod(&qp->info);
          r.failure = rs.Message();
        }
      }
      if (!r.placed && qp->signature.has_value()) failed.emplace(*qp->signature, &r);
    }
    const framework::PlacementProgress progress{.scheduled = already + placed,
                                                .remaining = static_cast<int32_t>(members.size() - i - 1)};
    bool stop = false;
    for (framework::PlacementFeasiblePlugin* p : pf->second) {
      Status st = p->PlacementFeasible(group, resolved, progress);
      if (st.code() == Code::kUnschedulable || st.code() == Code::kUnschedulableAndUnresolvable) stop = true;
    }
    if (stop && resolved.IsGang()) break;
  }
  return placed;
}

void Scheduler::RollBack(std::vector<MemberResult>& results) {
  // Reverse order, as Unreserve runs in reverse; nothing was bound, so no event is fired. Scores cached by
  // the batch were computed with these placements assumed: the next pod starts from a full evaluation.
  for (auto it = results.rbegin(); it != results.rend(); ++it) {
    if (!it->placed) continue;
    if (auto b = batches_.find(it->qp->fwk); b != batches_.end()) b->second->CycleFailed(stats_.cycles);
    it->qp->fwk->RunReservePluginsUnreserve(it->state, it->qp->info, it->node);
    cache_.RemovePod(&it->qp->info);
    it->placed = false;
  }
}

void Scheduler::ScheduleGroup(QueuedPod* qp, framework::PodGroupState& group,
                              const framework::ResolvedPodGroup& resolved) {
  const TimePoint wall_start = options_.wall_clock != nullptr ? options_.wall_clock->Now() : TimePoint{};
  cycle_start_ = wall_start;
  framework::Framework& fwk = *qp->fwk;
  in_cycle_ = true;
  event_during_cycle_ = false;

  // 1. The members: pending members of this profile, in arrival order.
  std::vector<QueuedPod*> members;
  for (const PodInfo* p : group.all) {
    if (group.assumed.contains(p) || group.assigned.contains(p) || waiting_.Contains(p)) continue;
    if (p == &qp->info) {
      members.push_back(qp);
      continue;
    }
    auto it = pods_.find(p->pod);
    if (it == pods_.end() || it->second->fwk != &fwk) continue;
    if (queue_->TakeForGroup(it->second.get())) members.push_back(it->second.get());
  }
  // 2. Homogeneous sub-groups: by signature, in first-seen order (unsignable pods each on their own).
  {
    absl::flat_hash_map<std::string, size_t> rank;
    std::vector<std::pair<size_t, QueuedPod*>> keyed;
    for (size_t i = 0; i < members.size(); ++i) {
      size_t r = i + members.size();
      if (members[i]->signature.has_value()) r = rank.emplace(*members[i]->signature, i).first->second;
      keyed.emplace_back(r, members[i]);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < keyed.size(); ++i) members[i] = keyed[i].second;
  }

  const auto already = static_cast<int32_t>(group.assumed.size() + group.assigned.size());
  const int32_t need = resolved.MinCount();
  auto feasible = [&](int32_t placed) { return resolved.IsGang() ? already + placed >= need : placed > 0; };
  const std::string key = WorkloadManager::KeyString(interner_, group.key);

  std::vector<MemberResult> results;
  int32_t placed = 0;
  std::string failure;
  const api::PodGroup* pg = resolved.pod_group;
  if (pg != nullptr && !pg->topology_keys.empty() &&
      options_.gates.Enabled(framework::Feature::kTopologyAwareWorkloadScheduling)) {
    // KEP-5732: one candidate placement per domain; a gang is never split across domains.
    const Symbol tkey = pg->topology_keys.front();
    snapshot_ = &cache_.snapshot();
    auto domains = Domains(*snapshot_, interner_, tkey);
    const std::string prefix = fmt::format("{}=", interner_.Str(tkey));
    const absl::flat_hash_set<Symbol>* best = nullptr;
    std::string_view best_value;
    int64_t best_score = -1;
    int32_t best_fit = 0;
    for (const auto& [value, nodes] : domains) {
      if (!group.domain.empty() && group.domain != prefix + std::string(value)) continue;
      int32_t n = PlaceMembers(members, group, resolved, &nodes, results);
      best_fit = std::max(best_fit, n);
      if (feasible(n)) {
        int64_t score = TightestFit(cache_.snapshot(), nodes);
        if (score > best_score) {
          best_score = score;
          best = &nodes;
          best_value = value;
        }
      }
      RollBack(results);
    }
    if (best != nullptr) {
      placed = PlaceMembers(members, group, resolved, best, results);
      group.domain = prefix + std::string(best_value);
    } else {
      results.clear();
      results.resize(members.size());
      for (size_t i = 0; i < members.size(); ++i) results[i].qp = members[i];
      failure = fmt::format("{} {}: {}/{} members fit in one {} domain, minCount {}",
                            resolved.IsGang() ? "gang" : "group", key, already + best_fit, group.all.size(),
                            interner_.Str(tkey), need);
    }
  } else {
    placed = PlaceMembers(members, group, resolved, nullptr, results);
  }
  if (failure.empty() && !feasible(placed)) {
    failure = fmt::format("{} {}: {}/{} members fit, minCount {}", resolved.IsGang() ? "gang" : "group", key,
                          already + placed, group.all.size(), need);
  }

  if (!failure.empty()) {
    // All or nothing: no reservation of this cycle survives; the group backs off as a whole.
    RollBack(results);
    // HOOK(preemption): KEP-5710 workload-aware preemption (workload_preemption.cc).
    std::string preemption;
    if (resolved.IsGang() && fwk.HasPostFilterPlugins()) preemption = PreemptForGroup(members, group, resolved);
    failure = WithPreemption(failure, preemption);
    group.failure = failure;
    const double scale = std::sqrt(static_cast<double>(std::max<size_t>(group.all.size(), 1)));
    for (MemberResult& r : results) {
      QueuedPod* m = r.qp;
      m->backoff_scale = scale;
      const std::string msg = r.failure.empty() ? failure : WithPreemption(r.failure, preemption);
      ++stats_.unschedulable_attempts;
      RecordAttempt(fwk, "unschedulable");
      last_failure_[m->info.pod] = msg;
      if (observer_ != nullptr) observer_->OnUnschedulable(*m->info.pod, msg);
      queue_->Requeue(m, Code::kUnschedulable, event_during_cycle_);
    }
    in_cycle_ = false;
    RecordGroupAttempt(fwk, "unschedulable", wall_start);
    return;
  }

  // Commit: placed members go through Permit and bind; the others are requeued (old timestamps kept).
  group.failure.clear();
  in_cycle_ = false;
  std::vector<MemberResult*> unplaced;
  for (MemberResult& r : results) {
    if (r.placed) {
      r.qp->backoff_scale = 1.0;
      PermitAndBind(r.qp, std::move(r.state), r.node, wall_start);
    } else {
      unplaced.push_back(&r);
    }
  }
  for (MemberResult* r : unplaced) {
    const std::string msg = r->failure.empty() ? std::string("not evaluated in the pod group's cycle") : r->failure;
    ++stats_.unschedulable_attempts;
    RecordAttempt(fwk, "unschedulable");
    last_failure_[r->qp->info.pod] = msg;
    if (observer_ != nullptr) observer_->OnUnschedulable(*r->qp->info.pod, msg);
    queue_->Requeue(r->qp, Code::kUnschedulable, event_during_cycle_);
  }
  RecordGroupAttempt(fwk, "scheduled", wall_start);
}

}  // namespace corral::scheduler
