#pragma once
// PodDisruptionBudget arithmetic shared by pod preemption (DefaultPreemption) and workload-aware
// preemption (KEP-5710). kube reads status.disruptionsAllowed, which the disruption controller
// maintains; Corral has no controller and computes the same number from the pods the scheduler
// knows (docs/preemption.md §PodDisruptionBudgets).

#include <cstdint>

#include "corral/api/types.h"
#include "corral/framework/handle.h"

namespace corral::framework {

// disruptionsAllowed of `pdb` in the handle's current snapshot: healthy = bound pods of the
// budget's namespace matched by its selector that are neither terminating nor terminating by
// preemption; expected = healthy; desired from minAvailable / maxUnavailable (int, or percent of
// expected rounded up); allowed = max(0, healthy − desired), 0 when expected is 0 or the selector
// is nil.
int32_t DisruptionsAllowed(const Handle& handle, const api::PodDisruptionBudget& pdb);

// Whether preemption counts `pod` against `pdb` (kube filterPodsWithPDBViolation): same namespace,
// the pod has labels, the selector is set and non-empty, and it matches.
bool PdbCoversForPreemption(const api::PodDisruptionBudget& pdb, const api::Pod& pod);

}  // namespace corral::framework
