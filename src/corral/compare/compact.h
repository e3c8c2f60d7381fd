#pragma once
// Cell compaction (Verma et al., "Large-scale cluster management at Google with Borg", EuroSys'15
// §5.1): the smallest cluster on which a workload still meets an objective, found by removing
// nodes. Corral compacts one pool at a time, in the order asked (default: the scenario's pools
// that start with nodes, in scenario order): for each pool, a bisection over its initial node
// count between 0 and its current size, with the pools already compacted kept at their answer and
// the others at their scenario size. A size meets the objective when every seed's run meets
// every objective.
//
// Contract:
//  (1) The scenario as given (every pool at its size) must meet the objective; otherwise the
//      result says so and nothing is compacted.
//  (2) For every pool, the answer meets the objective and the answer minus one node does not, on
//      the seeds used, or the answer is 0. Bisection assumes that removing nodes never helps; the
//      answer and the answer minus one are always run, never inferred (probes list every
//      size run).
//  (3) Deterministic: the same inputs and seeds give the same answer.
//
// Cluster compaction (CompactRequest::compact_clusters) does the same over the member clusters of
// a scenario with `clusters:` (a fleet): a bisection over how many of the named clusters the run
// keeps (default: every member, in scenario order), the others being removed from the end of that
// list. A removed cluster is absent from the run — dropped before the scenario compiles, with its
// pools and fleet entries (ScenarioOptions::absent_clusters) — not an empty member the dispatcher
// could still pick. Contracts (1)-(3) hold with clusters for nodes; the floor is one member kept
// when every member is named (a fleet without members is no run), otherwise none of the named.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "corral/compare/record.h"
#include "corral/compare/runner.h"
#include "corral/core/result.h"

namespace corral::compare {

struct Objective {
  enum class Kind : uint8_t {
    kNoPending,  // no pod pending at the end of the run
    kGangWait,  // every gang waits at most `limit_ns` (gangs still waiting count their wait so far)
    kP99Wait,   // p99 of the pods' waits (pending pods included) at most `limit_ns`
  };
  Kind kind = Kind::kNoPending;
  int64_t limit_ns = 0;
  std::string text;  // as given: "no-pending", "gang-wait<=30m", "p99-wait<=10m"
};

// "no-pending", "gang-wait<=DURATION", "p99-wait<=DURATION" (Go durations).
Result<Objective> ParseObjective(std::string_view text);

// True when the run meets the objective; otherwise `why` says by how much it misses.
bool Meets(const RunRecord& r, const Objective& o, std::string* why);

struct CompactRequest {
  std::string scenario_path;
  Variant variant;                 // the policy under which to compact
  std::vector<std::string> pools;  // empty: every pool that starts with nodes
  // Compact member clusters instead of pools: `clusters` in the order in which they are kept
  // (empty: every member, in scenario order); the last ones named are removed first.
  bool compact_clusters = false;
  std::vector<std::string> clusters;
  std::vector<uint64_t> seeds;
  std::vector<Objective> objectives;
  RunOptions run;  // jobs and progress (no results directory)
};

struct Probe {
  int64_t nodes = 0;
  bool meets = false;
  std::string why;  // the first miss (seed and objective) when it does not meet
};

struct PoolAnswer {
  std::string pool;
  int64_t original = 0;
  int64_t answer = 0;
  std::vector<Probe> probes;  // in the order they were run
};

struct ClusterAnswer {
  std::vector<std::string> named;  // the clusters compacted, in the order they are kept
  int64_t original = 0;            // named.size()
  int64_t floor = 0;               // the fewest that may be kept (1 when every member is named)
  int64_t answer = 0;              // the first `answer` of `named` are kept
  std::vector<Probe> probes;       // Probe::nodes: clusters kept
};

struct CompactResult {
  std::string scenario;
  std::string variant, options;
  std::vector<uint64_t> seeds;
  std::vector<std::string> objectives;
  bool met_at_start = false;
  std::string why_not;  // when the scenario as given misses the objective
  std::vector<PoolAnswer> pools;
  bool compact_clusters = false;
  ClusterAnswer clusters;  // when compact_clusters
  int64_t runs = 0;
};

Result<CompactResult> Compact(const CompactRequest& req);

std::string FormatCompactText(const CompactResult& r);
std::string FormatCompactJson(const CompactResult& r);

}  // namespace corral::compare
