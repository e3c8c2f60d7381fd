#pragma once
// PodInfo: a pod plus everything the scheduler derives from it once (kube's framework.PodInfo plus
// the request computations its plugins would otherwise redo every cycle). Built when the pod
// becomes known; immutable afterwards, so plugins may cache pointers to it for the duration of
// a cycle.

#include <cstdint>
#include <optional>
#include <vector>

#include "corral/api/types.h"
#include "corral/framework/feature_gates.h"
#include "corral/framework/resource.h"

namespace corral::framework {

struct HostPort {
  api::Protocol protocol = api::Protocol::kTCP;
  Symbol ip;  // empty means 0.0.0.0 (conflicts with every IP)
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

// An inter-pod (anti-)affinity term with its namespaces resolved and
// matchLabelKeys/mismatchLabelKeys merged into the selector (kube's framework.AffinityTerm
// / WeightedAffinityTerm).
struct AffinityTerm {
  // Sorted, unique. When the API term names no namespaces and has no namespace_selector, this holds
  // the pod's own namespace (kube resolves it the same way).
  std::vector<Symbol> namespaces;
  std::optional<api::LabelSelector> selector;  // nullopt ⇒ matches no pod
  Symbol topology_key;
  std::optional<api::LabelSelector> namespace_selector;  // set ⇒ also namespaces whose labels match
  int32_t weight = 0;                                    // preferred terms only
};

struct PodInfo {
  const api::Pod* pod = nullptr;
  uint32_t id = 0;  // dense id assigned by the owner (unique among live pods)

  // The request NodeResourcesFit filters on (kube computePodResourceRequest): max(sum of
  // containers, init-container peaks including restartable sidecars) + overhead; pod-level requests
  // when set and the PodLevelResources gate is on.
  Resource request;
  // Same, with containers lacking a cpu/memory request counted as 100m / 200Mi (kube NonZero
  // defaults), for scoring.
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;

  std::vector<HostPort> host_ports;  // containers and sidecar init containers with hostPort > 0

  std::vector<AffinityTerm> required_affinity_terms;
  std::vector<AffinityTerm> required_anti_affinity_terms;
  std::vector<AffinityTerm> preferred_affinity_terms;
  std::vector<AffinityTerm> preferred_anti_affinity_terms;

  // KEP-5710: a member of a PodGroup with spec.priority has the group's priority for scheduling and
  // preemption (set by the scheduler when the pod is added); otherwise the pod's own.
  std::optional<int32_t> group_priority;
  int32_t priority() const { return group_priority.value_or(pod->priority); }
  bool HasAffinity() const {
    return !required_affinity_terms.empty() || !required_anti_affinity_terms.empty() ||
           !preferred_affinity_terms.empty() || !preferred_anti_affinity_terms.empty();
  }
};

// Computes the derived fields of `info` from info.pod. `interner` (optional) lets pod-level
// hugepages requests be recognized by name (kube honours hugepages-* at pod level); without it they
// are ignored.
void ComputePodInfo(PodInfo& info, const FeatureGates& gates, const Interner* interner = nullptr);

// kube's resource helper (k8s.io/component-helpers/resource PodRequests) for one pod.
Resource ComputePodRequest(const api::Pod& pod, const FeatureGates& gates,
                           const Interner* interner = nullptr);
// Non-zero cpu/memory requests for scoring (kube's non_zero.go defaults applied per container).
void ComputeNonZeroRequest(const api::Pod& pod, const FeatureGates& gates, int64_t* milli_cpu,
                           int64_t* memory);

inline constexpr int64_t kDefaultMilliCpuRequest = 100;                // 0.1 core
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // 200 MiB

}  // namespace corral::framework
