#pragma once
// Preemption's victim order and reprieve loop, for every preemptor (a pod on one node, a gang over
// the cluster; KEP-5710 §Preemption algorithm): one importance order over preemption units, and one
// "remove every potential victim, then reprieve — PodDisruptionBudget violators first" loop.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "corral/core/clock.h"
#include "corral/pipeline/status.h"

namespace corral::pipeline {

// What the importance order reads of a preemption unit (a lone pod, or a pod group evicted whole).
struct VictimRank {
  int32_t priority = 0;
  bool group = false;  // a pod group's unit (the caller decides which groups rank as groups)
  size_t size = 1;     // the unit's pods
  TimePoint start;     // the earliest start of its pods
  size_t order = 0;    // discovery order: the final tie-break, so the order is total
};

// kube's MoreImportantVictim (pkg/scheduler/framework/preemption): higher priority first; at equal
// priority a group before a lone pod; two groups: more pods first, then the earlier earliest start;
// two lone pods: the earlier start; then discovery order.
inline bool MoreImportantVictim(const VictimRank& a, const VictimRank& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.group != b.group) return a.group;
  if (a.group && a.size != b.size) return a.size > b.size;
  if (a.start != b.start) return a.start < b.start;
  return a.order < b.order;
}

// Sorts `units` most important first; `rank(unit)` returns its VictimRank.
template <class Unit, class RankOf>
void SortByImportance(std::span<Unit> units, RankOf&& rank) {
  std::sort(units.begin(), units.end(),
            [&](const Unit& a, const Unit& b) { return MoreImportantVictim(rank(a), rank(b)); });
}

// Which units the second pass of ReprieveUnits visits.
enum class SecondPass : uint8_t {
  // The units that do not violate a budget (kube's SelectVictimsOnNode: a violator that could not
  // be reprieved stays a victim).
  kNonViolators,
  // Every unit (workload preemption: the preemptor is placed again between the passes, so a
  // violator that could not be reprieved against the first placement is tried again).
  kAll,
};

// The reprieve loop. REQUIRES: `units` sorted by importance (SortByImportance) and every one of
// them removed, with the preemptor fitting. First the units for which `violates(unit)` holds, then
// `between()` (which may re-place the preemptor), then the second pass; each in importance order.
// `reprieve(unit)` puts the unit back and keeps it if the preemptor still fits, otherwise removes
// it again; it returns an error only when a plugin fails, which stops the loop.
template <class Unit, class Violates, class Reprieve, class Between>
Status ReprieveUnits(std::span<Unit> units, SecondPass second, Violates&& violates,
                     Reprieve&& reprieve, Between&& between) {
  for (Unit& u : units) {
    if (!violates(u)) continue;
    if (Status s = reprieve(u); !s.ok()) return s;
  }
  if (Status s = between(); !s.ok()) return s;
  for (Unit& u : units) {
    if (second == SecondPass::kNonViolators && violates(u)) continue;
    if (Status s = reprieve(u); !s.ok()) return s;
  }
  return {};
}

}  // namespace corral::pipeline
