#pragma once
// InterPodAffinity internals shared by its .cc files and tests: term matching, topology counts and
// the per-cycle state. Not for other plugins.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/selectors.h"
#include "corral/api/types.h"
#include "corral/framework/cycle_state.h"
#include "corral/framework/handle.h"
#include "corral/framework/node_info.h"
#include "corral/framework/pod_info.h"

namespace corral::plugins::inter_pod_affinity {

// A (topology key, value) pair packed into one integer: key symbol in the high half, value in the
// low.
inline uint64_t PairKey(Symbol key, Symbol value) {
  return (uint64_t{key.id()} << 32) | value.id();
}

// kube's topologyToMatchedTermCount. Entries that drop to 0 are erased (kube deletes them), so
// size() counts the pairs with a non-zero count.
using TopologyCounts = absl::flat_hash_map<uint64_t, int64_t>;

// Adds `delta` to the pair (key, node's value for key) if the node has the label (kube's update()).
inline void UpdateCount(TopologyCounts& counts, const api::LabelSet& node_labels, Symbol key,
                        int64_t delta) {
  const Symbol* value = node_labels.Find(key);
  if (value == nullptr) return;
  const uint64_t k = PairKey(key, *value);
  int64_t& c = counts[k];
  c += delta;
  if (c == 0) counts.erase(k);
}

inline bool ContainsNamespace(const std::vector<Symbol>& namespaces, Symbol ns) {
  return std::binary_search(namespaces.begin(), namespaces.end(), ns);
}

inline bool SelectorMatches(const std::optional<api::LabelSelector>& selector,
                            const api::LabelSet& labels) {
  return selector.has_value() && api::Matches(*selector, labels);
}

// A term of the incoming pod against an existing pod. kube first unrolls a non-empty
// namespaceSelector into the namespaces it matches (through the namespace lister) and then matches
// `existing` with no namespace labels; evaluating the selector on the existing pod's namespace
// (absent namespace ⇒ no match) is the same. An empty namespaceSelector matches every namespace.
inline bool MatchesIncomingTerm(const framework::AffinityTerm& t, const api::Pod& existing,
                                const framework::Handle& handle) {
  bool ns_ok = ContainsNamespace(t.namespaces, existing.meta.namespace_);
  if (!ns_ok && t.namespace_selector.has_value()) {
    const api::LabelSelector& sel = *t.namespace_selector;
    if (sel.match_labels.empty() && sel.match_expressions.empty()) {
      ns_ok = true;
    } else if (const api::Namespace* ns = handle.GetNamespace(existing.meta.namespace_)) {
      ns_ok = api::Matches(sel, ns->meta.labels);
    }
  }
  return ns_ok && SelectorMatches(t.selector, existing.meta.labels);
}

// kube's AffinityTerm.Matches(pod, nsLabels): an existing pod's term (namespaceSelector not
// unrolled) against `pod`, whose namespace has labels `ns_labels`.
inline bool MatchesTerm(const framework::AffinityTerm& t, const api::Pod& pod,
                        const api::LabelSet& ns_labels) {
  const bool ns_ok = ContainsNamespace(t.namespaces, pod.meta.namespace_) ||
                     SelectorMatches(t.namespace_selector, ns_labels);
  return ns_ok && SelectorMatches(t.selector, pod.meta.labels);
}

// kube's podMatchesAllAffinityTerms for the incoming pod's terms: false for no terms.
inline bool MatchesAllIncomingTerms(std::span<const framework::AffinityTerm> terms,
                                    const api::Pod& pod, const framework::Handle& handle) {
  if (terms.empty()) return false;
  for (const auto& t : terms) {
    if (!MatchesIncomingTerm(t, pod, handle)) return false;
  }
  return true;
}

// PreFilter's result (kube's preFilterState).
struct PreFilterState {
  TopologyCounts
      existing_anti_affinity;      // existing pods' required anti-affinity terms matching the pod
  TopologyCounts affinity;         // pods matching all the pod's required affinity terms
  TopologyCounts anti_affinity;    // pods matching the pod's required anti-affinity terms
  api::LabelSet namespace_labels;  // the incoming pod's namespace labels (empty if unknown)
  bool self_matches_all = false;   // the pod matches all its own required affinity terms
};

// PreScore's result (kube's preScoreState.topologyScore). Read-only once written.
struct PreScoreState {
  absl::flat_hash_map<uint64_t, int64_t> scores;  // PairKey → score
  std::vector<Symbol> keys;                       // the topology keys present in `scores`
};

struct CycleData final : framework::StateData {
  std::unique_ptr<PreFilterState> pre_filter;
  std::shared_ptr<const PreScoreState> pre_score;

  std::unique_ptr<framework::StateData> Clone() const override {
    auto c = std::make_unique<CycleData>();
    if (pre_filter) c->pre_filter = std::make_unique<PreFilterState>(*pre_filter);
    c->pre_score = pre_score;
    return c;
  }
};

}  // namespace corral::plugins::inter_pod_affinity
