#pragma once
// The fleet level of a variant: what `corral compare`, `corral sweep` and `corral compact` may
// change in the `fleet:` section of a scenario — the fleet scheduler, MultiKueue's dispatcher, the
// composable dispatcher's nomination (top-1 or top-K) and its ClusterDispatcherProfile. The option
// names are the scenario's field names (docs/scenarios.md, "A fleet in front of the clusters"):
//
//   fleet.scheduler=karmada|kueue
//   fleet.dispatcher=composable|allAtOnce|incremental   kueue
//   fleet.nomination=Top1|TopK                          kueue, composable
//   fleet.topK=1..10                                    kueue, composable, nomination TopK
//   fleet.profile=FILE                                  kueue, composable: exactly one
//                                                       ClusterDispatcherProfile, read as
//                                                       `corral dispatch` reads it
//
// Contract: an override the scenario cannot honour is an error naming the option, never a quiet
// substitution — any fleet option on a scenario without `fleet:`; a Kueue option on a Karmada
// fleet (Corral runs Karmada's default plugin set, which has no profile to change); nomination,
// topK or profile on a dispatcher other than composable; a profile together with nomination or
// topK (the profile sets its own); TopK without topK. Switching the fleet scheduler keeps the
// kind-neutral settings (members, outages, refresh interval, workerLostTimeout) and is an error
// when a fleet workload asks for something only the other scheduler reads (a Kueue
// clusterSelector, clusterTolerations or MustBeAdmitted dispatch mode, a configOrder; a Karmada
// placement; kind Job under Kueue, which admits a workload whole).

#include <cstdint>
#include <string>
#include <string_view>

#include "corral/core/interner.h"
#include "corral/core/result.h"

namespace corral::sim {
struct SimSpec;
}

namespace corral::compare {

struct FleetOverrides {
  std::string scheduler;   // "karmada", "kueue"; empty: as written
  std::string dispatcher;  // "composable", "allAtOnce", "incremental"
  std::string nomination;  // "Top1", "TopK"
  int32_t top_k = 0;       // 0: as written
  std::string profile;     // a ClusterDispatcherProfile file

  bool empty() const;
  void Merge(const FleetOverrides& other);
  // "fleet.scheduler=kueue;fleet.dispatcher=..." in a fixed order; empty when there are none.
  std::string Describe() const;
};

// Parses one `fleet.KEY=VALUE` option (`key` without the "fleet." prefix) into `o`. Errors: an
// unknown key, a value outside the key's set.
Result<void> ParseFleetOverride(std::string_view key, std::string_view value, FleetOverrides& o);

// Applies `o` to the spec's fleet (a new FleetSpec replaces the compiled one). `interner` is the
// spec's; the profile file is read with it.
Result<void> ApplyFleetOverrides(const FleetOverrides& o, sim::SimSpec& spec, Interner& interner);

}  // namespace corral::compare
