#pragma once
// Controllers: the simulator's kube workload controllers — ReplicaSet (and the Deployment that
// owns one), StatefulSet, DaemonSet and Job — driving the pods of the workloads that name
// them (Workload::controller).
//
// Each controller reconciles as its kube counterpart's sync does: it compares the pods it owns
// with what its spec wants and creates or deletes the difference, naming and labelling each pod
// as kube does (names.h). Reconciles never run inside another part's change: a pod that ends or
// a node that comes or goes asks for a reconcile (an arrival event of the workload at the same
// instant), so that a node being removed is gone before its DaemonSet looks again.
//
// Contract:
//  (1) The pods of a controller never exceed what it wants: replicas (ReplicaSet, StatefulSet),
//      one per eligible node (DaemonSet), min(parallelism, remaining completions) (Job). An
//      evicted, preempted or deleted pod is replaced by the next reconcile (a Job's only after
//      its pod-failure backoff, and not once backoffLimit is exceeded).
//  (2) Every random choice (name suffixes, uids) comes from the controller's own Rng, seeded
//      from the run's seed and the controller's index.
//  (3) Scale(c, n) changes the wanted replicas of a Deployment, ReplicaSet or StatefulSet
//      (a Job's parallelism) and reconciles.

#include <cstdint>
#include <string>
#include <vector>

#include "corral/api/controllers.h"
#include "corral/core/rng.h"
#include "corral/sim/world.h"

namespace corral::sim {

class Pods;
struct PodSlot;

namespace controllers {

// Why a pod of a controller ended.
enum class PodEnd : uint8_t { kSucceeded, kDeleted };

struct ControllerState {
  uint32_t index = 0;     // into SimSpec::controllers
  uint32_t workload = 0;  // the workload that runs it
  const api::Controller* spec = nullptr;
  Rng rng{1};
  bool started = false;
  bool wake_pending = false;
  int32_t replicas = 0;  // wanted: replicas, or a Job's parallelism
  // The pods' owner (the ReplicaSet of a Deployment; the controller itself otherwise).
  Symbol owner_api, owner_kind, owner_name, owner_uid;
  Symbol uid;                                         // the controller's own uid
  std::vector<std::pair<Symbol, Symbol>> pod_labels;  // labels every pod gets
  std::vector<uint32_t> live;                         // pod slots it owns, in creation order
  // StatefulSet: ordinals whose claims exist.
  std::vector<bool> claims_made;
  // Job.
  int32_t succeeded = 0, failed = 0, failures_since_success = 0;
  int64_t last_failure_ns = 0;
  std::vector<bool> index_done;  // Indexed
  bool finished = false;
};

class Controllers {
 public:
  explicit Controllers(World& w);

  // The workload `w` runs a controller: starts it (its start op) or reconciles it (a wake).
  void Arrive(uint32_t w);
  // A pod of a controller's workload began running.
  void PodRunning(uint32_t slot);
  // A pod of workload `w` ended; its slot is already free but keeps the pod's content until the
  // next allocation, which cannot come before this call. `ordinal` is its PodSlot::ordinal.
  void PodEnded(uint32_t w, uint32_t slot, int32_t ordinal, PodEnd why);
  // A node of `member` was added or removed: every started DaemonSet of that member looks again.
  void NodesChanged(uint16_t member);
  // Changes the wanted replicas of controller `c` (a Job's parallelism) and reconciles.
  void Scale(uint32_t c, int32_t replicas);

  const ControllerState& state(uint32_t c) const { return cs_[c]; }
  size_t size() const { return cs_.size(); }

  // ---- for the per-kind reconcilers ----
  World& world() { return w_; }
  // Creates a pod from the controller's template: `name`, extra labels and annotations, and
  // `edit` applied before it is handed to the scheduler. Returns the slot or kNone.
  template <class Edit>
  uint32_t CreatePod(ControllerState& c, std::string_view name, int32_t ordinal,
                     int64_t duration_ns, Edit&& edit) {
    scratch_ = w_.spec.pod_templates[w_.spec.workloads[c.workload].tmpl].pod;
    Prepare(c, name);
    edit(scratch_);
    return Commit(c, ordinal, duration_ns);
  }
  // Deletes one of its pods (scale down, a finished Job) without replacement.
  void DeletePod(ControllerState& c, uint32_t slot, std::string_view reason);
  // Asks for a reconcile of `c` at `at_ns` (now by default).
  void Wake(ControllerState& c, int64_t at_ns = -1);

 private:
  void Reconcile(ControllerState& c);
  void Prepare(ControllerState& c, std::string_view name);
  uint32_t Commit(ControllerState& c, int32_t ordinal, int64_t duration_ns);

  World& w_;
  std::vector<ControllerState> cs_;
  std::vector<uint32_t> of_workload_;  // workload -> controller (kNone)
  api::Pod scratch_;
};

// Per-kind reconcilers (one file each).
void ReconcileReplicaSet(Controllers& ctl, ControllerState& c);
void ReconcileStatefulSet(Controllers& ctl, ControllerState& c);
void ReconcileDaemonSet(Controllers& ctl, ControllerState& c);
void ReconcileJob(Controllers& ctl, ControllerState& c);
// Job: the bookkeeping of one ended pod.
void JobPodEnded(Controllers& ctl, ControllerState& c, int32_t index, PodEnd why);

}  // namespace controllers
}  // namespace corral::sim
