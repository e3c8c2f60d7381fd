// The workload cycle of a CompositePodGroup hierarchy (KEP-6012; kube's RunRootSchedulingAlgorithm
// in pkg/scheduler/algorithm_podgroup.go):
//   1. Popping any member of a PodGroup whose parent chain ends in root CompositePodGroup R pops
//      every pending member of every PodGroup below R (same profile; gated members stay gated).
//   2. A CompositePodGroup is evaluated once per candidate placement: one per value of its
//      topology key (spec.schedulingConstraints.topology[0].key, with
//      TopologyAwareWorkloadScheduling on), else one placement holding every node of its parent's
//      placement. In a placement its children are evaluated in order (child CompositePodGroups,
//      then PodGroups, each in load order): a PodGroup as a standalone group's cycle does it
//      (inside the placement, with its own topology domains intersected with it), a child
//      CompositePodGroup recursively. GangScheduling's PlacementFeasible rule applies to the
//      children: the evaluation stops as soon as scheduled + remaining < minGroupCount (1 for
//      basic), and succeeds when scheduled >= minGroupCount.
//   3. A child that fails leaves no reservation; a CompositePodGroup that fails in a placement
//      rolls back every reservation below it. Of the feasible placements the one with the highest
//      PlacementBinPacking score over its nodes (the placed members assumed) wins, ties to the
//      first by value, and the subtree is evaluated there again (the same decisions, as everything
//      is deterministic).
//   4. The root commits when it succeeded and at least one pod was placed (kube's "no pods were
//      schedulable" otherwise): every member placed goes through Permit and binds; every other
//      member is requeued with its own fit error, its PodGroup's reason or the reason of the
//      nearest CompositePodGroup above it that failed. A root that fails rolls everything back and
//      the members back off as one group.

#include <algorithm>
#include <cmath>
#include <deque>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "corral/pipeline/select.h"
#include "corral/scheduler/placement_score.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

using framework::Code;
using framework::PodInfo;
using framework::Status;

// One PodGroup of the hierarchy in this cycle.
struct Scheduler::LeafRun {
  const api::PodGroup* pg = nullptr;
  framework::PodGroupState* group = nullptr;  // null when the scheduler knows none of its pods
  framework::ResolvedPodGroup resolved;
  std::vector<QueuedPod*> members;  // pending members taken from the queue, signature-ordered
  std::vector<MemberResult> results;
  std::string failure;      // why its last evaluation failed; empty after a success
  std::string orig_domain;  // group->domain before the cycle (restored when a trial rolls back)
};

struct Scheduler::CompositeRun {
  framework::Framework* fwk = nullptr;
  std::deque<LeafRun> leaves;  // depth-first, children in ChildrenOf order
  absl::flat_hash_map<const api::PodGroup*, LeafRun*> by_group;
  absl::flat_hash_map<const api::CompositePodGroup*, std::string> failures;
};

namespace {

// The part of placement `d` inside `within`, in snapshot order: `&d` itself when `within` is null
// or holds all of it (no copy: nested topology levels usually nest), null when they share no node,
// else a copy of the common part kept in `local`.
// (A template so that it can name Scheduler's private PlacementDomain through deduction.)
template <class Domain>
const Domain* Intersect(const Domain& d, const Domain* within, std::deque<Domain>& local) {
  if (within == nullptr) return &d;
  size_t inside = 0;
  for (const framework::NodeInfo* n : d.nodes) inside += within->names.contains(n->name()) ? 1 : 0;
  if (inside == d.nodes.size()) return &d;
  if (inside == 0) return nullptr;
  Domain& out = local.emplace_back();
  out.value = d.value;
  for (const framework::NodeInfo* n : d.nodes) {
    if (!within->names.contains(n->name())) continue;
    out.nodes.push_back(n);
    out.names.insert(n->name());
  }
  return &out;
}

}  // namespace

const api::CompositePodGroup* Scheduler::CompositeRootOf(
    const framework::ResolvedPodGroup& resolved) const {
  const api::PodGroup* pg = resolved.pod_group;
  if (pg == nullptr || pg->parent_name.empty() ||
      !options_.gates.Enabled(framework::Feature::kCompositePodGroup)) {
    return nullptr;
  }
  Symbol root_name;
  return wm_.RootComposite(pg->meta.namespace_, pg->parent_name, &root_name);
}

Status Scheduler::CompositeHierarchyReady(const api::PodGroup& pg) const {
  Symbol root_name;
  const api::CompositePodGroup* root =
      wm_.RootComposite(pg.meta.namespace_, pg.parent_name, &root_name);
  if (root == nullptr || wm_.ReadyChildren(*root) < root->MinGroupCount()) {
    return Status::WithOwnedReason(
        Code::kUnschedulableAndUnresolvable,
        fmt::format("waiting for composite pod group {:?} tree to meet quorum",
                    interner_.Str(root_name)));
  }
  return {};
}

void Scheduler::RetryGatedInHierarchy(const api::CompositePodGroup& root) {
  for (const WorkloadManager::CompositeChild& c : wm_.ChildrenOf(root)) {
    if (c.composite != nullptr) {
      RetryGatedInHierarchy(*c.composite);
      continue;
    }
    framework::PodGroupState* g = wm_.Get(framework::PodGroupKey{
        c.pod_group->meta.namespace_, Symbol(), c.pod_group->meta.name, Symbol(), false});
    if (g == nullptr) continue;
    for (const PodInfo* p : g->all) {
      auto it = pods_.find(p->pod);
      if (it != pods_.end() && it->second->where == QueueLocation::kGated)
        queue_->RetryGated(it->second.get());
    }
  }
}

bool Scheduler::EvalLeaf(CompositeRun& run, LeafRun& leaf, const PlacementDomain* within) {
  (void)run;
  const int32_t need = leaf.resolved.MinCount();
  const std::string key = fmt::format("{}/{}", interner_.Str(leaf.pg->meta.namespace_),
                                      interner_.Str(leaf.pg->meta.name));
  const char* kind = leaf.resolved.IsGang() ? "gang" : "group";
  framework::PodGroupState* group = leaf.group;
  if (group == nullptr) {
    leaf.failure = fmt::format("{} {}: 0/0 members fit, minCount {}", kind, key, need);
    return false;
  }
  const auto already = static_cast<int32_t>(group->assumed.size() + group->assigned.size());
  auto feasible = [&](int32_t placed) { return already + placed >= need; };
  int32_t placed = 0;
  std::string failure;
  const api::PodGroup* pg = leaf.pg;
  if (!pg->topology_keys.empty() &&
      options_.gates.Enabled(framework::Feature::kTopologyAwareWorkloadScheduling)) {
    // The PodGroup's own domains, inside the placement its parent is being evaluated in.
    const Symbol tkey = pg->topology_keys.front();
    const std::string prefix = fmt::format("{}=", interner_.Str(tkey));
    std::string_view kept;
    if (group->domain.size() > prefix.size())
      kept = std::string_view(group->domain).substr(prefix.size());
    std::deque<PlacementDomain> local;
    std::vector<std::pair<const PlacementDomain*, int64_t>> feasible_domains;
    int32_t best_fit = 0;
    for (const PlacementDomain& d : TopologyDomains(tkey)) {
      if (!group->domain.empty() && d.value != kept) continue;
      const PlacementDomain* use = Intersect(d, within, local);
      if (use == nullptr) continue;
      int32_t n = PlaceMembers(leaf.members, *group, leaf.resolved, use, leaf.results);
      best_fit = std::max(best_fit, n);
      if (feasible(n))
        feasible_domains.emplace_back(use, PlacementBinPackingScoreOfNodes(use->nodes));
      RollBack(leaf.results);
    }
    const size_t chosen = pipeline::SelectBest(
        feasible_domains.size(), [&](size_t i) { return feasible_domains[i].second; },
        [](size_t) { return uint64_t{0}; });
    if (chosen != pipeline::kNone) {
      const PlacementDomain* best = feasible_domains[chosen].first;
      placed = PlaceMembers(leaf.members, *group, leaf.resolved, best, leaf.results);
      group->domain = prefix + std::string(best->value);
    } else {
      failure = fmt::format("{} {}: {}/{} members fit in one {} domain, minCount {}", kind, key,
                            already + best_fit, group->all.size(), interner_.Str(tkey), need);
    }
  } else {
    placed = PlaceMembers(leaf.members, *group, leaf.resolved, within, leaf.results);
  }
  if (failure.empty() && !feasible(placed)) {
    failure = fmt::format("{} {}: {}/{} members fit, minCount {}", kind, key, already + placed,
                          group->all.size(), need);
  }
  if (!failure.empty()) {
    RollBack(leaf.results);
    group->domain = leaf.orig_domain;
    leaf.failure = std::move(failure);
    return false;
  }
  leaf.failure.clear();
  return true;
}

void Scheduler::RollBackSubtree(CompositeRun& run, const api::CompositePodGroup& cpg) {
  const auto& children = wm_.ChildrenOf(cpg);
  for (auto it = children.rbegin(); it != children.rend(); ++it) {
    if (it->composite != nullptr) {
      RollBackSubtree(run, *it->composite);
      continue;
    }
    auto leaf = run.by_group.find(it->pod_group);
    if (leaf == run.by_group.end()) continue;
    RollBack(leaf->second->results);
    if (leaf->second->group != nullptr) leaf->second->group->domain = leaf->second->orig_domain;
  }
}

bool Scheduler::EvalCompositeChildren(CompositeRun& run, const api::CompositePodGroup& cpg,
                                      const PlacementDomain* within, std::string* failure) {
  const auto& children = wm_.ChildrenOf(cpg);
  const int32_t need = cpg.MinGroupCount();
  auto remaining = static_cast<int32_t>(children.size());
  int32_t scheduled = 0;
  for (const WorkloadManager::CompositeChild& c : children) {
    if (remaining + scheduled < need) break;  // kube's PlacementFeasible: Unschedulable
    bool ok = false;
    if (c.composite != nullptr) {
      std::string child_failure;
      ok = EvalCompositeNode(run, *c.composite, within, &child_failure);
      if (!ok) run.failures[c.composite] = std::move(child_failure);
    } else {
      ok = EvalLeaf(run, *run.by_group.at(c.pod_group), within);
    }
    --remaining;
    scheduled += ok ? 1 : 0;
  }
  if (scheduled >= need) return true;
  RollBackSubtree(run, cpg);
  *failure = fmt::format("composite group {}/{}: {}/{} child groups scheduled, minGroupCount {}",
                         interner_.Str(cpg.meta.namespace_), interner_.Str(cpg.meta.name),
                         scheduled, children.size(), need);
  return false;
}

bool Scheduler::EvalCompositeNode(CompositeRun& run, const api::CompositePodGroup& cpg,
                                  const PlacementDomain* within, std::string* failure) {
  if (cpg.topology_keys.empty() ||
      !options_.gates.Enabled(framework::Feature::kTopologyAwareWorkloadScheduling)) {
    return EvalCompositeChildren(run, cpg, within, failure);
  }
  const Symbol tkey = cpg.topology_keys.front();
  // The nodes of the pods already bound below this group: a tree that runs again for its pending
  // members (after its root committed) stays in the domain that holds them, as a running PodGroup
  // keeps its domain.
  std::vector<Symbol> pinned;
  auto collect_bound = [&](auto& self, const api::CompositePodGroup& c) -> void {
    for (const WorkloadManager::CompositeChild& child : wm_.ChildrenOf(c)) {
      if (child.composite != nullptr) {
        self(self, *child.composite);
        continue;
      }
      const framework::PodGroupState* g = wm_.Get(framework::PodGroupKey{
          child.pod_group->meta.namespace_, Symbol(), child.pod_group->meta.name, Symbol(), false});
      if (g == nullptr) continue;
      for (const PodInfo* p : g->assigned) pinned.push_back(cache_.NodeOf(p));
    }
  };
  collect_bound(collect_bound, cpg);
  std::deque<PlacementDomain> local;
  std::vector<const PlacementDomain*> candidates;
  for (const PlacementDomain& d : TopologyDomains(tkey)) {
    const bool holds_bound =
        std::all_of(pinned.begin(), pinned.end(), [&](Symbol n) { return d.names.contains(n); });
    if (!holds_bound) continue;
    if (const PlacementDomain* use = Intersect(d, within, local)) candidates.push_back(use);
  }
  const std::string name =
      fmt::format("{}/{}", interner_.Str(cpg.meta.namespace_), interner_.Str(cpg.meta.name));
  if (candidates.empty()) {
    *failure = pinned.empty() ? fmt::format("composite group {}: no node has the topology key {}",
                                            name, interner_.Str(tkey))
                              : fmt::format("composite group {}: no {} domain holds its bound pods",
                                            name, interner_.Str(tkey));
    return false;
  }
  if (candidates.size() == 1) return EvalCompositeChildren(run, cpg, candidates[0], failure);
  std::vector<std::pair<const PlacementDomain*, int64_t>> feasible;
  std::string first_failure;
  for (const PlacementDomain* d : candidates) {
    std::string f;
    if (EvalCompositeChildren(run, cpg, d, &f)) {
      feasible.emplace_back(d, PlacementBinPackingScoreOfNodes(d->nodes));
      RollBackSubtree(run, cpg);
    } else if (first_failure.empty()) {
      first_failure = std::move(f);
    }
  }
  const size_t chosen = pipeline::SelectBest(
      feasible.size(), [&](size_t i) { return feasible[i].second; },
      [](size_t) { return uint64_t{0}; });
  if (chosen == pipeline::kNone) {
    *failure = fmt::format("{} in every {} domain ({} domains)", first_failure, interner_.Str(tkey),
                           candidates.size());
    return false;
  }
  return EvalCompositeChildren(run, cpg, feasible[chosen].first, failure);
}

void Scheduler::ScheduleComposite(QueuedPod* qp, const api::CompositePodGroup& root) {
  const TimePoint wall_start =
      options_.wall_clock != nullptr ? options_.wall_clock->Now() : TimePoint{};
  cycle_start_ = wall_start;
  framework::Framework& fwk = *qp->fwk;
  in_cycle_ = true;
  event_during_cycle_ = false;
  snapshot_ = &cache_.snapshot();

  // 1. Every PodGroup of the hierarchy with its pending members of this profile.
  CompositeRun run;
  run.fwk = &fwk;
  size_t total_members = 0;
  auto collect = [&](auto& self, const api::CompositePodGroup& cpg) -> void {
    for (const WorkloadManager::CompositeChild& c : wm_.ChildrenOf(cpg)) {
      if (c.composite != nullptr) {
        self(self, *c.composite);
        continue;
      }
      LeafRun& leaf = run.leaves.emplace_back();
      leaf.pg = c.pod_group;
      run.by_group[c.pod_group] = &leaf;
      leaf.resolved.pod_group = c.pod_group;
      leaf.resolved.policy = c.pod_group->policy;
      leaf.resolved.workload =
          GetWorkload(c.pod_group->meta.namespace_, c.pod_group->template_workload_name);
      leaf.group = wm_.Get(framework::PodGroupKey{c.pod_group->meta.namespace_, Symbol(),
                                                  c.pod_group->meta.name, Symbol(), false});
      if (leaf.group == nullptr) continue;
      leaf.orig_domain = leaf.group->domain;
      for (const PodInfo* p : leaf.group->all) {
        if (leaf.group->assumed.contains(p) || leaf.group->assigned.contains(p) ||
            waiting_.Contains(p)) {
          continue;
        }
        if (p == &qp->info) {
          leaf.members.push_back(qp);
          continue;
        }
        auto it = pods_.find(p->pod);
        if (it == pods_.end() || it->second->fwk != &fwk) continue;
        if (queue_->TakeForGroup(it->second.get())) leaf.members.push_back(it->second.get());
      }
      // Homogeneous sub-groups, as ScheduleGroup orders them.
      absl::flat_hash_map<std::string, size_t> rank;
      std::vector<std::pair<size_t, QueuedPod*>> keyed;
      for (size_t i = 0; i < leaf.members.size(); ++i) {
        size_t r = i + leaf.members.size();
        if (leaf.members[i]->signature.has_value())
          r = rank.emplace(*leaf.members[i]->signature, i).first->second;
        keyed.emplace_back(r, leaf.members[i]);
      }
      std::stable_sort(keyed.begin(), keyed.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < keyed.size(); ++i) leaf.members[i] = keyed[i].second;
      leaf.results.resize(leaf.members.size());
      for (size_t i = 0; i < leaf.members.size(); ++i) leaf.results[i].qp = leaf.members[i];
      total_members += leaf.members.size();
    }
  };
  collect(collect, root);

  // 2.-3. Evaluate the root.
  std::string failure;
  bool ok = EvalCompositeNode(run, root, nullptr, &failure);
  bool any_placed = false;
  for (const LeafRun& leaf : run.leaves) {
    for (const MemberResult& r : leaf.results) any_placed = any_placed || r.placed;
  }
  if (ok && !any_placed) {
    ok = false;
    failure = "no pods were schedulable";
  }
  if (!ok) run.failures[&root] = failure;

  // The reason a member that was not placed is given: its own fit error, its PodGroup's reason, or
  // the nearest failed CompositePodGroup above it.
  auto reason_of = [&](const LeafRun& leaf, const MemberResult& r) -> std::string {
    if (!r.failure.empty()) return r.failure;
    if (!leaf.failure.empty()) return leaf.failure;
    Symbol name = leaf.pg->parent_name;
    for (int depth = 0; depth < 4 && !name.empty(); ++depth) {
      const api::CompositePodGroup* c = wm_.GetCompositePodGroup(leaf.pg->meta.namespace_, name);
      if (c == nullptr) break;
      if (auto f = run.failures.find(c); f != run.failures.end()) return f->second;
      name = c->parent_name;
    }
    return "not evaluated in the composite pod group's cycle";
  };

  if (!ok) {
    // All or nothing at the root: no reservation of this cycle survives.
    RollBackSubtree(run, root);
    const double scale = std::sqrt(static_cast<double>(std::max<size_t>(total_members, 1)));
    for (LeafRun& leaf : run.leaves) {
      // KEP-5710 group preemption for every gang PodGroup whose own evaluation failed
      // (docs/deviations.md §CompositePodGroup); the tree retries once the victims are gone.
      std::string preemption;
      if (leaf.group != nullptr && !leaf.failure.empty() && !leaf.members.empty() &&
          leaf.resolved.IsGang() && fwk.HasPostFilterPlugins()) {
        preemption = PreemptForGroup(leaf.members, *leaf.group, leaf.resolved);
      }
      if (leaf.group != nullptr) {
        leaf.group->failure =
            WithPreemption(leaf.failure.empty() ? failure : leaf.failure, preemption);
      }
      for (MemberResult& r : leaf.results) {
        QueuedPod* m = r.qp;
        m->backoff_scale = scale;
        const std::string msg = WithPreemption(reason_of(leaf, r), preemption);
        ++stats_.unschedulable_attempts;
        RecordAttempt(fwk, "unschedulable");
        last_failure_[m->info.pod] = msg;
        if (observer_ != nullptr) observer_->OnUnschedulable(*m->info.pod, msg);
        queue_->Requeue(m, Code::kUnschedulable, event_during_cycle_);
      }
    }
    in_cycle_ = false;
    RecordGroupAttempt(fwk, "unschedulable", wall_start);
    return;
  }

  // 4. Commit.
  in_cycle_ = false;
  std::vector<std::pair<const LeafRun*, MemberResult*>> unplaced;
  for (LeafRun& leaf : run.leaves) {
    if (leaf.group != nullptr) {
      bool any = false;
      for (const MemberResult& r : leaf.results) any = any || r.placed;
      leaf.group->failure = any || leaf.members.empty() ? std::string() : reason_of(leaf, {});
    }
    for (MemberResult& r : leaf.results) {
      if (r.placed) {
        if (r.hinted) ++stats_.batched;
        r.qp->backoff_scale = 1.0;
        PermitAndBind(r.qp, std::move(r.state), r.node, wall_start);
      } else {
        unplaced.emplace_back(&leaf, &r);
      }
    }
  }
  for (auto [leaf, r] : unplaced) {
    const std::string msg = reason_of(*leaf, *r);
    ++stats_.unschedulable_attempts;
    RecordAttempt(fwk, "unschedulable");
    last_failure_[r->qp->info.pod] = msg;
    if (observer_ != nullptr) observer_->OnUnschedulable(*r->qp->info.pod, msg);
    queue_->Requeue(r->qp, Code::kUnschedulable, event_during_cycle_);
  }
  RecordGroupAttempt(fwk, "scheduled", wall_start);
}

}  // namespace corral::scheduler
