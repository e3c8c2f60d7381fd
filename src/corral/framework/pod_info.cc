#include "corral/framework/pod_info.h"

#include <algorithm>
#include <string_view>

#include "corral/api/well_known.h"

namespace corral::framework {

namespace {

// Exact per-pod aggregation happens on Quantities (as kube sums resource.Quantity values) and is
// converted to integers once at the end, so sub-milli requests round the way kube rounds them.
using QList = api::ResourceList;  // kept sorted by symbol

api::Quantity* Slot(QList& list, Symbol name) {
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const auto& e, Symbol n) { return e.first < n; });
  if (it == list.end() || it->first != name) it = list.insert(it, {name, api::Quantity()});
  return &it->second;
}

void AddList(QList& into, const api::ResourceList& add) {
  for (const auto& [name, q] : add) {
    api::Quantity* slot = Slot(into, name);
    auto sum = slot->Add(q);
    if (sum.ok())
      *slot = *sum;  // overflow is impossible for validated inputs; keep the old value if so
  }
}

void MaxList(QList& into, const QList& other) {
  for (const auto& [name, q] : other) {
    api::Quantity* slot = Slot(into, name);
    if (q > *slot) *slot = q;
  }
}

bool IsRestartable(const api::Container& c) {
  return c.restart_policy == api::ContainerRestartPolicy::kAlways;
}

bool IsPodLevelResource(Symbol name, const Interner* in) {
  if (name == api::wk::kCpu || name == api::wk::kMemory) return true;
  return in != nullptr && in->Str(name).starts_with("hugepages-");
}

// kube AggregateContainerRequests with an optional non-missing default for cpu/memory.
QList AggregateContainers(const api::Pod& pod, const QList* non_missing) {
  auto container_reqs = [&](const api::Container& c) {
    QList reqs = c.resources.requests;
    if (non_missing != nullptr) {
      for (const auto& [name, q] : *non_missing) {
        if (api::FindResource(c.resources.requests, name) == nullptr) *Slot(reqs, name) = q;
      }
    }
    return reqs;
  };
  QList result;
  for (const auto& c : pod.containers) AddList(result, container_reqs(c));
  QList restartable;
  QList init_peak;
  for (const auto& c : pod.init_containers) {
    QList reqs = container_reqs(c);
    if (IsRestartable(c)) {
      AddList(result, reqs);
      AddList(restartable, reqs);
      MaxList(init_peak, restartable);
    } else {
      QList combined = reqs;
      AddList(combined, restartable);
      MaxList(init_peak, combined);
    }
  }
  MaxList(result, init_peak);
  return result;
}

bool PodLevelRequestsSet(const api::Pod& pod, const FeatureGates& gates) {
  if (!gates.Enabled(Feature::kPodLevelResources) || !pod.resources.has_value()) return false;
  for (const auto& [name, q] : pod.resources->requests) {
    (void)q;
    if (name == api::wk::kCpu || name == api::wk::kMemory) return true;
  }
  return false;
}

QList PodRequestList(const api::Pod& pod, const FeatureGates& gates, const QList* non_missing,
                     const Interner* interner) {
  QList reqs = AggregateContainers(pod, non_missing);
  if (PodLevelRequestsSet(pod, gates)) {
    for (const auto& [name, q] : pod.resources->requests) {
      if (IsPodLevelResource(name, interner)) *Slot(reqs, name) = q;
    }
  }
  AddList(reqs, pod.overhead);
  return reqs;
}

// ---- inter-pod affinity terms (owned by the InterPodAffinity plugin's author) ---------------

// kube's API server merges matchLabelKeys / mismatchLabelKeys into the term's labelSelector when
// the pod is created (MatchLabelKeysInPodAffinity, pkg/registry/core/pod/strategy.go): for each key
// present in the pod's labels, `key In (value)` resp. `key NotIn (value)` is appended to
// matchExpressions. A nil selector (matches nothing) is left alone. Corral has no API server, so
// the merge happens here, once.
void AppendLabelKeys(api::LabelSelector& selector, const std::vector<Symbol>& keys,
                     api::LabelSelectorOp op, const api::LabelSet& pod_labels) {
  for (Symbol key : keys) {
    if (const Symbol* value = pod_labels.Find(key)) {
      selector.match_expressions.push_back({key, op, {*value}});
    }
  }
}

// kube's framework.newAffinityTerm: namespaces are the term's, or the pod's own namespace when the
// term names none and has no namespaceSelector.
AffinityTerm MakeAffinityTerm(const api::Pod& pod, const api::PodAffinityTerm& term, int32_t weight,
                              bool merge_label_keys) {
  AffinityTerm t;
  t.selector = term.label_selector;
  if (merge_label_keys && t.selector.has_value()) {
    AppendLabelKeys(*t.selector, term.match_label_keys, api::LabelSelectorOp::kIn, pod.meta.labels);
    AppendLabelKeys(*t.selector, term.mismatch_label_keys, api::LabelSelectorOp::kNotIn,
                    pod.meta.labels);
  }
  if (term.namespaces.empty() && !term.namespace_selector.has_value()) {
    t.namespaces.push_back(pod.meta.namespace_);
  } else {
    t.namespaces = term.namespaces;
    std::sort(t.namespaces.begin(), t.namespaces.end());
    t.namespaces.erase(std::unique(t.namespaces.begin(), t.namespaces.end()), t.namespaces.end());
  }
  t.namespace_selector = term.namespace_selector;
  t.topology_key = term.topology_key;
  t.weight = weight;
  return t;
}

void ComputeAffinityTerms(PodInfo& info, const FeatureGates& gates) {
  info.required_affinity_terms.clear();
  info.required_anti_affinity_terms.clear();
  info.preferred_affinity_terms.clear();
  info.preferred_anti_affinity_terms.clear();
  const api::Pod& pod = *info.pod;
  if (!pod.affinity.has_value()) return;
  const bool merge = gates.Enabled(Feature::kMatchLabelKeysInPodAffinity);
  auto fill = [&](const std::optional<api::PodAffinity>& from, std::vector<AffinityTerm>& required,
                  std::vector<AffinityTerm>& preferred) {
    if (!from.has_value()) return;
    for (const auto& term : from->required) {
      required.push_back(MakeAffinityTerm(pod, term, 0, merge));
    }
    for (const auto& wt : from->preferred) {
      preferred.push_back(MakeAffinityTerm(pod, wt.pod_affinity_term, wt.weight, merge));
    }
  };
  fill(pod.affinity->pod_affinity, info.required_affinity_terms, info.preferred_affinity_terms);
  fill(pod.affinity->pod_anti_affinity, info.required_anti_affinity_terms,
       info.preferred_anti_affinity_terms);
}

}  // namespace

Resource ComputePodRequest(const api::Pod& pod, const FeatureGates& gates,
                           const Interner* interner) {
  return Resource::FromList(PodRequestList(pod, gates, nullptr, interner));
}

void ComputeNonZeroRequest(const api::Pod& pod, const FeatureGates& gates, int64_t* milli_cpu,
                           int64_t* memory) {
  // kube getNonMissingContainerRequests: defaults apply to containers missing a request; with
  // pod-level requests set, only to resources the pod level leaves unset.
  QList defaults;
  bool pod_level = PodLevelRequestsSet(pod, gates);
  auto pod_level_has = [&](Symbol name) {
    return pod_level && api::FindResource(pod.resources->requests, name) != nullptr;
  };
  if (!pod_level_has(api::wk::kCpu)) {
    *Slot(defaults, api::wk::kCpu) = api::Quantity::FromMilli(kDefaultMilliCpuRequest);
  }
  if (!pod_level_has(api::wk::kMemory)) {
    *Slot(defaults, api::wk::kMemory) = api::Quantity::FromInt(kDefaultMemoryRequest);
  }
  Resource r = Resource::FromList(PodRequestList(pod, gates, &defaults, nullptr));
  *milli_cpu = r.milli_cpu;
  *memory = r.memory;
}

void ComputePodInfo(PodInfo& info, const FeatureGates& gates, const Interner* interner) {
  const api::Pod& pod = *info.pod;
  info.request = ComputePodRequest(pod, gates, interner);
  ComputeNonZeroRequest(pod, gates, &info.non_zero_milli_cpu, &info.non_zero_memory);
  info.host_ports.clear();
  // kube GetHostPorts: regular containers and restartable (sidecar) init containers; ordinary init
  // containers have exited before the pod runs and hold no ports.
  auto add_ports = [&](const std::vector<api::Container>& cs) {
    for (const auto& c : cs) {
      if (&cs == &pod.init_containers && !IsRestartable(c)) continue;
      for (const auto& p : c.ports) {
        if (p.host_port > 0) info.host_ports.push_back({p.protocol, p.host_ip, p.host_port});
      }
    }
  };
  add_ports(pod.init_containers);
  add_ports(pod.containers);
  ComputeAffinityTerms(info, gates);
}

}  // namespace corral::framework
