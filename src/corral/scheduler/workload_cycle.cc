// The workload scheduling cycle (kube's beta design, KEP-4671 §Scheduler Changes for Beta) and
// topology-aware placement (KEP-5732):
//   1. Popping any member of a pod group pops the group: every pending member of the same
//      profile is taken out of the queue (gated members stay gated).
//   2. Members are ordered in homogeneous sub-groups (same KEP-5598 signature, first-seen order,
//      arrival order within), then placed one by one on the live snapshot: PreFilter/Filter/Score
//      as a pod cycle (batching hints apply), then assume + Reserve. A member whose signature
//      already failed in this cycle fails without evaluation (same filters, less capacity).
//   3. PlacementFeasible (GangScheduling) is asked after each member and stops the cycle early when
//      the quorum is out of reach.
//   4. A group commits only if members already assumed/bound + members placed ≥ minCount (1 for
//      basic groups, which therefore commit whatever fits); otherwise every placement of this cycle
//      is rolled back (invariant: no reservation of a failed cycle survives) and the group backs
//      off as a whole.
//   5. Committed members go through Permit and bind; members that did not fit are requeued.
// With `schedulingConstraints.topology[].key` (and TopologyAwareWorkloadScheduling), step 2–4 run
// once per domain (one candidate placement per value of the key; a running group keeps its domain);
// feasible placements are scored by kube's PlacementBinPacking (MostAllocated over the domain's cpu
// and memory once the members are assumed; highest wins, ties to the first domain by value) and the
// members are placed in the winner.

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "corral/pipeline/select.h"
#include "corral/scheduler/placement_score.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

using framework::Code;
using framework::PodInfo;
using framework::Status;

const std::vector<Scheduler::PlacementDomain>& Scheduler::TopologyDomains(Symbol key) {
  auto [it, inserted] = topology_domains_.try_emplace(key);
  if (!inserted) return it->second;
  // One placement per distinct value of the label, in value order (deterministic); nodes in
  // snapshot order.
  std::map<std::string_view, PlacementDomain> by_value;
  for (const framework::NodeInfo* n : cache_.snapshot().nodes()) {
    const Symbol* v = n->node()->meta.labels.Find(key);
    if (v == nullptr) continue;
    PlacementDomain& d = by_value[interner_.Str(*v)];
    d.nodes.push_back(n);
    d.names.insert(n->name());
  }
  it->second.reserve(by_value.size());
  for (auto& [value, d] : by_value) {
    d.value = value;
    it->second.push_back(std::move(d));
  }
  return it->second;
}

void Scheduler::RecordGroupAttempt(const framework::Framework& fwk, std::string_view result,
                                   TimePoint wall_start) {
  metrics::Labels labels = {{"profile", fwk.profile_name()}, {"result", std::string(result)}};
  ++(result == "scheduled" ? stats_.group_attempts_scheduled : stats_.group_attempts_unschedulable);
  metrics_
      .GetCounter("scheduler_podgroup_schedule_attempts_total",
                  "Number of attempts to schedule pod groups, by the result.", labels)
      .Inc();
  if (options_.wall_clock != nullptr) {
    static const std::vector<double> kBuckets = metrics::ExponentialBuckets(0.001, 2, 15);
    double seconds = std::chrono::duration<double>(options_.wall_clock->Now() - wall_start).count();
    metrics_
        .GetHistogram(
            "scheduler_podgroup_scheduling_attempt_duration_seconds",
            "Pod group scheduling attempt latency in seconds (scheduling algorithm + binding)",
            kBuckets, labels)
        .Observe(seconds);
  }
}

int32_t Scheduler::PlaceMembers(const std::vector<QueuedPod*>& members,
                                framework::PodGroupState& group,
                                const framework::ResolvedPodGroup& resolved,
                                const PlacementDomain* domain, std::vector<MemberResult>& results) {
  results.clear();
  results.resize(members.size());
  for (size_t i = 0; i < members.size(); ++i) results[i].qp = members[i];
  if (members.empty()) return 0;
  framework::Framework& fwk = *members.front()->fwk;
  auto pf = placement_feasible_.find(&fwk);
  if (pf == placement_feasible_.end()) {
    pf = placement_feasible_
             .emplace(&fwk, fwk.PluginsImplementing<framework::PlacementFeasiblePlugin>())
             .first;
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
      bool hinted = false;
      if (ScheduleMember(qp, state, domain, &node, &r.failure, &hinted)) {
        cache_.AddPod(&qp->info, node, /*assumed=*/true);
        Status rs = fwk.RunReservePluginsReserve(state, qp->info, node);
        if (rs.ok()) {
          r.placed = true;
          r.hinted = hinted;
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
    const framework::PlacementProgress progress{
        .scheduled = already + placed, .remaining = static_cast<int32_t>(members.size() - i - 1)};
    bool stop = false;
    for (framework::PlacementFeasiblePlugin* p : pf->second) {
      Status st = p->PlacementFeasible(group, resolved, progress);
      if (st.code() == Code::kUnschedulable || st.code() == Code::kUnschedulableAndUnresolvable)
        stop = true;
    }
    if (stop && resolved.IsGang()) break;
  }
  return placed;
}

void Scheduler::RollBack(std::vector<MemberResult>& results) {
  // Reverse order, as Unreserve runs in reverse; nothing was bound, so no event is fired. Scores
  // cached by the batch were computed with these placements assumed: the next pod starts from a
  // full evaluation.
  for (auto it = results.rbegin(); it != results.rend(); ++it) {
    if (!it->placed) continue;
    if (auto b = batches_.find(it->qp->fwk); b != batches_.end())
      b->second->CycleFailed(stats_.cycles);
    it->qp->fwk->RunReservePluginsUnreserve(it->state, it->qp->info, it->node);
    cache_.RemovePod(&it->qp->info);
    it->placed = false;
  }
}

void Scheduler::ScheduleGroup(QueuedPod* qp, framework::PodGroupState& group,
                              const framework::ResolvedPodGroup& resolved) {
  const TimePoint wall_start =
      options_.wall_clock != nullptr ? options_.wall_clock->Now() : TimePoint{};
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
  // 2. Homogeneous sub-groups: by signature, in first-seen order (unsignable pods each on
  // their own).
  {
    absl::flat_hash_map<std::string, size_t> rank;
    std::vector<std::pair<size_t, QueuedPod*>> keyed;
    for (size_t i = 0; i < members.size(); ++i) {
      size_t r = i + members.size();
      if (members[i]->signature.has_value())
        r = rank.emplace(*members[i]->signature, i).first->second;
      keyed.emplace_back(r, members[i]);
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < keyed.size(); ++i) members[i] = keyed[i].second;
  }

  const auto already = static_cast<int32_t>(group.assumed.size() + group.assigned.size());
  const int32_t need = resolved.MinCount();
  // kube's PlacementFeasible rule: members already assumed or bound count towards minCount (1 for
  // basic groups), so a running group commits whatever of its later members fits.
  auto feasible = [&](int32_t placed) { return already + placed >= need; };
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
    const std::vector<PlacementDomain>& domains = TopologyDomains(tkey);
    const std::string prefix = fmt::format("{}=", interner_.Str(tkey));
    // A running group keeps its domain.
    std::string_view kept;
    if (group.domain.size() > prefix.size())
      kept = std::string_view(group.domain).substr(prefix.size());
    // The feasible domains with their scores; the highest score wins, ties to the first by value.
    std::vector<std::pair<const PlacementDomain*, int64_t>> feasible_domains;
    int32_t best_fit = 0;
    for (const PlacementDomain& d : domains) {
      if (!group.domain.empty() && d.value != kept) continue;
      int32_t n = PlaceMembers(members, group, resolved, &d, results);
      best_fit = std::max(best_fit, n);
      if (feasible(n)) feasible_domains.emplace_back(&d, PlacementBinPackingScoreOfNodes(d.nodes));
      RollBack(results);
    }
    const size_t chosen = pipeline::SelectBest(
        feasible_domains.size(), [&](size_t i) { return feasible_domains[i].second; },
        [](size_t) { return uint64_t{0}; });
    const PlacementDomain* best =
        chosen == pipeline::kNone ? nullptr : feasible_domains[chosen].first;
    if (best != nullptr) {
      placed = PlaceMembers(members, group, resolved, best, results);
      group.domain = prefix + std::string(best->value);
    } else {
      results.clear();
      results.resize(members.size());
      for (size_t i = 0; i < members.size(); ++i) results[i].qp = members[i];
      failure = fmt::format("{} {}: {}/{} members fit in one {} domain, minCount {}",
                            resolved.IsGang() ? "gang" : "group", key, already + best_fit,
                            group.all.size(), interner_.Str(tkey), need);
    }
  } else {
    placed = PlaceMembers(members, group, resolved, nullptr, results);
  }
  if (failure.empty() && !feasible(placed)) {
    failure =
        fmt::format("{} {}: {}/{} members fit, minCount {}", resolved.IsGang() ? "gang" : "group",
                    key, already + placed, group.all.size(), need);
  }

  if (!failure.empty()) {
    // All or nothing: no reservation of this cycle survives; the group backs off as a whole.
    RollBack(results);
    // KEP-5710 workload-aware preemption (workload_preemption.cc).
    std::string preemption;
    if (resolved.IsGang() && fwk.HasPostFilterPlugins())
      preemption = PreemptForGroup(members, group, resolved);
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

  // Commit: placed members go through Permit and bind; the others are requeued (old
  // timestamps kept).
  group.failure.clear();
  in_cycle_ = false;
  std::vector<MemberResult*> unplaced;
  for (MemberResult& r : results) {
    if (r.placed) {
      if (r.hinted)
        ++stats_.batched;  // batching hits count placements that stand, not rolled-back ones
      r.qp->backoff_scale = 1.0;
      PermitAndBind(r.qp, std::move(r.state), r.node, wall_start);
    } else {
      unplaced.push_back(&r);
    }
  }
  for (MemberResult* r : unplaced) {
    const std::string msg =
        r->failure.empty() ? std::string("not evaluated in the pod group's cycle") : r->failure;
    ++stats_.unschedulable_attempts;
    RecordAttempt(fwk, "unschedulable");
    last_failure_[r->qp->info.pod] = msg;
    if (observer_ != nullptr) observer_->OnUnschedulable(*r->qp->info.pod, msg);
    queue_->Requeue(r->qp, Code::kUnschedulable, event_during_cycle_);
  }
  RecordGroupAttempt(fwk, "scheduled", wall_start);
}

}  // namespace corral::scheduler
