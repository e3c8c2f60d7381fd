#include "corral/api/selectors.h"

#include <algorithm>
#include <optional>
#include <string>

#include "corral/api/strconv.h"

namespace corral::api {
namespace {

bool Contains(const std::vector<Symbol>& values, Symbol v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsAlnum(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsLowerAlnum(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z');
}

// Whether kube's labels.NewRequirement accepts the operator/values combination (key and value
// syntax are the loader's to check).
bool IsWellFormed(const NodeSelectorRequirement& r, const Interner& in) {
  switch (r.op) {
    case NodeSelectorOp::kIn:
    case NodeSelectorOp::kNotIn:
      return !r.values.empty();
    case NodeSelectorOp::kExists:
    case NodeSelectorOp::kDoesNotExist:
      return r.values.empty();
    case NodeSelectorOp::kGt:
    case NodeSelectorOp::kLt:
      return r.values.size() == 1 && ParseInt64(in.Str(r.values[0])).has_value();
  }
  return false;
}

// Matches a well-formed label requirement.
bool MatchesWellFormed(const NodeSelectorRequirement& r, const LabelSet& labels,
                       const Interner& in) {
  const Symbol* value = labels.Find(r.key);
  switch (r.op) {
    case NodeSelectorOp::kIn:
      return value != nullptr && Contains(r.values, *value);
    case NodeSelectorOp::kNotIn:
      return value == nullptr || !Contains(r.values, *value);
    case NodeSelectorOp::kExists:
      return value != nullptr;
    case NodeSelectorOp::kDoesNotExist:
      return value == nullptr;
    case NodeSelectorOp::kGt:
    case NodeSelectorOp::kLt: {
      if (value == nullptr) return false;
      const std::optional<int64_t> have = ParseInt64(in.Str(*value));
      if (!have) return false;
      const int64_t want = *ParseInt64(in.Str(r.values[0]));  // checked by IsWellFormed
      return r.op == NodeSelectorOp::kGt ? *have > want : *have < want;
    }
  }
  return false;
}

// ---- qualified names ----

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kDns1123SubdomainMaxLength = 253;

// The name part of a qualified name, without the length limit:
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
bool MatchesQualifiedNameChars(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, without the length limit.
bool MatchesDns1123SubdomainChars(std::string_view s) {
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !IsLowerAlnum(label.front()) || !IsLowerAlnum(label.back())) return false;
    for (char c : label) {
      if (!IsLowerAlnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

void AppendError(std::string& errors, std::string_view msg) {
  if (!errors.empty()) errors += "; ";
  errors += msg;
}

std::string QualifiedNameRegexError(std::string_view what) {
  std::string msg(what);
  msg +=
      " must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '";
  msg += kQualifiedNameFmt;
  msg += "')";
  return msg;
}

std::vector<std::string> QualifiedNameMessagesImpl(std::string_view value) {
  std::vector<std::string> errors;
  const size_t slash = value.find('/');
  std::string_view name = value;
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      return {QualifiedNameRegexError("a qualified name") +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errors.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > kDns1123SubdomainMaxLength) {
        errors.emplace_back("prefix part must be no more than 253 characters");
      }
      if (!MatchesDns1123SubdomainChars(prefix)) {
        errors.emplace_back(
            "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
      }
    }
  }
  if (name.empty()) {
    errors.emplace_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errors.emplace_back("name part must be no more than 63 characters");
  }
  if (!MatchesQualifiedNameChars(name)) errors.emplace_back(QualifiedNameRegexError("name part"));
  return errors;
}

// The same messages joined with "; " (kube's aggregate of one field's errors); empty when valid.
std::string QualifiedNameErrors(std::string_view value) {
  std::string errors;
  for (const std::string& msg : QualifiedNameMessagesImpl(value)) AppendError(errors, msg);
  return errors;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.starts_with(prefix);
}

constexpr std::string_view kDefaultNamespacePrefix = "kubernetes.io/";
constexpr std::string_view kRequestsPrefix = "requests.";
constexpr std::string_view kHugePagesPrefix = "hugepages-";
constexpr std::string_view kRequestsHugePagesPrefix = "requests.hugepages-";
constexpr std::string_view kAttachableVolumesPrefix = "attachable-volumes-";

// pkg/apis/core/helper standardResources plus IsQuotaHugePageResourceName.
bool IsStandardResourceName(std::string_view name) {
  static constexpr std::string_view kStandard[] = {
      "cpu",
      "memory",
      "ephemeral-storage",
      "requests.cpu",
      "requests.memory",
      "requests.ephemeral-storage",
      "limits.cpu",
      "limits.memory",
      "limits.ephemeral-storage",
      "pods",
      "resourcequotas",
      "services",
      "replicationcontrollers",
      "secrets",
      "configmaps",
      "persistentvolumeclaims",
      "storage",
      "requests.storage",
      "services.nodeports",
      "services.loadbalancers",
  };
  return std::find(std::begin(kStandard), std::end(kStandard), name) != std::end(kStandard) ||
         StartsWith(name, kHugePagesPrefix) || StartsWith(name, kRequestsHugePagesPrefix);
}

bool IsStandardContainerResourceName(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
         IsHugePageResourceName(name);
}

Result<void> InvalidResult(std::string msg) {
  return Error::Invalid(std::move(msg));
}

}  // namespace

// ---- label selectors ----

bool MatchesLabels(const LabelSet& match_labels, const LabelSet& labels) {
  for (const auto& [key, value] : match_labels.items()) {
    const Symbol* have = labels.Find(key);
    if (have == nullptr || *have != value) return false;
  }
  return true;
}

bool Matches(const LabelSelectorRequirement& requirement, const LabelSet& labels) {
  const Symbol* value = labels.Find(requirement.key);
  switch (requirement.op) {
    case LabelSelectorOp::kIn:
      return value != nullptr && Contains(requirement.values, *value);
    case LabelSelectorOp::kNotIn:
      return value == nullptr || !Contains(requirement.values, *value);
    case LabelSelectorOp::kExists:
      return value != nullptr;
    case LabelSelectorOp::kDoesNotExist:
      return value == nullptr;
  }
  return false;
}

bool Matches(const LabelSelector& selector, const LabelSet& labels) {
  if (!MatchesLabels(selector.match_labels, labels)) return false;
  return std::all_of(selector.match_expressions.begin(), selector.match_expressions.end(),
                     [&](const LabelSelectorRequirement& r) { return Matches(r, labels); });
}

// ---- node selectors ----

bool Matches(const NodeSelectorRequirement& requirement, const LabelSet& labels,
             const Interner& interner) {
  return IsWellFormed(requirement, interner) && MatchesWellFormed(requirement, labels, interner);
}

bool MatchesNodeSelectorTerm(const NodeSelectorTerm& term, const LabelSet& node_labels,
                             Symbol node_name, const Interner& interner) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const NodeSelectorRequirement& r : term.match_expressions) {
    if (!Matches(r, node_labels, interner)) return false;
  }
  for (const NodeSelectorRequirement& r : term.match_fields) {
    if ((r.op != NodeSelectorOp::kIn && r.op != NodeSelectorOp::kNotIn) || r.values.size() != 1) {
      return false;  // kube cannot parse the term
    }
    if (node_name.empty()) continue;  // kube has no node fields to check
    const Symbol field = interner.Str(r.key) == "metadata.name" ? node_name : Symbol();
    const bool equal = field == r.values[0];
    if (equal != (r.op == NodeSelectorOp::kIn)) return false;
  }
  return true;
}

bool MatchesNodeSelector(const NodeSelector& selector, const LabelSet& node_labels,
                         Symbol node_name, const Interner& interner) {
  return std::any_of(selector.node_selector_terms.begin(), selector.node_selector_terms.end(),
                     [&](const NodeSelectorTerm& t) {
                       return MatchesNodeSelectorTerm(t, node_labels, node_name, interner);
                     });
}

// ---- taints and tolerations ----

bool Tolerates(const Toleration& toleration, const Taint& taint) {
  if (toleration.effect != TaintEffect::kNone && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  switch (toleration.op) {
    case TolerationOp::kEqual:
      return toleration.value == taint.value;
    case TolerationOp::kExists:
      return true;
  }
  return false;
}

bool TolerationsTolerateTaint(std::span<const Toleration> tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return Tolerates(t, taint); });
}

const Taint* FindUntoleratedTaint(std::span<const Taint> taints,
                                  std::span<const Toleration> tolerations, TaintEffectSet filter) {
  for (const Taint& taint : taints) {
    if (filter.Contains(taint.effect) && !TolerationsTolerateTaint(tolerations, taint))
      return &taint;
  }
  return nullptr;
}

// ---- resource names ----

bool IsPrefixedNativeResource(std::string_view name) {
  return name.find(kDefaultNamespacePrefix) != std::string_view::npos;
}

bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos || IsPrefixedNativeResource(name);
}

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || StartsWith(name, kRequestsPrefix)) return false;
  // kube checks IsQualifiedName("requests." + name). `name` has a '/', so the prefix part is
  // "requests." + name's prefix: a valid subdomain iff name's prefix is one (non-empty, so that the
  // label before it does not end in '.'), and at most 253 - 9 characters long.
  const size_t slash = name.find('/');
  if (name.find('/', slash + 1) != std::string_view::npos) return false;
  const std::string_view prefix = name.substr(0, slash);
  const std::string_view part = name.substr(slash + 1);
  return !prefix.empty() && prefix.size() + kRequestsPrefix.size() <= kDns1123SubdomainMaxLength &&
         MatchesDns1123SubdomainChars(prefix) && part.size() <= kQualifiedNameMaxLength &&
         MatchesQualifiedNameChars(part);
}

bool IsHugePageResourceName(std::string_view name) {
  return StartsWith(name, kHugePagesPrefix);
}

bool IsAttachableVolumeResourceName(std::string_view name) {
  return StartsWith(name, kAttachableVolumesPrefix);
}

bool IsScalarResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || IsHugePageResourceName(name) ||
         IsPrefixedNativeResource(name) || IsAttachableVolumeResourceName(name);
}

bool IsOvercommitAllowed(std::string_view name) {
  return IsNativeResource(name) && !IsHugePageResourceName(name);
}

std::vector<std::string> QualifiedNameMessages(std::string_view value) {
  return QualifiedNameMessagesImpl(value);
}

Result<void> ValidateQualifiedName(std::string_view value) {
  std::string errors = QualifiedNameErrors(value);
  if (errors.empty()) return Result<void>::Ok();
  return InvalidResult(std::move(errors));
}

Result<void> ValidateLabelValue(std::string_view value) {
  if (value.empty()) return Result<void>::Ok();
  std::string errors;
  if (value.size() > kQualifiedNameMaxLength) {
    AppendError(errors, "must be no more than 63 characters");
  }
  if (!MatchesQualifiedNameChars(value)) {
    AppendError(
        errors,
        "a valid label must be an empty string or consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
        "or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  if (errors.empty()) return Result<void>::Ok();
  return InvalidResult(std::move(errors));
}

Result<void> ValidateResourceName(std::string_view name) {
  std::string errors = QualifiedNameErrors(name);
  if (!errors.empty()) return InvalidResult(std::move(errors));
  if (name.find('/') == std::string_view::npos && !IsStandardResourceName(name)) {
    return InvalidResult("must be a standard resource type or fully qualified");
  }
  return Result<void>::Ok();
}

Result<void> ValidateContainerResourceName(std::string_view name) {
  // kube appends the container checks to validateResourceName's errors.
  std::string errors = QualifiedNameErrors(name);
  const bool unprefixed = name.find('/') == std::string_view::npos;
  if (errors.empty() && unprefixed && !IsStandardResourceName(name)) {
    errors = "must be a standard resource type or fully qualified";
  }
  if (unprefixed) {
    if (!IsStandardContainerResourceName(name)) {
      AppendError(errors, "must be a standard resource for containers");
    }
  } else if (!IsNativeResource(name) && !IsExtendedResourceName(name)) {
    AppendError(errors, "doesn't follow extended resource name standard");
  }
  if (errors.empty()) return Result<void>::Ok();
  return InvalidResult(std::move(errors));
}

}  // namespace corral::api
