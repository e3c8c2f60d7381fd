#include "corral/plugins/default_preemption/victim_units.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <absl/container/flat_hash_set.h>

#include "corral/framework/pdb.h"
#include "corral/pipeline/reprieve.h"

namespace corral::plugins {

using framework::NodeInfo;
using framework::PodGroupState;
using framework::PodInfo;
using framework::Status;

namespace {

struct AllGroup {
  const api::PodGroup* group = nullptr;
  PodGroupState* state = nullptr;
};

// The disruptionMode-all PodGroup of `p` and its run-time state; both null when `p` is in no such
// group (or the scheduler does not track the group).
AllGroup AllGroupOf(framework::Handle& handle, const PodInfo& p) {
  const api::Pod& pod = *p.pod;
  if (!pod.scheduling_group.has_value()) return {};
  const api::PodGroup* pg =
      handle.GetPodGroup(pod.meta.namespace_, pod.scheduling_group->pod_group_name);
  if (pg == nullptr || pg->disruption_mode != api::DisruptionMode::kAll) return {};
  PodGroupState* st = handle.GetPodGroupState(p);
  if (st == nullptr) return {};
  return {pg, st};
}

// The preemptor's own group state (members of it are never victims), or null.
const PodGroupState* OwnGroup(framework::Handle& handle, const PodInfo& preemptor) {
  return preemptor.pod->scheduling_group.has_value() ? handle.GetPodGroupState(preemptor) : nullptr;
}

}  // namespace

bool VictimUnits::HostsAllModeMember(framework::Handle& handle, const NodeInfo& node,
                                     const PodInfo& preemptor) {
  if (!handle.HasAllModePodGroups()) return false;
  bool own_known = false;
  const PodGroupState* own = nullptr;
  for (const PodInfo* p : node.pods()) {
    if (p->priority() >= preemptor.priority()) continue;
    const AllGroup g = AllGroupOf(handle, *p);
    if (g.group == nullptr) continue;
    if (!own_known) {
      own = OwnGroup(handle, preemptor);
      own_known = true;
    }
    if (g.state != own) return true;
  }
  return false;
}

bool VictimUnits::Build(framework::Handle& handle, const NodeInfo& node, const PodInfo& preemptor) {
  units_.clear();
  on_node_.clear();
  if (!HostsAllModeMember(handle, node, preemptor)) return false;
  now_ = handle.clock().Now();
  auto start_of = [&](const PodInfo* p) { return p->pod->start_time.value_or(now_); };
  const PodGroupState* own = OwnGroup(handle, preemptor);
  constexpr size_t kProtected = std::numeric_limits<size_t>::max();
  std::vector<std::pair<const PodGroupState*, size_t>> seen;  // group → unit index, or kProtected
  absl::flat_hash_set<const PodInfo*> candidates;             // pods taken off this node
  for (const PodInfo* p : node.pods()) {
    if (p->priority() >= preemptor.priority()) continue;
    const AllGroup g = AllGroupOf(handle, *p);
    if (g.group == nullptr) {
      VictimUnit& u = units_.emplace_back();
      u.pods.push_back(p);
      u.nodes.push_back(node.name());
      u.on_node = 1;
      u.priority = p->priority();
      u.start = start_of(p);
      candidates.insert(p);
      continue;
    }
    if (g.state == own) continue;
    if (std::any_of(seen.begin(), seen.end(), [&](const auto& e) { return e.first == g.state; })) {
      continue;  // its unit holds every member already
    }
    // Every placed member: those on this node first, then the others, each in arrival order.
    VictimUnit u;
    u.group = g.group;
    u.priority = std::numeric_limits<int32_t>::min();
    std::vector<std::pair<const PodInfo*, Symbol>> elsewhere;
    bool has_p = false;
    for (const PodInfo* m : g.state->all) {
      const Symbol n = handle.NodeOfPod(*m);
      if (n.empty()) continue;
      has_p = has_p || m == p;
      u.priority = std::max(u.priority, m->priority());
      if (n == node.name()) {
        u.pods.push_back(m);
        u.nodes.push_back(n);
      } else {
        elsewhere.emplace_back(m, n);
      }
    }
    if (!has_p) {  // not expected: the group state lists every member the scheduler knows
      u.pods.insert(u.pods.begin(), p);
      u.nodes.insert(u.nodes.begin(), node.name());
      u.priority = std::max(u.priority, p->priority());
    }
    u.on_node = u.pods.size();
    for (const auto& [m, n] : elsewhere) {
      u.pods.push_back(m);
      u.nodes.push_back(n);
    }
    if (u.priority >= preemptor.priority()) {
      seen.emplace_back(g.state, kProtected);  // as important as the preemptor: no member goes
      continue;
    }
    u.start = start_of(u.pods.front());
    for (const PodInfo* m : u.pods) u.start = std::min(u.start, start_of(m));
    for (size_t i = 0; i < u.on_node; ++i) candidates.insert(u.pods[i]);
    seen.emplace_back(g.state, units_.size());
    units_.push_back(std::move(u));
  }
  for (size_t i = 0; i < units_.size(); ++i) units_[i].order = i;
  pipeline::SortByImportance(std::span<VictimUnit>(units_), [](const VictimUnit& u) {
    return pipeline::VictimRank{.priority = u.priority,
                                .group = u.group != nullptr,
                                .size = u.pods.size(),
                                .start = u.start,
                                .order = u.order};
  });
  // The pods taken off the node copy, in node order.
  for (const PodInfo* p : node.pods()) {
    if (candidates.contains(p)) on_node_.push_back(p);
  }
  // PodDisruptionBudgets (kube filterPodsWithPDBViolation over units): every pod a unit evicts
  // draws on its budgets, in importance order.
  std::vector<std::pair<const api::PodDisruptionBudget*, int32_t>> left;
  for (VictimUnit& u : units_) {
    for (const PodInfo* p : u.pods) {
      for (const api::PodDisruptionBudget* pdb :
           handle.PodDisruptionBudgets(p->pod->meta.namespace_)) {
        if (!framework::PdbCoversForPreemption(*pdb, *p->pod)) continue;
        auto it =
            std::find_if(left.begin(), left.end(), [&](const auto& e) { return e.first == pdb; });
        if (it == left.end()) {
          left.emplace_back(pdb, framework::DisruptionsAllowed(handle, *pdb));
          it = left.end() - 1;
        }
        if (--it->second < 0) u.violates_pdb = true;
      }
    }
  }
  return true;
}

Status VictimUnits::Reprieve(const UnitDryRun& ops,
                             std::vector<framework::PreemptionVictim>* victims,
                             int32_t* num_pdb_violations) const {
  *num_pdb_violations = 0;
  std::vector<const VictimUnit*> evicted;
  // Puts the unit's pods on this node back; keeps them if the preemptor still fits.
  auto reprieve = [&](const VictimUnit& u) -> Status {
    for (size_t i = 0; i < u.on_node; ++i) {
      if (Status s = ops.add(u.pods[i]); !s.ok()) return s;
    }
    if (ops.fits()) return {};
    for (size_t i = 0; i < u.on_node; ++i) {
      if (Status s = ops.remove(u.pods[i]); !s.ok()) return s;
    }
    evicted.push_back(&u);
    return {};
  };
  Status looped = pipeline::ReprieveUnits(
      std::span<const VictimUnit>(units_), pipeline::SecondPass::kNonViolators,
      [](const VictimUnit& u) { return u.violates_pdb; }, reprieve, [] { return Status(); });
  if (!looped.ok()) return looped;
  const size_t first = victims->size();
  for (const VictimUnit* u : evicted) {
    for (size_t i = 0; i < u->pods.size(); ++i) {
      victims->push_back(
          {u->pods[i], u->violates_pdb, u->group != nullptr ? u->nodes[i] : Symbol(), u->group});
      if (u->violates_pdb) ++*num_pdb_violations;
    }
  }
  // Most important first, as PickOneNodeForPreemption expects of a candidate's victims.
  auto start_of = [&](const PodInfo* p) { return p->pod->start_time.value_or(now_); };
  std::stable_sort(victims->begin() + static_cast<std::ptrdiff_t>(first), victims->end(),
                   [&](const framework::PreemptionVictim& a, const framework::PreemptionVictim& b) {
                     if (a.pod->priority() != b.pod->priority())
                       return a.pod->priority() > b.pod->priority();
                     return start_of(a.pod) < start_of(b.pod);
                   });
  return {};
}

}  // namespace corral::plugins
