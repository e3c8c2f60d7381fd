#pragma once
// Plain Kubernetes manifests (as `corral schedule` reads them) as a simulation input:
//  - nodes are present at time 0;
//  - pods with spec.nodeName are bound at time 0; other pods arrive at time 0, or — when they carry
//    metadata.creationTimestamp — at their offset from the earliest creationTimestamp of the input;
//  - a pod runs for the Go duration in its `corral.dev/duration` annotation after it is bound
//    ("30m", "1h30m"), forever without it.
// The pods form one explicit workload named "manifests" (pods keep their names).

#include <string>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/doc/decoder.h"
#include "corral/sim/spec.h"

namespace corral::sim {

inline constexpr std::string_view kDurationAnnotation = "corral.dev/duration";

// Loads manifests (files or directories) into a spec. Errors are reported in `diags` (file,
// line, path). `unknown_fields` is kubectl's --validate (unknown fields are errors by default).
Result<SimSpec> LoadManifestsSpec(
    const std::vector<std::string>& paths, Interner& interner, Diagnostics& diags,
    bool strict = false, doc::FieldValidation unknown_fields = doc::FieldValidation::kStrict);

// Adds `pods` to `spec` as the "manifests" workload and puts its start at the front of the program.
void AddManifestPods(const std::vector<const api::Pod*>& pods, Interner& interner, SimSpec& spec,
                     Diagnostics& diags);

}  // namespace corral::sim
