#pragma once
// How kube's workload controllers name and label what they create, as pure functions (no engine
// state), so that each rule is tested on its own:
//  - GenerateName: the API server's names.SimpleNameGenerator (a base cut to 58 characters, then 5
//    characters of utilrand's alphabet, drawn here from the injected Rng);
//  - TemplateHash: controller.ComputeHash's shape (FNV-32a, printed in decimal and passed through
//    rand.SafeEncodeString) over Corral's canonical text of the pod template;
//  - JobIndexedPrefix: the Job controller's podGenerateNameWithIndex;
//  - AddDaemonSetTolerations and PinToNode: the DaemonSet controller's
//    util.AddOrUpdateDaemonPodTolerations and util.ReplaceDaemonSetPodNodeNameNodeAffinity;
//  - NewUid: a version-4 UUID from the Rng.

#include <cstdint>
#include <string>
#include <string_view>

#include "corral/api/generated_names.h"
#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/core/rng.h"

namespace corral::sim::controllers {

using api::kMaxGeneratedNameLength;
using api::kNameAlphabet;

// `base` (cut to 58 characters) followed by 5 random characters of kNameAlphabet.
std::string GenerateName(std::string_view base, Rng& rng);

// rand.SafeEncodeString: every byte mapped to kNameAlphabet[byte % 27].
std::string SafeEncodeString(std::string_view s);

// FNV-32a of `text`, printed in decimal and safe-encoded (controller.ComputeHash's output form).
std::string TemplateHash(std::string_view text);

// Corral's canonical text of a pod template (labels, annotations, containers and their
// requests and limits, scheduling fields), the input of TemplateHash.
std::string CanonicalTemplateText(const api::Pod& pod, const Interner& in);

// "<job>-<index>-", the job name cut so that the prefix fits in 58 characters.
std::string JobIndexedPrefix(std::string_view job, int32_t index);

// A random version-4 UUID, lower-case hex with hyphens.
std::string NewUid(Rng& rng);

// The tolerations the DaemonSet controller adds to every daemon pod (not-ready and unreachable
// NoExecute; disk-, memory- and pid-pressure and unschedulable NoSchedule; network-unavailable
// NoSchedule for host-network pods), each added unless an equal toleration (same key, operator,
// value and effect) is there, in kube's order.
void AddDaemonSetTolerations(api::Pod& pod, Interner& in);

// Required node affinity replaced by one term whose matchFields pin metadata.name to `node`;
// preferred terms and pod (anti-)affinity kept.
void PinToNode(api::Pod& pod, Symbol node, Interner& in);

}  // namespace corral::sim::controllers
