#pragma once
// ResizeAgent: in-place pod resize (KEP-1287) on the simulator's nodes. The API side (kube's
// pods/resize subresource: only containers' resources change, the QoS class may not) and the node
// agent's side, which plays the kubelet's allocation manager deterministically:
//
//  (1) A resize that fits the node is actuated at once: the pod's allocated resources become the
//      new ones. It fits when the new requests plus the allocated requests of every other pod on
//      the node are within the node's allocatable, for each resource the pod requests.
//  (2) One that does not fit is Deferred (condition PodResizePending, reason Deferred); one that
//      asks for more than the node's whole allocatable is Infeasible (reason Infeasible). While a
//      resize is Deferred the node accounts the pod at kube's max(spec, allocated) per container;
//      while Infeasible at its allocated resources.
//  (3) Whenever a pod leaves a node, the Deferred resizes there are retried, highest priority
//      first, then oldest deferral first (the kubelet's retry order), each actuated if it now fits.
//
// Every change reaches the member's scheduler through Scheduler::UpdateAssignedPod, which queues a
// Deferred resize for the scheduler's preemption when InPlacePodVerticalScalingSchedulerPreemption
// is on. The agent never evicts: preemption for a resize is the scheduler's (KEP-5836).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/types.h"
#include "corral/core/result.h"
#include "corral/sim/pods.h"
#include "corral/sim/world.h"

namespace corral::sim {

class Member;

class ResizeAgent {
 public:
  explicit ResizeAgent(World& w) : w_(w) {}

  // Applies `resize` (kube's pods/resize body: the containers named in it take its resources) to
  // the live pod in `slot`. An error (the run fails) when the API would reject it: the pod is not
  // running on a node (Corral's model), a container it names does not exist, or its QoS changes.
  Result<void> Resize(uint32_t slot, const api::Pod& resize);
  // A pod left node `node` of `m` (deleted, preempted or done): retries the Deferred resizes there.
  void OnPodLeft(Member& m, uint32_t node);

  // Counters for the run's log and tests.
  int64_t actuated() const { return actuated_; }
  int64_t deferred() const { return deferred_; }
  int64_t infeasible() const { return infeasible_; }

 private:
  struct Pending {
    uint32_t gen = 0;
    uint64_t seq = 0;                       // deferral order
    std::vector<api::Container> desired;    // the spec's containers (the resize asked for)
    std::vector<api::Container> allocated;  // what the node agent last actuated
    std::array<int64_t, kMaxTracked> desired_req{};
    std::array<int64_t, kMaxTracked> allocated_req{};
  };
  enum class Outcome : uint8_t { kActuated, kDeferred, kInfeasible };

  // The agent's verdict for `p` on its node now; `why` gets the kubelet's message otherwise.
  Outcome Admit(uint32_t slot, const Pending& p, std::string* why) const;
  // Sets the pod's containers, conditions and node accounting for `outcome`; tells the scheduler.
  void Apply(uint32_t slot, Pending& p, Outcome outcome, const std::string& why);
  // The tracked requests of a pod whose containers are `containers`.
  std::array<int64_t, kMaxTracked> RequestsOf(const PodSlot& s,
                                              const std::vector<api::Container>& containers) const;

  World& w_;
  absl::flat_hash_map<uint32_t, Pending> pending_;  // by pod slot: Deferred resizes
  uint64_t seq_ = 0;
  int64_t actuated_ = 0, deferred_ = 0, infeasible_ = 0;
};

}  // namespace corral::sim
