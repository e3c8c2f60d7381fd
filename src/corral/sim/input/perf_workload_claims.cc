// createPodGroups of PodGroups with spec.resourceClaims (DRAWorkloadResourceClaims): the group's
// claims join the run's resource.k8s.io objects, and a claim from a template gets the claim kube's
// resourceclaim controller makes for the group when the PodGroup is created.

#include <memory>

#include "corral/loader/internal/decode_resource.h"
#include "corral/sim/input/perf_config_internal.h"

namespace corral::sim::perf_detail {

namespace res = api::resource;

void OpCompiler::TakePodGroupClaims(const LoadedObject& obj, Symbol ns) {
  const auto& from = obj.objects.resources;
  if (from == nullptr || from->pod_group_claims.empty()) return;
  if (dra_ == nullptr) dra_ = std::make_shared<res::ResourceObjects>();
  const Symbol annotation = in_.Intern("resource.kubernetes.io/pod-claim-name");
  for (res::PodGroupClaims g : from->pod_group_claims) {
    g.namespace_ = ns;
    for (res::PodGroupResourceClaim& gc : g.claims) {
      if (gc.resource_claim_template_name.empty() || !gc.generated_claim_name.empty()) continue;
      const res::ResourceClaimTemplate* tmpl = nullptr;
      for (const auto& t : dra_->resource_claim_templates) {
        if (t.meta.namespace_ == ns && t.meta.name == gc.resource_claim_template_name) tmpl = &t;
      }
      // Without the template kube's controller waits for it; the members then wait at PreEnqueue.
      if (tmpl == nullptr) continue;
      res::ResourceClaim c = loader::internal::MakePodGroupClaim(in_, g, gc, *tmpl, annotation);
      gc.generated_claim_name = c.meta.name;
      dra_->resource_claims.push_back(std::move(c));
    }
    dra_->pod_group_claims.push_back(std::move(g));
  }
}

}  // namespace corral::sim::perf_detail
