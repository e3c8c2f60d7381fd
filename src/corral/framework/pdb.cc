#include "corral/framework/pdb.h"

#include "corral/api/selectors.h"

namespace corral::framework {

int32_t DisruptionsAllowed(const Handle& handle, const api::PodDisruptionBudget& pdb) {
  if (!pdb.selector.has_value()) return 0;  // a nil selector selects no pod
  int32_t healthy = 0;
  for (const NodeInfo* n : handle.snapshot().nodes()) {
    for (const PodInfo* p : n->pods()) {
      const api::Pod& pod = *p->pod;
      if (pod.meta.namespace_ != pdb.meta.namespace_ || pod.IsTerminating()) continue;
      if (handle.IsTerminatingByPreemption(*p)) continue;
      if (api::Matches(*pdb.selector, pod.meta.labels)) ++healthy;
    }
  }
  const int32_t expected = healthy;
  // intstr.GetScaledValueFromIntOrPercent with roundUp.
  auto scaled = [&](const api::IntOrPercent& v) {
    if (!v.is_percent) return v.value;
    return static_cast<int32_t>((static_cast<int64_t>(v.value) * expected + 99) / 100);
  };
  int32_t desired = 0;
  if (pdb.max_unavailable.has_value()) {
    desired = expected - scaled(*pdb.max_unavailable);
    if (desired < 0) desired = 0;
  } else if (pdb.min_available.has_value()) {
    desired = scaled(*pdb.min_available);
  }
  int32_t allowed = healthy - desired;
  if (expected <= 0 || allowed <= 0) return 0;
  return allowed;
}

bool PdbCoversForPreemption(const api::PodDisruptionBudget& pdb, const api::Pod& pod) {
  if (pod.meta.labels.empty() || pod.meta.namespace_ != pdb.meta.namespace_) return false;
  const auto& sel = pdb.selector;
  // A nil or empty selector matches nothing here (kube's preemption, unlike the controller).
  if (!sel.has_value() || (sel->match_labels.empty() && sel->match_expressions.empty()))
    return false;
  return api::Matches(*sel, pod.meta.labels);
}

}  // namespace corral::framework
