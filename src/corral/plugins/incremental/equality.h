#pragma once
// Structural equality of the API fields that feed cached per-node derivations (see
// node_contributions.h): two incoming pods whose relevant fields compare equal get the same
// contributions from every node.

#include <optional>
#include <vector>

#include "corral/api/types.h"
#include "corral/framework/pod_info.h"

namespace corral::plugins::incremental {

template <class T>
bool Equal(const std::optional<T>& a, const std::optional<T>& b);
template <class T>
bool Equal(const std::vector<T>& a, const std::vector<T>& b);
inline bool Equal(const framework::AffinityTerm& a, const framework::AffinityTerm& b);

inline bool Equal(const api::LabelSelectorRequirement& a, const api::LabelSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}

inline bool Equal(const api::LabelSelector& a, const api::LabelSelector& b) {
  if (!(a.match_labels == b.match_labels) ||
      a.match_expressions.size() != b.match_expressions.size()) {
    return false;
  }
  for (size_t i = 0; i < a.match_expressions.size(); ++i) {
    if (!Equal(a.match_expressions[i], b.match_expressions[i])) return false;
  }
  return true;
}

inline bool Equal(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}

inline bool Equal(const api::NodeSelectorTerm& a, const api::NodeSelectorTerm& b) {
  auto same = [](const std::vector<api::NodeSelectorRequirement>& x,
                 const std::vector<api::NodeSelectorRequirement>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!Equal(x[i], y[i])) return false;
    }
    return true;
  };
  return same(a.match_expressions, b.match_expressions) && same(a.match_fields, b.match_fields);
}

inline bool Equal(const api::NodeSelector& a, const api::NodeSelector& b) {
  if (a.node_selector_terms.size() != b.node_selector_terms.size()) return false;
  for (size_t i = 0; i < a.node_selector_terms.size(); ++i) {
    if (!Equal(a.node_selector_terms[i], b.node_selector_terms[i])) return false;
  }
  return true;
}

inline bool Equal(const api::Toleration& a, const api::Toleration& b) {
  return a.key == b.key && a.op == b.op && a.value == b.value && a.effect == b.effect &&
         a.toleration_seconds == b.toleration_seconds;
}

inline bool Equal(const framework::AffinityTerm& a, const framework::AffinityTerm& b) {
  return a.namespaces == b.namespaces && Equal(a.selector, b.selector) &&
         a.topology_key == b.topology_key && Equal(a.namespace_selector, b.namespace_selector) &&
         a.weight == b.weight;
}

template <class T>
bool Equal(const std::optional<T>& a, const std::optional<T>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || Equal(*a, *b);
}

template <class T>
bool Equal(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!Equal(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace corral::plugins::incremental
