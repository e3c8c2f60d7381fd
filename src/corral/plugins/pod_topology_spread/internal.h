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
#include "corral/framework/node_info.h"
#include "corral/framework/pod_info.h"

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

// Whether the node carries every constraint's topology key (kube's
// nodeLabelsMatchSpreadConstraints).
bool NodeHasAllKeys(const api::LabelSet& labels, std::span<const Constraint> constraints);

// kube's nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and required node
// affinity.
bool MatchesRequiredNodeAffinity(const api::Pod& pod, const api::Node& node,
                                 const Interner& interner);
// No NoSchedule/NoExecute taint of the node is left untolerated by the pod.
bool ToleratesNodeTaints(const api::Pod& pod, const api::Node& node);

// Lazily evaluated node inclusion policies for one (pod, node) pair (kube's
// matchNodeInclusionPolicies).
class NodeInclusion {
 public:
  NodeInclusion(const api::Pod& pod, const api::Node& node, const Interner& interner)
      : pod_(pod), node_(node), interner_(interner) {}
  bool AffinityMatches() {
    if (!affinity_) affinity_ = MatchesRequiredNodeAffinity(pod_, node_, interner_);
    return *affinity_;
  }
  bool Includes(const Constraint& c) {
    if (c.honor_node_affinity && !AffinityMatches()) return false;
    if (c.honor_node_taints) {
      if (!taints_) taints_ = ToleratesNodeTaints(pod_, node_);
      if (!*taints_) return false;
    }
    return true;
  }

 private:
  const api::Pod& pod_;
  const api::Node& node_;
  const Interner& interner_;
  std::optional<bool> affinity_;
  std::optional<bool> taints_;
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

// PreFilter's result (kube's preFilterState).
struct PreFilterState {
  std::shared_ptr<const ConstraintSet> set;
  std::vector<CriticalPaths> paths;  // per constraint
  std::vector<absl::flat_hash_map<Symbol, int64_t>>
      match_num;  // per constraint: domain → matching pods

  // The global minimum for the skew, 0 while there are fewer domains than minDomains.
  int64_t MinMatchNum(size_t i) const {
    const auto& c = set->constraints[i];
    if (static_cast<int64_t>(match_num[i].size()) < c.min_domains) return 0;
    return paths[i].paths[0].match_num;
  }
};

// PreScore's result (kube's preScoreState). Read-only once written.
struct PreScoreState {
  std::vector<Constraint> constraints;
  absl::flat_hash_set<Symbol>
      ignored_nodes;  // by node name: missing a topology key (explicit constraints)
  // Per constraint, domain → matching pods; empty for hostname constraints, which Score counts on
  // the node.
  std::vector<absl::flat_hash_map<Symbol, int64_t>> pod_counts;
  std::vector<double> weights;  // log(domains + 2)
};

// The plugin's CycleState slot holds both states.
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

}  // namespace corral::plugins::pod_topology_spread
