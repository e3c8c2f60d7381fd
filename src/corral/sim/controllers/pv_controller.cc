#include "corral/sim/controllers/pv_controller.h"

#include <fmt/format.h>

#include "corral/api/generated_names.h"
#include "corral/api/resource/types.h"
#include "corral/framework/handle.h"
#include "corral/sim/controllers/names.h"
#include "corral/sim/member.h"
#include "corral/state/dra_store.h"
#include "corral/state/volume_cache.h"

namespace corral::sim::controllers {

namespace {

state::VolumeCache* VolumesOf(World& w, uint16_t member) {
  return static_cast<framework::Handle&>(w.members[member]->sched()).volumes();
}

state::DraStore* DraOf(World& w, uint16_t member) {
  return dynamic_cast<state::DraStore*>(
      static_cast<framework::Handle&>(w.members[member]->sched()).SharedDRAManager());
}

// Adds a claim and, for an Immediate class, binds it as kube's PV controller would.
bool AddClaim(World& w, uint16_t member, api::PersistentVolumeClaim claim) {
  state::VolumeCache* vc = VolumesOf(w, member);
  if (vc == nullptr) {
    w.Fail(fmt::format(
        "claim {}/{}: the inputs have no storage objects (StorageClass, PersistentVolume) for "
        "it to bind to",
        w.in.Str(claim.meta.namespace_), w.in.Str(claim.meta.name)));
    return false;
  }
  const api::PersistentVolumeClaim* c = vc->AddClaim(std::move(claim));
  const api::StorageClass* cls = vc->GetClass(c->storage_class_name);
  if (c->phase != api::ClaimPhase::kBound &&
      (!c->volume_name.empty() ||
       (cls != nullptr && cls->volume_binding_mode == api::VolumeBindingMode::kImmediate))) {
    const api::PersistentVolume* pv = vc->BindImmediate(c);
    w.Log("claim-add",
          fmt::format("{}/{} volume={}", w.in.Str(c->meta.namespace_), w.in.Str(c->meta.name),
                      pv == nullptr ? std::string_view("-") : w.in.Str(pv->meta.name)));
  } else {
    w.Log("claim-add", fmt::format("{}/{}", w.in.Str(c->meta.namespace_), w.in.Str(c->meta.name)));
  }
  return true;
}

// The PodGroup claim a pod's template claim shares: same name and template (the DynamicResources
// plugin's MatchPodGroupClaim, plugins/dynamic_resources/workload_claims.h), or null.
const api::resource::PodGroupResourceClaim* GroupClaimFor(
    const api::resource::PodGroupClaims* group, const api::PodResourceClaim& pc) {
  if (group == nullptr) return nullptr;
  for (const auto& c : group->claims) {
    if (c.name == pc.name) {
      return c.resource_claim_template_name == pc.resource_claim_template_name &&
                     c.resource_claim_name.empty()
                 ? &c
                 : nullptr;
    }
  }
  return nullptr;
}

}  // namespace

bool EnsureStatefulSetClaims(World& w, ControllerState& c, std::string_view pod_name) {
  const api::Controller& sts = *c.spec;
  if (sts.volume_claim_templates.empty()) return true;
  const uint16_t member = static_cast<uint16_t>(w.spec.workloads[c.workload].cluster);
  for (const api::PersistentVolumeClaim& t : sts.volume_claim_templates) {
    api::PersistentVolumeClaim claim = t;
    claim.meta.name = w.in.Intern(fmt::format("{}-{}", w.in.Str(t.meta.name), pod_name));
    claim.meta.namespace_ = sts.meta.namespace_;
    claim.meta.source = sts.meta.source;
    if (sts.selector.has_value()) {
      for (const auto& [k, v] : sts.selector->match_labels.items()) claim.meta.labels.Set(k, v);
    }
    state::VolumeCache* vc = VolumesOf(w, member);
    if (vc != nullptr && vc->GetClaim(claim.meta.namespace_, claim.meta.name) != nullptr) continue;
    if (!AddClaim(w, member, std::move(claim))) return false;
  }
  return true;
}

bool CreatePodClaims(World& w, uint16_t member, api::Pod& pod, Rng& rng) {
  Interner& in = w.in;
  for (const api::Volume& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kEphemeral || v.claim_template == nullptr) continue;
    api::PersistentVolumeClaim claim = *v.claim_template;
    claim.meta.name = in.Intern(api::EphemeralClaimName(in.Str(pod.meta.name), in.Str(v.name)));
    claim.meta.namespace_ = pod.meta.namespace_;
    claim.meta.source = pod.meta.source;
    claim.meta.owner_references.push_back(
        {in.Intern("v1"), in.Intern("Pod"), pod.meta.name, pod.meta.uid, /*controller=*/true});
    if (!AddClaim(w, member, std::move(claim))) return false;
  }
  if (pod.resource_claims.empty()) return true;
  const api::resource::ResourceObjects* objects = w.spec.objects.resources.get();
  state::DraStore* dra = DraOf(w, member);
  // DRAWorkloadResourceClaims: a claim the pod shares with its PodGroup is the group's claim
  // (kube's controller creates none for the pod and records the group's in the pod's status).
  const api::resource::PodGroupClaims* group =
      dra != nullptr && pod.scheduling_group.has_value() &&
              static_cast<framework::Handle&>(w.members[member]->sched())
                  .features()
                  .Enabled(framework::Feature::kDRAWorkloadResourceClaims)
          ? dra->GetPodGroupClaims(pod.meta.namespace_, pod.scheduling_group->pod_group_name)
          : nullptr;
  for (api::PodResourceClaim& pc : pod.resource_claims) {
    if (pc.resource_claim_template_name.empty()) continue;
    if (const auto* gc = GroupClaimFor(group, pc)) {
      pc.generated_claim_name = gc->generated_claim_name;
      continue;
    }
    const api::resource::ResourceClaimTemplate* tmpl = nullptr;
    if (objects != nullptr) {
      for (const auto& t : objects->resource_claim_templates) {
        if (t.meta.namespace_ == pod.meta.namespace_ &&
            t.meta.name == pc.resource_claim_template_name)
          tmpl = &t;
      }
    }
    if (tmpl == nullptr || dra == nullptr) {
      // kube's resourceclaim controller retries until the template exists; none ever will.
      w.Fail(fmt::format("pod {}/{}: spec.resourceClaims[{}]: ResourceClaimTemplate {:?} not found",
                         in.Str(pod.meta.namespace_), in.Str(pod.meta.name), in.Str(pc.name),
                         in.Str(pc.resource_claim_template_name)));
      return false;
    }
    std::string_view pod_name = in.Str(pod.meta.name), claim_name = in.Str(pc.name);
    const std::string base = api::ResourceClaimNameBase(pod_name, claim_name);
    api::resource::ResourceClaim claim;
    claim.meta.name = in.Intern(GenerateName(base, rng));
    claim.meta.namespace_ = pod.meta.namespace_;
    claim.meta.source = pod.meta.source;
    claim.meta.annotations.emplace_back(in.Intern("resource.kubernetes.io/pod-claim-name"),
                                        std::string(claim_name));
    claim.meta.owner_references.push_back(
        {in.Intern("v1"), in.Intern("Pod"), pod.meta.name, pod.meta.uid, /*controller=*/true});
    claim.spec = tmpl->spec;
    pc.generated_claim_name = claim.meta.name;
    w.Log("resourceclaim-add", fmt::format("{}/{} pod={}", in.Str(claim.meta.namespace_),
                                           in.Str(claim.meta.name), pod_name));
    dra->AddClaim(std::move(claim));
  }
  return true;
}

void DeleteStatefulSetClaims(World& w, ControllerState& c, std::string_view pod_name) {
  const uint16_t member = static_cast<uint16_t>(w.spec.workloads[c.workload].cluster);
  state::VolumeCache* vc = VolumesOf(w, member);
  if (vc == nullptr) return;
  for (const api::PersistentVolumeClaim& t : c.spec->volume_claim_templates) {
    const Symbol name = w.in.Intern(fmt::format("{}-{}", w.in.Str(t.meta.name), pod_name));
    if (vc->GetClaim(c.spec->meta.namespace_, name) == nullptr) continue;
    const Symbol volume = vc->DeleteClaim(c.spec->meta.namespace_, name);
    w.Log("claim-delete",
          fmt::format("{}/{} volume={}", w.in.Str(c.spec->meta.namespace_), w.in.Str(name),
                      volume.empty() ? std::string_view("-") : w.in.Str(volume)));
  }
}

void DeletePodClaims(World& w, uint16_t member, const api::Pod& pod) {
  Interner& in = w.in;
  for (const api::Volume& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kEphemeral || v.claim_template == nullptr) continue;
    state::VolumeCache* vc = VolumesOf(w, member);
    if (vc == nullptr) continue;
    const Symbol name = in.Intern(api::EphemeralClaimName(in.Str(pod.meta.name), in.Str(v.name)));
    const Symbol volume = vc->DeleteClaim(pod.meta.namespace_, name);
    w.Log("claim-delete", fmt::format("{}/{} volume={}", in.Str(pod.meta.namespace_), in.Str(name),
                                      volume.empty() ? std::string_view("-") : in.Str(volume)));
  }
}

}  // namespace corral::sim::controllers
