#pragma once
// kube scheduler_perf configs (test/integration/scheduler_perf/*/performance-config.yaml), read as
// they are: test cases with featureGates, schedulerConfigPath, defaultPodTemplatePath, a
// workloadTemplate of ops and workloads with params, labels and thresholds. Object templates are Go
// text/template files (go_template.h) rendered with {Index, Count} and templateParams; paths are
// relative to the config file's directory.
//
// Ops: createNodes (count|countParam, nodeTemplatePath, nodeAllocatableStrategy with
// nodeAllocatable, csiNodeAllocatable and migratedPlugins, labelNodePrepareStrategy,
// uniqueNodeLabelStrategy), createNamespaces (prefix, count|countParam, namespaceTemplatePath: a
// plain YAML Namespace whose labels every namespace gets), createPods (count|countParam,
// countMultiplierParam, namespace, podTemplatePath, collectMetrics, skipWaitToCompletion,
// persistentVolumeTemplatePath with persistentVolumeClaimTemplatePath, steadyState|steadyStateParam
// with duration|durationParam, signatureBatchSize|signatureBatchSizeParam), createPodSets,
// createAny (kinds the manifest loader knows, resource.k8s.io and storage kinds included),
// createPodGroups (one PodGroup per index), createCompositePodGroups (one CompositePodGroup per
// index), waitForPodGroups, churn (create|recreate), barrier
// (Scheduled|Attempted; gated pods count as attempted, as the API server gives them a PodScheduled
// condition), sleep (duration|durationParam), deletePods, start/stopCollectingMetrics,
// start/stopCollectingProfile (noted only), and the DRA ops createResourceDriver,
// createResourceClaims and allocResourceClaims. updateAny, updateDeviceConditions,
// checkPodScheduled and createPods' nominatedNodeName make a workload
// unsupported before any op runs: it is skipped with the reason, not run wrongly. A test case's or
// workload's schedulerApiClientQPS and schedulerApiClientBurst rate-limit the scheduler's API
// client (SimSpec::api_client; perf_api_limit.cc). Templates decode as in kube's
// yaml.UnmarshalStrict: unknown fields are errors, field names match case-insensitively.
//
// Contract: Load reports every problem of the file with file, line and field path. Compile resolves
// one workload's params and builds its SimSpec; unknown params, unreadable templates and template
// errors are reported with the file and line where they occur. Feature gates: a gate the scheduler
// knows is set at the emulated version (a gate locked to the other value or PreAlpha there is an
// error, as in kube; a value Corral does not model makes the workload unsupported); the
// harness-only gates (SchedulerAsyncAPICalls, GangScheduling, ...) are accepted with their effect
// in SimSpec::notes; any other gate makes the workload unsupported.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/feature_gates.h"
#include "corral/sim/spec.h"

namespace corral::sim {

struct PerfThreshold {
  bool set = false;
  double value = 0;
  std::string metric = "SchedulingThroughput";
  std::string bucket = "Average";
  bool expect_lower = false;
  // thresholdMetricSelector.labels, in file order; read for the metrics whose series corral perf
  // keeps apart (the pod group attempt duration's `result`).
  std::vector<std::pair<std::string, std::string>> labels;
  std::string note;  // why it is not checked, when it is not
};

struct PerfWorkloadRef {
  size_t test_case = 0;
  size_t workload = 0;
  std::string name;  // "<testCase>/<workload>"
  std::vector<std::string> labels;
};

struct PerfSelection {
  std::string test_case;  // exact name; empty = all
  std::string workload;   // exact name; empty = all
  // kube's -perf-scheduling-label-filter: comma-separated labels, all required; "-label" excludes.
  std::string label_filter = "performance";
};

class PerfConfig {
 public:
  static Result<PerfConfig> Load(const std::string& path, Interner& interner, Diagnostics& diags);
  static Result<PerfConfig> Parse(std::string_view text, const std::string& path,
                                  Interner& interner, Diagnostics& diags);
  PerfConfig(PerfConfig&&) noexcept;
  PerfConfig& operator=(PerfConfig&&) noexcept;
  ~PerfConfig();

  // Workloads matching the selection, in file order. An explicit test case or workload name that
  // matches nothing is an error naming the available ones.
  Result<std::vector<PerfWorkloadRef>> Select(const PerfSelection& sel) const;
  // All workloads, in file order.
  std::vector<PerfWorkloadRef> All() const;

  // Builds the simulation of one workload, its feature gates those of the emulated kube version
  // (kube-scheduler's --emulated-version; framework/feature_gates.h) with the config's set on top.
  // An unsupported op yields an Error whose message starts with "unsupported: ".
  Result<SimSpec> Compile(const PerfWorkloadRef& ref, Interner& interner, Diagnostics& diags,
                          framework::KubeVersion emulated = framework::kBinaryVersion) const;
  PerfThreshold Threshold(const PerfWorkloadRef& ref) const;

  struct Impl;

 private:
  PerfConfig();
  std::unique_ptr<Impl> impl_;
};

}  // namespace corral::sim
