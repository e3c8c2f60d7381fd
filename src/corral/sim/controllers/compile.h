#pragma once
// Compiles the workload controllers of an input (loader::LoadResult::controllers) into a SimSpec:
// one pod template and one workload per controller (named "<Kind>/<namespace>/<name>"), started
// at time 0 in input order. Each template gets the labels and tolerations the controller puts on
// every pod (pod-template-hash; controller-revision-hash; pod-template-generation and the daemon
// tolerations); a Deployment's ReplicaSet becomes a selector owner, as kube's default spreading
// sees it.
//
// A template's corral.dev/duration annotation is the run time of a Job's pods; on any other
// controller's template it is an error (their pods run until deleted).

#include <vector>

#include "corral/api/controllers.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/sim/spec.h"

namespace corral::sim {

// Appends the controllers to `spec` (in order, after those it has) and a start op for each,
// inserted before the program's op at `position` (clamped to the end).
void AddControllers(std::vector<api::Controller> controllers, Interner& interner, SimSpec& spec,
                    Diagnostics& diags, size_t position);

}  // namespace corral::sim
