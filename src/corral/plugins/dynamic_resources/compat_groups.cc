#include "corral/plugins/dynamic_resources/compat_groups.h"

#include <algorithm>

namespace corral::plugins::dra {

namespace res = api::resource;

namespace {

bool Contains(std::span<const Symbol> groups, Symbol g) {
  return std::find(groups.begin(), groups.end(), g) != groups.end();
}

}  // namespace

bool GroupIntersection::Admits(std::span<const Symbol> groups) const {
  if (!has_members_) return true;
  // A groupless device joins only groupless members, and a device with groups joins only members
  // with groups it shares.
  if (groups.empty()) return all_empty_;
  if (all_empty_) return false;
  for (Symbol g : groups) {
    if (Contains(groups_, g)) return true;
  }
  return false;
}

void GroupIntersection::Add(std::span<const Symbol> groups) {
  if (!has_members_) {
    has_members_ = true;
    all_empty_ = groups.empty();
    groups_.clear();
    for (Symbol g : groups) {
      if (!Contains(groups_, g)) groups_.push_back(g);
    }
    return;
  }
  // One side named no group: Admits allowed it only when both did, so nothing narrows.
  if (all_empty_ || groups.empty()) return;
  groups_.erase(std::remove_if(groups_.begin(), groups_.end(),
                               [&](Symbol g) { return !Contains(groups, g); }),
                groups_.end());
}

void CompatBaseline::AddAllocated(Symbol driver, Symbol pool, const res::Device& d, bool enabled) {
  for (const auto& cc : d.consumes_counters) {
    const CounterSetKey key{driver, pool, cc.counter_set};
    if (enabled) {
      // kube folds every allocated device in, whether or not the slice changed since: what the
      // slice says now is what counts, as for the counters themselves.
      baseline_[key].Add(cc.compatibility_groups);
    } else if (!cc.compatibility_groups.empty()) {
      grouped_.insert(key);
    }
  }
}

const GroupIntersection* CompatBaseline::Find(const CounterSetKey& key) const {
  auto it = baseline_.find(key);
  return it == baseline_.end() ? nullptr : &it->second;
}

bool SkipWhileDisabled(const CompatBaseline& baseline, Symbol driver, Symbol pool,
                       const res::Device& d) {
  for (const auto& cc : d.consumes_counters) {
    if (!cc.compatibility_groups.empty()) return true;
    if (!baseline.empty() && baseline.Grouped({driver, pool, cc.counter_set})) return true;
  }
  return false;
}

bool CompatSearch::Admit(Symbol driver, Symbol pool, const res::Device& d) {
  const size_t mark = Mark();
  for (const auto& cc : d.consumes_counters) {
    const CounterSetKey key{driver, pool, cc.counter_set};
    size_t i = 0;
    while (i < running_.size() && !(running_[i].key == key)) ++i;
    const bool existed = i < running_.size();
    GroupIntersection cur;
    if (existed) {
      cur = running_[i].state;
    } else if (const GroupIntersection* b = baseline_.Find(key); b != nullptr) {
      cur = *b;  // first touch: seeded from the allocated devices
    }
    if (!cur.Admits(cc.compatibility_groups)) {
      Rollback(mark);
      return false;
    }
    undo_.push_back({i, cur, existed});
    cur.Add(cc.compatibility_groups);
    if (existed) {
      running_[i].state = cur;
    } else {
      running_.push_back({key, cur});
    }
  }
  return true;
}

void CompatSearch::Rollback(size_t mark) {
  while (undo_.size() > mark) {
    const Undo& u = undo_.back();
    if (u.existed) {
      running_[u.running].state = u.prev;
    } else {
      running_.pop_back();
    }
    undo_.pop_back();
  }
}

}  // namespace corral::plugins::dra
