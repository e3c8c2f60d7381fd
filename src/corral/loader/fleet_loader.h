#pragma once
// The fleet loader: Karmada's and Kueue's objects in their own apiVersions, for `corral dispatch`.
//
// Kinds:
//   - cluster.karmada.io/v1alpha1 Cluster;
//   - work.karmada.io/v1alpha2 ResourceBinding and ClusterResourceBinding (their spec.clusters are
//     the previous assignment);
//   - policy.karmada.io/v1alpha1 PropagationPolicy and ClusterPropagationPolicy with apps/v1
//     Deployment, StatefulSet and batch/v1 Job templates: each template a policy claims becomes the
//     ResourceBinding Karmada's detector would create (an unclaimed template gets a warning);
//   - kueue.x-k8s.io/v1beta1|v1beta2 MultiKueueCluster (with the KEP-8692 spec.taints),
//     MultiKueueConfig, and Workload (spec.podSets, priority, the KEP-8692 placement fields or the
//     annotations kueue.x-k8s.io/cluster-selector, cluster-affinity, cluster-tolerations and
//     dispatch-mode, whose JSON values are decoded and checked);
//   - kueue.x-k8s.io/v1beta2 ClusterDispatcherProfile.
//
// Contract: as the manifest loader's (corral/loader/loader.h), and strict: unknown fields,
// unknown kinds and fields Corral cannot honour are errors, every one reported as
// `file:line: field.path: message`; FleetLoadOptions::unknown_fields (kubectl's --validate) makes
// unknown fields warnings or nothing (inside a JSON annotation value they stay errors). Objects
// with errors are left out. Fields that do not bear on placement (connection secrets, failover,
// conflict resolution, ...) are accepted and ignored.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/doc/decoder.h"

namespace corral::loader {

struct FleetObjects {
  std::vector<api::Cluster> clusters;
  std::vector<api::FleetWork> works;
  std::vector<api::MultiKueueConfig> multikueue_configs;
  std::vector<api::DispatcherProfile> profiles;
};

struct FleetLoadResult {
  FleetObjects objects;
  Diagnostics diagnostics;
  bool ok() const { return !diagnostics.has_errors(); }
};

struct FleetLoadOptions {
  doc::FieldValidation unknown_fields = doc::FieldValidation::kStrict;
};

// Files and directories (recursive, sorted; .yaml, .yml, .json). `interner` must come from
// api::NewInterner() and outlive the result.
FleetLoadResult LoadFleetPaths(std::span<const std::string> paths, Interner& interner,
                               const FleetLoadOptions& opts = {});
FleetLoadResult LoadFleetString(std::string_view content, std::string_view filename,
                                Interner& interner);

}  // namespace corral::loader
