// InterPodAffinity: PreScore, Score and NormalizeScore (kube's scoring.go).

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/inter_pod_affinity/internal.h"

namespace corral::plugins {

using inter_pod_affinity::CycleData;
using inter_pod_affinity::MatchesIncomingTerm;
using inter_pod_affinity::MatchesTerm;
using inter_pod_affinity::PairKey;
using inter_pod_affinity::PreScoreState;
using inter_pod_affinity::ReadsNamespaceLabels;

namespace {

constexpr std::string_view kPreScoreStateMissing =
    "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found";

}  // namespace

framework::Status InterPodAffinity::PreScore(framework::CycleState& state, size_t slot,
                                             const framework::PodInfo& pod,
                                             std::span<const framework::NodeInfo* const> nodes) {
  (void)nodes;  // kube scores from the whole snapshot, not just the feasible nodes
  const api::Pod& p = *pod.pod;
  const bool has_constraints =
      !pod.preferred_affinity_terms.empty() || !pod.preferred_anti_affinity_terms.empty();
  // Optionally ignore existing pods' preferences when the incoming pod has none.
  if (args_.ignore_preferred_terms_of_existing_pods && !has_constraints)
    return framework::Status::Skip();

  const framework::Snapshot& snapshot = handle_.snapshot();
  // Without preferred terms of its own, only pods with affinity terms can contribute.
  const std::vector<const framework::NodeInfo*>& scan =
      has_constraints ? snapshot.nodes() : snapshot.have_pods_with_affinity();

  api::LabelSet ns_labels;
  if (const api::Namespace* ns = handle_.GetNamespace(p.meta.namespace_))
    ns_labels = ns->meta.labels;
  const int64_t hard_weight = args_.hard_pod_affinity_weight;

  // kube's processExistingPod for every pod of `scan`, as per-node contributions (PairKey, weight):
  // a term adds weight × multiplier to its topology pair when it matches and the node has the key.
  const bool cached = incremental_ && (has_constraints || scan.size() > direct_scan_limit_);
  const bool reads_ns = cached && (ReadsNamespaceLabels(pod.preferred_affinity_terms) ||
                                   ReadsNamespaceLabels(pod.preferred_anti_affinity_terms));
  const uint64_t ns_version = reads_ns ? caches_->namespaces.Epoch(handle_) : 0;
  auto derive = [&](const framework::NodeInfo& node, incremental::Contribution* out) {
    const api::LabelSet& labels = node.labels();
    if (labels.empty()) return;  // kube's processExistingPod returns early for such nodes
    auto add = [&](Symbol key, int64_t weight) {
      if (const Symbol* v = labels.Find(key)) out->push_back({PairKey(key, *v), weight});
    };
    const auto& pods = has_constraints ? node.pods() : node.pods_with_affinity();
    for (const framework::PodInfo* existing : pods) {
      const api::Pod& e = *existing->pod;
      if (reads_ns) caches_->namespaces.Note(e.meta.namespace_, handle_);
      // The incoming pod's preferred terms (namespaceSelector resolved as kube unrolls it).
      for (const auto& t : pod.preferred_affinity_terms) {
        if (MatchesIncomingTerm(t, e, handle_)) add(t.topology_key, t.weight);
      }
      for (const auto& t : pod.preferred_anti_affinity_terms) {
        if (MatchesIncomingTerm(t, e, handle_)) add(t.topology_key, -int64_t{t.weight});
      }
      // The existing pod's terms against the incoming pod and its namespace labels.
      if (hard_weight > 0) {
        for (const auto& t : existing->required_affinity_terms) {
          if (MatchesTerm(t, p, ns_labels)) add(t.topology_key, hard_weight);
        }
      }
      for (const auto& t : existing->preferred_affinity_terms) {
        if (MatchesTerm(t, p, ns_labels)) add(t.topology_key, t.weight);
      }
      for (const auto& t : existing->preferred_anti_affinity_terms) {
        if (MatchesTerm(t, p, ns_labels)) add(t.topology_key, -int64_t{t.weight});
      }
    }
  };
  incremental::NodeContributions fresh;
  auto s = std::make_shared<PreScoreState>();
  if (cached) {
    auto& cache = caches_->score.Get({p.meta.labels, p.meta.namespace_, ns_labels, has_constraints,
                                      pod.preferred_affinity_terms,
                                      pod.preferred_anti_affinity_terms, ns_version});
    s->scores = cache.Refresh(snapshot.nodes(), derive);
  } else {
    s->scores = fresh.Refresh(scan, derive);
  }
  // Nothing matched anywhere (kube: no topology score entry) ⇒ Skip.
  if (s->scores->empty()) return framework::Status::Skip();
  for (const auto& [key, v] : *s->scores) {
    const Symbol k(static_cast<uint32_t>(key >> 32));
    if (std::find(s->keys.begin(), s->keys.end(), k) == s->keys.end()) s->keys.push_back(k);
  }

  auto* data = state.Get<CycleData>(slot);
  if (data == nullptr) {
    state.Write(slot, std::make_unique<CycleData>());
    data = state.Get<CycleData>(slot);
  }
  data->pre_score = std::move(s);
  return {};
}

framework::Status InterPodAffinity::Score(const framework::CycleState& state, size_t slot,
                                          const framework::PodInfo& pod,
                                          const framework::NodeInfo& node, int64_t* score) const {
  (void)pod;
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error(std::string(kPreScoreStateMissing));
  }
  const PreScoreState& s = *data->pre_score;
  const api::LabelSet& labels = node.labels();
  int64_t sum = 0;
  for (Symbol key : s.keys) {
    const Symbol* value = labels.Find(key);
    if (value == nullptr) continue;
    const uint64_t pair = PairKey(key, *value);
    auto it = s.scores->find(pair);
    if (it != s.scores->end()) sum += it->second.count;
    if (!s.added.empty()) {
      auto a = s.added.find(pair);
      if (a != s.added.end()) sum += a->second;
    }
  }
  *score = sum;
  return {};
}

framework::Status InterPodAffinity::AddPod(
    framework::CycleState& state, size_t slot, const framework::PodInfo& pod,
    const framework::PodInfo& added, const framework::NodeInfo& node,
    std::span<const framework::NodeInfo* const> nodes) const {
  (void)nodes;  // PreScore reads the whole snapshot, not the feasible nodes
  const auto* data = state.Get<CycleData>(slot);
  const bool skipped = slot < state.skip_score().size() && state.skip_score()[slot];
  // After a Skip (nothing matched) the added pod may make the first match: re-run PreScore.
  if (skipped || data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error("no PreScore state to update");
  }
  const api::Pod& p = *pod.pod;
  const bool has_constraints =
      !pod.preferred_affinity_terms.empty() || !pod.preferred_anti_affinity_terms.empty();
  if (ReadsNamespaceLabels(pod.preferred_affinity_terms) ||
      ReadsNamespaceLabels(pod.preferred_anti_affinity_terms)) {
    return framework::Status::Error("namespace selectors are evaluated from scratch");
  }
  const api::LabelSet& labels = node.labels();
  // PreScore's per-node derivation for the one added pod (kube's processExistingPod): a pod without
  // affinity terms counts only through the incoming pod's preferred terms.
  incremental::Contribution c;
  if (!labels.empty() && (has_constraints || added.HasAffinity())) {
    api::LabelSet ns_labels;
    if (const api::Namespace* ns = handle_.GetNamespace(p.meta.namespace_))
      ns_labels = ns->meta.labels;
    auto add = [&](Symbol key, int64_t weight) {
      if (const Symbol* v = labels.Find(key)) c.push_back({PairKey(key, *v), weight});
    };
    const api::Pod& e = *added.pod;
    for (const auto& t : pod.preferred_affinity_terms) {
      if (MatchesIncomingTerm(t, e, handle_)) add(t.topology_key, t.weight);
    }
    for (const auto& t : pod.preferred_anti_affinity_terms) {
      if (MatchesIncomingTerm(t, e, handle_)) add(t.topology_key, -int64_t{t.weight});
    }
    if (args_.hard_pod_affinity_weight > 0) {
      for (const auto& t : added.required_affinity_terms) {
        if (MatchesTerm(t, p, ns_labels)) add(t.topology_key, args_.hard_pod_affinity_weight);
      }
    }
    for (const auto& t : added.preferred_affinity_terms) {
      if (MatchesTerm(t, p, ns_labels)) add(t.topology_key, t.weight);
    }
    for (const auto& t : added.preferred_anti_affinity_terms) {
      if (MatchesTerm(t, p, ns_labels)) add(t.topology_key, -int64_t{t.weight});
    }
  }
  if (c.empty()) return {};
  // Copy on write: the old state may be shared with a clone.
  auto s = std::make_shared<PreScoreState>(*data->pre_score);
  for (const auto& [pair, weight] : c) {
    s->added[pair] += weight;
    const Symbol k(static_cast<uint32_t>(pair >> 32));
    if (std::find(s->keys.begin(), s->keys.end(), k) == s->keys.end()) s->keys.push_back(k);
  }
  state.Get<CycleData>(slot)->pre_score = std::move(s);
  return {};
}

bool InterPodAffinity::CrossNode(const framework::PodInfo& pod) const {
  return !pod.preferred_affinity_terms.empty() || !pod.preferred_anti_affinity_terms.empty();
}

framework::Status InterPodAffinity::Rescore(const framework::CycleState& state, size_t slot,
                                            const framework::PodInfo& pod,
                                            const framework::NodeInfo& placed,
                                            std::span<const framework::NodeInfo* const> nodes,
                                            std::vector<framework::NodeRescore>* changed) const {
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error(std::string(kPreScoreStateMissing));
  }
  // The placement changed the counts of the placed node's (key, value) pairs only: a node's score
  // changes only if it shares one of them.
  const api::LabelSet& placed_labels = placed.labels();
  const std::vector<Symbol>& keys = data->pre_score->keys;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const api::LabelSet& labels = nodes[i]->labels();
    bool shares = false;
    for (Symbol key : keys) {
      const Symbol* pv = placed_labels.Find(key);
      if (pv == nullptr) continue;
      const Symbol* v = labels.Find(key);
      if (v != nullptr && *v == *pv) {
        shares = true;
        break;
      }
    }
    if (!shares) continue;
    int64_t raw = 0;
    if (framework::Status st = Score(state, slot, pod, *nodes[i], &raw); !st.ok()) return st;
    changed->push_back({static_cast<uint32_t>(i), raw});
  }
  return {};
}

framework::Status InterPodAffinity::NormalizeScore(const framework::CycleState& state, size_t slot,
                                                   const framework::PodInfo& pod,
                                                   std::span<framework::NodeScore> scores) const {
  (void)pod;
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_score == nullptr) {
    return framework::Status::Error(std::string(kPreScoreStateMissing));
  }
  // No scores (every node was filtered out, or a rescore with no changed node): nothing to
  // normalize. kube's loop over no nodes leaves max - min to wrap around; here it would overflow.
  if (data->pre_score->keys.empty() || scores.empty()) return {};
  int64_t min_count = std::numeric_limits<int64_t>::max();
  int64_t max_count = std::numeric_limits<int64_t>::min();
  for (const auto& ns : scores) {
    max_count = std::max(max_count, ns.score);
    min_count = std::min(min_count, ns.score);
  }
  const int64_t diff = max_count - min_count;
  for (auto& ns : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(framework::kMaxNodeScore) *
          (static_cast<double>(ns.score - min_count) / static_cast<double>(diff));
    }
    ns.score = static_cast<int64_t>(f);
  }
  return {};
}

}  // namespace corral::plugins
