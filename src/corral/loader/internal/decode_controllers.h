#pragma once
// Decoders of the workload controller kinds (apps/v1 Deployment, ReplicaSet, StatefulSet,
// DaemonSet; batch/v1 Job) into api::Controller, used when LoadOptions::controllers is set.
// Internal to corral/loader.

#include "corral/api/controllers.h"
#include "corral/loader/internal/decode.h"

namespace corral::loader::internal {

struct ControllerInput {
  api::Controller c;
  PriorityInput prio;  // of the pod template
};

// Decodes, validates and defaults one controller object at `root`.
void DecodeController(Decoder& d, const Node& root, api::ControllerKind kind, ControllerInput& out);

}  // namespace corral::loader::internal
