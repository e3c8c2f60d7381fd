#include "corral/sim/controllers/controllers.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/sim/controllers/names.h"
#include "corral/sim/controllers/pv_controller.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"

namespace corral::sim::controllers {

Controllers::Controllers(World& w) : w_(w) {
  const SimSpec& spec = w_.spec;
  Interner& in = w_.in;
  of_workload_.assign(spec.workloads.size(), kNone);
  cs_.resize(spec.controllers.size());
  for (uint32_t i = 0; i < spec.workloads.size(); ++i) {
    const uint32_t c = spec.workloads[i].controller;
    if (c == kNone) continue;
    of_workload_[i] = c;
    ControllerState& s = cs_[c];
    s.index = c;
    s.workload = i;
    s.spec = &spec.controllers[c];
    s.rng.Seed(spec.seed * 0xd1b54a32d192ed03ULL + c + 1);
  }
  for (ControllerState& s : cs_) {
    CORRAL_CHECK_MSG(s.spec != nullptr, "a controller that no workload runs");
    const api::Controller& ac = *s.spec;
    s.uid = ac.meta.uid.empty() ? in.Intern(NewUid(s.rng)) : ac.meta.uid;
    s.replicas = ac.kind == api::ControllerKind::kJob ? ac.parallelism : ac.replicas;
    const bool apps = ac.kind != api::ControllerKind::kJob;
    s.owner_api = in.Intern(apps ? "apps/v1" : "batch/v1");
    s.owner_kind = in.Intern(api::ControllerKindName(ac.kind));
    s.owner_name = ac.meta.name;
    s.owner_uid = s.uid;
    if (ac.kind == api::ControllerKind::kDeployment) {
      // The ReplicaSet the Deployment creates: "<deployment>-<pod-template-hash>", its template
      // already carries the hash label (compile.cc).
      const api::Pod& t = spec.pod_templates[spec.workloads[s.workload].tmpl].pod;
      const Symbol* hash = t.meta.labels.Find(in.Intern("pod-template-hash"));
      CORRAL_CHECK(hash != nullptr);
      s.owner_kind = in.Intern("ReplicaSet");
      s.owner_name = in.Intern(fmt::format("{}-{}", in.Str(ac.meta.name), in.Str(*hash)));
      s.owner_uid = in.Intern(NewUid(s.rng));
    }
    if (ac.kind == api::ControllerKind::kJob) {
      // The API server's Job defaulting (generateSelector): the uid labels, old and new names.
      const Symbol name = ac.meta.name;
      s.pod_labels = {{in.Intern("batch.kubernetes.io/controller-uid"), s.uid},
                      {in.Intern("batch.kubernetes.io/job-name"), name},
                      {in.Intern("controller-uid"), s.uid},
                      {in.Intern("job-name"), name}};
      if (ac.indexed) s.index_done.assign(static_cast<size_t>(*ac.completions), false);
    }
  }
}

void Controllers::Arrive(uint32_t w) {
  ControllerState& c = cs_[of_workload_[w]];
  WorkloadState& ws = w_.pods->workload(w);
  ws.exhausted = true;
  c.wake_pending = false;
  if (!c.started) {
    c.started = true;
    const api::Controller& ac = *c.spec;
    std::string detail = fmt::format("{} {}/{}", api::ControllerKindName(ac.kind),
                                     w_.in.Str(ac.meta.namespace_), w_.in.Str(ac.meta.name));
    if (ac.kind == api::ControllerKind::kJob) {
      detail += fmt::format(" parallelism={} completions={}{}", c.replicas,
                            ac.completions.has_value() ? std::to_string(*ac.completions) : "-",
                            ac.indexed ? " indexed" : "");
    } else if (ac.kind != api::ControllerKind::kDaemonSet) {
      detail += fmt::format(" replicas={}", c.replicas);
    }
    w_.Log("controller-start", detail);
  }
  Reconcile(c);
}

void Controllers::Reconcile(ControllerState& c) {
  switch (c.spec->kind) {
    case api::ControllerKind::kDeployment:
    case api::ControllerKind::kReplicaSet:
      ReconcileReplicaSet(*this, c);
      break;
    case api::ControllerKind::kStatefulSet:
      ReconcileStatefulSet(*this, c);
      break;
    case api::ControllerKind::kDaemonSet:
      ReconcileDaemonSet(*this, c);
      break;
    case api::ControllerKind::kJob:
      ReconcileJob(*this, c);
      break;
  }
}

void Controllers::Wake(ControllerState& c, int64_t at_ns) {
  if (!c.started) return;
  if (at_ns < 0 || at_ns <= w_.now) {
    if (c.wake_pending) return;
    c.wake_pending = true;
    at_ns = w_.now;
  }
  w_.Push(at_ns, EventKind::kArrival, c.workload);
}

void Controllers::PodRunning(uint32_t slot) {
  const PodSlot& s = w_.pods->Pod(slot);
  const uint32_t ci = of_workload_[s.workload];
  // An OrderedReady StatefulSet waits for each pod to run before it creates the next.
  if (ci != kNone && cs_[ci].spec->kind == api::ControllerKind::kStatefulSet) Wake(cs_[ci]);
}

void Controllers::PodEnded(uint32_t w, uint32_t slot, int32_t ordinal, PodEnd why) {
  const uint32_t ci = of_workload_[w];
  if (ci == kNone) return;
  ControllerState& c = cs_[ci];
  // A pod the controller deleted itself left `live` before it went.
  auto it = std::find(c.live.begin(), c.live.end(), slot);
  if (it == c.live.end()) return;
  c.live.erase(it);
  DeletePodClaims(w_, w_.pods->MemberOf(w), w_.pods->Pod(slot).pod);
  if (c.spec->kind == api::ControllerKind::kJob) JobPodEnded(*this, c, ordinal, why);
  Wake(c);
}

void Controllers::NodesChanged(uint16_t member) {
  for (ControllerState& c : cs_) {
    if (c.spec->kind == api::ControllerKind::kDaemonSet && w_.pods->MemberOf(c.workload) == member)
      Wake(c);
  }
}

void Controllers::Scale(uint32_t ci, int32_t replicas) {
  ControllerState& c = cs_[ci];
  w_.Log("scale", fmt::format("{} {}/{} replicas={}->{}", api::ControllerKindName(c.spec->kind),
                              w_.in.Str(c.spec->meta.namespace_), w_.in.Str(c.spec->meta.name),
                              c.replicas, replicas));
  c.replicas = replicas;
  Wake(c);
}

void Controllers::Prepare(ControllerState& c, std::string_view name) {
  Interner& in = w_.in;
  api::Pod& p = scratch_;
  p.meta.name = in.Intern(name);
  p.meta.uid = in.Intern(NewUid(c.rng));
  for (const auto& [k, v] : c.pod_labels) p.meta.labels.Set(k, v);
  p.meta.owner_references.clear();
  p.meta.owner_references.push_back(
      {c.owner_api, c.owner_kind, c.owner_name, c.owner_uid, /*controller=*/true});
}

uint32_t Controllers::Commit(ControllerState& c, int32_t ordinal, int64_t duration_ns) {
  Pods& pods = *w_.pods;
  if (!CreatePodClaims(w_, pods.MemberOf(c.workload), scratch_, c.rng)) return kNone;
  const uint32_t slot =
      pods.CreatePod(c.workload, kNone, w_.spec.workloads[c.workload].tmpl, duration_ns,
                     scratch_.meta.name, /*recreated=*/false, &scratch_);
  if (slot == kNone) return kNone;
  ++pods.workload(c.workload).stats.arrivals;  // each pod the controller creates is an arrival
  pods.Pod(slot).ordinal = ordinal;
  c.live.push_back(slot);
  return slot;
}

void Controllers::DeletePod(ControllerState& c, uint32_t slot, std::string_view reason) {
  if (auto it = std::find(c.live.begin(), c.live.end(), slot); it != c.live.end()) c.live.erase(it);
  w_.pods->Evict(slot, reason, /*recreate=*/false);
}

}  // namespace corral::sim::controllers
