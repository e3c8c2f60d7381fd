#pragma once
// Pod-signature fragments shared by several plugins (kube's kube-scheduler/framework/signers.go). A
// fragment value is the canonical encoding of the pod fields a plugin's results depend on: two pods
// with equal fragments get equal results from that plugin on every node. Values are JSON shaped
// like kube's (json.Marshal of the same structures, keys in the same order), so a signature read in
// a log compares directly with kube's; only equality of values matters to batching.
//
// These run once per pod when it is queued, not per node: they may allocate.

#include <optional>
#include <string>
#include <string_view>

#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"

namespace corral::plugins::signers {

// Fragment keys (kube's *SignerName constants).
inline constexpr std::string_view kNodeNameKey = "v1.Pod.Spec.NodeName";
inline constexpr std::string_view kNodeAffinityKey = "v1.Pod.Spec.Affinity.NodeAffinity";
inline constexpr std::string_view kNodeSelectorKey = "v1.Pod.Spec.Affinity.NodeSelector";
inline constexpr std::string_view kHostPortsKey = "v1.Pod.Spec.HostPorts()";
inline constexpr std::string_view kTolerationsKey = "v1.Pod.Spec.Tolerations";
inline constexpr std::string_view kVolumesKey = "v1.Pod.Spec.Volumes.NonSyntheticSources()";

// Appends `s` as a JSON string literal, escaped as Go's encoding/json does (", \, control
// characters, and the HTML-sensitive <, >, & as \u003c, \u003e, \u0026).
void AppendJsonString(std::string& out, std::string_view s);

// spec.nodeName as a JSON string.
std::string NodeName(const api::Pod& pod, const Interner& in);

// The pod's tolerations, stably sorted by key then value (strings, not symbols), as a JSON array of
// {"key","operator","value","effect","tolerationSeconds"} objects with empty fields omitted.
std::string Tolerations(const api::Pod& pod, const Interner& in);

// The distinct non-zero hostPort numbers of containers and all init containers, ascending, as a
// JSON array. (Like kube's signer this ignores host IP and protocol and includes non-sidecar init
// containers: a coarser key than the filter uses, which only makes fewer pods share a signature.)
std::string HostPorts(const api::Pod& pod);

// spec.affinity.nodeAffinity: null when absent, else {"Required":[...],"Preferred":[...]}, where
// each required term and each preferred term is itself an encoded string and every list (values,
// requirements, terms) is sorted, so that reordering a pod's terms or values does not change
// the signature.
std::string NodeAffinity(const api::Pod& pod, const Interner& in);

// spec.nodeSelector as a JSON object with keys in string order (null when empty).
std::string NodeSelector(const api::Pod& pod, const Interner& in);

// The volumes whose scheduling Corral does not model and rejects (PersistentVolumeClaim and
// ephemeral), as a sorted JSON array of their sources. kube's signer keeps every volume source
// except ConfigMap and Secret; Corral's object model keeps no other source detail, and no other
// volume changes any result.
std::string Volumes(const api::Pod& pod, const Interner& in);

// Appends an encoding of `selector` by symbol ids (nullopt, match labels, match expressions in
// order): equal encodings ⇒ equal selectors. Not canonical across runs; enough for signatures,
// which only need to compare within one scheduler (KEP-5598).
void AppendSelectorIds(std::string& out, const std::optional<api::LabelSelector>& selector);

}  // namespace corral::plugins::signers
