#include "corral/plugins/node_affinity/node_affinity.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>

#include "corral/api/selectors.h"
#include "corral/api/strconv.h"
#include "corral/api/well_known.h"
#include "corral/pipeline/normalize.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"
#include "corral/plugins/helper/field_errors.h"

namespace corral::plugins {

namespace {

using helper::FieldPath;
using helper::GoQuote;

// ---- kube's parse errors for node selector terms (component-helpers
// nodeaffinity, labels.NewRequirement)

// Go's strconv.ParseInt(s, 10, 64) succeeds.
bool ParsesAsInt64(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

// Go's %#v of a []string: []string{"a", "b"}.
std::string GoStringSlice(const std::vector<Symbol>& values, const Interner& in) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(in.Str(values[i]));
  }
  out += '}';
  return out;
}

void Invalid(std::vector<std::string>* errs, const FieldPath& path, std::string_view value,
             std::string_view detail) {
  errs->push_back(path.str() + ": Invalid value: " + std::string(value) + ": " +
                  std::string(detail));
}

// labels.NewRequirement's errors for one matchExpressions requirement.
void RequirementErrors(const api::NodeSelectorRequirement& r, const FieldPath& path,
                       const Interner& in, std::vector<std::string>* errs) {
  const std::string_view key = in.Str(r.key);
  if (auto ok = api::ValidateQualifiedName(key); !ok) {
    Invalid(errs, path.Child("key"), GoQuote(key), ok.error().message);
  }
  const FieldPath values = path.Child("values");
  switch (r.op) {
    case api::NodeSelectorOp::kIn:
    case api::NodeSelectorOp::kNotIn:
      if (r.values.empty()) {
        Invalid(errs, values, GoStringSlice(r.values, in),
                "for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case api::NodeSelectorOp::kExists:
    case api::NodeSelectorOp::kDoesNotExist:
      if (!r.values.empty()) {
        Invalid(errs, values, GoStringSlice(r.values, in),
                "values set must be empty for exists and does not exist");
      }
      break;
    case api::NodeSelectorOp::kGt:
    case api::NodeSelectorOp::kLt:
      if (r.values.size() != 1) {
        Invalid(errs, values, GoStringSlice(r.values, in),
                "for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (size_t i = 0; i < r.values.size(); ++i) {
        const std::string_view v = in.Str(r.values[i]);
        if (!ParsesAsInt64(v)) {
          Invalid(errs, values.Index(i), GoQuote(v),
                  "for 'Gt', 'Lt' operators, the value must be an integer");
        }
      }
      break;
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    const std::string_view v = in.Str(r.values[i]);
    if (auto ok = api::ValidateLabelValue(v); !ok) {
      // kube reports the value under path.Key(key): values[i][key].
      Invalid(errs, FieldPath(values.Index(i).str() + "[" + std::string(key) + "]"), GoQuote(v),
              ok.error().message);
    }
  }
}

// nodeSelectorRequirementsAsFieldSelector's errors for one matchFields requirement.
void FieldRequirementErrors(const api::NodeSelectorRequirement& r, const FieldPath& path,
                            const Interner& in, std::vector<std::string>* errs) {
  switch (r.op) {
    case api::NodeSelectorOp::kIn:
    case api::NodeSelectorOp::kNotIn:
      if (r.values.size() != 1) {
        Invalid(errs, path.Child("values"), GoStringSlice(r.values, in), "must have one element");
      }
      break;
    default:
      errs->push_back(path.Child("operator").str() +
                      ": Unsupported value: " + GoQuote(api::NodeSelectorOpName(r.op)) +
                      ": supported values: \"In\", \"NotIn\"");
  }
}

// newNodeSelectorTerm's errors. Empty terms are never parsed (callers skip them).
void TermErrors(const api::NodeSelectorTerm& term, const FieldPath& path, const Interner& in,
                std::vector<std::string>* errs) {
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    RequirementErrors(term.match_expressions[i], path.Child("matchExpressions").Index(i), in, errs);
  }
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    FieldRequirementErrors(term.match_fields[i], path.Child("matchFields").Index(i), in, errs);
  }
}

bool IsEmptyTerm(const api::NodeSelectorTerm& t) {
  return t.match_expressions.empty() && t.match_fields.empty();
}

bool TermParses(const api::NodeSelectorTerm& term, const Interner& in) {
  std::vector<std::string> errs;
  TermErrors(term, FieldPath(), in, &errs);
  return errs.empty();
}

// NewNodeSelector's errors.
void SelectorErrors(const api::NodeSelector& s, const FieldPath& path, const Interner& in,
                    std::vector<std::string>* errs) {
  const FieldPath terms = path.Child("nodeSelectorTerms");
  for (size_t i = 0; i < s.node_selector_terms.size(); ++i) {
    if (IsEmptyTerm(s.node_selector_terms[i])) continue;
    TermErrors(s.node_selector_terms[i], terms.Index(i), in, errs);
  }
}

// NewPreferredSchedulingTerms' errors: terms are indexed directly under `path`.
void PreferredErrors(const std::vector<api::PreferredSchedulingTerm>& terms, const FieldPath& path,
                     const Interner& in, std::vector<std::string>* errs) {
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].weight == 0 || IsEmptyTerm(terms[i].preference)) continue;
    TermErrors(terms[i].preference, path.Index(i), in, errs);
  }
}

// utilerrors.NewAggregate(...).Error(): one message bare, else distinct messages in brackets.
std::string Aggregate(const std::vector<std::string>& errs) {
  if (errs.size() == 1) return errs[0];
  std::vector<std::string_view> seen;
  std::string joined;
  for (const std::string& e : errs) {
    if (std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
    if (!seen.empty()) joined += ", ";
    seen.push_back(e);
    joined += e;
  }
  return seen.size() == 1 ? joined : "[" + joined + "]";
}

// ---- the pod's required affinity (kube's GetRequiredNodeAffinity) ----

// spec.nodeSelector AND the required terms, with each term's parse verdict computed once.
struct RequiredAffinity {
  const api::LabelSet* node_selector = nullptr;  // null when empty
  const api::NodeSelector* required = nullptr;
  absl::InlinedVector<bool, 4> term_parses;  // per required term

  static RequiredAffinity Of(const api::Pod& pod, const Interner& in) {
    RequiredAffinity r;
    if (!pod.node_selector.empty()) r.node_selector = &pod.node_selector;
    if (pod.affinity.has_value() && pod.affinity->node_affinity.has_value() &&
        pod.affinity->node_affinity->required.has_value()) {
      r.required = &*pod.affinity->node_affinity->required;
      for (const auto& t : r.required->node_selector_terms)
        r.term_parses.push_back(TermParses(t, in));
    }
    return r;
  }

  // Unparsable terms match nothing; *parse_error reports that one was skipped (kube's Match error).
  bool Matches(const api::LabelSet& labels, Symbol node_name, const Interner& in,
               bool* parse_error = nullptr) const {
    if (node_selector != nullptr && !api::MatchesLabels(*node_selector, labels)) return false;
    if (required == nullptr) return true;
    const auto& terms = required->node_selector_terms;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (!term_parses[i]) {
        if (parse_error != nullptr && !IsEmptyTerm(terms[i])) *parse_error = true;
        continue;
      }
      if (api::MatchesNodeSelectorTerm(terms[i], labels, node_name, in)) return true;
    }
    return false;
  }
};

struct PreFilterState final : framework::StateData {
  RequiredAffinity required;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

const std::vector<api::PreferredSchedulingTerm>* PodPreferred(const api::Pod& pod) {
  if (!pod.affinity.has_value() || !pod.affinity->node_affinity.has_value()) return nullptr;
  const auto& p = pod.affinity->node_affinity->preferred;
  return p.empty() ? nullptr : &p;
}

}  // namespace

// ---- args ----

Result<void> NodeAffinityArgs::Validate(const Interner& interner, std::string_view path) const {
  if (!added_affinity.has_value()) return {};
  const FieldPath added = FieldPath(path).Child("addedAffinity");
  std::vector<std::string> errs;
  if (added_affinity->required.has_value()) {
    SelectorErrors(*added_affinity->required,
                   added.Child("requiredDuringSchedulingIgnoredDuringExecution"), interner, &errs);
  }
  PreferredErrors(added_affinity->preferred,
                  added.Child("preferredDuringSchedulingIgnoredDuringExecution"), interner, &errs);
  if (errs.empty()) return {};
  return Error::Invalid(Aggregate(errs));
}

// ---- plugin ----

Result<std::unique_ptr<framework::Plugin>> NodeAffinity::New(const framework::PluginArgs* args,
                                                             framework::Handle& handle) {
  std::optional<api::NodeAffinity> added;
  if (args != nullptr) {
    const auto* typed = dynamic_cast<const NodeAffinityArgs*>(args);
    if (typed == nullptr) return Error::Invalid("args are not of type NodeAffinityArgs");
    if (auto ok = typed->Validate(handle.interner()); !ok) return ok.error();
    added = typed->added_affinity;
  }
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeAffinity>(handle.interner(), std::move(added)));
}

NodeAffinity::NodeAffinity(const Interner& interner,
                           std::optional<api::NodeAffinity> added_affinity)
    : interner_(interner), added_(std::move(added_affinity)) {
  if (!added_.has_value()) return;
  if (added_->required.has_value()) added_selector_ = &*added_->required;
  has_added_preferred_ = !added_->preferred.empty();
  for (const auto& t : added_->preferred) {
    if (t.weight != 0 && !IsEmptyTerm(t.preference)) added_preferred_.push_back(&t);
  }
}

bool NodeAffinity::MatchesAdded(const api::Node& node) const {
  return added_selector_ == nullptr ||
         api::MatchesNodeSelector(*added_selector_, node.meta.labels, node.meta.name, interner_);
}

framework::Status NodeAffinity::PreFilter(framework::CycleState& state, size_t slot,
                                          const framework::PodInfo& pod,
                                          const framework::Snapshot& snapshot,
                                          framework::PreFilterResult* result) {
  (void)snapshot;
  auto s = std::make_unique<PreFilterState>();
  s->required = RequiredAffinity::Of(*pod.pod, interner_);
  if (s->required.required == nullptr && added_selector_ == nullptr &&
      s->required.node_selector == nullptr) {
    return framework::Status::Skip();  // nothing for Filter to check
  }
  const api::NodeSelector* required = s->required.required;
  state.Write(slot, std::move(s));
  if (required == nullptr || required->node_selector_terms.empty()) return {};

  // Affinity to specific nodes by name: every term must name them (terms are ORed).
  absl::flat_hash_set<Symbol> names;
  for (const auto& term : required->node_selector_terms) {
    bool named = false;
    absl::flat_hash_set<Symbol> term_names;
    for (const auto& r : term.match_fields) {
      if (r.key != api::wk::kMetadataName || r.op != api::NodeSelectorOp::kIn) continue;
      // Requirements within a term are ANDed: intersect.
      absl::flat_hash_set<Symbol> values(r.values.begin(), r.values.end());
      if (!named) {
        term_names = std::move(values);
        named = true;
      } else {
        absl::flat_hash_set<Symbol> both;
        for (Symbol n : term_names) {
          if (values.contains(n)) both.insert(n);
        }
        term_names = std::move(both);
      }
    }
    if (!named) return {};  // this term may match any node
    names.insert(term_names.begin(), term_names.end());
  }
  if (names.empty()) return framework::Status::Unresolvable(kErrReasonConflict);
  if (result != nullptr) result->node_names = std::move(names);
  return {};
}

framework::Status NodeAffinity::Filter(const framework::CycleState& state, size_t slot,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& node) const {
  const api::Node& n = *node.node();
  if (!MatchesAdded(n)) return framework::Status::Unresolvable(kErrReasonEnforced);
  const auto* s = state.Get<PreFilterState>(slot);
  const bool match =
      s != nullptr ? s->required.Matches(n.meta.labels, n.meta.name, interner_)
                   // PreFilter did not run (disabled in the profile): parse here, as kube does.
                   : RequiredAffinity::Of(*pod.pod, interner_)
                         .Matches(n.meta.labels, n.meta.name, interner_);
  if (!match) return framework::Status::Unresolvable(kErrReasonPod);
  return {};
}

framework::Status NodeAffinity::PreScore(framework::CycleState& state, size_t slot,
                                         const framework::PodInfo& pod,
                                         std::span<const framework::NodeInfo* const> nodes) {
  (void)state;
  (void)slot;
  (void)nodes;
  const auto* preferred = PodPreferred(*pod.pod);
  if (preferred != nullptr) {
    std::vector<std::string> errs;
    PreferredErrors(*preferred, FieldPath(), interner_, &errs);
    if (!errs.empty()) return framework::Status::Error(Aggregate(errs));
  }
  if (preferred == nullptr && !has_added_preferred_) return framework::Status::Skip();
  return {};
}

framework::Status NodeAffinity::Score(const framework::CycleState& state, size_t slot,
                                      const framework::PodInfo& pod,
                                      const framework::NodeInfo& node, int64_t* score) const {
  (void)state;
  (void)slot;
  const api::Node& n = *node.node();
  int64_t count = 0;
  for (const auto* t : added_preferred_) {
    if (api::MatchesNodeSelectorTerm(t->preference, n.meta.labels, n.meta.name, interner_)) {
      count += t->weight;
    }
  }
  // PreScore rejected unparsable terms; zero-weight terms add nothing and empty terms
  // match nothing.
  if (const auto* preferred = PodPreferred(*pod.pod)) {
    for (const auto& t : *preferred) {
      if (api::MatchesNodeSelectorTerm(t.preference, n.meta.labels, n.meta.name, interner_)) {
        count += t.weight;
      }
    }
  }
  *score = count;
  return {};
}

framework::Status NodeAffinity::NormalizeScore(const framework::CycleState& state, size_t slot,
                                               const framework::PodInfo& pod,
                                               std::span<framework::NodeScore> scores) const {
  (void)state;
  (void)slot;
  (void)pod;
  pipeline::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/false, scores);
  return {};
}

std::vector<framework::ClusterEvent> NodeAffinity::EventsToRegister() const {
  using framework::ActionType;
  return {{framework::EventResource::kNode, Actions(ActionType::kAdd, ActionType::kUpdate)}};
}

framework::QueueingHint NodeAffinity::Hint(const framework::PodInfo& pod,
                                           const framework::ClusterEvent& event,
                                           const void* subject) const {
  (void)event;
  using framework::QueueingHint;
  const api::Node* node = NodeSubject(subject);
  if (node == nullptr) return QueueingHint::kQueue;
  if (!MatchesAdded(*node)) return QueueingHint::kQueueSkip;
  bool parse_error = false;
  const bool match = RequiredAffinity::Of(*pod.pod, interner_)
                         .Matches(node->meta.labels, node->meta.name, interner_, &parse_error);
  // kube queues when matching failed on a parse error (its hint returns the error).
  return match || parse_error ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

framework::Status NodeAffinity::Sign(const framework::PodInfo& pod,
                                     std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back(
      {std::string(signers::kNodeAffinityKey), signers::NodeAffinity(*pod.pod, interner_)});
  fragments->push_back(
      {std::string(signers::kNodeSelectorKey), signers::NodeSelector(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
