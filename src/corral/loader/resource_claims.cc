// ResourceClaims generated from pods' ResourceClaimTemplates (kube's resourceclaim controller).

#include <string>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "corral/loader/internal/decode_resource.h"

namespace corral::loader::internal {

namespace {

constexpr std::string_view kSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string Suffix(std::string_view ns, std::string_view pod, std::string_view claim) {
  uint64_t h = 1469598103934665603ULL;
  for (std::string_view s : {ns, std::string_view("/"), pod, std::string_view("/"), claim}) {
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ULL;
    }
  }
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out += kSuffixAlphabet[h % kSuffixAlphabet.size()];
    h /= kSuffixAlphabet.size();
  }
  return out;
}

}  // namespace

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
      // kube: generateName <pod>-<claim>-, both parts cut in proportion beyond 57 characters.
      std::string_view pod_name = in.Str(pod.meta.name);
      std::string_view claim_name = in.Str(pc.name);
      std::string base = fmt::format("{}-{}-", pod_name, claim_name);
      constexpr size_t kMaxBaseLen = 57;
      if (base.size() > kMaxBaseLen) {
        const size_t len = base.size();
        // kube keeps no trailing hyphen here: the suffix follows the claim part directly.
        base = fmt::format("{}-{}", pod_name.substr(0, pod_name.size() * kMaxBaseLen / len),
                           claim_name.substr(0, claim_name.size() * kMaxBaseLen / len));
      }
      Symbol name = in.Intern(base + Suffix(in.Str(pod.meta.namespace_), pod_name, claim_name));
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
