// InterPodAffinity: construction, args validation, signing and queueing hints (kube's plugin.go).

#include <algorithm>
#include <string>
#include <utility>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"
#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/inter_pod_affinity/internal.h"

namespace corral::plugins {

using inter_pod_affinity::MatchesTerm;

Result<void> ValidateInterPodAffinityArgs(const InterPodAffinityArgs& args, std::string_view path) {
  if (args.hard_pod_affinity_weight < 0 || args.hard_pod_affinity_weight > 100) {
    std::string field = path.empty() ? std::string() : std::string(path) + ".";
    field += "hardPodAffinityWeight";
    return Error::Invalid(field +
                          ": Invalid value: " + std::to_string(args.hard_pod_affinity_weight) +
                          ": not in valid range [0, 100]");
  }
  return {};
}

InterPodAffinity::InterPodAffinity(const InterPodAffinityArgs& args, framework::Handle& handle)
    : args_(args), handle_(handle), caches_(std::make_unique<Caches>()) {}

InterPodAffinity::~InterPodAffinity() = default;

Result<std::unique_ptr<framework::Plugin>> InterPodAffinity::New(const framework::PluginArgs* args,
                                                                 framework::Handle& handle) {
  InterPodAffinityArgs defaults;
  const InterPodAffinityArgs* typed = &defaults;
  if (args != nullptr) {
    typed = dynamic_cast<const InterPodAffinityArgs*>(args);
    if (typed == nullptr) return Error::Invalid("want args to be of type InterPodAffinityArgs");
  }
  if (auto ok = ValidateInterPodAffinityArgs(*typed); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<InterPodAffinity>(*typed, handle));
}

// ---- signing ------------------------------------------------------------------------------------

framework::Status InterPodAffinity::Sign(const framework::PodInfo& pod,
                                         std::vector<framework::SignFragment>* fragments) const {
  const api::Pod& p = *pod.pod;
  std::string preferred;  // Corral's fragment for preferred-only terms (empty: none)
  if (p.affinity.has_value() &&
      (p.affinity->pod_affinity.has_value() || p.affinity->pod_anti_affinity.has_value())) {
    // kube: unsignable. Corral (CorralBatchingRescoreHook): preferred-only terms are rescored
    // through the Rescore hook; terms reading namespace labels are not (the labels are not in
    // the signature).
    const bool preferred_only =
        handle_.features().Enabled(framework::Feature::kCorralBatchingRescoreHook) &&
        pod.required_affinity_terms.empty() && pod.required_anti_affinity_terms.empty() &&
        !inter_pod_affinity::ReadsNamespaceLabels(pod.preferred_affinity_terms) &&
        !inter_pod_affinity::ReadsNamespaceLabels(pod.preferred_anti_affinity_terms);
    if (!preferred_only) {
      return framework::Status::Unschedulable(
          "pods with pod affinity or anti-affinity are not signable");
    }
    preferred = "ns=" + std::to_string(p.meta.namespace_.id()) + ";";
    for (const auto* terms : {&pod.preferred_affinity_terms, &pod.preferred_anti_affinity_terms}) {
      preferred += '[';
      for (const framework::AffinityTerm& t : *terms) {
        preferred += std::to_string(t.weight) + "@" + std::to_string(t.topology_key.id()) + ":";
        for (Symbol ns : t.namespaces) preferred += std::to_string(ns.id()) + ",";
        preferred += t.namespace_selector.has_value() ? "all;" : ";";
        signers::AppendSelectorIds(preferred, t.selector);
      }
      preferred += ']';
    }
  }
  // Existing pods' terms may select this pod by its labels: json.Marshal(pod.Labels), keys in
  // string order.
  const Interner& in = handle_.interner();
  std::string value;
  if (p.meta.labels.empty()) {
    value = "null";
  } else {
    std::vector<std::pair<std::string_view, std::string_view>> labels;
    labels.reserve(p.meta.labels.size());
    for (const auto& [k, v] : p.meta.labels.items()) labels.emplace_back(in.Str(k), in.Str(v));
    std::sort(labels.begin(), labels.end());
    value = "{";
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) value += ',';
      signers::AppendJsonString(value, labels[i].first);
      value += ':';
      signers::AppendJsonString(value, labels[i].second);
    }
    value += '}';
  }
  fragments->push_back({std::string(kLabelsSignerKey), std::move(value)});
  if (!preferred.empty()) {
    fragments->push_back({std::string(kPreferredSignerKey), std::move(preferred)});
  }
  return {};
}

// ---- queueing -----------------------------------------------------------------------------------

std::vector<framework::ClusterEvent> InterPodAffinity::EventsToRegister() const {
  return {{framework::EventResource::kPod, framework::ActionType::kAll},
          {framework::EventResource::kNode,
           Actions(framework::ActionType::kAdd, framework::ActionType::kUpdate)}};
}

namespace {

// kube's podMatchesAllAffinityTerms as the hints use it: terms as the pod declares them
// (namespaceSelector not unrolled) and no namespace labels.
bool MatchesAllDeclared(std::span<const framework::AffinityTerm> terms, const api::Pod& pod) {
  static const api::LabelSet kNoLabels;
  if (terms.empty()) return false;
  for (const auto& t : terms) {
    if (!MatchesTerm(t, pod, kNoLabels)) return false;
  }
  return true;
}

}  // namespace

framework::QueueingHint InterPodAffinity::Hint(const framework::PodInfo& pod,
                                               const framework::ClusterEvent& event,
                                               const void* subject) const {
  using framework::QueueingHint;
  if (subject == nullptr) return QueueingHint::kQueue;
  if (event.resource == framework::EventResource::kNode) {
    const api::Node* node = NodeSubject(subject);
    for (const auto* terms : {&pod.required_affinity_terms, &pod.required_anti_affinity_terms}) {
      for (const auto& t : *terms) {
        if (node->meta.labels.Has(t.topology_key)) return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kQueueSkip;
  }
  const api::Pod* other = PodSubject(subject);
  // The pod's own label update may make it match its own affinity terms (first pod of a group).
  if (SamePod(*other, *pod.pod)) {
    return event.action == framework::ActionType::kUpdate ? QueueingHint::kQueue
                                                          : QueueingHint::kQueueSkip;
  }
  if (!SubjectIsAssigned(event, *other)) return QueueingHint::kQueueSkip;
  const bool matches_affinity = MatchesAllDeclared(pod.required_affinity_terms, *other);
  const bool matches_anti = MatchesAllDeclared(pod.required_anti_affinity_terms, *other);
  switch (event.action) {
    case framework::ActionType::kAdd:
      return matches_affinity ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
    case framework::ActionType::kDelete:
      return matches_anti ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
    default:
      // kube queues an update that starts matching the affinity terms or stops matching the
      // anti-affinity terms; without the old pod, queue whenever the new one could be such
      // an update.
      if (matches_affinity || (!pod.required_anti_affinity_terms.empty() && !matches_anti)) {
        return QueueingHint::kQueue;
      }
      return QueueingHint::kQueueSkip;
  }
}

}  // namespace corral::plugins
