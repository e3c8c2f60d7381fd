#pragma once
// Matching semantics that plugins call on hot paths: label selectors (metav1), node selector terms
// (the component-helpers `nodeaffinity` package), taints and tolerations (core/v1 `ToleratesTaint`
// and v1helper), and resource-name classification (v1helper) with the API server's
// resource-name validation.
//
// Every matcher is allocation-free and works on interned Symbols; only Gt/Lt (which compare label
// values as integers) and the matchFields key read strings back from the Interner.
//
// The matchers assume objects that passed the loader's validation (as pods and nodes in a cluster
// have passed the API server's): label keys and values are well-formed. The structural rules that
// kube enforces when it builds a selector are enforced here too, because kube's scheduler silently
// skips a term that breaks them: such a term matches nothing (see MatchesNodeSelectorTerm).

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"

namespace corral::api {

// ---- label selectors ----------------------------------------------------------------------------

// labels.SelectorFromSet(match_labels).Matches(labels): every pair of `match_labels` is in
// `labels`. An empty set matches everything. This is also pod.spec.nodeSelector's semantics.
bool MatchesLabels(const LabelSet& match_labels, const LabelSet& labels);

// One metav1 requirement: In (key present, value listed), NotIn (key absent, or value not listed),
// Exists, DoesNotExist. The loader rejects In/NotIn without values and Exists/DoesNotExist with
// values, as metav1.LabelSelectorAsSelector does; were one to reach here, In would match nothing
// and NotIn would match whenever the key is absent or has any value.
bool Matches(const LabelSelectorRequirement& requirement, const LabelSet& labels);

// metav1.LabelSelector: match_labels AND every expression. The empty selector matches everything; a
// missing selector (std::nullopt) matches nothing, and callers keep that distinction.
bool Matches(const LabelSelector& selector, const LabelSet& labels);

// ---- node selectors -----------------------------------------------------------------------------

// One label requirement of a node selector term (In, NotIn, Exists, DoesNotExist as above; Gt and
// Lt parse the label value and the single requirement value as int64 with Go's strconv.ParseInt
// rules and compare; a missing label or an unparsable value does not match). Structural errors (see
// below) do not match.
bool Matches(const NodeSelectorRequirement& requirement, const LabelSet& labels,
             const Interner& interner);

// kube's nodeaffinity term match. The term matches when every matchExpressions requirement matches
// the node's labels AND every matchFields requirement matches the node's fields. A term with no
// requirements matches nothing. Fields:
//   - matchFields supports In and NotIn with exactly one value each; the only node field is
//     `metadata.name` = `node_name` (any other key reads as the empty string, as kube's fields.Set
//     does; the loader rejects other keys, as API validation does).
//   - When `node_name` is empty, kube has no fields for the node and skips matchFields entirely.
// A term that kube fails to parse matches nothing (kube's scheduler ignores the parse error and
// moves on): In/NotIn with no values, Exists/DoesNotExist with values, Gt/Lt without exactly one
// int64 value, a matchFields operator other than In/NotIn, or a matchFields requirement without
// exactly one value.
bool MatchesNodeSelectorTerm(const NodeSelectorTerm& term, const LabelSet& node_labels,
                             Symbol node_name, const Interner& interner);

// Terms are ORed; a selector with zero terms matches nothing.
bool MatchesNodeSelector(const NodeSelector& selector, const LabelSet& node_labels,
                         Symbol node_name, const Interner& interner);

// ---- taints and tolerations ---------------------------------------------------------------------

// A set of taint effects, used to select which taints a check considers.
class TaintEffectSet {
 public:
  constexpr TaintEffectSet() = default;
  constexpr TaintEffectSet(std::initializer_list<TaintEffect> effects) {
    for (TaintEffect e : effects) bits_ |= Bit(e);
  }
  static constexpr TaintEffectSet All() {
    return {TaintEffect::kNone, TaintEffect::kNoSchedule, TaintEffect::kPreferNoSchedule,
            TaintEffect::kNoExecute};
  }
  constexpr bool Contains(TaintEffect e) const { return (bits_ & Bit(e)) != 0; }

 private:
  static constexpr uint8_t Bit(TaintEffect e) {
    return static_cast<uint8_t>(1u << static_cast<unsigned>(e));
  }
  uint8_t bits_ = 0;
};

// The TaintToleration filter's taints (kube's DoNotScheduleTaintsFilterFunc).
inline constexpr TaintEffectSet kDoNotScheduleTaints = {TaintEffect::kNoSchedule,
                                                        TaintEffect::kNoExecute};

// core/v1 Toleration.ToleratesTaint:
//   1. an empty toleration effect matches every taint effect, otherwise the effects must be equal;
//   2. an empty toleration key matches every taint key, otherwise the keys must be equal;
//   3. Exists matches every value; Equal requires equal values.
// As in kube, an empty key with Equal is not special: it tolerates every taint whose value equals
// the toleration's value (API validation forbids that combination; the loader does too).
// TODO(api): kube 1.35 adds Lt/Gt toleration operators (TaintTolerationComparisonOperators, alpha);
// TolerationOp has no such values yet.
bool Tolerates(const Toleration& toleration, const Taint& taint);

// v1helper.TolerationsTolerateTaint: some toleration tolerates the taint.
bool TolerationsTolerateTaint(std::span<const Toleration> tolerations, const Taint& taint);

// v1helper.FindMatchingUntoleratedTaint: the first taint, in order, whose effect is in `filter` and
// that no toleration tolerates; nullptr if there is none. The pointer points into `taints`.
const Taint* FindUntoleratedTaint(std::span<const Taint> taints,
                                  std::span<const Toleration> tolerations, TaintEffectSet filter);

// ---- resource names
// ------------------------------------------------------------------------------------- Names
// follow v1helper (pkg/apis/core/v1/helper and component-helpers/scheduling/corev1).

// Contains "kubernetes.io/" anywhere (kube uses strings.Contains, so
// "foo.kubernetes.io/bar" counts).
bool IsPrefixedNativeResource(std::string_view name);
// Unprefixed (no "/"), or prefixed native: cpu, memory, pods, hugepages-2Mi, kubernetes.io/foo.
bool IsNativeResource(std::string_view name);
// Outside the kubernetes.io domain, not "requests."-prefixed, and "requests." + name is a qualified
// name: example.com/gpu, nvidia.com/gpu.
bool IsExtendedResourceName(std::string_view name);
// Starts with "hugepages-".
bool IsHugePageResourceName(std::string_view name);
// Starts with "attachable-volumes-".
bool IsAttachableVolumeResourceName(std::string_view name);
// Extended, huge pages, prefixed native, or attachable volumes: the resources NodeInfo keeps
// as scalars.
bool IsScalarResourceName(std::string_view name);
// Native and not huge pages: requests may be below limits (v1helper.IsOvercommitAllowed).
bool IsOvercommitAllowed(std::string_view name);

// apimachinery validation.IsQualifiedName: [prefix/]name where prefix is a DNS-1123 subdomain (at
// most 253 characters) and name is at most 63 alphanumerics, '-', '_' or '.', starting and ending
// alphanumeric. Label keys follow the same rule. Errors carry kube's messages (joined with "; "
// when several apply).
Result<void> ValidateQualifiedName(std::string_view value);
// The same messages one by one, in kube's order (empty when valid), for callers that report each as
// its own field error.
std::vector<std::string> QualifiedNameMessages(std::string_view value);
// apimachinery validation.IsValidLabelValue: empty, or a qualified-name name part.
Result<void> ValidateLabelValue(std::string_view value);

// The API server's validateResourceName: a qualified name, and unprefixed names must be standard
// resource names (cpu, memory, ephemeral-storage, pods, hugepages-*, the quota names, ...). For
// node capacity and allocatable. Errors have ErrorCode::kInvalidInput.
Result<void> ValidateResourceName(std::string_view name);
// The API server's validateContainerResourceName, for container requests and limits: as above, and
// unprefixed names must be cpu, memory, ephemeral-storage or hugepages-*, and prefixed names
// outside kubernetes.io must be extended resource names.
Result<void> ValidateContainerResourceName(std::string_view name);

}  // namespace corral::api
