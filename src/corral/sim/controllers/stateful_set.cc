// The StatefulSet controller: pods "<statefulset>-<ordinal>" for the ordinals [start,
// start + replicas), with the claims of its volumeClaimTemplates ("<template>-<pod>"), created
// one at a time in ordinal order, each after the previous runs (OrderedReady), or all at once
// (Parallel); scaled down from the highest ordinal.

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/sim/controllers/controllers.h"
#include "corral/sim/controllers/pv_controller.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"

namespace corral::sim::controllers {

namespace {

// The pod's volumes refer to its claims: a volume named like a claim template gets the claim as
// its source; a template without such a volume adds one (kube's updateStorage).
void UseClaims(api::Pod& pod, const api::Controller& sts, std::string_view pod_name, Interner& in) {
  for (const api::PersistentVolumeClaim& t : sts.volume_claim_templates) {
    const Symbol claim = in.Intern(fmt::format("{}-{}", in.Str(t.meta.name), pod_name));
    api::Volume* v = nullptr;
    for (api::Volume& pv : pod.volumes) {
      if (pv.name == t.meta.name) v = &pv;
    }
    if (v == nullptr) {
      pod.volumes.emplace_back();
      v = &pod.volumes.back();
      v->name = t.meta.name;
    }
    v->kind = api::VolumeKind::kPersistentVolumeClaim;
    v->claim_name = claim;
    v->source = {};
    v->claim_template.reset();
  }
}

}  // namespace

void ReconcileStatefulSet(Controllers& ctl, ControllerState& c) {
  World& w = ctl.world();
  Interner& in = w.in;
  Pods& pods = *w.pods;
  const api::Controller& sts = *c.spec;
  const int32_t start = sts.ordinals_start;
  const int32_t end = start + c.replicas;
  std::vector<uint32_t> by_ordinal(static_cast<size_t>(std::max(0, c.replicas)), kNone);
  std::vector<uint32_t> condemned;
  for (uint32_t slot : c.live) {
    const int32_t o = pods.Pod(slot).ordinal;
    if (o >= start && o < end && by_ordinal[static_cast<size_t>(o - start)] == kNone) {
      by_ordinal[static_cast<size_t>(o - start)] = slot;
    } else {
      condemned.push_back(slot);
    }
  }
  const Symbol pod_name_key = in.Intern("statefulset.kubernetes.io/pod-name");
  const Symbol pod_index_key = in.Intern("apps.kubernetes.io/pod-index");
  bool healthy = true;
  for (int32_t o = start; o < end && w.error.empty(); ++o) {
    uint32_t slot = by_ordinal[static_cast<size_t>(o - start)];
    if (slot == kNone) {
      const std::string name = fmt::format("{}-{}", in.Str(sts.meta.name), o);
      if (!EnsureStatefulSetClaims(w, c, name)) return;
      slot = ctl.CreatePod(c, name, o, kForeverNs, [&](api::Pod& p) {
        p.meta.labels.Set(pod_name_key, in.Intern(name));
        p.meta.labels.Set(pod_index_key, in.Intern(std::to_string(o)));
        UseClaims(p, sts, name, in);
      });
      if (!sts.parallel) return;  // OrderedReady: wait until it runs
      continue;
    }
    if (!sts.parallel && pods.Pod(slot).state != PodState::kRunning) return;
    healthy &= pods.Pod(slot).state == PodState::kRunning;
  }
  // Condemned pods go from the highest ordinal down; OrderedReady deletes one at a time, and
  // only while every wanted pod runs.
  std::sort(condemned.begin(), condemned.end(),
            [&](uint32_t a, uint32_t b) { return pods.Pod(a).ordinal > pods.Pod(b).ordinal; });
  for (uint32_t slot : condemned) {
    if (!sts.parallel && !healthy) return;
    const std::string name(in.Str(pods.Pod(slot).pod.meta.name));
    ctl.DeletePod(c, slot, "scale-down");
    if (sts.delete_claims_when_scaled) DeleteStatefulSetClaims(w, c, name);
    if (!sts.parallel) {
      ctl.Wake(c);
      return;
    }
  }
}

}  // namespace corral::sim::controllers
