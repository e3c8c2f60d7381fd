#pragma once
// Device compatibility groups (DRADeviceCompatibilityGroups, KEP-5963) as kube v1.37's structured
// allocator checks them. A device's consumesCounters entry may name compatibility groups; two
// devices that draw on the same counter set of a pool may be allocated together only when
// their groups intersect, or when neither names any group:
//   - GroupIntersection is kube's compatibilityGroupIntersection for one counter set: the running
//     intersection of the groups of the devices placed on it so far, with "every member named no
//     group" kept apart (an empty intersection would otherwise reject a second groupless device);
//   - CompatBaseline holds, per (driver, pool, counter set), what the allocated devices contribute,
//     read from their slices as kube's compatibilityGroupsBaselineForPool does, or, with the gate
//     off, the counter sets on which an allocated device names groups (groupedCounterSetsForPool);
//   - CompatSearch is the state of one allocation attempt: the baseline plus the devices being
//     allocated, with an undo log so that the search can drop a device when it backtracks;
//   - SkipWhileDisabled is kube's version-skew skip with the gate off: a device that names groups,
//     or draws on a counter set where an allocated device names groups, is not allocated.
// Only devices that consume counters take part; the allocator skips the check, as kube does, for a
// further share of a device with allowMultipleAllocations that is already in use.

#include <cstddef>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>

#include "corral/api/resource/types.h"
#include "corral/core/interner.h"

namespace corral::plugins::dra {

// kube's ResourceSliceMaxCompatibilityGroupsPerConsumption: the loader refuses more groups in one
// consumesCounters entry, so an intersection never holds more.
inline constexpr size_t kMaxCompatibilityGroups = 8;

// The compatibility-group intersection of the devices placed on one counter set.
class GroupIntersection {
 public:
  // Whether a device that names `groups` (empty: none) may join the devices placed so far.
  bool Admits(std::span<const Symbol> groups) const;
  // Folds in a device that Admits accepted.
  void Add(std::span<const Symbol> groups);

  bool has_members() const { return has_members_; }
  bool all_empty() const { return all_empty_; }
  std::span<const Symbol> groups() const { return groups_; }

 private:
  bool has_members_ = false;  // false: any device is admitted
  bool all_empty_ = false;    // every member named no group: only groupless devices join
  absl::InlinedVector<Symbol, kMaxCompatibilityGroups> groups_;  // the running intersection
};

// A counter set of a pool.
struct CounterSetKey {
  Symbol driver, pool, set;
  bool operator==(const CounterSetKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const CounterSetKey& k) {
    return H::combine(std::move(h), k.driver, k.pool, k.set);
  }
};

// What the allocated devices contribute, for all pools (built once per allocator).
class CompatBaseline {
 public:
  // Records allocated device `d` of pool (driver, pool). `enabled`: the gate's value.
  void AddAllocated(Symbol driver, Symbol pool, const api::resource::Device& d, bool enabled);

  // The intersection of the allocated devices on `key`; nullptr when none draws on it.
  const GroupIntersection* Find(const CounterSetKey& key) const;
  // Gate off: whether an allocated device names groups on `key`.
  bool Grouped(const CounterSetKey& key) const { return grouped_.contains(key); }
  bool empty() const { return baseline_.empty() && grouped_.empty(); }

 private:
  absl::flat_hash_map<CounterSetKey, GroupIntersection> baseline_;
  absl::flat_hash_set<CounterSetKey> grouped_;
};

// Gate off: whether kube skips device `d` of pool (driver, pool).
bool SkipWhileDisabled(const CompatBaseline& baseline, Symbol driver, Symbol pool,
                       const api::resource::Device& d);

// The compatibility state of one allocation attempt (kube's consumedCompatibilityGroups).
class CompatSearch {
 public:
  explicit CompatSearch(const CompatBaseline& baseline) : baseline_(baseline) {}

  // A point to roll back to.
  size_t Mark() const { return undo_.size(); }
  // Checks device `d` of pool (driver, pool) against every counter set it draws on and, when all
  // admit it, folds it in and returns true. Otherwise the state is left as it was.
  bool Admit(Symbol driver, Symbol pool, const api::resource::Device& d);
  // Undoes every Admit since `mark`, newest first.
  void Rollback(size_t mark);

 private:
  struct Running {
    CounterSetKey key;
    GroupIntersection state;
  };
  struct Undo {
    size_t running;  // index into running_
    GroupIntersection prev;
    bool existed;  // false: running_[running] was added by this step (then it is the last one)
  };
  const CompatBaseline& baseline_;
  // The counter sets touched so far; a node has few, so a short list searched in order.
  std::vector<Running> running_;
  std::vector<Undo> undo_;
};

}  // namespace corral::plugins::dra
