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
using pod_topology_spread::CountSignature;
using pod_topology_spread::CriticalPaths;
using pod_topology_spread::CycleData;
using pod_topology_spread::DomainConstraint;
using pod_topology_spread::DomainKey;
using pod_topology_spread::DomainValue;
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
  auto set = std::make_shared<ConstraintSet>();
  set->self_match.reserve(constraints.size());
  for (const auto& c : constraints) set->self_match.push_back(c.Matches(p.meta.labels) ? 1 : 0);
  set->constraints = std::move(constraints);
  const std::vector<Constraint>& cs = set->constraints;

  // Matching pods per domain over the nodes that carry every constraint's key (kube's
  // calPreFilterState), from the cross-cycle cache: only nodes changed since the last cycle with
  // the same signature are recounted.
  incremental::NodeContributions fresh;
  incremental::NodeContributions& cache =
      incremental_ ? caches_->filter.Get(pod_topology_spread::MakeCountSignature(
                         CountSignature::Mode::kFilter, p, cs, enable_node_inclusion_policy_))
                   : fresh;
  const Symbol ns = p.meta.namespace_;
  const Interner& interner = handle_.interner();
  const bool gate = enable_node_inclusion_policy_;
  std::vector<Symbol> values(cs.size());
  auto derive = [&](const framework::NodeInfo& node, incremental::Contribution* out) {
    const api::LabelSet& labels = node.labels();
    bool has_all = true;
    for (size_t i = 0; i < cs.size(); ++i) {
      const Symbol* v = labels.Find(cs[i].topology_key);
      if (v == nullptr) {
        has_all = false;
        break;
      }
      values[i] = *v;
    }
    NodeInclusion inclusion(p, *node.node(), interner);
    // Without the NodeInclusionPolicy gate, spreading applies only to nodes matching the pod's node
    // affinity (checked first in kube).
    if (!gate && !inclusion.AffinityMatches()) return;
    if (!has_all) return;
    for (size_t i = 0; i < cs.size(); ++i) {
      if (gate && !inclusion.Includes(cs[i])) continue;
      out->push_back({DomainKey(i, values[i]),
                      pod_topology_spread::CountPodsMatching(node.pods(), cs[i], ns)});
    }
  };

  cache.EnableGroupSummaries();
  auto s = std::make_unique<PreFilterState>();
  s->shared_counts = cache.Refresh(snapshot.nodes(), derive);
  s->domains.resize(cs.size());
  s->min_match.resize(cs.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    s->domains[i] = cache.GroupKeys(static_cast<uint32_t>(i));
    s->min_match[i] = cache.GroupMinCount(static_cast<uint32_t>(i), pod_topology_spread::kMaxInt32);
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
  s.MaterializePaths();  // before the counts change: the walk reads the shared counts
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
    if (!s.own_counts) s.own_counts = std::make_unique<incremental::Aggregate>(*s.shared_counts);
    const Symbol value = *labels.Find(cs[i].topology_key);
    incremental::Value& v = (*s.own_counts)[DomainKey(i, value)];
    if (v.refs == 0) {
      v.refs = 1;  // a new domain (kube's map gains the value)
      ++s.domains[i];
    }
    v.count += delta;
    s.paths[i].Update(value, v.count);
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
    const int64_t skew = s.MatchNum(i, *value) + s.set->self_match[i] - s.MinMatchNum(i);
    if (skew > cs[i].max_skew)
      return framework::Status::Unschedulable(kErrReasonConstraintsNotMatch);
  }
  return {};
}

}  // namespace corral::plugins
