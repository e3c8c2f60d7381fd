#pragma once
// Provenance of an output that holds several runs of one input file — the workloads of a
// scheduler_perf config run by `corral perf` — added to that output: the input and the Corral
// version once, then each group of runs that had the same scheduler setup (seed, configuration
// file and hash, feature gates, profiles and plugins per extension point) with the names of its
// runs. Runs without provenance (skipped workloads) are listed as not run.

#include <string>
#include <string_view>
#include <vector>

#include "corral/sim/provenance.h"

namespace corral::sim {

struct NamedRun {
  std::string name;
  const Provenance* provenance = nullptr;  // null or empty: the run did not happen
};

// `table`: the text output followed by an INPUTS section. `json`: the JSON document (an object,
// as dumped with 2-space indentation) with a "provenance" key appended, holding
// ProvenanceJson(common) plus "workloads": [{name, seed, schedulers}] (null seed and schedulers
// for runs that did not happen).
std::string AddRunsProvenance(std::string_view output, bool json, const Provenance& common,
                              const std::vector<NamedRun>& runs);

}  // namespace corral::sim
