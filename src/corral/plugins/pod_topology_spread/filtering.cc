// PodTopologySpread: PreFilter, PreFilterExtensions and Filter (kube's filtering.go).

#include <string>
#include <utility>

#include "corral/api/well_known.h"
#include "corral/framework/feature_gates.h"
#include "corral/plugins/pod_topology_spread/internal.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"

namespace corral::plugins {

using pod_topology_spread::Constraint;
using pod_topology_spread::ConstraintSet;
using pod_topology_spread::CriticalPaths;
using pod_topology_spread::CycleData;
using pod_topology_spread::NodeInclusion;
using pod_topology_spread::PreFilterState;

namespace {

constexpr std::string_view kPreFilterStateMissing =
    "reading \"PreFilterPodTopologySpread\" from cycleState: not found";

CycleData& MutableData(framework::CycleState& state, size_t slot) {
  auto* data = state.Get<CycleData>(slot);
  if (data == nullptr) {
    state.Write(slot, std::make_unique<CycleData>());
    data = state.Get<CycleData>(slot);
  }
  return *data;
}

}  // namespace

framework::Status PodTopologySpread::PreFilter(framework::CycleState& state, size_t slot,
                                               const framework::PodInfo& pod,
                                               const framework::Snapshot& snapshot,
                                               framework::PreFilterResult* result) {
  (void)result;
  slot_ = slot;
  std::vector<Constraint> constraints = GetConstraints(pod, api::WhenUnsatisfiable::kDoNotSchedule);
  if (constraints.empty()) return framework::Status::Skip();

  const api::Pod& p = *pod.pod;
  const Symbol ns = p.meta.namespace_;
  const Interner& interner = handle_.interner();
  auto set = std::make_shared<ConstraintSet>();
  set->self_match.reserve(constraints.size());
  for (const auto& c : constraints) set->self_match.push_back(c.Matches(p.meta.labels) ? 1 : 0);
  set->constraints = std::move(constraints);
  const std::vector<Constraint>& cs = set->constraints;

  auto s = std::make_unique<PreFilterState>();
  s->paths.resize(cs.size());
  s->match_num.resize(cs.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    if (cs[i].topology_key == api::wk::kHostnameLabel) s->match_num[i].reserve(snapshot.NumNodes());
  }

  // One pass over the nodes; per node the topology values are looked up once.
  std::vector<Symbol> values(cs.size());
  for (const framework::NodeInfo* node : snapshot.nodes()) {
    const api::LabelSet& labels = node->labels();
    bool has_all = true;
    for (size_t i = 0; i < cs.size(); ++i) {
      const Symbol* v = labels.Find(cs[i].topology_key);
      if (v == nullptr) {
        has_all = false;
        break;
      }
      values[i] = *v;
    }
    NodeInclusion inclusion(p, *node->node(), interner);
    // Without the NodeInclusionPolicy gate, spreading applies only to nodes matching the pod's node
    // affinity (checked first in kube).
    if (!enable_node_inclusion_policy_ && !inclusion.AffinityMatches()) continue;
    if (!has_all) continue;
    for (size_t i = 0; i < cs.size(); ++i) {
      if (enable_node_inclusion_policy_ && !inclusion.Includes(cs[i])) continue;
      s->match_num[i][values[i]] += pod_topology_spread::CountPodsMatching(node->pods(), cs[i], ns);
    }
  }
  // Domain order does not change paths[0] (the minimum). For paths[1] kube's order is Go's random
  // map order; here it is the flat map's, which is deterministic for a given build and input.
  for (size_t i = 0; i < cs.size(); ++i) {
    for (const auto& [value, num] : s->match_num[i]) s->paths[i].Update(value, num);
  }
  s->set = std::move(set);
  MutableData(state, slot).pre_filter = std::move(s);
  return {};
}

framework::Status PodTopologySpread::AddPod(framework::CycleState& state,
                                            const framework::PodInfo& pod_to_schedule,
                                            const framework::PodInfo& pod_to_add,
                                            const framework::NodeInfo& node) const {
  return UpdateWithPod(state, pod_to_schedule, pod_to_add, node, 1);
}

framework::Status PodTopologySpread::RemovePod(framework::CycleState& state,
                                               const framework::PodInfo& pod_to_schedule,
                                               const framework::PodInfo& pod_to_remove,
                                               const framework::NodeInfo& node) const {
  return UpdateWithPod(state, pod_to_schedule, pod_to_remove, node, -1);
}

framework::Status PodTopologySpread::UpdateWithPod(framework::CycleState& state,
                                                   const framework::PodInfo& pod_to_schedule,
                                                   const framework::PodInfo& updated,
                                                   const framework::NodeInfo& node,
                                                   int64_t delta) const {
  auto* data = slot_ == kNoSlot ? nullptr : state.Get<CycleData>(slot_);
  if (data == nullptr || data->pre_filter == nullptr) {
    return framework::Status::Error(std::string(kPreFilterStateMissing));
  }
  PreFilterState& s = *data->pre_filter;
  const api::Pod& preemptor = *pod_to_schedule.pod;
  if (updated.pod->meta.namespace_ != preemptor.meta.namespace_) return {};
  const std::vector<Constraint>& cs = s.set->constraints;
  const api::LabelSet& labels = node.labels();
  if (!pod_topology_spread::NodeHasAllKeys(labels, cs)) return {};
  NodeInclusion inclusion(preemptor, *node.node(), handle_.interner());
  if (!enable_node_inclusion_policy_ && !inclusion.AffinityMatches()) return {};
  const api::LabelSet& pod_labels = updated.pod->meta.labels;
  for (size_t i = 0; i < cs.size(); ++i) {
    // Unlike PreFilter's count, kube neither skips terminating pods nor treats an empty selector as
    // matching nothing here.
    if (!cs[i].Matches(pod_labels)) continue;
    if (enable_node_inclusion_policy_ && !inclusion.Includes(cs[i])) continue;
    const Symbol value = *labels.Find(cs[i].topology_key);
    int64_t& num = s.match_num[i][value];
    num += delta;
    s.paths[i].Update(value, num);
  }
  return {};
}

framework::Status PodTopologySpread::Filter(const framework::CycleState& state, size_t slot,
                                            const framework::PodInfo& pod,
                                            const framework::NodeInfo& node) const {
  (void)pod;
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr || data->pre_filter == nullptr) {
    return framework::Status::Error(std::string(kPreFilterStateMissing));
  }
  const PreFilterState& s = *data->pre_filter;
  const std::vector<Constraint>& cs = s.set->constraints;
  const api::LabelSet& labels = node.labels();
  for (size_t i = 0; i < cs.size(); ++i) {
    const Symbol* value = labels.Find(cs[i].topology_key);
    if (value == nullptr) return framework::Status::Unresolvable(kErrReasonNodeLabelNotMatch);
    // 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew'
    const int64_t min_match = s.MinMatchNum(i);
    const auto it = s.match_num[i].find(*value);
    const int64_t match = it == s.match_num[i].end() ? 0 : it->second;
    const int64_t skew = match + s.set->self_match[i] - min_match;
    if (skew > cs[i].max_skew)
      return framework::Status::Unschedulable(kErrReasonConstraintsNotMatch);
  }
  return {};
}

}  // namespace corral::plugins
