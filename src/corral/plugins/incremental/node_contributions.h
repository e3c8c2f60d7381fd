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
// Threading: Refresh runs on the scheduling thread (PreFilter, PreScore). The returned aggregate is
// shared and never mutated while a caller still holds it: the next Refresh copies it first.

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

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
    if (!aggregate_) {
      aggregate_ = std::make_shared<Aggregate>();
    } else if (aggregate_.use_count() > 1) {
      aggregate_ = std::make_shared<Aggregate>(*aggregate_);  // a caller still holds the old one
    }
    if (entries_.size() != nodes.size()) {
      aggregate_->clear();
      entries_.clear();
      entries_.resize(nodes.size());
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i + kPrefetchDistance < nodes.size()) Prefetch(nodes[i + kPrefetchDistance]);
      const framework::NodeInfo* n = nodes[i];
      Entry& e = entries_[i];
      if (e.node == n && e.api_node == n->node() && e.generation == n->generation()) continue;
      Apply(e.contribution, -1);
      e.contribution.clear();
      derive(*n, &e.contribution);
      Apply(e.contribution, +1);
      e.node = n;
      e.api_node = n->node();
      e.generation = n->generation();
    }
    return aggregate_;
  }

 private:
  struct Entry {
    const framework::NodeInfo* node = nullptr;
    const api::Node* api_node = nullptr;
    uint64_t generation = 0;
    Contribution contribution;
  };

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
      v.count += sign * count;
      v.refs += sign;
      if (v.refs == 0) aggregate_->erase(key);
    }
  }

  std::vector<Entry> entries_;
  std::shared_ptr<Aggregate> aggregate_;
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
