// PodTopologySpread: construction, args validation, constraint building (kube's common.go and
// helper/spread.go), signing and queueing hints (plugin.go).

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "corral/api/selectors.h"
#include "corral/api/well_known.h"
#include "corral/framework/feature_gates.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"
#include "corral/plugins/pod_topology_spread/internal.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"

namespace corral::plugins {

using pod_topology_spread::Constraint;

namespace pod_topology_spread {

int64_t CountPodsMatching(std::span<const framework::PodInfo* const> pods, const Constraint& c,
                          Symbol ns) {
  if (!c.selector.has_value() || c.SelectorEmpty()) return 0;
  int64_t count = 0;
  for (const framework::PodInfo* p : pods) {
    const api::Pod& pod = *p->pod;
    if (pod.IsTerminating() || pod.meta.namespace_ != ns) continue;  // kube #87621
    if (api::Matches(*c.selector, pod.meta.labels)) ++count;
  }
  return count;
}

void HostCounts::Refresh(const framework::NodeInfo& node, const Constraint& c) {
  Entry& e = by_node_[node.name().id()];
  if (e.generation == node.generation() && e.generation != 0) return;
  e.generation = node.generation();
  e.count = CountPodsMatching(node.pods(), c, ns_);
}

int64_t HostCounts::Count(const framework::NodeInfo& node, const Constraint& c) const {
  auto it = by_node_.find(node.name().id());
  if (it != by_node_.end() && it->second.generation == node.generation() &&
      it->second.generation != 0) {
    return it->second.count;
  }
  return CountPodsMatching(node.pods(), c, ns_);
}

bool NodeHasAllKeys(const api::LabelSet& labels, std::span<const Constraint> constraints) {
  for (const auto& c : constraints) {
    if (!labels.Has(c.topology_key)) return false;
  }
  return true;
}

bool MatchesRequiredNodeAffinity(const api::Pod& pod, const api::Node& node,
                                 const Interner& interner) {
  if (!api::MatchesLabels(pod.node_selector, node.meta.labels)) return false;
  if (pod.affinity.has_value() && pod.affinity->node_affinity.has_value() &&
      pod.affinity->node_affinity->required.has_value()) {
    return api::MatchesNodeSelector(*pod.affinity->node_affinity->required, node.meta.labels,
                                    node.meta.name, interner);
  }
  return true;
}

bool ToleratesNodeTaints(const api::Pod& pod, const api::Node& node) {
  return api::FindUntoleratedTaint(node.taints, pod.tolerations, api::kDoNotScheduleTaints) ==
         nullptr;
}

void CriticalPaths::Update(Symbol value, int64_t num) {
  // kube compares topology values as strings; the empty placeholder ("" in kube) compares equal to
  // a real empty value, exactly as in kube.
  int i = -1;
  if (value == paths[0].value) {
    i = 0;
  } else if (value == paths[1].value) {
    i = 1;
  }
  if (i >= 0) {
    paths[i].match_num = num;
    if (paths[0].match_num > paths[1].match_num) std::swap(paths[0], paths[1]);
  } else if (num < paths[0].match_num) {
    paths[1] = paths[0];
    paths[0] = {value, num};
  } else if (num < paths[1].match_num) {
    paths[1] = {value, num};
  }
}

bool CountSignature::operator==(const CountSignature& o) const {
  if (mode != o.mode || inclusion_gate != o.inclusion_gate || ns != o.ns ||
      constraints.size() != o.constraints.size() || uses_affinity != o.uses_affinity ||
      uses_taints != o.uses_taints) {
    return false;
  }
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& a = constraints[i];
    const Constraint& b = o.constraints[i];
    if (a.topology_key != b.topology_key || a.honor_node_affinity != b.honor_node_affinity ||
        a.honor_node_taints != b.honor_node_taints || !incremental::Equal(a.selector, b.selector)) {
      return false;
    }
  }
  if (uses_affinity && (!(node_selector == o.node_selector) ||
                        !incremental::Equal(required_affinity, o.required_affinity))) {
    return false;
  }
  return !uses_taints || incremental::Equal(tolerations, o.tolerations);
}

CountSignature MakeCountSignature(CountSignature::Mode mode, const api::Pod& pod,
                                  const std::vector<Constraint>& constraints, bool inclusion_gate) {
  CountSignature sig;
  sig.mode = mode;
  sig.inclusion_gate = inclusion_gate;
  sig.ns = pod.meta.namespace_;
  sig.constraints = constraints;
  // The derivation consults the pod's node affinity without the gate (every node) or for
  // constraints honoring it, and its tolerations for constraints honoring taints.
  sig.uses_affinity = !inclusion_gate;
  for (const auto& c : constraints) {
    sig.uses_affinity |= c.honor_node_affinity;
    sig.uses_taints |= inclusion_gate && c.honor_node_taints;
  }
  if (sig.uses_affinity) {
    sig.node_selector = pod.node_selector;
    if (pod.affinity.has_value() && pod.affinity->node_affinity.has_value()) {
      sig.required_affinity = pod.affinity->node_affinity->required;
    }
  }
  if (sig.uses_taints) sig.tolerations = pod.tolerations;
  return sig;
}

}  // namespace pod_topology_spread

namespace {

// ---- args validation (kube's validation_pluginargs.go, with apimachinery's field.Error wording)

std::string FieldPath(std::string_view base, std::string_view child) {
  if (base.empty()) return std::string(child);
  std::string p(base);
  p += '.';
  p += child;
  return p;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  out += '"';
  return out;
}

std::string_view WhenName(api::WhenUnsatisfiable w) {
  return w == api::WhenUnsatisfiable::kDoNotSchedule ? "DoNotSchedule" : "ScheduleAnyway";
}

// apimachinery's aggregate: one error as is; several, de-duplicated, as "[e1, e2]".
Result<void> Aggregate(const std::vector<std::string>& errs) {
  if (errs.empty()) return {};
  if (errs.size() == 1) return Error::Invalid(errs[0]);
  std::vector<std::string> seen;
  std::string out;
  for (const auto& e : errs) {
    if (std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
    if (!seen.empty()) out += ", ";
    seen.push_back(e);
    out += e;
  }
  if (seen.size() == 1) return Error::Invalid(out);
  return Error::Invalid("[" + out + "]");
}

}  // namespace

Result<void> ValidatePodTopologySpreadArgs(const PodTopologySpreadArgs& args,
                                           const Interner& interner, std::string_view path) {
  std::vector<std::string> errs;
  const std::string defaulting_path = FieldPath(path, "defaultingType");
  if (args.defaulting_type != PodTopologySpreadArgs::kSystemDefaulting &&
      args.defaulting_type != PodTopologySpreadArgs::kListDefaulting) {
    errs.push_back(defaulting_path + ": Unsupported value: " + Quote(args.defaulting_type) +
                   ": supported values: \"System\", \"List\"");
  } else if (args.defaulting_type == PodTopologySpreadArgs::kSystemDefaulting &&
             !args.default_constraints.empty()) {
    errs.push_back(defaulting_path + ": Invalid value: " + Quote(args.defaulting_type) +
                   ": when .defaultConstraints are not empty");
  }
  const std::string constraints_path = FieldPath(path, "defaultConstraints");
  for (size_t i = 0; i < args.default_constraints.size(); ++i) {
    const api::TopologySpreadConstraint& c = args.default_constraints[i];
    const std::string p = constraints_path + "[" + std::to_string(i) + "]";
    if (c.max_skew <= 0) {
      errs.push_back(p + ".maxSkew: Invalid value: " + std::to_string(c.max_skew) +
                     ": not in valid range (0, inf)");
    }
    const std::string_view key = interner.Str(c.topology_key);
    if (key.empty()) {
      errs.push_back(p + ".topologyKey: Required value: can not be empty");
    } else {
      for (const std::string& msg : api::QualifiedNameMessages(key))
        errs.push_back(p + ".topologyKey: Invalid value: " + Quote(key) + ": " + msg);
    }
    // whenUnsatisfiable is an enum here: the decoder rejects unknown values ("Unsupported value").
    if (c.label_selector.has_value()) {
      errs.push_back(
          p +
          ".labelSelector: Forbidden: constraint must not define a selector, as they deduced "
          "for each pod");
    }
    for (size_t j = 0; j < i; ++j) {
      const auto& other = args.default_constraints[j];
      if (other.topology_key == c.topology_key &&
          other.when_unsatisfiable == c.when_unsatisfiable) {
        errs.push_back(p + ": Duplicate value: " +
                       Quote("{" + std::string(key) + ", " +
                             std::string(WhenName(c.when_unsatisfiable)) + "}"));
        break;
      }
    }
  }
  return Aggregate(errs);
}

// ---- plugin -------------------------------------------------------------------------------------

namespace {

// kube's systemDefaultConstraints.
std::vector<api::TopologySpreadConstraint> SystemDefaultConstraints() {
  api::TopologySpreadConstraint hostname;
  hostname.topology_key = api::wk::kHostnameLabel;
  hostname.when_unsatisfiable = api::WhenUnsatisfiable::kScheduleAnyway;
  hostname.max_skew = 3;
  api::TopologySpreadConstraint zone;
  zone.topology_key = api::wk::kZoneLabel;
  zone.when_unsatisfiable = api::WhenUnsatisfiable::kScheduleAnyway;
  zone.max_skew = 5;
  return {hostname, zone};
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> PodTopologySpread::New(const framework::PluginArgs* args,
                                                                  framework::Handle& handle) {
  PodTopologySpreadArgs defaults;
  const PodTopologySpreadArgs* typed = &defaults;
  if (args != nullptr) {
    typed = dynamic_cast<const PodTopologySpreadArgs*>(args);
    if (typed == nullptr) return Error::Invalid("want args to be of type PodTopologySpreadArgs");
  }
  if (auto ok = ValidatePodTopologySpreadArgs(*typed, handle.interner()); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<PodTopologySpread>(*typed, handle));
}

PodTopologySpread::PodTopologySpread(const PodTopologySpreadArgs& args, framework::Handle& handle)
    : handle_(handle),
      default_constraints_(args.default_constraints),
      sign_when_defaults_select_nothing_(
          args.sign_when_defaults_select_nothing ||
          handle.features().Enabled(framework::Feature::kCorralBatchingExtensions)),
      enable_node_inclusion_policy_(
          handle.features().Enabled(framework::Feature::kNodeInclusionPolicyInPodTopologySpread)),
      enable_match_label_keys_(
          handle.features().Enabled(framework::Feature::kMatchLabelKeysInPodTopologySpread)),
      caches_(std::make_unique<Caches>()) {
  if (args.defaulting_type == PodTopologySpreadArgs::kSystemDefaulting) {
    default_constraints_ = SystemDefaultConstraints();
    system_defaulted_ = true;
  }
}

PodTopologySpread::~PodTopologySpread() = default;

namespace {

// kube's filterTopologySpreadConstraints for one constraint (already known to have the
// wanted action).
Constraint ParseConstraint(const api::TopologySpreadConstraint& c, const api::LabelSet& pod_labels,
                           bool match_label_keys, bool node_inclusion_policy) {
  Constraint out;
  out.max_skew = c.max_skew;
  out.topology_key = c.topology_key;
  out.selector = c.label_selector;
  if (match_label_keys && !c.match_label_keys.empty() && out.selector.has_value()) {
    // kube's mergeLabelSetWithSelector: the pod's values for the keys, ANDed with the selector (a
    // nil selector stays Nothing). Merged as `key In (value)`, which matches exactly
    // like `key=value`.
    for (Symbol key : c.match_label_keys) {
      if (const Symbol* value = pod_labels.Find(key)) {
        out.selector->match_expressions.push_back({key, api::LabelSelectorOp::kIn, {*value}});
      }
    }
  }
  out.min_domains = c.min_domains.value_or(1);
  if (node_inclusion_policy) {
    if (c.node_affinity_policy.has_value()) {
      out.honor_node_affinity = *c.node_affinity_policy == api::NodeInclusionPolicy::kHonor;
    }
    if (c.node_taints_policy.has_value()) {
      out.honor_node_taints = *c.node_taints_policy == api::NodeInclusionPolicy::kHonor;
    }
  }
  return out;
}

// metav1.ParseGroupVersion + WithKind compared with kube's rcKind / rsKind / ssKind.
struct GroupVersion {
  std::string_view group;
  std::string_view version;
  bool ok = true;
};
GroupVersion ParseGroupVersion(std::string_view s) {
  if (s.empty() || s == "/") return {};
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return {"", s, true};
  if (s.find('/', slash + 1) != std::string_view::npos) return {"", "", false};
  return {s.substr(0, slash), s.substr(slash + 1), true};
}

}  // namespace

api::LabelSelector PodTopologySpread::DefaultSelector(const api::Pod& pod) const {
  const Interner& in = handle_.interner();
  auto owners = handle_.SelectorOwners(pod.meta.namespace_);
  api::LabelSelector sel;
  // Services selecting the pod: their selectors merged (they all match the pod, so no conflicts).
  for (const api::SelectorOwner* o : owners) {
    if (o->kind != api::SelectorOwnerKind::kService || !o->selector.has_value()) continue;
    if (!api::Matches(*o->selector, pod.meta.labels)) continue;
    for (const auto& [k, v] : o->selector->match_labels.items()) sel.match_labels.Set(k, v);
  }
  // The controller owner reference, if it names a ReplicationController, ReplicaSet or StatefulSet.
  const api::OwnerReference* controller = nullptr;
  for (const auto& ref : pod.meta.owner_references) {
    if (ref.controller) {
      controller = &ref;
      break;
    }
  }
  if (controller == nullptr) return sel;
  const GroupVersion gv = ParseGroupVersion(in.Str(controller->api_version));
  if (!gv.ok || gv.version != "v1") return sel;
  const std::string_view kind = in.Str(controller->kind);
  api::SelectorOwnerKind want;
  if (gv.group.empty() && kind == "ReplicationController") {
    want = api::SelectorOwnerKind::kReplicationController;
  } else if (gv.group == "apps" && kind == "ReplicaSet") {
    want = api::SelectorOwnerKind::kReplicaSet;
  } else if (gv.group == "apps" && kind == "StatefulSet") {
    want = api::SelectorOwnerKind::kStatefulSet;
  } else {
    return sel;  // not owned by a supported controller
  }
  for (const api::SelectorOwner* o : owners) {
    if (o->kind != want || o->meta.name != controller->name) continue;
    if (!o->selector.has_value()) break;  // nil selector: Nothing, no requirements to add
    if (want == api::SelectorOwnerKind::kReplicationController) {
      for (const auto& [k, v] : o->selector->match_labels.items()) sel.match_labels.Set(k, v);
    } else {
      // selector.Add(requirements...): ANDed; matchLabels become `key = value` requirements.
      for (const auto& [k, v] : o->selector->match_labels.items()) {
        sel.match_expressions.push_back({k, api::LabelSelectorOp::kIn, {v}});
      }
      for (const auto& r : o->selector->match_expressions) sel.match_expressions.push_back(r);
    }
    break;
  }
  return sel;
}

std::vector<Constraint> PodTopologySpread::GetConstraints(const framework::PodInfo& pod,
                                                          api::WhenUnsatisfiable when) const {
  const api::Pod& p = *pod.pod;
  std::vector<Constraint> out;
  if (!p.topology_spread_constraints.empty()) {
    for (const auto& c : p.topology_spread_constraints) {
      if (c.when_unsatisfiable != when) continue;
      out.push_back(ParseConstraint(c, p.meta.labels, enable_match_label_keys_,
                                    enable_node_inclusion_policy_));
    }
    return out;
  }
  // kube's buildDefaultConstraints.
  for (const auto& c : default_constraints_) {
    if (c.when_unsatisfiable != when) continue;
    out.push_back(
        ParseConstraint(c, p.meta.labels, enable_match_label_keys_, enable_node_inclusion_policy_));
  }
  if (out.empty()) return out;
  api::LabelSelector sel = DefaultSelector(p);
  if (sel.match_labels.empty() && sel.match_expressions.empty()) return {};
  for (auto& c : out) c.selector = sel;
  return out;
}

// ---- signing ------------------------------------------------------------------------------------

framework::Status PodTopologySpread::Sign(const framework::PodInfo& pod,
                                          std::vector<framework::SignFragment>* fragments) const {
  if (!pod.pod->topology_spread_constraints.empty()) {
    // kube: unsignable. Corral (CorralBatchingRescoreHook): explicit constraints that are all
    // ScheduleAnyway only score, and the Rescore hook keeps the batch's scores exact.
    bool schedule_anyway =
        handle_.features().Enabled(framework::Feature::kCorralBatchingRescoreHook);
    for (const auto& c : pod.pod->topology_spread_constraints) {
      schedule_anyway &= c.when_unsatisfiable == api::WhenUnsatisfiable::kScheduleAnyway;
    }
    if (!schedule_anyway) {
      return framework::Status::Unschedulable("pods with topology constraints are not signable");
    }
    // Everything PreScore/Score read of the pod: its namespace, the resolved constraints (selectors
    // with matchLabelKeys merged, policies) and, for the inclusion policies, its node selector,
    // node affinity and tolerations.
    const api::Pod& p = *pod.pod;
    const Interner& in = handle_.interner();
    std::string v = "ns=" + std::to_string(p.meta.namespace_.id()) + ";";
    for (const Constraint& c : GetConstraints(pod, api::WhenUnsatisfiable::kScheduleAnyway)) {
      v += std::to_string(c.max_skew) + "@" + std::to_string(c.topology_key.id()) + ":" +
           std::to_string(c.min_domains) + (c.honor_node_affinity ? "A" : "a") +
           (c.honor_node_taints ? "T" : "t");
      signers::AppendSelectorIds(v, c.selector);
    }
    v += signers::NodeSelector(p, in);
    v += signers::NodeAffinity(p, in);
    v += signers::Tolerations(p, in);
    fragments->push_back({std::string(kScheduleAnywaySignerKey), std::move(v)});
    return {};
  }
  if (!default_constraints_.empty()) {
    if (!sign_when_defaults_select_nothing_) {
      return framework::Status::Unschedulable(
          "pods with default topology constraints are not signable");
    }
    api::LabelSelector sel = DefaultSelector(*pod.pod);
    if (!sel.match_labels.empty() || !sel.match_expressions.empty()) {
      return framework::Status::Unschedulable(
          "pods with default topology constraints are not signable");
    }
  }
  return {};
}

// ---- queueing -----------------------------------------------------------------------------------

std::vector<framework::ClusterEvent> PodTopologySpread::EventsToRegister() const {
  return {{framework::EventResource::kPod, framework::ActionType::kAll},
          {framework::EventResource::kNode, framework::ActionType::kAll}};
}

framework::QueueingHint PodTopologySpread::Hint(const framework::PodInfo& pod,
                                                const framework::ClusterEvent& event,
                                                const void* subject) const {
  using framework::QueueingHint;
  if (subject == nullptr) return QueueingHint::kQueue;
  // kube's getConstraints: the DoNotSchedule ones (explicit or defaulted).
  const std::vector<Constraint> constraints =
      GetConstraints(pod, api::WhenUnsatisfiable::kDoNotSchedule);
  if (event.resource == framework::EventResource::kNode) {
    const api::Node* node = NodeSubject(subject);
    if (event.action == framework::ActionType::kAdd ||
        event.action == framework::ActionType::kDelete) {
      return pod_topology_spread::NodeHasAllKeys(node->meta.labels, constraints)
                 ? QueueingHint::kQueue
                 : QueueingHint::kQueueSkip;
    }
    return QueueingHint::kQueue;  // label/taint update: no old node to compare with
  }
  if (event.resource != framework::EventResource::kPod &&
      event.resource != framework::EventResource::kAssignedPod &&
      event.resource != framework::EventResource::kUnscheduledPod) {
    return QueueingHint::kQueue;
  }
  const api::Pod* other = PodSubject(subject);
  // kube's involvedInTopologySpreading: the pod itself, or an assigned pod in its namespace.
  const bool self = SamePod(*other, *pod.pod);
  if (!self &&
      !(SubjectIsAssigned(event, *other) && other->meta.namespace_ == pod.pod->meta.namespace_)) {
    return QueueingHint::kQueueSkip;
  }
  if (event.action == framework::ActionType::kAdd ||
      event.action == framework::ActionType::kDelete) {
    for (const auto& c : constraints) {
      if (c.Matches(other->meta.labels)) return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  return QueueingHint::kQueue;  // an update may change labels or tolerations relevant to the
                                // constraints
}

}  // namespace corral::plugins
