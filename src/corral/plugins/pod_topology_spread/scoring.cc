// PodTopologySpread: PreScore, Score and NormalizeScore (kube's scoring.go).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "corral/api/well_known.h"
#include "corral/plugins/pod_topology_spread/internal.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"

namespace corral::plugins {

using pod_topology_spread::Constraint;
using pod_topology_spread::CountSignature;
using pod_topology_spread::CycleData;
using pod_topology_spread::DomainKey;
using pod_topology_spread::NodeInclusion;
using pod_topology_spread::PreScoreState;

namespace {

constexpr std::string_view kPreScoreStateMissing =
    "error reading \"PreScorePodTopologySpread\" from cycleState: not found";

// kube's topologyNormalizingWeight: log(size + 2); size is at least 1 in practice, so the weight is
// in [1.09, 8.52] for up to 5000 domains.
double TopologyNormalizingWeight(size_t size) {
  return std::log(static_cast<double>(size + 2));
}

// kube's scoreForCount: maxSkew − 1 waters down the differences between domains.
double ScoreForCount(int64_t count, int32_t max_skew, double weight) {
  return static_cast<double>(count) * weight + static_cast<double>(max_skew - 1);
}

// A missing label reads as "" (kube indexes node.Labels directly), i.e. the empty symbol.
Symbol LabelOrEmpty(const api::LabelSet& labels, Symbol key) {
  const Symbol* v = labels.Find(key);
  return v == nullptr ? Symbol() : *v;
}

}  // namespace

std::shared_ptr<pod_topology_spread::HostCounts> PodTopologySpread::HostCountsFor(
    Symbol ns, const Constraint& c) {
  constexpr size_t kCapacity = 4;
  auto& host = caches_->host;
  for (size_t k = 0; k < host.size(); ++k) {
    if (!host[k]->Same(ns, c.selector)) continue;
    std::rotate(host.begin() + static_cast<std::ptrdiff_t>(k),
                host.begin() + static_cast<std::ptrdiff_t>(k) + 1, host.end());
    return host.back();
  }
  if (host.size() == kCapacity) host.erase(host.begin());
  host.push_back(std::make_shared<pod_topology_spread::HostCounts>(ns, c.selector));
  return host.back();
}

framework::Status PodTopologySpread::PreScore(framework::CycleState& state, size_t slot,
                                              const framework::PodInfo& pod,
                                              std::span<const framework::NodeInfo* const> nodes) {
  const framework::Snapshot& snapshot = handle_.snapshot();
  if (snapshot.NumNodes() == 0) return framework::Status::Skip();  // no need to score

  const api::Pod& p = *pod.pod;
  auto s = std::make_shared<PreScoreState>();
  s->constraints = GetConstraints(pod, api::WhenUnsatisfiable::kScheduleAnyway);
  if (s->constraints.empty()) return framework::Status::Skip();
  const std::vector<Constraint>& cs = s->constraints;
  // Only explicit constraints (or List defaulting) require nodes to carry every topology key;
  // system defaulting still spreads by hostname over nodes without a zone label.
  const bool require_all = !p.topology_spread_constraints.empty() || !system_defaulted_;

  // kube's initPreScoreState over the filtered nodes.
  s->pod_counts.resize(cs.size());
  std::vector<size_t> topo_size(cs.size(), 0);
  for (const framework::NodeInfo* node : nodes) {
    const api::LabelSet& labels = node->labels();
    if (require_all && !pod_topology_spread::NodeHasAllKeys(labels, cs)) {
      s->ignored_nodes.insert(node->name());
      continue;
    }
    for (size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].topology_key == api::wk::kHostnameLabel) continue;  // counted per node in Score
      if (s->pod_counts[i].try_emplace(LabelOrEmpty(labels, cs[i].topology_key), 0).second)
        ++topo_size[i];
    }
  }
  s->weights.resize(cs.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    size_t size = topo_size[i];
    if (cs[i].topology_key == api::wk::kHostnameLabel)
      size = nodes.size() - s->ignored_nodes.size();
    s->weights[i] = TopologyNormalizingWeight(size);
  }

  // Count matching pods over all nodes, for the domains of the filtered nodes: from the cross-cycle
  // cache (per (constraint, value) over every node that passes kube's checks), read for
  // those domains.
  bool any_domain = false;
  for (const auto& m : s->pod_counts) any_domain |= !m.empty();
  if (any_domain) {
    const Symbol ns = p.meta.namespace_;
    const Interner& interner = handle_.interner();
    const bool gate = enable_node_inclusion_policy_;
    auto derive = [&](const framework::NodeInfo& node, incremental::Contribution* out) {
      const api::LabelSet& labels = node.labels();
      NodeInclusion inclusion(p, *node.node(), interner);
      if (!gate && !inclusion.AffinityMatches()) return;
      if (require_all && !pod_topology_spread::NodeHasAllKeys(labels, cs)) return;
      for (size_t i = 0; i < cs.size(); ++i) {
        if (cs[i].topology_key == api::wk::kHostnameLabel) continue;  // counted per node in Score
        if (gate && !inclusion.Includes(cs[i])) continue;
        out->push_back({DomainKey(i, LabelOrEmpty(labels, cs[i].topology_key)),
                        pod_topology_spread::CountPodsMatching(node.pods(), cs[i], ns)});
      }
    };
    incremental::NodeContributions fresh;
    incremental::NodeContributions& cache =
        incremental_ ? caches_->score.Get(pod_topology_spread::MakeCountSignature(
                           require_all ? CountSignature::Mode::kScoreRequireAll
                                       : CountSignature::Mode::kScore,
                           p, cs, gate))
                     : fresh;
    const std::shared_ptr<const incremental::Aggregate> counts =
        cache.Refresh(snapshot.nodes(), derive);
    for (size_t i = 0; i < cs.size(); ++i) {
      for (auto& [value, count] : s->pod_counts[i]) {
        auto it = counts->find(DomainKey(i, value));
        if (it != counts->end()) count = it->second.count;
      }
    }
  }

  // Hostname constraints: Score counts the matching pods on each scored node; the counts of nodes
  // unchanged since an earlier cycle with the same namespace and selector are reused.
  s->host_counts.resize(cs.size());
  if (incremental_) {
    for (size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].topology_key != api::wk::kHostnameLabel) continue;
      std::shared_ptr<pod_topology_spread::HostCounts> memo =
          HostCountsFor(p.meta.namespace_, cs[i]);
      for (const framework::NodeInfo* node : nodes) memo->Refresh(*node, cs[i]);
      s->host_counts[i] = std::move(memo);
    }
  }

  auto* data = state.Get<CycleData>(slot);
  if (data == nullptr) {
    state.Write(slot, std::make_unique<CycleData>());
    data = state.Get<CycleData>(slot);
  }
  data->pre_score = std::move(s);
  return {};
}

framework::Status PodTopologySpread::AddPod(
    framework::CycleState& state, size_t slot, const framework::PodInfo& pod,
    const framework::PodInfo& added, const framework::NodeInfo& node,
    std::span<const framework::NodeInfo* const> nodes) const {
  // A Skip stays a Skip: the constraints depend on the pod (and, defaulted, on Services), not
  // on placements.
  if (slot < state.skip_score().size() && state.skip_score()[slot])
    return framework::Status::Skip();
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error("no PreScore state to update");
  }
  const PreScoreState& old = *data->pre_score;
  const api::Pod& p = *pod.pod;
  auto s = std::make_shared<PreScoreState>();
  s->constraints = old.constraints;
  s->host_counts = old.host_counts;
  const std::vector<Constraint>& cs = s->constraints;
  const bool require_all = !p.topology_spread_constraints.empty() || !system_defaulted_;
  // PreScore's pass over the feasible nodes, with the counts carried over from the old state (the
  // feasible nodes only lose nodes between two rescores; a new domain means they did not).
  s->pod_counts.resize(cs.size());
  std::vector<size_t> topo_size(cs.size(), 0);
  for (const framework::NodeInfo* n : nodes) {
    const api::LabelSet& labels = n->labels();
    if (require_all && !pod_topology_spread::NodeHasAllKeys(labels, cs)) {
      s->ignored_nodes.insert(n->name());
      continue;
    }
    for (size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].topology_key == api::wk::kHostnameLabel) continue;
      const Symbol value = LabelOrEmpty(labels, cs[i].topology_key);
      auto [it, inserted] = s->pod_counts[i].try_emplace(value, 0);
      if (!inserted) continue;
      ++topo_size[i];
      auto o = old.pod_counts[i].find(value);
      if (o == old.pod_counts[i].end()) return framework::Status::Error("a new topology domain");
      it->second = o->second;
    }
  }
  s->weights.resize(cs.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    size_t size = topo_size[i];
    if (cs[i].topology_key == api::wk::kHostnameLabel)
      size = nodes.size() - s->ignored_nodes.size();
    s->weights[i] = TopologyNormalizingWeight(size);
  }
  // PreScore's per-node derivation for the added pod alone.
  const api::LabelSet& labels = node.labels();
  if (!require_all || pod_topology_spread::NodeHasAllKeys(labels, cs)) {
    NodeInclusion inclusion(p, *node.node(), handle_.interner());
    const bool gate = enable_node_inclusion_policy_;
    if (gate || inclusion.AffinityMatches()) {
      const framework::PodInfo* one[1] = {&added};
      for (size_t i = 0; i < cs.size(); ++i) {
        if (cs[i].topology_key == api::wk::kHostnameLabel) continue;  // counted per node in Score
        if (gate && !inclusion.Includes(cs[i])) continue;
        auto it = s->pod_counts[i].find(LabelOrEmpty(labels, cs[i].topology_key));
        if (it != s->pod_counts[i].end()) {
          it->second += pod_topology_spread::CountPodsMatching(one, cs[i], p.meta.namespace_);
        }
      }
    }
  }
  s->weights_unchanged = s->weights == old.weights;
  state.Get<CycleData>(slot)->pre_score = std::move(s);
  return {};
}

framework::Status PodTopologySpread::Rescore(const framework::CycleState& state, size_t slot,
                                             const framework::PodInfo& pod,
                                             const framework::NodeInfo& placed,
                                             std::span<const framework::NodeInfo* const> nodes,
                                             std::vector<framework::NodeRescore>* changed) const {
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error(std::string(kPreScoreStateMissing));
  }
  const PreScoreState& s = *data->pre_score;
  const api::LabelSet& placed_labels = placed.labels();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const framework::NodeInfo& n = *nodes[i];
    // Unchanged weights: only the placed node (hostname counts) and the nodes sharing one of its
    // domains (domain counts) score differently.
    bool affected = !s.weights_unchanged || n.name() == placed.name();
    for (size_t c = 0; !affected && c < s.constraints.size(); ++c) {
      const Symbol key = s.constraints[c].topology_key;
      if (key == api::wk::kHostnameLabel) continue;
      const Symbol* pv = placed_labels.Find(key);
      const Symbol* v = n.labels().Find(key);
      affected = pv != nullptr && v != nullptr && *pv == *v;
    }
    if (!affected) continue;
    int64_t raw = 0;
    if (framework::Status st = Score(state, slot, pod, n, &raw); !st.ok()) return st;
    changed->push_back({static_cast<uint32_t>(i), raw});
  }
  return {};
}

framework::Status PodTopologySpread::Score(const framework::CycleState& state, size_t slot,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node, int64_t* score) const {
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error(std::string(kPreScoreStateMissing));
  }
  const PreScoreState& s = *data->pre_score;
  *score = 0;
  if (s.ignored_nodes.contains(node.name())) return {};
  const api::LabelSet& labels = node.labels();
  double sum = 0;
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    const Constraint& c = s.constraints[i];
    const Symbol* value = labels.Find(c.topology_key);
    if (value == nullptr) continue;
    int64_t count = 0;
    if (c.topology_key == api::wk::kHostnameLabel) {
      count =
          i < s.host_counts.size() && s.host_counts[i] != nullptr
              ? s.host_counts[i]->Count(node, c)
              : pod_topology_spread::CountPodsMatching(node.pods(), c, pod.pod->meta.namespace_);
    } else {
      auto it = s.pod_counts[i].find(*value);
      if (it != s.pod_counts[i].end()) count = it->second;
    }
    sum += ScoreForCount(count, c.max_skew, s.weights[i]);
  }
  *score = static_cast<int64_t>(std::round(sum));  // Go's math.Round: half away from zero
  return {};
}

framework::Status PodTopologySpread::NormalizeScore(const framework::CycleState& state, size_t slot,
                                                    const framework::PodInfo& pod,
                                                    std::span<framework::NodeScore> scores) const {
  (void)pod;
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error(std::string(kPreScoreStateMissing));
  }
  const PreScoreState& s = *data->pre_score;
  constexpr int64_t kInvalidScore = -1;
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  for (auto& ns : scores) {
    if (s.ignored_nodes.contains(ns.name)) {
      ns.score = kInvalidScore;
      continue;
    }
    if (ns.score < min_score) min_score = ns.score;
    if (ns.score > max_score) max_score = ns.score;
  }
  for (auto& ns : scores) {
    if (ns.score == kInvalidScore) {
      ns.score = 0;
      continue;
    }
    if (max_score == 0) {
      ns.score = framework::kMaxNodeScore;
      continue;
    }
    ns.score = framework::kMaxNodeScore * (max_score + min_score - ns.score) / max_score;
  }
  return {};
}

}  // namespace corral::plugins
