#pragma once
// Pods: the pod and group (job, gang) slot pools that every member shares, the pod lifecycle
// (arrival, binding, running, completion, eviction and recreation) and the workloads'
// arrival streams.
//
// Contract: a pod slot's api::Pod keeps its address for the whole run (slots live in fixed chunks
// and are reused after deletion, with `gen` bumped), so a member's scheduler may hold pointers to
// it. A pod belongs to the member of its workload's cluster from creation to deletion; every change
// of a pod touches that member (its epoch and its lane).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/types.h"
#include "corral/core/check.h"
#include "corral/core/rng.h"
#include "corral/sim/metrics.h"
#include "corral/sim/spec.h"
#include "corral/sim/world.h"

namespace corral::sim {

enum class PodState : uint8_t { kFree, kPending, kBinding, kRunning };

struct PodSlot {
  api::Pod pod;
  std::array<int64_t, kMaxTracked> req{};
  int64_t arrival_ns = 0;
  int64_t bound_ns = 0;
  int64_t duration_ns = kForeverNs;
  uint64_t fail_epoch = UINT64_MAX;
  uint32_t workload = kNone;
  uint32_t group = kNone;
  uint32_t node = kNone;  // a node slot of the pod's member
  uint32_t pos_in_node = 0;
  uint32_t tmpl = 0;
  uint32_t gen = 0;
  int32_t ordinal = -1;  // a controller's: StatefulSet ordinal, Indexed Job completion index
  uint16_t member = 0;
  PodState state = PodState::kFree;
  bool terminating = false;  // a preemption victim waiting for its grace period
  bool attempted = false;
  bool failed = false;
  bool measured = false;
  bool bound_once = false;
  bool bind_in_flight = false;  // kBinding, its binding waiting for the API client's rate limit
};

struct GroupSlot {
  uint32_t workload = kNone;
  int32_t size = 0;
  int32_t bound = 0;
  int32_t finished = 0;
  int32_t next_pod = 0;  // pods are named <group>-<k>
  int64_t arrival_ns = 0;
  Symbol name;
  std::vector<uint32_t> members;  // live pod slots
  // A copy of a fleet work item: the member it was created on (UINT16_MAX: the workload's) and
  // the work item (kNone: not a copy).
  uint16_t member = UINT16_MAX;
  uint32_t fleet_work = kNone;
  bool complete = false;
  bool ever_complete = false;
  bool alive = false;
};

struct WorkloadState {
  Rng rng{1};
  int64_t arrivals = 0;
  size_t cursor = 0;  // explicit arrivals
  bool active = false;
  bool stopped = false;
  bool exhausted = false;  // no more arrivals will come
  int64_t pods_created = 0;
  int64_t pods_bound_once = 0;
  int64_t target_pods = -1;  // for render index/count
  WorkloadStats stats;
};

namespace controllers {
class Controllers;
}

class Pods {
 public:
  explicit Pods(World& w);
  ~Pods();

  PodSlot& Pod(uint32_t i) { return pod_chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const PodSlot& Pod(uint32_t i) const {
    return pod_chunks_[i >> kChunkBits][i & (kChunkSize - 1)];
  }
  // Slots ever used: [0, slots()) covers every live pod.
  uint32_t slots() const { return pod_slots_; }
  uint32_t SlotOf(const api::Pod& p) const {
    auto it = slot_of_.find(&p);
    CORRAL_CHECK_MSG(it != slot_of_.end(), "scheduler reported a pod the simulator does not own");
    return it->second;
  }
  GroupSlot& group(uint32_t g) { return groups_[g]; }
  // Group slots ever used: [0, groups()) covers every live group.
  uint32_t groups() const { return static_cast<uint32_t>(groups_.size()); }
  WorkloadState& workload(uint32_t w) { return wl_[w]; }
  size_t workloads() const { return wl_.size(); }
  // The member a workload's pods go to.
  uint16_t MemberOf(uint32_t w) const;

  // Creates a pod of workload `w` now (named `name`, or from its group or template). A `recreated`
  // pod never keeps the template's binding. Returns its slot, or kNone when the input failed
  // (World::Fail) or no profile serves the pod.
  // `pod`, when given, is the pod to create instead of the template's (a controller's pod).
  uint32_t CreatePod(uint32_t w, uint32_t group, uint32_t tmpl, int64_t duration_ns, Symbol name,
                     bool recreated = false, const api::Pod* pod = nullptr);
  // s.req from s.pod: the tracked resources' requests, max(sum of containers, each init
  // container) + overhead (1 pod of "pods").
  void ComputeRequests(PodSlot& s) const;
  // A binding finished: the pod runs from now for its duration.
  void StartRunning(uint32_t slot);
  void PodDone(uint32_t slot, uint32_t gen);
  // Deletes a pod (reason "preempted", "drain", "churn", ...); with `recreate` its workload brings
  // it back as a new pending pod (and a gang restarts as a whole). A recreating eviction is counted
  // under its cause (metrics.h Evictions): "drain", "delete" or "churn" (node failure),
  // "gang-restart", "preempted" (counted when the victim was chosen); any other reason with
  // `recreate` is a programming error (CHECK) until it is given a cause.
  void Evict(uint32_t slot, std::string_view reason, bool recreate);

  // Arrivals of workload `w`: all due now, then the next one on the agenda.
  void Arrive(uint32_t w);
  void ScheduleNextArrival(uint32_t w);
  // A copy of fleet work item `fleet_work` of workload `w`: `size` pods on member `member`, each
  // running `duration_ns` once bound (a gang's PodGroup first, for a Gang workload), the group
  // named `name` (its pods `name`-k). Returns the group.
  uint32_t CreateFleetGroup(uint32_t w, uint16_t member, int32_t size, int64_t duration_ns,
                            uint32_t fleet_work, Symbol name);
  // Deletes a copy's pods without recreating them or reporting them to the fleet.
  void WithdrawGroup(uint32_t group);
  // Pods of `cls` created from now on get `value` (scheduler_perf updatePriority).
  void SetPriority(Symbol cls, int32_t value) { priority_override_[cls] = value; }

 private:
  uint32_t AllocPod();
  void FreePod(uint32_t i);
  void FreeGroup(uint32_t group);
  uint32_t NewGroup(uint32_t w, int32_t size);
  uint16_t MemberOfGroup(uint32_t group) const {
    const GroupSlot& g = groups_[group];
    return g.member != UINT16_MAX ? g.member : MemberOf(g.workload);
  }

  static constexpr int kChunkBits = 10;
  static constexpr uint32_t kChunkSize = 1U << kChunkBits;

  World& w_;
  std::unique_ptr<controllers::Controllers> controllers_;  // the spec's workload controllers
  std::vector<std::unique_ptr<PodSlot[]>> pod_chunks_;
  uint32_t pod_slots_ = 0;
  std::vector<uint32_t> free_pods_;
  absl::flat_hash_map<const api::Pod*, uint32_t> slot_of_;
  std::string name_buf_;
  std::vector<GroupSlot> groups_;
  std::vector<uint32_t> free_groups_;
  bool restarting_gang_ = false;
  std::vector<WorkloadState> wl_;
  absl::flat_hash_map<Symbol, int32_t> priority_override_;
};

}  // namespace corral::sim
