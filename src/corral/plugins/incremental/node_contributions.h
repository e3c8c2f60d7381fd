#pragma once
// Cross-cycle aggregates of per-node contributions, for plugins whose PreFilter/PreScore would
// otherwise rescan every pod of the cluster in every scheduling cycle (PodTopologySpread's domain
// counts, InterPodAffinity's topology counts).
//
// A contribution is a short list of (key, count) pairs that a plugin derives from one node alone:
// its labels, taints and pods, for a given incoming-pod "signature" (the inputs of the derivation).
// The aggregate sums the contributions of every node of the snapshot. Refresh() re-derives only the
// nodes whose NodeInfo changed since the previous call (NodeInfo::generation is bumped by every
// mutation) and patches the aggregate, so a cycle costs O(nodes) generation checks plus O(changed
// nodes) derivations instead of O(pods) selector matches. Adding, removing or reordering nodes
// rebuilds from scratch.
//
// The result is exact: the aggregate equals the sum of freshly derived contributions, provided the
// derivation reads nothing but the node, its pods and the signature (REQUIRES).
//
// When no other thread mutated a NodeInfo since the previous call, and the node list is the same
// (compared pointer by pointer: a sequential read), only the NodeInfos that this thread's
// generation log (framework/node_generation_log.h) names are checked, so a cycle costs O(changed
// nodes) plus the list comparison. Otherwise every node is checked; the result is the same.
//
// Group summaries (EnableGroupSummaries, optional): keys are grouped by their high 32 bits (e.g. a
// constraint index); per group, the number of present keys and the smallest count among them are
// kept up to date under every change, so a consumer needing them need not walk the aggregate.
//
// Threading: Refresh runs on the scheduling thread (PreFilter, PreScore). The returned aggregate is
// shared and never mutated while a caller still holds it: the next Refresh copies it first.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include "corral/framework/node_generation_log.h"
#include "corral/framework/node_info.h"

namespace corral::plugins::incremental {

// One aggregated key: the sum of its counts and the number of contributions that name it. A key is
// present while refs > 0, so a contribution of 0 still makes it present (e.g. a topology domain
// without matching pods).
struct Value {
  int64_t count = 0;
  int32_t refs = 0;
};
using Aggregate = absl::flat_hash_map<uint64_t, Value>;
using Contribution = absl::InlinedVector<std::pair<uint64_t, int64_t>, 2>;

class NodeContributions {
 public:
  // Brings the aggregate up to date with `nodes` (the snapshot's node list) and returns it.
  // `derive(node, out)` appends the node's contribution to `out` (empty on entry).
  template <class Derive>
  std::shared_ptr<const Aggregate> Refresh(std::span<const framework::NodeInfo* const> nodes,
                                           Derive&& derive) {
    const uint64_t upto = framework::LatestNodeGeneration();
    const bool same_nodes = !check_every_node_ && have_since_ &&
                            last_nodes_.size() == nodes.size() &&
                            std::equal(nodes.begin(), nodes.end(), last_nodes_.begin());
    if (same_nodes && framework::NodesChangedOnThisThread(since_, upto, &changed_)) {
      PrepareAggregate();
      if (positions_.empty() && !changed_.empty()) {
        positions_.reserve(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i) positions_[nodes[i]] = i;
      }
      for (const framework::NodeInfo* n : changed_) {
        auto it = positions_.find(n);
        if (it != positions_.end()) Update(entries_[it->second], n, derive);  // else not ours
      }
    } else {
      RefreshAll(nodes, derive);
      if (!same_nodes) {
        last_nodes_.assign(nodes.begin(), nodes.end());
        positions_.clear();
      }
    }
    since_ = upto;
    have_since_ = true;
    return aggregate_;
  }

  // Checks every node on each Refresh, as without the generation log (tests and benchmarks compare
  // both ways).
  void set_check_every_node(bool on) { check_every_node_ = on; }

  // Keeps group summaries from now on (see the file comment); a no-op when already kept.
  void EnableGroupSummaries() {
    if (summaries_enabled_) return;
    summaries_enabled_ = true;
    if (aggregate_) {
      for (const auto& [key, v] : *aggregate_) Summarize(key, v, +1);
    }
  }
  // The number of present keys in `group`, and the smallest count among them (`none` when the
  // group has no key). REQUIRES: EnableGroupSummaries.
  int64_t GroupKeys(uint32_t group) const {
    return group < summaries_.size() ? summaries_[group].keys : 0;
  }
  int64_t GroupMinCount(uint32_t group, int64_t none) const {
    if (group >= summaries_.size() || summaries_[group].counts.empty()) return none;
    return summaries_[group].counts.begin()->first;
  }

 private:
  struct Entry {
    const framework::NodeInfo* node = nullptr;
    const api::Node* api_node = nullptr;
    uint64_t generation = 0;
    Contribution contribution;
  };
  // Per group: present keys, and how many keys hold each count.
  struct Summary {
    int64_t keys = 0;
    std::map<int64_t, int32_t> counts;
  };

  void PrepareAggregate() {
    if (!aggregate_) {
      aggregate_ = std::make_shared<Aggregate>();
    } else if (aggregate_.use_count() > 1) {
      aggregate_ = std::make_shared<Aggregate>(*aggregate_);  // a caller still holds the old one
    }
  }

  template <class Derive>
  std::shared_ptr<const Aggregate> RefreshAll(std::span<const framework::NodeInfo* const> nodes,
                                              Derive& derive) {
    PrepareAggregate();
    if (entries_.size() != nodes.size()) {
      aggregate_->clear();
      summaries_.clear();
      entries_.clear();
      entries_.resize(nodes.size());
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i + kPrefetchDistance < nodes.size()) Prefetch(nodes[i + kPrefetchDistance]);
      Update(entries_[i], nodes[i], derive);
    }
    return aggregate_;
  }

  // Re-derives the entry's node when it is another node or changed since it was derived.
  template <class Derive>
  void Update(Entry& e, const framework::NodeInfo* n, Derive& derive) {
    if (e.node == n && e.api_node == n->node() && e.generation == n->generation()) return;
    Apply(e.contribution, -1);
    e.contribution.clear();
    derive(*n, &e.contribution);
    Apply(e.contribution, +1);
    e.node = n;
    e.api_node = n->node();
    e.generation = n->generation();
  }

  // The check reads two words of every NodeInfo (its node pointer, first, and its generation,
  // last); NodeInfos are scattered, so the loop is bound by memory latency. Prefetching a few nodes
  // ahead keeps several misses in flight. Only a hint: a wrong address costs nothing.
  static constexpr size_t kPrefetchDistance = 8;
  static void Prefetch(const framework::NodeInfo* n) {
    const char* base = reinterpret_cast<const char*>(n);
    __builtin_prefetch(base);
    __builtin_prefetch(base + sizeof(framework::NodeInfo) - sizeof(uint64_t));
  }

  void Apply(const Contribution& c, int sign) {
    for (const auto& [key, count] : c) {
      Value& v = (*aggregate_)[key];
      if (summaries_enabled_) Summarize(key, v, -1);
      v.count += sign * count;
      v.refs += sign;
      if (summaries_enabled_) Summarize(key, v, +1);
      if (v.refs == 0) aggregate_->erase(key);
    }
  }
  // Removes (sign -1) or adds (+1) a key's value in its group summary; absent keys do not count.
  void Summarize(uint64_t key, const Value& v, int sign) {
    if (v.refs == 0) return;
    const auto group = static_cast<uint32_t>(key >> 32);
    if (group >= summaries_.size()) summaries_.resize(group + 1);
    Summary& s = summaries_[group];
    s.keys += sign;
    if (sign > 0) {
      ++s.counts[v.count];
    } else if (auto it = s.counts.find(v.count); it != s.counts.end() && --it->second == 0) {
      s.counts.erase(it);
    }
  }

  std::vector<Entry> entries_;
  std::shared_ptr<Aggregate> aggregate_;
  bool summaries_enabled_ = false;
  std::vector<Summary> summaries_;  // by group
  // The newest generation at the last Refresh, its node list, each listed node's index in entries_
  // (built on the first refresh that reads the log), and scratch for the changed nodes.
  bool check_every_node_ = false;
  bool have_since_ = false;
  uint64_t since_ = 0;
  std::vector<const framework::NodeInfo*> last_nodes_;
  absl::flat_hash_map<const framework::NodeInfo*, size_t> positions_;
  std::vector<const framework::NodeInfo*> changed_;
};

// A few NodeContributions, one per recently seen signature (least recently used evicted). Workloads
// interleave a handful of pod shapes; each keeps its own aggregate warm.
template <class Signature, size_t kCapacity = 4>
class ContributionCache {
 public:
  // The contributions for `sig` (a fresh, empty one when `sig` was not seen recently).
  NodeContributions& Get(const Signature& sig) {
    ++clock_;
    for (auto& slot : slots_) {
      if (slot.sig == sig) {
        slot.last_used = clock_;
        return *slot.contributions;
      }
    }
    if (slots_.size() < kCapacity) {
      slots_.push_back({sig, std::make_unique<NodeContributions>(), clock_});
      return *slots_.back().contributions;
    }
    Slot* victim = &slots_[0];
    for (auto& slot : slots_) {
      if (slot.last_used < victim->last_used) victim = &slot;
    }
    *victim = {sig, std::make_unique<NodeContributions>(), clock_};
    return *victim->contributions;
  }

 private:
  struct Slot {
    Signature sig;
    std::unique_ptr<NodeContributions> contributions;
    uint64_t last_used = 0;
  };
  std::vector<Slot> slots_;
  uint64_t clock_ = 0;
};

}  // namespace corral::plugins::incremental
