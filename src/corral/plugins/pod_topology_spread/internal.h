#pragma once
// PodTopologySpread internals shared by its .cc files and tests: the parsed constraint, the
// critical paths and the per-cycle state. Not for other plugins.

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "corral/api/selectors.h"
#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/framework/cycle_state.h"
#include "corral/framework/filter_score_data.h"
#include "corral/framework/node_info.h"
#include "corral/framework/pod_info.h"
#include "corral/plugins/incremental/equality.h"
#include "corral/plugins/incremental/node_contributions.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"

namespace corral::plugins::pod_topology_spread {

// kube's topologySpreadConstraint: a v1 constraint with its selector parsed and policies defaulted.
struct Constraint {
  int32_t max_skew = 1;
  Symbol topology_key;
  // nullopt: labels.Nothing() (a nil labelSelector) — matches no pod. matchLabelKeys values are
  // merged in as `key In (value)` requirements.
  std::optional<api::LabelSelector> selector;
  int32_t min_domains = 1;          // nil ⇒ 1
  bool honor_node_affinity = true;  // nodeAffinityPolicy, nil ⇒ Honor
  bool honor_node_taints = false;   // nodeTaintsPolicy, nil ⇒ Ignore

  bool Matches(const api::LabelSet& labels) const {
    return selector.has_value() && api::Matches(*selector, labels);
  }
  // labels.Selector.Empty(): a selector with no requirements. kube counts no existing pod for it
  // (countPodsMatchSelector), although it matches every pod elsewhere.
  bool SelectorEmpty() const {
    return selector.has_value() && selector->match_labels.empty() &&
           selector->match_expressions.empty();
  }
};

// kube's countPodsMatchSelector: pods of `ns` on the node that match, terminating pods excluded.
int64_t CountPodsMatching(std::span<const framework::PodInfo* const> pods, const Constraint& c,
                          Symbol ns);

// Whether the node carries every constraint's topology key
// (kube's nodeLabelsMatchSpreadConstraints).
bool NodeHasAllKeys(const api::LabelSet& labels, std::span<const Constraint> constraints);

// kube's nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and required
// node affinity.
bool MatchesRequiredNodeAffinity(const api::Pod& pod, const api::Node& node,
                                 const Interner& interner);
// No NoSchedule/NoExecute taint of the node is left untolerated by the pod.
bool ToleratesNodeTaints(const api::Pod& pod, const api::Node& node);

// Lazily evaluated node inclusion policies for one (pod, node) pair
// (kube's matchNodeInclusionPolicies).
class NodeInclusion {
 public:
  NodeInclusion(const api::Pod& pod, const api::Node& node, const Interner& interner)
      : pod_(pod), node_(node), interner_(interner) {}
  bool AffinityMatches() {
    if (!affinity_known_) {
      affinity_ = MatchesRequiredNodeAffinity(pod_, node_, interner_);
      affinity_known_ = true;
    }
    return affinity_;
  }
  bool Includes(const Constraint& c) {
    if (c.honor_node_affinity && !AffinityMatches()) return false;
    if (c.honor_node_taints) {
      if (!taints_known_) {
        taints_ = ToleratesNodeTaints(pod_, node_);
        taints_known_ = true;
      }
      if (!taints_) return false;
    }
    return true;
  }

 private:
  const api::Pod& pod_;
  const api::Node& node_;
  const Interner& interner_;
  // Plain flags rather than std::optional<bool>: GCC 12 -O3 reports a false maybe-uninitialized on
  // the optional's engaged byte.
  bool affinity_known_ = false;
  bool affinity_ = false;
  bool taints_known_ = false;
  bool taints_ = false;
};

inline constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();

// kube's criticalPaths: the two domains with the fewest matching pods, kept up to date under AddPod
// / RemovePod. paths[0].match_num is the minimum; paths[1] is ≥ it but not necessarily the second
// minimum. Domains are keyed by value symbol; the empty placeholder value behaves like kube's ""
// (see Update).
struct CriticalPaths {
  struct Path {
    Symbol value;
    int64_t match_num = kMaxInt32;
    bool operator==(const Path&) const = default;
  };
  Path paths[2];

  void Update(Symbol value, int64_t num);
};

// The constraints of one cycle and what depends only on them and the pod (shared by state clones).
struct ConstraintSet {
  std::vector<Constraint> constraints;
  std::vector<uint8_t> self_match;  // 1 if the incoming pod matches constraint i's selector
};

// A (constraint index, topology value) pair as an aggregate key.
inline uint64_t DomainKey(size_t constraint, Symbol value) {
  return (static_cast<uint64_t>(constraint) << 32) | value.id();
}
inline size_t DomainConstraint(uint64_t key) {
  return static_cast<size_t>(key >> 32);
}
inline Symbol DomainValue(uint64_t key) {
  return Symbol(static_cast<uint32_t>(key & 0xffffffffu));
}

// PreFilter's result (kube's preFilterState). The domain counts (kube's TpValueToMatchNum) are the
// aggregate of the plugin's cross-cycle cache, shared read-only; AddPod/RemovePod switch to a
// private copy.
//
// The critical paths are built only when first needed (by AddPod/RemovePod, or a test), by the
// same walk over the shared counts that kube's PreFilter makes; Filter needs only their minimum,
// which PreFilter takes from the cache's group summary (the smallest domain count per constraint)
// together with the number of domains. Both equal what the walk would give.
struct PreFilterState {
  std::shared_ptr<const ConstraintSet> set;
  std::vector<CriticalPaths> paths;  // per constraint; empty until MaterializePaths
  std::vector<int64_t> domains;      // per constraint: number of domains (for minDomains)
  std::vector<int64_t> min_match;    // per constraint: the smallest domain count (kMaxInt32: none)
  std::shared_ptr<const incremental::Aggregate> shared_counts;
  std::unique_ptr<incremental::Aggregate> own_counts;  // set after AddPod/RemovePod

  PreFilterState() = default;
  PreFilterState(const PreFilterState& o)
      : set(o.set),
        paths(o.paths),
        domains(o.domains),
        min_match(o.min_match),
        shared_counts(o.shared_counts),
        own_counts(o.own_counts ? std::make_unique<incremental::Aggregate>(*o.own_counts)
                                : nullptr) {}
  PreFilterState& operator=(const PreFilterState&) = delete;

  const incremental::Aggregate& counts() const { return own_counts ? *own_counts : *shared_counts; }
  // Matching pods in domain `value` of constraint i (0 when it is not a domain).
  int64_t MatchNum(size_t i, Symbol value) const {
    const auto& c = counts();
    auto it = c.find(DomainKey(i, value));
    return it == c.end() ? 0 : it->second.count;
  }
  // The global minimum for the skew, 0 while there are fewer domains than minDomains.
  int64_t MinMatchNum(size_t i) const {
    if (domains[i] < set->constraints[i].min_domains) return 0;
    return paths.empty() ? min_match[i] : paths[i].paths[0].match_num;
  }
  // Builds the critical paths from the counts (kube's calPreFilterState walk), once. Domain order
  // does not change paths[0] (the minimum). For paths[1] kube's order is Go's random map order;
  // here it is the aggregate's.
  void MaterializePaths() {
    if (!paths.empty() || set->constraints.empty()) return;
    paths.resize(set->constraints.size());
    for (const auto& [key, v] : counts())
      paths[DomainConstraint(key)].Update(DomainValue(key), v.count);
  }
};

// What the cached domain counts depend on besides the nodes: the incoming pod's namespace, the
// constraints' keys, selectors and inclusion policies, and — only when a policy consults them — the
// pod's node affinity and tolerations. Equal signatures give equal per-node counts.
struct CountSignature {
  enum class Mode : uint8_t { kFilter, kScoreRequireAll, kScore };
  Mode mode = Mode::kFilter;
  bool inclusion_gate = true;
  Symbol ns;
  std::vector<Constraint> constraints;
  bool uses_affinity = false;
  api::LabelSet node_selector;
  std::optional<api::NodeSelector> required_affinity;
  bool uses_taints = false;
  std::vector<api::Toleration> tolerations;

  bool operator==(const CountSignature& o) const;
};

CountSignature MakeCountSignature(CountSignature::Mode mode, const api::Pod& pod,
                                  const std::vector<Constraint>& constraints, bool inclusion_gate);

}  // namespace corral::plugins::pod_topology_spread

namespace corral::plugins::pod_topology_spread {

// Score's per-node count for a hostname constraint (kube's countPodsMatchSelector over the node's
// pods), memoized across cycles for one (namespace, selector) pair. An entry is valid while the
// node's NodeInfo generation is the one it was counted at: generations change on every mutation and
// are shared only by unmutated copies, which hold the same pods. PreScore fills the entries of the
// nodes it is given (on the scheduling thread); Score only reads them and counts afresh on a miss,
// so a stale or missing entry never changes a score.
class HostCounts {
 public:
  HostCounts(Symbol ns, const std::optional<api::LabelSelector>& selector)
      : ns_(ns), selector_(selector) {}
  bool Same(Symbol ns, const std::optional<api::LabelSelector>& selector) const {
    return ns == ns_ && incremental::Equal(selector, selector_);
  }
  // Brings the node's entry up to date (scheduling thread only).
  void Refresh(const framework::NodeInfo& node, const Constraint& c);
  // The node's matching pods: the memoized count when current, else counted now.
  int64_t Count(const framework::NodeInfo& node, const Constraint& c) const;

 private:
  struct Entry {
    uint64_t generation = 0;
    int64_t count = 0;
  };
  Symbol ns_;
  std::optional<api::LabelSelector> selector_;
  absl::flat_hash_map<uint32_t, Entry> by_node_;  // by node name symbol id
};

}  // namespace corral::plugins::pod_topology_spread

namespace corral::plugins {
struct PodTopologySpread::Caches {
  incremental::ContributionCache<pod_topology_spread::CountSignature> filter;
  incremental::ContributionCache<pod_topology_spread::CountSignature> score;
  // Recently used hostname count memos (least recently used first); a PreScore state keeps the
  // ones it reads alive.
  std::vector<std::shared_ptr<pod_topology_spread::HostCounts>> host;
};
}  // namespace corral::plugins

namespace corral::plugins::pod_topology_spread {

// PreScore's result (kube's preScoreState). Read-only once written.
struct PreScoreState {
  std::vector<Constraint> constraints;
  absl::flat_hash_set<Symbol>
      ignored_nodes;  // by node name: missing a topology key (explicit constraints)
  // Per constraint, domain → matching pods; empty for hostname constraints, which Score counts on
  // the node.
  std::vector<absl::flat_hash_map<Symbol, int64_t>> pod_counts;
  std::vector<double> weights;  // log(domains + 2)
  // Per constraint: the hostname count memo (null for other keys, or when not incremental).
  std::vector<std::shared_ptr<const HostCounts>> host_counts;
  // Set by AddPod (incremental PreScore): the weights were unchanged by the added pod, so only the
  // nodes sharing a domain with it score differently. A fresh PreScore leaves it false.
  bool weights_unchanged = false;
};

// The plugin's CycleState slot holds both states.
using CycleData = framework::FilterScoreData<PreFilterState, PreScoreState>;

}  // namespace corral::plugins::pod_topology_spread
