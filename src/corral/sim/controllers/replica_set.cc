// The ReplicaSet controller (and the ReplicaSet a Deployment owns): `replicas` pods named
// "<replicaset>-<5 random characters>", scaled down in kube's getPodsToDelete order.

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "corral/sim/controllers/controllers.h"
#include "corral/sim/controllers/names.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"

namespace corral::sim::controllers {

namespace {

// kube's controller.ActivePodsWithRanks order, most deletable first: unassigned before assigned;
// pending before running (a binding pod is assigned but not running); lower
// controller.kubernetes.io/pod-deletion-cost first; more of the set's pods on the same node
// first; running for less time first; newer first.
struct Rank {
  uint32_t slot;
  bool assigned, running;
  int64_t cost;
  int32_t doubled;  // the set's pods on the same node
  int64_t ready_ns, created;
};

bool MoreDeletable(const Rank& a, const Rank& b) {
  if (a.assigned != b.assigned) return !a.assigned;
  if (a.running != b.running) return !a.running;
  if (a.cost != b.cost) return a.cost < b.cost;
  if (a.doubled != b.doubled) return a.doubled > b.doubled;
  if (a.running && a.ready_ns != b.ready_ns) return a.ready_ns > b.ready_ns;
  return a.created > b.created;
}

}  // namespace

void ReconcileReplicaSet(Controllers& ctl, ControllerState& c) {
  World& w = ctl.world();
  Pods& pods = *w.pods;
  const int32_t have = static_cast<int32_t>(c.live.size());
  if (have < c.replicas) {
    const std::string base = std::string(w.in.Str(c.owner_name)) + "-";
    for (int32_t i = have; i < c.replicas && w.error.empty(); ++i) {
      ctl.CreatePod(c, GenerateName(base, c.rng), -1, kForeverNs, [](api::Pod&) {});
    }
    return;
  }
  if (have == c.replicas) return;
  const Symbol cost_key = w.in.Intern("controller.kubernetes.io/pod-deletion-cost");
  std::vector<Rank> ranks;
  for (size_t k = 0; k < c.live.size(); ++k) {
    const PodSlot& s = pods.Pod(c.live[k]);
    Rank r{c.live[k],  s.state != PodState::kPending, s.state == PodState::kRunning, 0, 0,
           s.bound_ns, static_cast<int64_t>(k)};
    if (const std::string* v = s.pod.meta.Annotation(cost_key)) {
      // An unparsable cost counts as 0, as kube's helper does (int32 values).
      int32_t cost = 0;
      auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), cost);
      r.cost = ec == std::errc() && end == v->data() + v->size() ? cost : 0;
    }
    if (r.assigned) {
      for (uint32_t o : c.live) {
        const PodSlot& os = pods.Pod(o);
        if (os.state != PodState::kPending && os.node == s.node) ++r.doubled;
      }
    }
    ranks.push_back(r);
  }
  std::stable_sort(ranks.begin(), ranks.end(), MoreDeletable);
  for (int32_t i = 0; i < have - c.replicas; ++i) ctl.DeletePod(c, ranks[i].slot, "scale-down");
}

}  // namespace corral::sim::controllers
