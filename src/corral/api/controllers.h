#pragma once
// Workload controllers as the simulator's controllers read them: apps/v1 Deployment, ReplicaSet,
// StatefulSet, DaemonSet and batch/v1 Job. Each holds its pod template as a validated, defaulted
// and priority-admitted api::Pod (metadata.name empty) and the fields that decide which pods the
// controller creates; the rollout settings that only matter when a template changes are accepted
// and not kept. The loader fills these only when asked (loader::LoadOptions::controllers).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "corral/api/storage.h"
#include "corral/api/types.h"

namespace corral::api {

enum class ControllerKind : uint8_t { kDeployment, kReplicaSet, kStatefulSet, kDaemonSet, kJob };

// "Deployment", "ReplicaSet", ...
constexpr std::string_view ControllerKindName(ControllerKind k) {
  switch (k) {
    case ControllerKind::kDeployment:
      return "Deployment";
    case ControllerKind::kReplicaSet:
      return "ReplicaSet";
    case ControllerKind::kStatefulSet:
      return "StatefulSet";
    case ControllerKind::kDaemonSet:
      return "DaemonSet";
    case ControllerKind::kJob:
      return "Job";
  }
  return "";
}

struct Controller {
  ControllerKind kind = ControllerKind::kDeployment;
  ObjectMeta meta;
  std::optional<LabelSelector> selector;  // spec.selector (Jobs: generated when absent)
  Pod tmpl;                               // spec.template
  // Deployment, ReplicaSet, StatefulSet: spec.replicas (defaulted to 1).
  int32_t replicas = 1;
  // StatefulSet: podManagementPolicy Parallel (else OrderedReady), spec.ordinals.start and
  // spec.volumeClaimTemplates (namespace empty, name = the template's name).
  bool parallel = false;
  int32_t ordinals_start = 0;
  std::vector<PersistentVolumeClaim> volume_claim_templates;
  // persistentVolumeClaimRetentionPolicy.whenScaled: Delete removes a condemned ordinal's claims
  // (else Retain keeps them; whenDeleted never applies, a simulation deletes no controller).
  bool delete_claims_when_scaled = false;
  // Job: spec.parallelism (default 1), spec.completions (unset: a work queue), completionMode
  // Indexed, spec.backoffLimit (default 6, or unlimited with backoffLimitPerIndex, which
  // the loader rejects).
  int32_t parallelism = 1;
  std::optional<int32_t> completions;
  bool indexed = false;
  int32_t backoff_limit = 6;
  bool suspend = false;
};

}  // namespace corral::api
