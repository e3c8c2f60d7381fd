#pragma once
// In-place pod resize status (KEP-1287) as kube's API defines it: the PodResizePending condition
// with reason Deferred or Infeasible, set by the node's agent (the kubelet), and the
// PodResizePreemptionDisabled condition (KEP-5836) that keeps a deferred resize out of the
// scheduler's preemption.

#include <string_view>

#include "corral/api/types.h"
#include "corral/core/interner.h"

namespace corral::api {

inline constexpr std::string_view kPodResizePending = "PodResizePending";
inline constexpr std::string_view kPodResizePreemptionDisabled = "PodResizePreemptionDisabled";
inline constexpr std::string_view kPodReasonDeferred = "Deferred";
inline constexpr std::string_view kPodReasonInfeasible = "Infeasible";

// kube's resource.IsPodResizeDeferred: the first PodResizePending condition has reason Deferred.
inline bool IsPodResizeDeferred(const Pod& pod, const Interner& in) {
  for (const PodCondition& c : pod.conditions) {
    if (in.Str(c.type) == kPodResizePending) return in.Str(c.reason) == kPodReasonDeferred;
  }
  return false;
}

// kube's resource.IsPodResizeInfeasible.
inline bool IsPodResizeInfeasible(const Pod& pod, const Interner& in) {
  for (const PodCondition& c : pod.conditions) {
    if (in.Str(c.type) == kPodResizePending) return in.Str(c.reason) == kPodReasonInfeasible;
  }
  return false;
}

// The pod carries PodResizePreemptionDisabled=True: its deferred resize is not the scheduler's.
inline bool IsPodResizePreemptionDisabled(const Pod& pod, const Interner& in) {
  for (const PodCondition& c : pod.conditions) {
    if (in.Str(c.type) == kPodResizePreemptionDisabled) return in.Str(c.status) == "True";
  }
  return false;
}

}  // namespace corral::api
