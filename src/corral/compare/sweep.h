#pragma once
// `corral sweep`: a matrix of runs — variants × scenario parameters × seeds — described by a sweep
// file (YAML, `kind: Sweep`, docs/formats.md), run on local cores, resumable, shardable, and
// runnable as a Kubernetes Indexed Job.
//
//   apiVersion: corral.dev/v1alpha1
//   kind: Sweep
//   metadata: {name: gpu-binpack}
//   scenario: gpu-gangs.yaml          # relative to the sweep file
//   seeds: 3                          # the scenario's seed and the next ones; or a list [1, 5, 9]
//   variants:                         # the first is the baseline
//   - name: default
//   - name: binpack
//     config: gpu-most-allocated.yaml
//     featureGates: {SchedulerQueueingHints: false}
//     nodes: {gpu: 12}
//     rates: {train: 4/h}
//   parameters:                       # every combination is one point of the matrix
//     nodes.gpu: [12, 16]
//     rate.train: [2/h, 4/h]
//
// Contract:
//  (1) Strict like every Corral reader: an unknown key, a wrong type or a bad value is an error
//      with `file:line: field.path: message`, and every problem of the file is reported.
//  (2) The matrix order is fixed: parameter points (the first parameter varies slowest), then
//      variants, then seeds. Run i belongs to shard i mod N (--shard I/N), so the assignment
//      depends only on the file.
//  (3) The digest covers the sweep file, the scenario and every configuration file it names; run
//      files carry it, so results of an edited sweep are never mixed with the old ones.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "corral/compare/record.h"
#include "corral/core/diagnostics.h"
#include "corral/core/result.h"

namespace corral::compare {

struct SweepSpec {
  std::string file;  // the sweep file, as given
  std::string name;
  std::string scenario;  // resolved against the sweep file's directory
  int seed_count = 0;    // when seeds is a count
  std::vector<uint64_t> seeds;
  std::vector<Variant> variants;
  // Option key (variant.h's vocabulary) → values, in file order.
  std::vector<std::pair<std::string, std::vector<std::string>>> parameters;
  std::string digest;
};

// The most runs a sweep's matrix may hold (parameter points × variants × seeds). Every run is a
// whole simulation, so this is far beyond any sweep one would run; it bounds what planning
// allocates, so a few lines of parameters cannot ask for a matrix no machine can hold.
inline constexpr size_t kMaxSweepRuns = 100'000;

// Reads and checks a sweep file; resolves the seeds (reading the scenario's seed when `seeds` is a
// count) and computes the digest. Errors carry every diagnostic.
Result<SweepSpec> LoadSweepSpec(const std::string& path, Diagnostics& diags);

// Every run of the matrix, in matrix order.
Result<std::vector<RunPlan>> PlanSweep(const SweepSpec& spec);

struct Shard {
  size_t index = 0, count = 1;
};
// "I/N" with 0 ≤ I < N.
Result<Shard> ParseShard(std::string_view text);
std::vector<RunPlan> ShardOf(const std::vector<RunPlan>& plans, const Shard& shard);

// Checks that `records` are exactly the runs of one matrix: one digest, every index 0..total−1
// once. Errors name the missing runs (up to 10).
Result<void> CheckComplete(const std::vector<RunRecord>& records);

struct JobOptions {
  std::string spec_path;      // the sweep file's path as the container sees it
  std::string image;          // container image
  std::string results_claim;  // PersistentVolumeClaim for the results
  std::string job_name;       // default: corral-sweep-<name>
  size_t shards = 1;
  int cpus = 1;  // per shard: the container's cpu request and its --jobs
};

// A batch/v1 Job (completionMode Indexed, completions = parallelism = shards); pod i runs
// `corral sweep SPEC --shard $(JOB_COMPLETION_INDEX)/N --out /results/<name>`.
Result<std::string> EmitJob(const SweepSpec& spec, const JobOptions& opts);

}  // namespace corral::compare
