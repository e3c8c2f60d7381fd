// `corral dispatch -o yaml`: the work items as the fleet's schedulers write them back.
//
// Karmada's scheduler patches a binding's spec.clusters (and, with clusterAffinities,
// status.schedulerObservingAffinityName) and sets its Scheduled condition (pkg/scheduler/helper.go
// getConditionByError): True/Success "Binding has been scheduled successfully." on success;
// False/NoClusterFit with the FitError when no cluster passed the filters; False/Unschedulable with
// the error when the selected clusters lack capacity (UnschedulableError);
// False/SchedulerError with the error otherwise; binding preemption sets False/Preempting (PR
// #7832). MultiKueue's dispatcher writes a Workload's status.nominatedClusterNames.

#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/app/dispatch.h"

namespace corral::app {

namespace {

// A YAML scalar: plain when unambiguous, else double-quoted (JSON string syntax is valid YAML).
std::string Scalar(std::string_view s) {
  bool plain = !s.empty();
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '/' ||
          c == '_')) {
      plain = false;
      break;
    }
  }
  if (plain && (s == "true" || s == "false" || s == "null" || s == "yes" || s == "no" ||
                std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '.')) {
    plain = false;
  }
  return plain ? std::string(s) : nlohmann::json(std::string(s)).dump();
}

struct Condition {
  std::string status, reason, message;
};

Condition ScheduledCondition(const DispatchItem& i) {
  if (i.preemption.preempting) return {"False", "Preempting", i.preemption.condition_message};
  const fleet::BindingSchedule& b = i.binding;
  if (b.ok()) return {"True", "Success", "Binding has been scheduled successfully."};
  switch (b.failure) {
    case fleet::FailureKind::kNoFeasibleCluster:
      return {"False", "NoClusterFit", b.error};
    case fleet::FailureKind::kInsufficientCapacity:
      // The UnschedulableErrors: the selection's "no enough resource" and the dynamic
      // division's shortage.
      return {"False", "Unschedulable", b.error};
    case fleet::FailureKind::kNone:
    case fleet::FailureKind::kConstraint:
      break;
  }
  return {"False", "SchedulerError", b.error};
}

// "ns/name" or "name".
std::pair<std::string_view, std::string_view> SplitName(std::string_view full) {
  size_t slash = full.find('/');
  if (slash == std::string_view::npos) return {{}, full};
  return {full.substr(0, slash), full.substr(slash + 1)};
}

}  // namespace

std::string FormatDispatchYaml(const DispatchOutcome& out) {
  std::string s;
  for (const DispatchItem& i : out.items) {
    auto [ns, name] = SplitName(i.name);
    if (!s.empty()) s += "---\n";
    if (!i.karmada) {
      s += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n";
      s += fmt::format("  name: {}\n  namespace: {}\n", Scalar(name), Scalar(ns));
      s += "status:\n";
      if (i.nomination.nominated.empty()) {
        s += "  nominatedClusterNames: []\n";
      } else {
        s += "  nominatedClusterNames:\n";
        for (const std::string& c : i.nomination.nominated) s += fmt::format("  - {}\n", Scalar(c));
      }
      if (!i.nomination.ok()) {
        // Corral's: the dispatcher's NoFeasibleCluster event message, as a comment (the KEP
        // writes it as an event, not a status field).
        s += fmt::format("# NoFeasibleCluster: {}\n", i.nomination.error);
      }
      continue;
    }
    const bool cluster_scoped = i.kind == "ClusterResourceBinding";
    s += fmt::format("apiVersion: work.karmada.io/v1alpha2\nkind: {}\nmetadata:\n",
                     cluster_scoped ? "ClusterResourceBinding" : "ResourceBinding");
    s += fmt::format("  name: {}\n", Scalar(name));
    if (!ns.empty()) s += fmt::format("  namespace: {}\n", Scalar(ns));
    s += fmt::format("spec:\n  replicas: {}\n", i.replicas);
    if (i.binding.ok() && !i.preemption.preempting) {
      if (i.binding.result.empty()) {
        s += "  clusters: []\n";
      } else {
        s += "  clusters:\n";
        for (const fleet::TargetReplicas& t : i.binding.result) {
          s += fmt::format("  - name: {}\n    replicas: {}\n", Scalar(t.name), t.replicas);
        }
      }
    }
    s += "status:\n";
    if (!i.binding.affinity_name.empty()) {
      s += fmt::format("  schedulerObservingAffinityName: {}\n", Scalar(i.binding.affinity_name));
    }
    const Condition c = ScheduledCondition(i);
    s += "  conditions:\n  - type: Scheduled\n";
    s += fmt::format("    status: \"{}\"\n    reason: {}\n    message: {}\n", c.status, c.reason,
                     Scalar(c.message));
  }
  return s;
}

}  // namespace corral::app
