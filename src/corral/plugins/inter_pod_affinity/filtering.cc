// InterPodAffinity: PreFilter, PreFilterExtensions and Filter (kube's filtering.go).

#include <string>
#include <utility>

#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/inter_pod_affinity/internal.h"

namespace corral::plugins {

using inter_pod_affinity::CycleData;
using inter_pod_affinity::MatchesAllIncomingTerms;
using inter_pod_affinity::MatchesIncomingTerm;
using inter_pod_affinity::MatchesTerm;
using inter_pod_affinity::PairKey;
using inter_pod_affinity::PreFilterState;
using inter_pod_affinity::TopologyCounts;
using inter_pod_affinity::UpdateCount;

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
  if (const api::Namespace* ns = handle_.GetNamespace(p.meta.namespace_))
    s->namespace_labels = ns->meta.labels;

  // Existing pods' required anti-affinity terms that the incoming pod matches.
  for (const framework::NodeInfo* node : snapshot.have_pods_with_required_anti_affinity()) {
    const api::LabelSet& labels = node->labels();
    for (const framework::PodInfo* existing : node->pods_with_required_anti_affinity()) {
      for (const auto& t : existing->required_anti_affinity_terms) {
        if (MatchesTerm(t, p, s->namespace_labels))
          UpdateCount(s->existing_anti_affinity, labels, t.topology_key, 1);
      }
    }
  }

  // Existing pods matching the incoming pod's required (anti-)affinity terms.
  const auto& affinity_terms = pod.required_affinity_terms;
  const auto& anti_terms = pod.required_anti_affinity_terms;
  if (!affinity_terms.empty() || !anti_terms.empty()) {
    for (const framework::NodeInfo* node : snapshot.nodes()) {
      const api::LabelSet& labels = node->labels();
      for (const framework::PodInfo* existing : node->pods()) {
        const api::Pod& e = *existing->pod;
        if (MatchesAllIncomingTerms(affinity_terms, e, handle_)) {
          for (const auto& t : affinity_terms) UpdateCount(s->affinity, labels, t.topology_key, 1);
        }
        for (const auto& t : anti_terms) {
          if (MatchesIncomingTerm(t, e, handle_))
            UpdateCount(s->anti_affinity, labels, t.topology_key, 1);
        }
      }
    }
  }

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
      UpdateCount(s.existing_anti_affinity, labels, t.topology_key, multiplier);
    }
  }
  if (MatchesAllIncomingTerms(pod_to_schedule.required_affinity_terms, other, handle_)) {
    for (const auto& t : pod_to_schedule.required_affinity_terms) {
      UpdateCount(s.affinity, labels, t.topology_key, multiplier);
    }
  }
  for (const auto& t : pod_to_schedule.required_anti_affinity_terms) {
    if (MatchesIncomingTerm(t, other, handle_))
      UpdateCount(s.anti_affinity, labels, t.topology_key, multiplier);
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
    auto it = s.affinity.find(PairKey(t.topology_key, *value));
    if (it == s.affinity.end() || it->second <= 0) pods_exist = false;
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
      auto it = s.anti_affinity.find(PairKey(t.topology_key, *value));
      if (it != s.anti_affinity.end() && it->second > 0) {
        return framework::Status::Unschedulable(kErrReasonAntiAffinityRulesNotMatch);
      }
    }
  }

  // Existing pods' anti-affinity: any of the node's (key, value) pairs.
  if (!s.existing_anti_affinity.empty()) {
    for (const auto& [key, value] : labels.items()) {
      auto it = s.existing_anti_affinity.find(PairKey(key, value));
      if (it != s.existing_anti_affinity.end() && it->second > 0) {
        return framework::Status::Unschedulable(kErrReasonExistingAntiAffinityRulesNotMatch);
      }
    }
  }
  return {};
}

}  // namespace corral::plugins
