#pragma once
// An update (PUT) of an existing Pod as kube's API server takes it: ValidatePodUpdate of
// pkg/apis/core/validation over the fields Corral holds, then the object the server stores. The
// update carries the whole object, so every field it leaves out is compared in its defaulted form;
// kube lets a pod update change only metadata (labels, annotations, owner references), the
// containers' images, the tolerations (additions only) and the scheduling gates (removals only).
//
// What the server keeps from the live pod: its identity (uid, creation time), its priority and
// preemption policy when the update leaves them unset (the Priority admission plugin) and, in
// Corral, its status (see docs/deviations.md: kube's scheduler_perf also writes the template's
// empty status, which Corral does not model).

#include <optional>
#include <string>

#include "corral/api/types.h"
#include "corral/core/interner.h"

namespace corral::api {

// The first error kube's validation reports for an update, with the field Corral found changed.
struct PodUpdateError {
  // kube's field path and message, e.g. "spec" and "Forbidden: pod updates may not change ...".
  std::string path;
  std::string message;
  // The field of the update that differs from the live pod, as a dotted YAML path ("spec",
  // "spec.nodeSelector", "spec.tolerations"): where the input is wrong.
  std::string changed;
};

// kube's message for a spec change outside the updatable fields (updatablePodSpecFields, joined).
extern const char kPodUpdateForbiddenMessage[];

// Validates `update` (the object of a Pod update, loaded and defaulted like any input pod, with
// `priority_set` telling whether it gave spec.priority) against `live`, the stored pod of the same
// namespace and name. Returns the first error, or nullopt when kube would accept the update.
std::optional<PodUpdateError> ValidatePodUpdate(const Pod& update, bool priority_set,
                                                const Pod& live, const Interner& in);

// The object the server stores for an accepted update (REQUIRES: ValidatePodUpdate accepted it):
// `update`'s labels, annotations and owner references, containers, tolerations, scheduling gates
// and node selector, with the live pod's identity, nodeName, priority and status.
Pod ApplyPodUpdate(const Pod& update, const Pod& live);

}  // namespace corral::api
