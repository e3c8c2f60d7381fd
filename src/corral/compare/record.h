#pragma once
// RunRecord: what one run of a comparison keeps — the run's headline metrics, its time series, the
// distribution of pod and gang waits, per-workload numbers and one row per gang or Job instance —
// and RunOne, which runs a scenario under a variant and a seed and records it.
//
// Waits count every arrival: a pod (or gang) still pending at the end of the run counts with the
// time it has waited so far (a censored observation, marked as such), so a policy that leaves pods
// pending never looks fast. These statistics are computed here, from the run's event log, and do
// not depend on how `corral simulate` summarizes latency.
//
// A record is also a file (`corral sweep` writes one per run): RecordToJson and RecordFromJson
// round-trip exactly (integers stay integers, doubles are printed so that they read back to the
// same bits), so a comparison built from files is byte-identical to one built in memory.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "corral/compare/variant.h"
#include "corral/core/result.h"

namespace corral::compare {

// One gang or Job instance of a run.
struct UnitRecord {
  std::string id;  // "default/train-3"
  std::string workload;
  int64_t arrival_ns = 0;
  int64_t wait_ns = 0;    // arrival → every member bound; if not complete: end − arrival
  bool complete = false;  // false: still waiting at the end (wait_ns is censored)
  int32_t preempted = 0;  // members evicted as preemption victims
  std::vector<std::string> nodes;  // nodes of the members' first bindings, sorted
};

struct WorkloadRecord {
  std::string name;
  std::string kind;  // "pods", "job", "gang"
  int64_t pods_arrived = 0, pods_scheduled = 0, pods_pending_end = 0, pods_preempted = 0,
          pods_evicted = 0;
  int64_t wait_mean_ns = 0, wait_p99_ns = 0;  // per pod, censored waits included
};

struct RunRecord {
  // Identity: which run of which matrix this is.
  std::string scenario;  // the scenario's name
  std::string variant;
  std::string options;  // the variant's options (Overrides::Describe)
  std::string point;    // the sweep parameters' options ("nodes.gpu=48"), "" for compare
  uint64_t seed = 0;
  size_t index = 0, total = 0;  // position in the matrix
  std::string digest;           // of the inputs that define the matrix (sweep files)

  int64_t end_ns = 0;
  std::string failure;  // the run's failure (a blocking op that never completed), or ""
  // Headline metrics in a fixed order; keys ending in `_s` are seconds, keys starting with `util_`
  // are ratios, the others counts.
  std::vector<std::pair<std::string, double>> metrics;
  // Time series, one entry per sample of the run.
  std::vector<double> t_s, pending, running;
  std::vector<std::pair<std::string, std::vector<double>>> util;  // resource → fraction
  // Percentiles 0, 1, ..., 100 (nearest rank) of the pods' and the gangs' waits, censored included;
  // empty when there were none.
  std::vector<int64_t> pod_wait_q, gang_wait_q;
  std::vector<WorkloadRecord> workloads;
  std::vector<UnitRecord> units;  // gang and Job instances, in arrival order

  double Metric(std::string_view key) const;  // 0 when absent
};

// One run to make.
struct RunPlan {
  std::string scenario_path;
  Variant variant;
  std::string point;     // the parameter options' description (Overrides::Describe)
  Overrides parameters;  // applied before the variant's own overrides
  uint64_t seed = 0;
  size_t index = 0, total = 0;
  std::string digest;
};

// Loads the scenario (a Corral scenario file, or Kubernetes manifests), applies the parameters and
// the variant, sets the seed, runs it and records it. Errors: bad input (the scenario, an override,
// a configuration), with the diagnostics' text.
Result<RunRecord> RunOne(const RunPlan& plan);

// The scenario's own seed (runs use seed, seed + 1, ...).
Result<uint64_t> ScenarioSeed(const std::string& scenario_path);

std::string RecordToJson(const RunRecord& r);
Result<RunRecord> RecordFromJson(std::string_view text, std::string_view file);

}  // namespace corral::compare
