#pragma once
// The tail that every reader of pods with explicit arrival times shares (a trace's rows,
// manifests' pods): the arrivals put in time order and the workload started by the program.

#include "corral/sim/spec.h"

namespace corral::sim {

// Where AppendExplicitWorkload puts the workload's startWorkload op in the program.
enum class StartAt { kFront, kBack };

// Sorts wk.explicit_arrivals by arrival time (equal times keep their input order), makes the first
// arrival's template the workload's own, appends wk to spec.workloads and a
// "startWorkload workload=<wk.name>" op for it at the front or the back of spec.program.
void AppendExplicitWorkload(Workload wk, StartAt at, SimSpec& spec);

}  // namespace corral::sim
