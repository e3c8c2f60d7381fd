#pragma once
// Several registries' Prometheus text as one exposition, each registry's series told apart by a
// label of its own: the kube-scheduler metrics of every member cluster of a simulation, each series
// with `cluster="<name>"`.
//
// Contract: the input texts are Registry::PrometheusText() outputs (families sorted by name, each a
// HELP line, a TYPE line and its series). The result has every family once (its HELP and TYPE from
// the first registry that has it), families sorted by name, and within a family the series of each
// registry in the order given, each with the label put first (`name{cluster="web",result="..."}`).
// The same inputs give the same bytes.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace corral::metrics {

// `texts`: (label value, Prometheus text) per registry, in output order.
std::string MergePrometheusText(std::string_view label,
                                const std::vector<std::pair<std::string, std::string>>& texts);

}  // namespace corral::metrics
