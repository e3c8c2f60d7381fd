#pragma once
// Read-only replica estimates through a member cluster's own scheduler: the accurate estimator of
// the fleet level. Karmada's scheduler-estimator (pkg/estimator/server) answers the same question
// over gRPC with a node-resource estimate of its own; Corral asks the member's real scheduler, so
// every filter it runs (node affinity, taints, ports, inter-pod affinity, topology spread, volume
// and device claims, gang placement) bears on the answer.
//
// Two ways to answer, chosen per request:
//   - Copies of a pod that can only contend with each other for node resources and pod slots
//     (IndependentReplicas) are estimated in place: Scheduler::EstimateIndependentReplicas runs
//     PreFilter once and Filter on every node, and adds up how many copies the free resources of
//     each node that passes hold. Nothing in the scheduler changes.
//   - Anything else (host ports, required inter-pod affinity, DoNotSchedule spread constraints,
//     claims, several pod templates) is placed on a copy: a new scheduler with the member's
//     options, nodes and bound pods receives the copies as pending pods and runs until idle; the
//     copies it binds are the estimate. The member's own scheduler is not touched.
//
// Contract: the estimate is never above what the member's scheduler places when the copies are
// submitted to it (test/integration/estimate_property_test.cc), and equal to it for independent
// copies on a member without pending or nominated pods. Pending pods of the member are not
// counted against the estimate (as the member's summary counts them as "allocating" only).

#include <cstdint>
#include <span>

#include "corral/api/types.h"
#include "corral/framework/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

// Whether copies of `pod` can get in each other's way only through node resources and the pod
// count: no host ports, no required inter-pod affinity or anti-affinity, no DoNotSchedule topology
// spread constraint, no volumes backed by claims, no resource claims and no pod group.
bool IndependentReplicas(const api::Pod& pod);

// What a trial placement on a copy of the member needs: the member's objects (its nodes, its bound
// pods and the cluster objects its plugins read) and the options and registry its scheduler was
// built with. Every pointer must outlive the estimate.
struct MemberSource {
  Interner* interner = nullptr;
  const api::ObjectSet* objects = nullptr;
  const Scheduler::Options* options = nullptr;
  const framework::Registry* registry = nullptr;
};

// One pod template and how many copies of it.
struct PodSetRequest {
  const api::Pod* pod = nullptr;
  int32_t count = 0;
};

// How many of `max` copies of `pod` the member can take now (0..max). `scheduler` is the member's
// scheduler, built from `member`. Errors: a copy of the member that cannot be built.
Result<int32_t> EstimateReplicas(Scheduler& scheduler, const MemberSource& member,
                                 const api::Pod& pod, int32_t max);

// Whether every pod of every pod set fits at once (a gang, dispatched whole). With a topology key,
// every pod must fit within one domain of that node label: the domains are tried in the order of
// their values, each as a node selector on that key added to every pod (a pod whose own selector
// names another value of the key does not fit that domain).
Result<bool> GangFits(Scheduler& scheduler, const MemberSource& member,
                      std::span<const PodSetRequest> pod_sets, Symbol topology_key = {});

}  // namespace corral::scheduler
