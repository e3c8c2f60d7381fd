#pragma once
// Pod groups (gangs) as the scheduler tracks them at run time (kube's workloadmanager podGroupInfo
// / PodGroupState). One PodGroupState per gang instance:
//   v1alpha1  {namespace, workloadRef.name, workloadRef.podGroup, workloadRef.podGroupReplicaKey}
//   current   {namespace, schedulingGroup.podGroupName} (the standalone PodGroup object)
// The scheduler owns the states (WorkloadManager) and keeps `all` and `assigned` up to date; the
// GangScheduling plugin moves pods in and out of `assumed` from Reserve/Unreserve.
//
// Invariants: (1) assumed ∩ assigned = ∅; (2) assumed ∪ assigned ⊆ all.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "corral/api/types.h"
#include "corral/core/clock.h"
#include "corral/framework/pod_info.h"

namespace corral::framework {

struct PodGroupKey {
  Symbol namespace_;
  Symbol workload;      // v1alpha1 only
  Symbol pod_group;     // v1alpha1: workloadRef.podGroup; current: schedulingGroup.podGroupName
  Symbol replica_key;   // v1alpha1 only
  bool legacy = false;  // v1alpha1 workloadRef

  bool operator==(const PodGroupKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const PodGroupKey& k) {
    return H::combine(std::move(h), k.namespace_, k.workload, k.pod_group, k.replica_key, k.legacy);
  }
};

// The gang instance a pod belongs to, or nullopt. schedulingGroup wins over a
// (tombstoned) workloadRef.
inline std::optional<PodGroupKey> PodGroupKeyOf(const api::Pod& pod) {
  if (pod.scheduling_group.has_value()) {
    return PodGroupKey{pod.meta.namespace_, Symbol(), pod.scheduling_group->pod_group_name,
                       Symbol(), false};
  }
  if (pod.workload_ref.has_value()) {
    return PodGroupKey{pod.meta.namespace_, pod.workload_ref->name, pod.workload_ref->pod_group,
                       pod.workload_ref->pod_group_replica_key, true};
  }
  return std::nullopt;
}

// kube's DefaultSchedulingTimeoutDuration: how long gang members wait at Permit for the quorum.
inline constexpr Duration kDefaultGangSchedulingTimeout = std::chrono::minutes(5);

struct PodGroupState {
  PodGroupKey key;
  std::vector<const PodInfo*> all;  // every member known to the scheduler, in arrival order
  absl::flat_hash_set<const PodInfo*> assumed;   // passed Reserve, not yet bound
  absl::flat_hash_set<const PodInfo*> assigned;  // bound
  // Shared deadline of the current attempt to form the gang (set at the first Permit).
  std::optional<TimePoint> deadline;
  // The schedulerName of the first member; members that disagree make the whole
  // group unschedulable.
  Symbol scheduler_name;
  bool mixed_scheduler_names = false;
  // Set by the workload cycle: why the group's last attempt failed (empty after a success), and the
  // topology domain ("key=value") its members were placed in.
  std::string failure;
  std::string domain;

  void AssumePod(const PodInfo* p) { assumed.insert(p); }
  void ForgetPod(const PodInfo* p) { assumed.erase(p); }
  // Members that are neither assumed nor assigned, in arrival order.
  std::vector<const PodInfo*> UnscheduledPods() const {
    std::vector<const PodInfo*> out;
    for (const PodInfo* p : all) {
      if (!assumed.contains(p) && !assigned.contains(p)) out.push_back(p);
    }
    return out;
  }
  // The time left until the shared deadline; a new deadline is started when there is none or the
  // old one has been reached (a new attempt to form the gang after a timeout; kube renews only a
  // deadline strictly in the past, which on a virtual clock would hand a 0 s timeout to the retry
  // at that instant).
  Duration SchedulingTimeout(TimePoint now) {
    if (!deadline.has_value() || *deadline <= now) deadline = now + kDefaultGangSchedulingTimeout;
    return *deadline - now;
  }
};

// The policy of a pod's group and the object that defines it, resolved from the cluster objects.
struct ResolvedPodGroup {
  const api::Workload* workload = nullptr;   // v1alpha1 (and the template's Workload when known)
  const api::PodGroup* pod_group = nullptr;  // current generation
  api::PodGroupSchedulingPolicy policy;
  bool IsGang() const { return policy.kind == api::PodGroupPolicyKind::kGang; }
  // Basic groups count as minCount 1 (kube getMinCount).
  int32_t MinCount() const { return IsGang() ? policy.min_count : 1; }
};

}  // namespace corral::framework
