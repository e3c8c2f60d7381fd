#pragma once
// Variants and scenario parameters: what `corral compare`, `corral sweep` and `corral compact`
// change in a scenario before running it. Both are Overrides, a small vocabulary of edits applied
// to the SimSpec that the scenario compiled into:
//
//   config=FILE               the KubeSchedulerConfiguration of a one-cluster scenario
//   config.CLUSTER=FILE       the KubeSchedulerConfiguration of one member cluster
//   feature-gates=A=true,...  feature gates by kube's names (every member cluster)
//   pools=FILE                node pools added to the scenario, or replacing its pools of the
//                             same name: a scenario file that holds only nodePools
//   pools.CLUSTER=FILE        the same for one member cluster of a scenario with clusters
//   nodes.POOL=N              the pool's node count at the start of the run
//   rate.WORKLOAD=R           the workload's arrival rate ("40/h", "0.5"; fixed-rate or Poisson)
//   clusters.CLUSTER=absent   the member cluster is dropped from the scenario before it compiles,
//                             as if never declared (ScenarioOptions::absent_clusters)
//
// and, for a scenario with a `fleet:` section, the fleet level (fleet_override.h):
//
//   fleet.scheduler=karmada|kueue                the fleet scheduler
//   fleet.dispatcher=composable|allAtOnce|incremental   MultiKueue's dispatcher (kueue)
//   fleet.nomination=Top1|TopK, fleet.topK=N     the composable dispatcher's nomination (kueue)
//   fleet.profile=FILE                           a dispatcher profile file (kueue, composable)
//
// On the command line a variant is `NAME` or `NAME:OPT;OPT;...` with the options above, e.g.
// `--variant 'binpack:config=binpack.yaml;nodes.gpu=48'`. A name without options runs the scenario
// as written.
//
// Contract: applying Overrides never drops an edit silently. A pool, workload or cluster the
// scenario does not have, a rate on a workload that has no rate, or an unknown option is an error
// naming the option.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/compare/fleet_override.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/spec.h"

namespace corral::compare {

// The most nodes `nodes.POOL=N` may give a pool: a scenario's nodePools[].count limit, so that a
// variant cannot ask for a cluster the scenario format itself rejects as larger than a run holds.
inline constexpr int64_t kMaxPoolNodes = 1'000'000;

struct Overrides {
  std::string config;                                                // one-cluster scenarios
  std::vector<std::pair<std::string, std::string>> cluster_configs;  // cluster name → file
  std::string feature_gates;                                         // "A=true,B=false"
  std::string pools;                                                 // a scenario of nodePools
  std::vector<std::pair<std::string, std::string>> cluster_pools;    // cluster → pools file
  std::vector<std::pair<std::string, int64_t>> nodes;                // pool → node count
  std::vector<std::pair<std::string, std::string>> rates;            // workload → rate text
  std::vector<std::string> absent_clusters;                          // clusters.NAME=absent
  FleetOverrides fleet;                                              // the fleet level

  bool empty() const;
  // Adds `other` on top of these: its settings win, key by key.
  void Merge(const Overrides& other);
  // The options in their command-line form, in a fixed order ("config=a.yaml;nodes.gpu=48"); empty
  // when there are none.
  std::string Describe() const;
};

struct Variant {
  std::string name;
  Overrides overrides;
};

// Parses one option `key=value` into `o` (the forms listed above).
Result<void> ParseOverride(std::string_view option, Overrides& o);

// Parses a `--variant` value: NAME or NAME:OPT;OPT;... NAME is 1-40 characters of [A-Za-z0-9._-].
Result<Variant> ParseVariantFlag(std::string_view flag);

// True when `name` is a valid variant name.
bool ValidVariantName(std::string_view name);

// Applies `o` to `spec`: sets the configuration paths (dropping any configuration the scenario had
// decoded, so that the run loads the new one), sets the feature gates, adds or replaces node pools
// (then resizes pools), and sets the workloads' arrival rates. `interner` is the spec's.
Result<void> ApplyOverrides(const Overrides& o, sim::SimSpec& spec, Interner& interner);

// The scenario options that carry `o`'s edits applied while the scenario compiles (the absent
// clusters): the loader of a run passes them to sim::ParseScenario before ApplyOverrides.
sim::ScenarioOptions ScenarioOptionsOf(const Overrides& o);

// The pool's node count at the start of the run (its initial createNodes op), or an error naming
// the known pools.
Result<int64_t> InitialPoolSize(const sim::SimSpec& spec, std::string_view pool);

}  // namespace corral::compare
