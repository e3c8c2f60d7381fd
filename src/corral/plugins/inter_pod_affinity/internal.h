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
#include "corral/framework/filter_score_data.h"
#include "corral/framework/handle.h"
#include "corral/framework/node_info.h"
#include "corral/framework/pod_info.h"
#include "corral/plugins/incremental/equality.h"
#include "corral/plugins/incremental/node_contributions.h"
#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"

namespace corral::plugins::inter_pod_affinity {

// A (topology key, value) pair packed into one integer: key symbol in the high half, value in
// the low.
inline uint64_t PairKey(Symbol key, Symbol value) {
  return (uint64_t{key.id()} << 32) | value.id();
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

// One of PreFilter's topology count maps (kube's topologyToMatchedTermCount): the aggregate of the
// plugin's cross-cycle cache, shared read-only, until AddPod/RemovePod switch it to a private copy.
// Only pairs with a non-zero count are present.
class Counts {
 public:
  Counts() = default;
  explicit Counts(std::shared_ptr<const incremental::Aggregate> shared)
      : shared_(std::move(shared)) {}
  Counts(const Counts& o)
      : shared_(o.shared_),
        own_(o.own_ ? std::make_unique<incremental::Aggregate>(*o.own_) : nullptr) {}
  Counts& operator=(const Counts&) = delete;
  Counts(Counts&&) = default;
  Counts& operator=(Counts&&) = default;

  int64_t Get(uint64_t key) const {
    const incremental::Aggregate* m = map();
    if (m == nullptr) return 0;
    auto it = m->find(key);
    return it == m->end() ? 0 : it->second.count;
  }
  bool empty() const { return map() == nullptr || map()->empty(); }
  // The distinct topology keys of the pairs present.
  std::vector<Symbol> Keys() const {
    std::vector<Symbol> keys;
    if (const incremental::Aggregate* m = map()) {
      for (const auto& [key, v] : *m) {
        const Symbol k(static_cast<uint32_t>(key >> 32));
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
      }
    }
    return keys;
  }
  // kube's update(): adds `delta` to (key, node's value) if the node has the label; drops zeros.
  void Update(const api::LabelSet& node_labels, Symbol key, int64_t delta) {
    const Symbol* value = node_labels.Find(key);
    if (value == nullptr) return;
    if (!own_) {
      own_ = shared_ ? std::make_unique<incremental::Aggregate>(*shared_)
                     : std::make_unique<incremental::Aggregate>();
    }
    const uint64_t k = PairKey(key, *value);
    incremental::Value& v = (*own_)[k];
    v.count += delta;
    v.refs = 1;
    if (v.count == 0) own_->erase(k);
  }

 private:
  const incremental::Aggregate* map() const { return own_ ? own_.get() : shared_.get(); }
  std::shared_ptr<const incremental::Aggregate> shared_;
  std::unique_ptr<incremental::Aggregate> own_;
};

// PreFilter's result (kube's preFilterState).
struct PreFilterState {
  Counts existing_anti_affinity;  // existing pods' required anti-affinity terms matching the pod
  // The topology keys of existing_anti_affinity's pairs (a superset after AddPod/RemovePod): Filter
  // looks up only these instead of every label of the node.
  std::vector<Symbol> existing_anti_keys;
  Counts affinity;                 // pods matching all the pod's required affinity terms
  Counts anti_affinity;            // pods matching the pod's required anti-affinity terms
  api::LabelSet namespace_labels;  // the incoming pod's namespace labels (empty if unknown)
  bool self_matches_all = false;   // the pod matches all its own required affinity terms
};

// PreScore's result (kube's preScoreState.topologyScore). Read-only once written.
struct PreScoreState {
  std::shared_ptr<const incremental::Aggregate> scores;  // PairKey → score (count)
  std::vector<Symbol> keys;  // the topology keys present in `scores` or `added`
  // Incremental PreScore (AddPod): contributions of pods added since `scores` was computed, PairKey
  // → count; a pair's score is the sum of both.
  absl::flat_hash_map<uint64_t, int64_t> added;
};

// Signatures of the cached aggregates: everything a node's contribution depends on besides
// the node.
struct ExistingAntiSignature {  // existing pods' required anti-affinity terms vs the incoming pod
  api::LabelSet labels;
  Symbol ns;
  api::LabelSet ns_labels;
  bool operator==(const ExistingAntiSignature&) const = default;
};
struct TermsSignature {  // pods matching the incoming pod's required (anti-)affinity terms
  std::vector<framework::AffinityTerm> terms;
  // NamespaceWatch::Epoch when a term reads namespace labels (ReadsNamespaceLabels), else 0.
  uint64_t ns_version = 0;
  bool operator==(const TermsSignature& o) const {
    return ns_version == o.ns_version && incremental::Equal(terms, o.terms);
  }
};
struct ScoreSignature {
  api::LabelSet labels;
  Symbol ns;
  api::LabelSet ns_labels;
  bool has_constraints = false;
  std::vector<framework::AffinityTerm> preferred;
  std::vector<framework::AffinityTerm> preferred_anti;
  uint64_t ns_version = 0;  // as in TermsSignature
  bool operator==(const ScoreSignature& o) const {
    return labels == o.labels && ns == o.ns && ns_labels == o.ns_labels &&
           ns_version == o.ns_version && has_constraints == o.has_constraints &&
           incremental::Equal(preferred, o.preferred) &&
           incremental::Equal(preferred_anti, o.preferred_anti);
  }
};

// Terms whose matching reads namespace labels through the Handle (a non-empty namespaceSelector):
// their results may change without any node changing, so their cached aggregates are keyed on
// NamespaceWatch's epoch as well.
inline bool ReadsNamespaceLabels(std::span<const framework::AffinityTerm> terms) {
  for (const auto& t : terms) {
    if (t.namespace_selector.has_value() && (!t.namespace_selector->match_labels.empty() ||
                                             !t.namespace_selector->match_expressions.empty())) {
      return true;
    }
  }
  return false;
}

// The namespaces whose labels the cached derivations of terms with a namespaceSelector have read,
// as they were read. Contract: Epoch() is called before each use of such a cache and Note() for
// the namespace of every existing pod a derivation matches such a term against. Epoch() returns
// the current epoch after checking that every noted namespace still exists as noted with the same
// labels; if one changed, a new epoch starts with nothing noted, so aggregates keyed on an older
// epoch are never used again. Namespaces do not change during a cycle.
class NamespaceWatch {
 public:
  uint64_t Epoch(const framework::Handle& handle) {
    for (const auto& [name, read] : read_) {
      const api::Namespace* ns = handle.GetNamespace(name);
      if ((ns != nullptr) != read.present || (ns != nullptr && !(ns->meta.labels == read.labels))) {
        ++epoch_;
        read_.clear();
        break;
      }
    }
    return epoch_;
  }
  void Note(Symbol name, const framework::Handle& handle) {
    auto [it, inserted] = read_.try_emplace(name);
    if (!inserted) return;
    if (const api::Namespace* ns = handle.GetNamespace(name)) {
      it->second.present = true;
      it->second.labels = ns->meta.labels;
    }
  }

 private:
  struct Read {
    bool present = false;
    api::LabelSet labels;
  };
  absl::flat_hash_map<Symbol, Read> read_;
  uint64_t epoch_ = 1;  // 0 keys the aggregates of terms that read no namespace labels
};

// The plugin's CycleState slot holds both states.
using CycleData = framework::FilterScoreData<PreFilterState, PreScoreState>;

}  // namespace corral::plugins::inter_pod_affinity

namespace corral::plugins {
struct InterPodAffinity::Caches {
  incremental::ContributionCache<inter_pod_affinity::ExistingAntiSignature> existing_anti;
  incremental::ContributionCache<inter_pod_affinity::TermsSignature> affinity;
  incremental::ContributionCache<inter_pod_affinity::TermsSignature> anti;
  incremental::ContributionCache<inter_pod_affinity::ScoreSignature> score;
  inter_pod_affinity::NamespaceWatch namespaces;
};
}  // namespace corral::plugins
