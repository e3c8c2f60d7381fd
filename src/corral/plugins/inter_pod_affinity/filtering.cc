// InterPodAffinity: PreFilter, PreFilterExtensions and Filter (kube's filtering.go).

#include <algorithm>
#include <string>
#include <utility>

#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/inter_pod_affinity/internal.h"

namespace corral::plugins {

using inter_pod_affinity::Counts;
using inter_pod_affinity::CycleData;
using inter_pod_affinity::MatchesAllIncomingTerms;
using inter_pod_affinity::MatchesIncomingTerm;
using inter_pod_affinity::MatchesTerm;
using inter_pod_affinity::PairKey;
using inter_pod_affinity::PreFilterState;
using inter_pod_affinity::ReadsNamespaceLabels;

namespace {

constexpr std::string_view kPreFilterStateMissing =
    "error reading \"PreFilterInterPodAffinity\" from cycleState: not found";

}  // namespace

framework::Status InterPodAffinity::PreFilter(framework::CycleState& state, size_t slot,
                                              const framework::PodInfo& pod,
                                              const framework::Snapshot& snapshot,
                                              framework::PreFilterResult* result) {
  (void)result;
  slot_ = slot;
  const api::Pod& p = *pod.pod;
  auto s = std::make_unique<PreFilterState>();
  if (const api::Namespace* ns = handle_.GetNamespace(p.meta.namespace_)) {
    s->namespace_labels = ns->meta.labels;
  }

  // Existing pods' required anti-affinity terms that the incoming pod matches.
  const auto& anti_nodes = snapshot.have_pods_with_required_anti_affinity();
  if (!anti_nodes.empty()) {
    auto derive = [&](const framework::NodeInfo& node, incremental::Contribution* out) {
      const api::LabelSet& labels = node.labels();
      for (const framework::PodInfo* existing : node.pods_with_required_anti_affinity()) {
        for (const auto& t : existing->required_anti_affinity_terms) {
          if (!MatchesTerm(t, p, s->namespace_labels)) continue;
          if (const Symbol* v = labels.Find(t.topology_key))
            out->push_back({PairKey(t.topology_key, *v), 1});
        }
      }
    };
    incremental::NodeContributions fresh;
    if (incremental_ && anti_nodes.size() > direct_scan_limit_) {
      auto& cache =
          caches_->existing_anti.Get({p.meta.labels, p.meta.namespace_, s->namespace_labels});
      s->existing_anti_affinity = Counts(cache.Refresh(snapshot.nodes(), derive));
    } else {
      s->existing_anti_affinity = Counts(fresh.Refresh(anti_nodes, derive));
    }
  }

  // Existing pods matching the incoming pod's required (anti-)affinity terms.
  const auto& affinity_terms = pod.required_affinity_terms;
  const auto& anti_terms = pod.required_anti_affinity_terms;
  if (!affinity_terms.empty()) {
    const bool reads_ns = incremental_ && ReadsNamespaceLabels(affinity_terms);
    const uint64_t ns_version = reads_ns ? caches_->namespaces.Epoch(handle_) : 0;
    auto derive = [&](const framework::NodeInfo& node, incremental::Contribution* out) {
      const api::LabelSet& labels = node.labels();
      for (const framework::PodInfo* existing : node.pods()) {
        if (reads_ns) caches_->namespaces.Note(existing->pod->meta.namespace_, handle_);
        if (!MatchesAllIncomingTerms(affinity_terms, *existing->pod, handle_)) continue;
        for (const auto& t : affinity_terms) {
          if (const Symbol* v = labels.Find(t.topology_key))
            out->push_back({PairKey(t.topology_key, *v), 1});
        }
      }
    };
    incremental::NodeContributions fresh;
    auto& cache = incremental_ ? caches_->affinity.Get({affinity_terms, ns_version}) : fresh;
    s->affinity = Counts(cache.Refresh(snapshot.nodes(), derive));
  }
  if (!anti_terms.empty()) {
    const bool reads_ns = incremental_ && ReadsNamespaceLabels(anti_terms);
    const uint64_t ns_version = reads_ns ? caches_->namespaces.Epoch(handle_) : 0;
    auto derive = [&](const framework::NodeInfo& node, incremental::Contribution* out) {
      const api::LabelSet& labels = node.labels();
      for (const framework::PodInfo* existing : node.pods()) {
        if (reads_ns) caches_->namespaces.Note(existing->pod->meta.namespace_, handle_);
        for (const auto& t : anti_terms) {
          if (!MatchesIncomingTerm(t, *existing->pod, handle_)) continue;
          if (const Symbol* v = labels.Find(t.topology_key))
            out->push_back({PairKey(t.topology_key, *v), 1});
        }
      }
    };
    incremental::NodeContributions fresh;
    auto& cache = incremental_ ? caches_->anti.Get({anti_terms, ns_version}) : fresh;
    s->anti_affinity = Counts(cache.Refresh(snapshot.nodes(), derive));
  }

  s->existing_anti_keys = s->existing_anti_affinity.Keys();
  if (s->existing_anti_affinity.empty() && affinity_terms.empty() && anti_terms.empty()) {
    return framework::Status::Skip();
  }
  s->self_matches_all = MatchesAllIncomingTerms(affinity_terms, p, handle_);
  auto* data = state.Get<CycleData>(slot);
  if (data == nullptr) {
    state.Write(slot, std::make_unique<CycleData>());
    data = state.Get<CycleData>(slot);
  }
  data->pre_filter = std::move(s);
  return {};
}

framework::Status InterPodAffinity::AddPod(framework::CycleState& state,
                                           const framework::PodInfo& pod_to_schedule,
                                           const framework::PodInfo& pod_to_add,
                                           const framework::NodeInfo& node) const {
  return UpdateWithPod(state, pod_to_schedule, pod_to_add, node, 1);
}

framework::Status InterPodAffinity::RemovePod(framework::CycleState& state,
                                              const framework::PodInfo& pod_to_schedule,
                                              const framework::PodInfo& pod_to_remove,
                                              const framework::NodeInfo& node) const {
  return UpdateWithPod(state, pod_to_schedule, pod_to_remove, node, -1);
}

framework::Status InterPodAffinity::UpdateWithPod(framework::CycleState& state,
                                                  const framework::PodInfo& pod_to_schedule,
                                                  const framework::PodInfo& updated,
                                                  const framework::NodeInfo& node,
                                                  int64_t multiplier) const {
  // kube's preFilterState.updateWithPod.
  auto* data = slot_ == kNoSlot ? nullptr : state.Get<CycleData>(slot_);
  if (data == nullptr || data->pre_filter == nullptr) {
    return framework::Status::Error(std::string(kPreFilterStateMissing));
  }
  PreFilterState& s = *data->pre_filter;
  const api::LabelSet& labels = node.labels();
  const api::Pod& incoming = *pod_to_schedule.pod;
  const api::Pod& other = *updated.pod;
  for (const auto& t : updated.required_anti_affinity_terms) {
    if (MatchesTerm(t, incoming, s.namespace_labels)) {
      s.existing_anti_affinity.Update(labels, t.topology_key, multiplier);
      if (std::find(s.existing_anti_keys.begin(), s.existing_anti_keys.end(), t.topology_key) ==
          s.existing_anti_keys.end()) {
        s.existing_anti_keys.push_back(t.topology_key);
      }
    }
  }
  if (MatchesAllIncomingTerms(pod_to_schedule.required_affinity_terms, other, handle_)) {
    for (const auto& t : pod_to_schedule.required_affinity_terms) {
      s.affinity.Update(labels, t.topology_key, multiplier);
    }
  }
  for (const auto& t : pod_to_schedule.required_anti_affinity_terms) {
    if (MatchesIncomingTerm(t, other, handle_))
      s.anti_affinity.Update(labels, t.topology_key, multiplier);
  }
  return {};
}

framework::Status InterPodAffinity::Filter(const framework::CycleState& state, size_t slot,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node) const {
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_filter == nullptr) {
    return framework::Status::Error(std::string(kPreFilterStateMissing));
  }
  const PreFilterState& s = *data->pre_filter;
  const api::LabelSet& labels = node.labels();

  // The pod's affinity: every term's domain on this node must hold a matching pod.
  bool pods_exist = true;
  for (const auto& t : pod.required_affinity_terms) {
    const Symbol* value = labels.Find(t.topology_key);
    if (value == nullptr) return framework::Status::Unresolvable(kErrReasonAffinityRulesNotMatch);
    if (s.affinity.Get(PairKey(t.topology_key, *value)) <= 0) pods_exist = false;
  }
  // The first pod of a group with affinity to itself: no pod matches anywhere and the pod matches
  // its own terms (the node has all the topology keys, checked above).
  if (!pods_exist && !(s.affinity.empty() && s.self_matches_all)) {
    return framework::Status::Unresolvable(kErrReasonAffinityRulesNotMatch);
  }

  // The pod's anti-affinity.
  if (!s.anti_affinity.empty()) {
    for (const auto& t : pod.required_anti_affinity_terms) {
      const Symbol* value = labels.Find(t.topology_key);
      if (value == nullptr) continue;
      if (s.anti_affinity.Get(PairKey(t.topology_key, *value)) > 0) {
        return framework::Status::Unschedulable(kErrReasonAntiAffinityRulesNotMatch);
      }
    }
  }

  // Existing pods' anti-affinity: any of the node's (key, value) pairs. Only the keys that occur in
  // the counts can match, so only those labels are looked up.
  for (Symbol key : s.existing_anti_keys) {
    const Symbol* value = labels.Find(key);
    if (value != nullptr && s.existing_anti_affinity.Get(PairKey(key, *value)) > 0) {
      return framework::Status::Unschedulable(kErrReasonExistingAntiAffinityRulesNotMatch);
    }
  }
  return {};
}

}  // namespace corral::plugins
