#include "corral/api/pod_update.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace corral::api {

const char kPodUpdateForbiddenMessage[] =
    "Forbidden: pod updates may not change fields other than "
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

namespace {

// Structural equality of the spec fields Corral holds (kube's apiequality.Semantic.DeepEqual over
// PodSpec). Declared first so that the templates below find every overload.
bool Eq(const ResourceList& a, const ResourceList& b);
bool Eq(const ResourceRequirements& a, const ResourceRequirements& b);
bool Eq(const ContainerPort& a, const ContainerPort& b);
bool Eq(const LabelSelectorRequirement& a, const LabelSelectorRequirement& b);
bool Eq(const LabelSelector& a, const LabelSelector& b);
bool Eq(const NodeSelectorRequirement& a, const NodeSelectorRequirement& b);
bool Eq(const NodeSelectorTerm& a, const NodeSelectorTerm& b);
bool Eq(const NodeSelector& a, const NodeSelector& b);
bool Eq(const PreferredSchedulingTerm& a, const PreferredSchedulingTerm& b);
bool Eq(const NodeAffinity& a, const NodeAffinity& b);
bool Eq(const PodAffinityTerm& a, const PodAffinityTerm& b);
bool Eq(const WeightedPodAffinityTerm& a, const WeightedPodAffinityTerm& b);
bool Eq(const PodAffinity& a, const PodAffinity& b);
bool Eq(const Affinity& a, const Affinity& b);
bool Eq(const Toleration& a, const Toleration& b);
bool Eq(const TopologySpreadConstraint& a, const TopologySpreadConstraint& b);
bool Eq(const WorkloadReference& a, const WorkloadReference& b);
bool Eq(const PodSchedulingGroup& a, const PodSchedulingGroup& b);
bool Eq(const VolumeSource& a, const VolumeSource& b);
bool Eq(const Volume& a, const Volume& b);
bool Eq(const PodResourceClaim& a, const PodResourceClaim& b);

template <class T>
bool Eq(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!Eq(a[i], b[i])) return false;
  }
  return true;
}

template <class T>
bool Eq(const std::optional<T>& a, const std::optional<T>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || Eq(*a, *b);
}

bool Eq(const ResourceList& a, const ResourceList& b) {
  return a == b;
}
bool Eq(const ResourceRequirements& a, const ResourceRequirements& b) {
  return a.requests == b.requests && a.limits == b.limits;
}
bool Eq(const ContainerPort& a, const ContainerPort& b) {
  return std::tie(a.name, a.container_port, a.host_port, a.protocol, a.host_ip) ==
         std::tie(b.name, b.container_port, b.host_port, b.protocol, b.host_ip);
}
bool Eq(const LabelSelectorRequirement& a, const LabelSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}
bool Eq(const LabelSelector& a, const LabelSelector& b) {
  return a.match_labels == b.match_labels && Eq(a.match_expressions, b.match_expressions);
}
bool Eq(const NodeSelectorRequirement& a, const NodeSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}
bool Eq(const NodeSelectorTerm& a, const NodeSelectorTerm& b) {
  return Eq(a.match_expressions, b.match_expressions) && Eq(a.match_fields, b.match_fields);
}
bool Eq(const NodeSelector& a, const NodeSelector& b) {
  return Eq(a.node_selector_terms, b.node_selector_terms);
}
bool Eq(const PreferredSchedulingTerm& a, const PreferredSchedulingTerm& b) {
  return a.weight == b.weight && Eq(a.preference, b.preference);
}
bool Eq(const NodeAffinity& a, const NodeAffinity& b) {
  return Eq(a.required, b.required) && Eq(a.preferred, b.preferred);
}
bool Eq(const PodAffinityTerm& a, const PodAffinityTerm& b) {
  return Eq(a.label_selector, b.label_selector) && a.namespaces == b.namespaces &&
         a.topology_key == b.topology_key && Eq(a.namespace_selector, b.namespace_selector) &&
         a.match_label_keys == b.match_label_keys && a.mismatch_label_keys == b.mismatch_label_keys;
}
bool Eq(const WeightedPodAffinityTerm& a, const WeightedPodAffinityTerm& b) {
  return a.weight == b.weight && Eq(a.pod_affinity_term, b.pod_affinity_term);
}
bool Eq(const PodAffinity& a, const PodAffinity& b) {
  return Eq(a.required, b.required) && Eq(a.preferred, b.preferred);
}
bool Eq(const Affinity& a, const Affinity& b) {
  return Eq(a.node_affinity, b.node_affinity) && Eq(a.pod_affinity, b.pod_affinity) &&
         Eq(a.pod_anti_affinity, b.pod_anti_affinity);
}
bool Eq(const Toleration& a, const Toleration& b) {
  return std::tie(a.key, a.op, a.value, a.effect, a.toleration_seconds) ==
         std::tie(b.key, b.op, b.value, b.effect, b.toleration_seconds);
}
bool Eq(const TopologySpreadConstraint& a, const TopologySpreadConstraint& b) {
  return a.max_skew == b.max_skew && a.topology_key == b.topology_key &&
         a.when_unsatisfiable == b.when_unsatisfiable && Eq(a.label_selector, b.label_selector) &&
         a.min_domains == b.min_domains && a.node_affinity_policy == b.node_affinity_policy &&
         a.node_taints_policy == b.node_taints_policy && a.match_label_keys == b.match_label_keys;
}
bool Eq(const WorkloadReference& a, const WorkloadReference& b) {
  return std::tie(a.name, a.pod_group, a.pod_group_replica_key) ==
         std::tie(b.name, b.pod_group, b.pod_group_replica_key);
}
bool Eq(const PodSchedulingGroup& a, const PodSchedulingGroup& b) {
  return a.pod_group_name == b.pod_group_name;
}
bool Eq(const VolumeSource& a, const VolumeSource& b) {
  return std::tie(a.id, a.driver, a.pool, a.monitors, a.read_only) ==
         std::tie(b.id, b.driver, b.pool, b.monitors, b.read_only);
}
bool Eq(const Volume& a, const Volume& b) {
  // An ephemeral volume's claim template is compared by presence: both come from the same
  // loader, and kube forbids any change of spec.volumes anyway.
  return a.name == b.name && a.kind == b.kind && a.claim_name == b.claim_name &&
         Eq(a.source, b.source) && (a.claim_template == nullptr) == (b.claim_template == nullptr);
}
bool Eq(const PodResourceClaim& a, const PodResourceClaim& b) {
  // generated_claim_name is the resourceclaim controller's (status), not the update's.
  return std::tie(a.name, a.resource_claim_name, a.resource_claim_template_name) ==
         std::tie(b.name, b.resource_claim_name, b.resource_claim_template_name);
}

// Containers equal but for their images (the first updatable field).
bool ContainersEqualButImage(const std::vector<Container>& a, const std::vector<Container>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Container& x = a[i];
    const Container& y = b[i];
    if (x.name != y.name || !Eq(x.resources, y.resources) || !Eq(x.ports, y.ports) ||
        x.restart_policy != y.restart_policy) {
      return false;
    }
  }
  return true;
}

// kube's validateOnlyAddedTolerations: every existing toleration is still there (its
// tolerationSeconds may change).
bool OnlyAddedTolerations(const std::vector<Toleration>& update,
                          const std::vector<Toleration>& live) {
  for (const Toleration& old : live) {
    const bool found = std::any_of(update.begin(), update.end(), [&](const Toleration& t) {
      Toleration clone = old;
      clone.toleration_seconds = t.toleration_seconds;
      return Eq(clone, t);
    });
    if (!found) return false;
  }
  return true;
}

}  // namespace

std::optional<PodUpdateError> ValidatePodUpdate(const Pod& update, bool priority_set,
                                                const Pod& live, const Interner& in) {
  // ValidateContainerUpdates: the same containers, each with an image.
  for (const auto* list : {&update.containers, &update.init_containers}) {
    const bool init = list == &update.init_containers;
    const std::string path = init ? "spec.initContainers" : "spec.containers";
    const auto& old = init ? live.init_containers : live.containers;
    if (list->size() != old.size()) {
      return PodUpdateError{path, "Forbidden: pod updates may not add or remove containers", path};
    }
    for (size_t i = 0; i < list->size(); ++i) {
      if ((*list)[i].image.empty()) {
        std::string at = fmt::format("{}[{}].image", path, i);
        return PodUpdateError{at, "Required value", fmt::format("{}[{}]", path, i)};
      }
    }
  }
  if (!OnlyAddedTolerations(update.tolerations, live.tolerations)) {
    return PodUpdateError{"spec.tolerations",
                          "Forbidden: existing toleration can not be modified except its "
                          "tolerationSeconds",
                          "spec.tolerations"};
  }
  for (Symbol gate : update.scheduling_gates) {
    if (std::find(live.scheduling_gates.begin(), live.scheduling_gates.end(), gate) ==
        live.scheduling_gates.end()) {
      return PodUpdateError{
          "spec.schedulingGates",
          fmt::format("Forbidden: only deletion is allowed, but found new scheduling gate '{}'",
                      in.Str(gate)),
          "spec.schedulingGates"};
    }
  }
  // A gated pod's node selector may gain entries (no mutations or deletions).
  const bool gated = !live.scheduling_gates.empty();
  if (gated && !(update.node_selector == live.node_selector)) {
    for (const auto& [k, v] : live.node_selector.items()) {
      const Symbol* nv = update.node_selector.Find(k);
      if (nv == nullptr || *nv != v) {
        return PodUpdateError{"spec.nodeSelector",
                              "Invalid value: only additions to spec.nodeSelector are allowed (no "
                              "mutations or deletions)",
                              "spec.nodeSelector"};
      }
    }
  }
  if (gated && !Eq(update.affinity, live.affinity)) {
    // kube lets a gated pod's required node affinity narrow; Corral does not model that update.
    return PodUpdateError{"spec.affinity",
                          "Corral does not model the update of a gated pod's affinity (kube "
                          "allows its required node affinity to be narrowed)",
                          "spec.affinity"};
  }
  // The rest of the spec must be unchanged (kube's munged DeepEqual). The first differing field
  // is named for the input's position; kube's path is "spec".
  auto spec_changed = [&]() -> const char* {
    if (!ContainersEqualButImage(update.containers, live.containers)) return "spec.containers";
    if (!ContainersEqualButImage(update.init_containers, live.init_containers))
      return "spec.initContainers";
    if (!Eq(update.overhead, live.overhead)) return "spec.overhead";
    if (!Eq(update.resources, live.resources)) return "spec.resources";
    if (!gated && !(update.node_selector == live.node_selector)) return "spec.nodeSelector";
    if (!Eq(update.affinity, live.affinity)) return "spec.affinity";
    if (!Eq(update.topology_spread_constraints, live.topology_spread_constraints))
      return "spec.topologySpreadConstraints";
    if (update.node_name != live.node_name) return "spec.nodeName";
    if (update.scheduler_name != live.scheduler_name) return "spec.schedulerName";
    if (update.priority_class_name != live.priority_class_name) return "spec.priorityClassName";
    if (priority_set && update.priority != live.priority) return "spec.priority";
    if (update.termination_grace_period_seconds != live.termination_grace_period_seconds &&
        !(update.termination_grace_period_seconds == 1 &&
          live.termination_grace_period_seconds.value_or(0) < 0)) {
      return "spec.terminationGracePeriodSeconds";
    }
    if (!Eq(update.workload_ref, live.workload_ref)) return "spec.workloadRef";
    if (!Eq(update.scheduling_group, live.scheduling_group)) return "spec.schedulingGroup";
    if (!Eq(update.volumes, live.volumes)) return "spec.volumes";
    if (!Eq(update.resource_claims, live.resource_claims)) return "spec.resourceClaims";
    if (update.host_network != live.host_network) return "spec.hostNetwork";
    return nullptr;
  };
  if (const char* changed = spec_changed(); changed != nullptr) {
    return PodUpdateError{"spec", kPodUpdateForbiddenMessage, changed};
  }
  return std::nullopt;
}

Pod ApplyPodUpdate(const Pod& update, const Pod& live) {
  Pod out = live;
  out.meta.labels = update.meta.labels;
  out.meta.annotations = update.meta.annotations;
  out.meta.owner_references = update.meta.owner_references;
  out.containers = update.containers;
  out.init_containers = update.init_containers;
  out.tolerations = update.tolerations;
  out.scheduling_gates = update.scheduling_gates;
  out.node_selector = update.node_selector;
  if (update.termination_grace_period_seconds.has_value())
    out.termination_grace_period_seconds = update.termination_grace_period_seconds;
  return out;
}

}  // namespace corral::api
