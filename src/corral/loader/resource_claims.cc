// ResourceClaims generated from the ResourceClaimTemplates of pods and PodGroups (kube's
// resourceclaim controller).

#include <string>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "corral/api/generated_names.h"
#include "corral/loader/internal/decode_resource.h"

namespace corral::loader::internal {

namespace {}  // namespace

void GenerateGroupTemplateClaims(Interner& in, api::resource::ResourceObjects& objects) {
  if (objects.pod_group_claims.empty()) return;
  absl::flat_hash_map<std::pair<Symbol, Symbol>, const api::resource::ResourceClaimTemplate*>
      templates;
  for (const auto& t : objects.resource_claim_templates) {
    templates[{t.meta.namespace_, t.meta.name}] = &t;
  }
  absl::flat_hash_set<std::pair<Symbol, Symbol>> claims;
  for (const auto& c : objects.resource_claims) claims.insert({c.meta.namespace_, c.meta.name});
  const Symbol pod_claim_annotation = in.Intern("resource.kubernetes.io/pod-claim-name");
  for (api::resource::PodGroupClaims& g : objects.pod_group_claims) {
    for (api::resource::PodGroupResourceClaim& gc : g.claims) {
      if (gc.resource_claim_template_name.empty() || !gc.generated_claim_name.empty()) continue;
      auto it = templates.find({g.namespace_, gc.resource_claim_template_name});
      if (it == templates.end()) continue;  // kube's controller waits for the template
      api::resource::ResourceClaim c =
          MakePodGroupClaim(in, g, gc, *it->second, pod_claim_annotation);
      gc.generated_claim_name = c.meta.name;
      // A claim of that name already in the input (e.g. a dump) is the generated one.
      if (claims.insert({c.meta.namespace_, c.meta.name}).second) {
        objects.resource_claims.push_back(std::move(c));
      }
    }
  }
}

api::resource::ResourceClaim MakePodGroupClaim(Interner& in,
                                               const api::resource::PodGroupClaims& group,
                                               const api::resource::PodGroupResourceClaim& gc,
                                               const api::resource::ResourceClaimTemplate& t,
                                               Symbol pod_claim_annotation) {
  std::string_view group_name = in.Str(group.pod_group);
  std::string_view claim_name = in.Str(gc.name);
  const std::string base = api::ResourceClaimNameBase(group_name, claim_name);
  api::resource::ResourceClaim c;
  c.meta.name = in.Intern(base + api::HashedNameSuffix({in.Str(group.namespace_), "/podgroup/",
                                                        group_name, "/", claim_name}));
  c.meta.namespace_ = group.namespace_;
  c.meta.source = t.meta.source;
  c.meta.annotations.emplace_back(pod_claim_annotation, std::string(claim_name));
  api::OwnerReference owner;
  owner.api_version = in.Intern("scheduling.k8s.io/v1alpha3");
  owner.kind = in.Intern("PodGroup");
  owner.name = group.pod_group;
  owner.uid = group.uid;
  owner.controller = true;
  c.meta.owner_references.push_back(owner);
  c.spec = t.spec;
  return c;
}

void GenerateTemplateClaims(Interner& in, std::vector<api::Pod>& pods,
                            api::resource::ResourceObjects& objects) {
  absl::flat_hash_map<std::pair<Symbol, Symbol>, const api::resource::ResourceClaimTemplate*>
      templates;
  for (const auto& t : objects.resource_claim_templates) {
    templates[{t.meta.namespace_, t.meta.name}] = &t;
  }
  absl::flat_hash_set<std::pair<Symbol, Symbol>> claims;
  for (const auto& c : objects.resource_claims) claims.insert({c.meta.namespace_, c.meta.name});
  const Symbol pod_claim_annotation = in.Intern("resource.kubernetes.io/pod-claim-name");
  for (api::Pod& pod : pods) {
    for (api::PodResourceClaim& pc : pod.resource_claims) {
      if (pc.resource_claim_template_name.empty() || !pc.generated_claim_name.empty()) continue;
      auto it = templates.find({pod.meta.namespace_, pc.resource_claim_template_name});
      if (it == templates.end()) continue;
      std::string_view pod_name = in.Str(pod.meta.name);
      std::string_view claim_name = in.Str(pc.name);
      const std::string base = api::ResourceClaimNameBase(pod_name, claim_name);
      Symbol name = in.Intern(base + api::HashedNameSuffix({in.Str(pod.meta.namespace_), "/",
                                                            pod_name, "/", claim_name}));
      if (claims.contains({pod.meta.namespace_, name})) {
        pc.generated_claim_name = name;  // already in the input (e.g. a dump)
        continue;
      }
      api::resource::ResourceClaim c;
      c.meta.name = name;
      c.meta.namespace_ = pod.meta.namespace_;
      c.meta.source = pod.meta.source;
      c.meta.annotations.emplace_back(pod_claim_annotation, std::string(claim_name));
      api::OwnerReference owner;
      owner.api_version = in.Intern("v1");
      owner.kind = in.Intern("Pod");
      owner.name = pod.meta.name;
      owner.uid = pod.meta.uid;
      owner.controller = true;
      c.meta.owner_references.push_back(owner);
      c.spec = it->second->spec;
      objects.resource_claims.push_back(std::move(c));
      claims.insert({pod.meta.namespace_, name});
      pc.generated_claim_name = name;
    }
  }
}

}  // namespace corral::loader::internal
