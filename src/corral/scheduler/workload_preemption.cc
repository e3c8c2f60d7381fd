// Workload-aware preemption (KEP-5710): a gang that cannot be placed in its workload cycle takes
// capacity from lower-priority pods and pod groups anywhere in the cluster (its domain is the whole
// cluster, or one topology domain for a KEP-5732 group). The algorithm follows the KEP's
// §Preemption algorithm:
//   0. Eligibility: preemptionPolicy Never ⇒ no; a member nominated to a node where a
//      lower-priority pod is still terminating by preemption ⇒ no new preemption (the earlier one
//      is still in progress).
//   1. Potential victims are preemption units: a pod, or every cached pod of a `disruptionMode:
//      all` PodGroup (evicted whole or not at all), of priority lower than the gang's. Units are
//      sorted by importance (pipeline::MoreImportantVictim, kube's MoreImportantVictim): priority
//      desc, then pod-group members before lone pods, then two groups by more pods, then
//      earlier start.
//   2. With every potential victim taken out of the cache, place the members (the workload cycle's
//      own algorithm). Fewer than minCount fit ⇒ preemption cannot help (a gang never preempts to
//      place fewer).
//   3. With that placement assumed, reprieve PDB-violating units first: a unit is put back when
//      each of its pods still passes its own filters on its node, with the pods nominated there at
//      the gang's priority or above counted (what the gang's next cycle counts).
//   4. Binary search over the remaining units' priorities for the lowest priority N such that
//      evicting only units of priority ≤ N lets the gang fit; units above N stay.
//   5. Place the members again and reprieve the remaining units in importance order (3 and 5 are
//      the two passes of pipeline::ReprieveUnits, 4 runs between them).
//   6. The members placed are nominated to their nodes, lower-priority pods nominated there lose
//      their nomination, and the victims are evicted through the scheduler's victim path (deleted
//      at once, or left terminating for the driver's grace period). The members retry once the
//      victims are gone.
// Invariants: the cache is exactly as before the call except for the evicted victims (every trial
// placement is rolled back and every unit not chosen is put back); a failed attempt leaves no
// nomination of the group behind; a victim's priority is always lower than the gang's.

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "corral/framework/pdb.h"
#include "corral/pipeline/reprieve.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

using framework::Code;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

// One preemption unit (KEP-5710 §Preemption unit) and its trial state.
struct Scheduler::PreemptionUnit {
  std::vector<const PodInfo*> pods;  // cached pods evicted together, in discovery order
  std::vector<Symbol> nodes;         // parallel to pods: where each runs
  std::vector<uint8_t> assumed;      // parallel to pods: assumed (not yet bound) in the cache
  int32_t priority = 0;
  bool in_group = false;  // pod-group member(s): more important than a lone pod of equal priority
  std::string all_group;  // key of its disruptionMode-all pod group, or empty
  TimePoint start;        // earliest start time of its pods
  bool affinity = false;  // a pod with inter-pod (anti-)affinity or topology spread constraints
  bool violates_pdb = false;
  bool removed = false;  // taken out of the cache for the current trial
  size_t order = 0;      // discovery order (final tie-break)
};

std::string Scheduler::WithPreemption(const std::string& message, const std::string& preemption) {
  if (preemption.empty()) return message;
  if (message.empty()) return preemption;
  return message + (message.back() == '.' ? " " : ". ") + preemption;
}

int32_t Scheduler::EffectivePriority(const PodInfo& pod) const {
  return pod.priority();
}

bool Scheduler::TryReprieve(PreemptionUnit& u, bool check, int32_t preemptor_priority) {
  if (!u.removed) return true;
  size_t added = 0;
  bool fits = true;
  for (size_t i = 0; i < u.pods.size() && fits; ++i) {
    const PodInfo* p = u.pods[i];
    if (check) {
      const NodeInfo* node = cache_.snapshot().Get(u.nodes[i]);
      auto fit = by_scheduler_name_.find(p->pod->scheduler_name);
      framework::Framework* vf =
          fit != by_scheduler_name_.end() ? fit->second : frameworks_.front().get();
      framework::CycleState st;
      framework::PreFilterResult pre;
      std::vector<std::string_view> restricting;
      fits = node != nullptr;
      if (fits) {
        Status s = vf->RunPreFilterPlugins(st, *p, &pre, &restricting);
        // The nominated pods counted are those the gang's own cycle will count: priority ≥ the
        // gang's (lower ones nominated where the members go lose their nomination below).
        PodInfo as_preemptor = *p;
        as_preemptor.group_priority = preemptor_priority;
        fits = s.ok() && (!pre.node_names.has_value() || pre.node_names->contains(u.nodes[i])) &&
               vf->RunFilterPluginsWithNominatedPods(st, as_preemptor, *node).ok();
      }
      if (!fits) break;
    }
    cache_.AddPod(p, u.nodes[i], u.assumed[i] != 0);
    ++added;
  }
  if (!fits) {
    for (size_t i = 0; i < added; ++i) cache_.RemovePod(u.pods[i]);
    return false;
  }
  u.removed = false;
  snapshot_ = &cache_.snapshot();
  return true;
}

std::string Scheduler::PreemptForGroup(const std::vector<QueuedPod*>& members,
                                       framework::PodGroupState& group,
                                       const framework::ResolvedPodGroup& resolved) {
  if (members.empty()) return {};
  // Trial placements are not scheduling attempts of their own: no explain records for them.
  struct ExplainOff {
    std::function<bool(const api::Pod&)>& slot;
    std::function<bool(const api::Pod&)> saved;
    explicit ExplainOff(std::function<bool(const api::Pod&)>& s) : slot(s), saved(std::move(s)) {
      slot = nullptr;
    }
    ~ExplainOff() { slot = std::move(saved); }
    ExplainOff(const ExplainOff&) = delete;
    ExplainOff& operator=(const ExplainOff&) = delete;
  } explain_off(options_.explain);
  // Nor do they change why the members were rejected (the rejecting plugins decide their requeue).
  struct RejectorsKept {
    const std::vector<QueuedPod*>& members;
    std::vector<std::pair<absl::flat_hash_set<std::string>, absl::flat_hash_set<std::string>>>
        saved;
    explicit RejectorsKept(const std::vector<QueuedPod*>& m) : members(m) {
      for (const QueuedPod* qp : m)
        saved.emplace_back(qp->unschedulable_plugins, qp->pending_plugins);
    }
    ~RejectorsKept() {
      for (size_t i = 0; i < members.size(); ++i) {
        members[i]->unschedulable_plugins = std::move(saved[i].first);
        members[i]->pending_plugins = std::move(saved[i].second);
      }
    }
    RejectorsKept(const RejectorsKept&) = delete;
    RejectorsKept& operator=(const RejectorsKept&) = delete;
  } rejectors_kept(members);
  // Nor do they feed opportunistic batching (its hints and flush counts stay those of real cycles).
  struct BatchesAside {
    decltype(batches_)& slot;
    decltype(batches_) saved;
    explicit BatchesAside(decltype(batches_)& b) : slot(b) { saved.swap(slot); }
    ~BatchesAside() { saved.swap(slot); }
    BatchesAside(const BatchesAside&) = delete;
    BatchesAside& operator=(const BatchesAside&) = delete;
  } batches_aside(batches_);
  metrics_
      .GetCounter("scheduler_preemption_attempts_total",
                  "Total preemption attempts in the cluster till now")
      .Inc();
  const std::string key = WorkloadManager::KeyString(interner_, group.key);
  auto attempt = [&](std::string_view result) {
    metrics_
        .GetCounter("scheduler_workload_preemption_attempts_total",
                    "Total preemption attempts initiated by workload (including pod groups) in the "
                    "cluster till now.",
                    {{"result", std::string(result)}})
        .Inc();
  };
  auto fail = [&](const std::string& why) {
    for (const PodInfo* p : group.all)
      nominator_.Delete(p);  // a failed attempt leaves no nomination
    attempt("unschedulable");
    return "preemption: " + why;
  };

  // The gang's priority: its PodGroup's spec.priority, else the lowest member priority.
  int32_t prio = members.front()->info.priority();
  if (resolved.pod_group != nullptr && resolved.pod_group->priority.has_value()) {
    prio = *resolved.pod_group->priority;
  } else {
    for (const PodInfo* p : group.all) prio = std::min(prio, p->priority());
  }

  // 0) Eligibility.
  if (members.front()->info.pod->preemption_policy == api::PreemptionPolicy::kNever) {
    return fail("not eligible due to preemptionPolicy=Never.");
  }
  snapshot_ = &cache_.snapshot();
  for (const PodInfo* p : group.all) {
    const NodeInfo* node = snapshot_->Get(nominator_.NodeOf(p));
    if (node == nullptr) continue;
    for (const PodInfo* q : node->pods()) {
      if (terminating_victims_.contains(q) && EffectivePriority(*q) < prio) {
        attempt("ineligible");
        // Nominations stay: they hold the room the earlier preemption is freeing.
        return std::string(
            "preemption: not eligible due to a terminating pod on the nominated node.");
      }
    }
  }
  // A new attempt starts from the cluster as it is now (KEP-5710 §Delayed preemption).
  for (const PodInfo* p : group.all) nominator_.Delete(p);

  // 1) Potential victims, as units.
  std::vector<PreemptionUnit> units;
  absl::flat_hash_map<const framework::PodGroupState*, size_t> all_units;
  for (const NodeInfo* node : snapshot_->nodes()) {
    for (const PodInfo* p : node->pods()) {
      const api::Pod& pod = *p->pod;
      if (pod.IsTerminating() || terminating_victims_.contains(p)) continue;
      framework::PodGroupState* g = wm_.GroupOf(*p);
      if (g == &group) continue;
      const api::PodGroup* pg =
          pod.scheduling_group.has_value()
              ? wm_.GetPodGroup(pod.meta.namespace_, pod.scheduling_group->pod_group_name)
              : nullptr;
      const int32_t up = EffectivePriority(*p);
      const bool whole =
          g != nullptr && pg != nullptr && pg->disruption_mode == api::DisruptionMode::kAll;
      if (!whole && up >= prio) continue;
      PreemptionUnit* u = nullptr;
      if (whole) {
        auto [it, fresh] = all_units.emplace(g, units.size());
        if (fresh) {
          units.emplace_back();
          units.back().all_group = WorkloadManager::KeyString(interner_, g->key);
          units.back().priority = up;
        }
        u = &units[it->second];
        // Without a group priority, the group is as important as its most important member.
        u->priority = std::max(u->priority, up);
      } else {
        units.emplace_back();
        u = &units.back();
        u->priority = up;
      }
      const TimePoint start = pod.start_time.value_or(clock_.Now());
      if (u->pods.empty() || start < u->start) u->start = start;
      u->in_group = g != nullptr;
      u->affinity = u->affinity || p->HasAffinity() || !pod.topology_spread_constraints.empty();
      u->pods.push_back(p);
      u->nodes.push_back(node->name());
      u->assumed.push_back(cache_.IsAssumed(p) ? 1 : 0);
    }
  }
  std::erase_if(units, [&](const PreemptionUnit& u) { return u.priority >= prio; });
  if (units.empty())
    return fail(fmt::format("no lower-priority pods or pod groups to preempt for {}.", key));
  for (size_t i = 0; i < units.size(); ++i) units[i].order = i;
  pipeline::SortByImportance(std::span<PreemptionUnit>(units), [](const PreemptionUnit& u) {
    return pipeline::VictimRank{.priority = u.priority,
                                .group = u.in_group,
                                .size = u.pods.size(),
                                .start = u.start,
                                .order = u.order};
  });
  // PodDisruptionBudgets, counted over the units in importance order
  // (kube filterPodsWithPDBViolation).
  {
    absl::flat_hash_map<const api::PodDisruptionBudget*, int32_t> left;
    for (PreemptionUnit& u : units) {
      for (const PodInfo* p : u.pods) {
        for (const api::PodDisruptionBudget* pdb : PodDisruptionBudgets(p->pod->meta.namespace_)) {
          if (!framework::PdbCoversForPreemption(*pdb, *p->pod)) continue;
          auto [it, fresh] = left.emplace(pdb, 0);
          if (fresh) it->second = framework::DisruptionsAllowed(*this, *pdb);
          if (--it->second < 0) u.violates_pdb = true;
        }
      }
    }
  }

  const auto already = static_cast<int32_t>(group.assumed.size() + group.assigned.size());
  const int32_t need = resolved.MinCount();
  const bool member_affinity = std::any_of(members.begin(), members.end(), [](const QueuedPod* m) {
    return m->info.HasAffinity() || !m->info.pod->topology_spread_constraints.empty();
  });
  std::vector<MemberResult> results;
  int32_t best_placed = 0;
  const PlacementDomain* domain = nullptr;
  // Places the members; on success the placement stays assumed (the caller rolls it back).
  auto try_place = [&]() {
    snapshot_ = &cache_.snapshot();
    const int32_t n = PlaceMembers(members, group, resolved, domain, results);
    best_placed = std::max(best_placed, n);
    if (already + n >= need) return true;
    RollBack(results);
    return false;
  };
  auto take_out = [&](PreemptionUnit& u) {
    if (u.removed) return;
    for (const PodInfo* p : u.pods) cache_.RemovePod(p);
    u.removed = true;
  };
  auto put_back = [&](PreemptionUnit& u) { TryReprieve(u, /*check=*/false, prio); };
  auto restore_all = [&] {
    for (PreemptionUnit& u : units) put_back(u);
    snapshot_ = &cache_.snapshot();
  };
  // A unit whose pods share no node with the members' placement and that nothing couples to other
  // nodes (no affinity or spread on either side) fits where it runs as before: skip its
  // filter re-run.
  absl::flat_hash_set<Symbol> member_nodes;
  auto reprieve = [&](PreemptionUnit& u) {
    bool check = member_affinity || u.affinity;
    for (Symbol n : u.nodes) check = check || member_nodes.contains(n);
    return TryReprieve(u, check, prio);
  };
  auto note_placement = [&] {
    member_nodes.clear();
    for (const MemberResult& r : results) {
      if (r.placed) member_nodes.insert(r.node);
    }
  };

  // 2) Every potential victim gone: can the gang fit at all (in one domain
  // when topology-constrained)?
  for (PreemptionUnit& u : units) take_out(u);
  bool fits = false;
  const api::PodGroup* pg = resolved.pod_group;
  if (pg != nullptr && !pg->topology_keys.empty() &&
      options_.gates.Enabled(framework::Feature::kTopologyAwareWorkloadScheduling)) {
    const Symbol tkey = pg->topology_keys.front();
    const std::string prefix = fmt::format("{}=", interner_.Str(tkey));
    for (const PlacementDomain& d : TopologyDomains(tkey)) {
      if (!group.domain.empty() && group.domain != prefix + std::string(d.value)) continue;
      domain = &d;
      if ((fits = try_place())) break;  // the first domain (by value) where preemption can help
    }
  } else {
    fits = try_place();
  }
  if (!fits) {
    restore_all();
    return fail(fmt::format(
        "{}/{} members of gang {} fit with every lower-priority pod and pod group evicted, "
        "minCount {}.",
        already + best_placed, group.all.size(), key, need));
  }
  // 3) Reprieve PDB violators against this placement; then (between the passes) 4) and 5) place the
  // members again; then reprieve every unit still out in importance order (pipeline/reprieve.h).
  note_placement();
  std::string abort;  // the failure message when the members no longer fit between the passes
  Status looped = pipeline::ReprieveUnits(
      std::span<PreemptionUnit>(units), pipeline::SecondPass::kAll,
      [](const PreemptionUnit& u) { return u.violates_pdb; },
      [&](PreemptionUnit& u) {
        reprieve(u);
        return Status();
      },
      [&]() -> Status {
        RollBack(results);

        // 4) The lowest priority bound N that still lets the gang fit. Only units still out take
        // part (PDB violators reprieved in 3 stay put).
        std::vector<int32_t> prios;
        auto collect_prios = [&] {
          prios.clear();
          for (const PreemptionUnit& u : units) {
            if (u.removed) prios.push_back(u.priority);
          }
          std::sort(prios.begin(), prios.end());
          prios.erase(std::unique(prios.begin(), prios.end()), prios.end());
        };
        collect_prios();
        if (!try_place()) {
          // The reprieved PDB violators changed the placement and it no longer fits: they are
          // candidates again.
          for (PreemptionUnit& u : units) take_out(u);
          collect_prios();
          if (!try_place()) {
            restore_all();
            abort = fail(fmt::format(
                "gang {} no longer fits after reprieving PodDisruptionBudget victims.", key));
            return Status(Code::kUnschedulable, {});
          }
        }
        RollBack(results);
        std::vector<uint8_t> candidate(units.size(), 0);
        for (size_t i = 0; i < units.size(); ++i) candidate[i] = units[i].removed ? 1 : 0;
        auto apply_bound = [&](int32_t bound) {
          for (size_t i = 0; i < units.size(); ++i) {
            if (candidate[i] == 0) continue;
            if (units[i].priority > bound) {
              put_back(units[i]);
            } else {
              take_out(units[i]);
            }
          }
        };
        if (!prios.empty()) {
          size_t lo = 0, hi = prios.size() - 1;
          while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            apply_bound(prios[mid]);
            if (try_place()) {
              RollBack(results);
              hi = mid;
            } else {
              lo = mid + 1;
            }
          }
          apply_bound(prios[lo]);
        }
        // 5) The placement, then reprieve the rest in importance order.
        if (!try_place()) {
          if (!prios.empty()) apply_bound(prios.back());
          if (!try_place()) {
            restore_all();
            abort =
                fail(fmt::format("gang {} no longer fits with the chosen victims evicted.", key));
            return Status(Code::kUnschedulable, {});
          }
        }
        note_placement();
        return Status();
      });
  if (!looped.ok()) return abort;
  PreemptionRecord rec;
  rec.group = key;
  rec.priority = prio;
  rec.min_count = need;
  for (const MemberResult& r : results) {
    if (r.placed) rec.nominations.emplace_back(r.qp->info.pod, r.node);
  }
  std::vector<std::pair<const PodInfo*, Symbol>> nominate;
  for (const MemberResult& r : results) {
    if (r.placed) nominate.emplace_back(&r.qp->info, r.node);
  }
  RollBack(results);
  std::vector<const PreemptionUnit*> victims;
  for (PreemptionUnit& u : units) {
    if (u.removed) victims.push_back(&u);
  }
  restore_all();

  // 6) Execute.
  rec.preemptor = rec.nominations.front().first;
  rec.node = rec.nominations.front().second;
  std::vector<const api::Pod*> evict;
  for (const PreemptionUnit* u : victims) {
    for (size_t i = 0; i < u->pods.size(); ++i) {
      rec.victims.push_back(
          {u->pods[i]->pod, u->violates_pdb, u->nodes[i], u->priority, u->all_group});
      if (u->violates_pdb) ++rec.num_pdb_violations;
      evict.push_back(u->pods[i]->pod);
    }
  }
  // Lower-priority pods nominated where the members go lose their nomination and retry now.
  std::vector<const PodInfo*> lower;
  for (const auto& [member, node] : nominate) {
    for (const PodInfo* p : nominator_.PodsForNode(node)) {
      if (wm_.GroupOf(*p) != &group && EffectivePriority(*p) < prio &&
          std::find(lower.begin(), lower.end(), p) == lower.end()) {
        lower.push_back(p);
      }
    }
  }
  for (const PodInfo* p : lower) {
    nominator_.Delete(p);
    if (auto it = pods_.find(p->pod); it != pods_.end()) queue_->Activate(it->second.get());
  }
  for (const auto& [member, node] : nominate) nominator_.Add(member, node);
  attempt("success");
  static const std::vector<double> kBuckets = metrics::ExponentialBuckets(1, 2, 11);
  metrics_
      .GetHistogram("scheduler_workload_preemption_victims",
                    "Number of pod preemption victims caused by workload preemption.", kBuckets, {})
      .Observe(static_cast<double>(evict.size()));
  metrics_
      .GetHistogram("scheduler_preemption_workload_disruptions",
                    "Number of workload preemption units being preempted.", kBuckets,
                    {{"preemptor", "podgroup"}})
      .Observe(static_cast<double>(victims.size()));
  if (rec.num_pdb_violations > 0) {
    metrics_
        .GetCounter("scheduler_preemption_pdb_violations_total",
                    "Total number of pod disruption budget violations caused by preemption.",
                    {{"preemptor", "podgroup"}})
        .Inc(rec.num_pdb_violations);
  }
  if (observer_ != nullptr) observer_->OnPreempted(rec);
  if (evict.empty()) {
    // Room appeared without evicting anyone (the cycle's own placement order failed): retry soon.
    event_during_cycle_ = true;
    return {};
  }
  for (const api::Pod* v : evict) {
    auto it = pods_.find(v);
    if (it == pods_.end() || terminating_victims_.contains(&it->second->info)) continue;
    if (options_.delete_victims_immediately) {
      DeletePod(v);
    } else {
      terminating_victims_.insert(&it->second->info);
    }
  }
  return {};
}

}  // namespace corral::scheduler
