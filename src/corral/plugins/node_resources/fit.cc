#include "corral/plugins/node_resources/fit.h"

#include <algorithm>
#include <utility>

#include <absl/container/inlined_vector.h>

#include "corral/api/selectors.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/node_resources/dra_extended.h"
#include "corral/plugins/node_resources/least_allocated.h"
#include "corral/plugins/node_resources/most_allocated.h"
#include "corral/plugins/node_resources/requested_to_capacity_ratio.h"

namespace corral::plugins {

namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Resource;
using framework::Status;

// A scalar request Filter checks (non-zero, not ignored), with its reason.
struct ScalarCheck {
  Symbol name;
  int64_t quantity = 0;
  std::string_view reason;
  // DRAExtendedResource: a class backs the resource (or, in isFit, no mapping is known), so a node
  // that does not advertise it leaves it to DynamicResources.
  bool skip_if_not_advertised = false;
};
using ScalarChecks = absl::InlinedVector<ScalarCheck, 2>;
using Reasons = absl::InlinedVector<std::string_view, 4>;

// Per-cycle state. PreFilter and PreScore share the plugin's slot, so one object holds both parts.
struct FitState final : framework::StateData {
  // PreFilter (kube's preFilterState).
  bool has_filter = false;
  const Resource* request = nullptr;  // the PodInfo's; immutable for the cycle
  bool any_request = false;           // kube's "pod requests nothing" early return, negated
  ScalarChecks scalars;
  // PreScore (kube's preScoreState).
  bool has_score = false;
  noderesources::ResourceRequests score_requests;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<FitState>(*this);
  }
};

// kube's okScalar: the resource is among the node's allocatable scalars.
bool Advertises(const Resource& allocatable, Symbol name) {
  for (const auto& [n, v] : allocatable.scalar) {
    if (n == name) return true;
  }
  return false;
}

bool RequestsAnything(const Resource& r) {
  return r.milli_cpu != 0 || r.memory != 0 || r.ephemeral_storage != 0 || !r.scalar.empty();
}

// kube's fitsRequest: appends the reason of every insufficient resource; returns whether any of
// them is unresolvable (requested beyond the node's whole allocatable). `cached` (kube's
// adjustDeltasToAccomodateCacheDiscrepancy): the pod is already counted in the node's requested
// resources with the same request, so what it adds is max(0, request - cached) = 0 of each.
bool FitsRequest(const Resource& req, bool any_request, std::span<const ScalarCheck> scalars,
                 const framework::NodeInfo& node, Reasons* reasons, bool cached = false) {
  const Resource& alloc = node.allocatable();
  const Resource& used = node.requested();
  bool unresolvable = false;
  if (static_cast<int64_t>(node.pods().size()) + 1 > alloc.allowed_pod_number) {
    reasons->push_back(NodeResourcesFit::kTooManyPods);
  }
  if (!any_request) return false;
  auto delta = [cached](int64_t r) { return cached ? 0 : r; };
  if (req.milli_cpu > 0 && delta(req.milli_cpu) > alloc.milli_cpu - used.milli_cpu) {
    reasons->push_back(NodeResourcesFit::kInsufficientCpu);
    unresolvable |= req.milli_cpu > alloc.milli_cpu;
  }
  if (req.memory > 0 && delta(req.memory) > alloc.memory - used.memory) {
    reasons->push_back(NodeResourcesFit::kInsufficientMemory);
    unresolvable |= req.memory > alloc.memory;
  }
  if (req.ephemeral_storage > 0 &&
      delta(req.ephemeral_storage) > alloc.ephemeral_storage - used.ephemeral_storage) {
    reasons->push_back(NodeResourcesFit::kInsufficientEphemeralStorage);
    unresolvable |= req.ephemeral_storage > alloc.ephemeral_storage;
  }
  for (const ScalarCheck& s : scalars) {
    if (s.skip_if_not_advertised && !Advertises(alloc, s.name)) continue;
    const int64_t a = alloc.Scalar(s.name);
    if (delta(s.quantity) > a - used.Scalar(s.name)) {
      reasons->push_back(s.reason);
      unresolvable |= s.quantity > a;
    }
  }
  return unresolvable;
}

// kube's isFit: the pod fits an empty NodeInfo of `node`, ignoring nothing. With
// DRAExtendedResource kube knows no class mapping here, so it leaves every scalar the node does not
// advertise to DynamicResources.
bool FitsEmptyNode(const framework::PodInfo& pod, const api::Node& node, bool dra_extended) {
  const framework::NodeInfo info(&node);
  ScalarChecks scalars;
  for (const auto& [name, q] : pod.request.scalar) {
    if (q != 0) scalars.push_back({name, q, {}, dra_extended});
  }
  Reasons reasons;
  FitsRequest(pod.request, RequestsAnything(pod.request), scalars, info, &reasons);
  return reasons.empty();
}

// kube's haveAnyRequestedResourcesIncreased (without a class mapping, as kube calls it).
bool AnyRequestedResourceIncreased(const Resource& req, const api::Node& old_node,
                                   const api::Node& new_node, bool dra_extended) {
  const Resource old_alloc = Resource::FromList(old_node.allocatable);
  const Resource new_alloc = Resource::FromList(new_node.allocatable);
  if (new_alloc.allowed_pod_number > old_alloc.allowed_pod_number) return true;
  if (!RequestsAnything(req)) return false;
  if ((req.milli_cpu > 0 && new_alloc.milli_cpu > old_alloc.milli_cpu) ||
      (req.memory > 0 && new_alloc.memory > old_alloc.memory) ||
      (req.ephemeral_storage > 0 && new_alloc.ephemeral_storage > old_alloc.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, q] : req.scalar) {
    if (q == 0) continue;
    if (new_alloc.Scalar(name) > old_alloc.Scalar(name)) return true;
    // Not advertised by the node: DynamicResources may satisfy it through DRA.
    if (dra_extended && !Advertises(new_alloc, name)) return true;
  }
  return false;
}

bool HasRestartableInitContainer(const api::Pod& pod) {
  return std::any_of(pod.init_containers.begin(), pod.init_containers.end(),
                     [](const api::Container& c) {
                       return c.restart_policy == api::ContainerRestartPolicy::kAlways;
                     });
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodeResourcesFit::New(const framework::PluginArgs* args,
                                                                 framework::Handle& handle) {
  const NodeResourcesFitArgs defaults;
  const NodeResourcesFitArgs* fit_args = &defaults;
  if (args != nullptr) {
    fit_args = dynamic_cast<const NodeResourcesFitArgs*>(args);
    if (fit_args == nullptr) {
      return Error::Invalid(
          "want args to be of type NodeResourcesFitArgs, got another plugin's args");
    }
  }
  if (Result<void> valid = fit_args->Validate(); !valid.ok()) return valid.error();
  if (!fit_args->scoring_strategy.has_value())
    return Error::Invalid("scoring strategy not specified");
  if (fit_args->scoring_strategy->type == kRequestedToCapacityRatio &&
      !fit_args->scoring_strategy->requested_to_capacity_ratio.has_value()) {
    // kube dereferences the missing parameter and panics; Corral reports it.
    return Error::Invalid(
        "scoringStrategy.requestedToCapacityRatio: Required value: the RequestedToCapacityRatio "
        "strategy "
        "needs a shape");
  }
  std::unique_ptr<framework::Plugin> plugin = std::make_unique<NodeResourcesFit>(*fit_args, handle);
  return plugin;
}

NodeResourcesFit::NodeResourcesFit(const NodeResourcesFitArgs& args, framework::Handle& handle)
    : handle_(handle),
      ignored_resources_(args.ignored_resources.begin(), args.ignored_resources.end()),
      ignored_resource_groups_(args.ignored_resource_groups.begin(),
                               args.ignored_resource_groups.end()),
      enable_sidecar_containers_(handle.features().Enabled(framework::Feature::kSidecarContainers)),
      enable_dra_extended_resource_(
          handle.features().Enabled(framework::Feature::kDRAExtendedResource)),
      enable_resize_preemption_(handle.features().Enabled(
          framework::Feature::kInPlacePodVerticalScalingSchedulerPreemption)) {
  CORRAL_CHECK_MSG(args.scoring_strategy.has_value(), "NodeResourcesFit needs a scoring strategy");
  const ScoringStrategy& strategy = *args.scoring_strategy;
  resources_ = noderesources::ClassifyResources(strategy.resources);
  if (strategy.type == kMostAllocated) {
    strategy_ = Strategy::kMost;
  } else if (strategy.type == kRequestedToCapacityRatio) {
    CORRAL_CHECK_MSG(strategy.requested_to_capacity_ratio.has_value(),
                     "RequestedToCapacityRatio needs a shape");
    strategy_ = Strategy::kRatio;
    shape_ = noderesources::ScaleShape(strategy.requested_to_capacity_ratio->shape);
  } else {
    strategy_ = Strategy::kLeast;
  }
}

const NodeResourcesFit::ScalarInfo& NodeResourcesFit::ScalarInfoFor(Symbol name) {
  auto [it, inserted] = scalar_info_.try_emplace(name);
  if (inserted) {
    const std::string_view str = handle_.interner().Str(name);
    it->second.reason = "Insufficient " + std::string(str);
    if (api::IsExtendedResourceName(str)) {
      // The resource group is the part before '/' (extended resource names always have one).
      const std::string_view group = str.substr(0, str.find('/'));
      it->second.ignored = ignored_resources_.contains(std::string(str)) ||
                           (!ignored_resource_groups_.empty() &&
                            ignored_resource_groups_.contains(std::string(group)));
    }
  }
  return it->second;
}

Status NodeResourcesFit::PreFilter(framework::CycleState& state, size_t slot,
                                   const framework::PodInfo& pod,
                                   const framework::Snapshot& snapshot,
                                   framework::PreFilterResult* result) {
  (void)snapshot;
  (void)result;
  if (!enable_sidecar_containers_ && HasRestartableInitContainer(*pod.pod)) {
    return Status::Unresolvable(kSidecarContainersDisabled);
  }
  auto s = std::make_unique<FitState>();
  s->has_filter = true;
  s->request = &pod.request;
  s->any_request = RequestsAnything(pod.request);
  const framework::DraManager* dra =
      enable_dra_extended_resource_ ? handle_.SharedDRAManager() : nullptr;
  for (const auto& [name, q] : pod.request.scalar) {
    if (q == 0) continue;
    const ScalarInfo& info = ScalarInfoFor(name);
    if (info.ignored) continue;
    const bool backed = dra != nullptr && dra->DeviceClassForResource(name) != nullptr;
    s->scalars.push_back({name, q, info.reason, backed});
  }
  // Reasons in resource-name order, so that a status reads the same on every run.
  const Interner& in = handle_.interner();
  std::sort(s->scalars.begin(), s->scalars.end(), [&](const ScalarCheck& a, const ScalarCheck& b) {
    return in.Str(a.name) < in.Str(b.name);
  });
  state.Write(slot, std::move(s));
  return {};
}

Status NodeResourcesFit::Filter(const framework::CycleState& state, size_t slot,
                                const framework::PodInfo& pod,
                                const framework::NodeInfo& node) const {
  const auto* s = state.Get<FitState>(slot);
  if (s == nullptr || !s->has_filter) {
    return Status::Error(R"(error reading "PreFilterNodeResourcesFit" from cycleState: not found)");
  }
  // A bound pod is filtered only as a deferred resize, on its own node, where the cache holds it.
  const bool cached = enable_resize_preemption_ && pod.pod->node_name == node.name();
  Reasons reasons;
  const bool unresolvable =
      FitsRequest(*s->request, s->any_request, s->scalars, node, &reasons, cached);
  if (reasons.empty()) return {};
  Status status(unresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable,
                reasons[0]);
  for (size_t i = 1; i < reasons.size(); ++i) status.AddReason(reasons[i]);
  return status;
}

Status NodeResourcesFit::PreScore(framework::CycleState& state, size_t slot,
                                  const framework::PodInfo& pod,
                                  std::span<const framework::NodeInfo* const> nodes) {
  (void)nodes;
  auto* s = state.Get<FitState>(slot);
  if (s == nullptr) {
    auto fresh = std::make_unique<FitState>();
    s = fresh.get();
    state.Write(slot, std::move(fresh));
  }
  s->score_requests = noderesources::CalculatePodResourceRequests(
      pod, resources_, /*use_requested=*/false, handle_.interner());
  s->has_score = true;
  return {};
}

Status NodeResourcesFit::Score(const framework::CycleState& state, size_t slot,
                               const framework::PodInfo& pod, const framework::NodeInfo& node,
                               int64_t* score) const {
  *score = 0;
  if (resources_.empty()) return Status::Error("resources not found");
  const auto* s = state.Get<FitState>(slot);
  noderesources::ResourceRequests computed;
  const noderesources::ResourceRequests* requests = nullptr;
  if (s != nullptr && s->has_score) {
    requests = &s->score_requests;
  } else {
    // As kube, score without PreScore by computing the requests here.
    computed =
        noderesources::CalculatePodResourceRequests(pod, resources_, false, handle_.interner());
    requests = &computed;
  }
  noderesources::NodeResourceVectors v;
  noderesources::CalculateNodeVectors(node, *requests, /*use_requested=*/false, &v);
  if (enable_dra_extended_resource_) {
    noderesources::ApplyDraExtendedResources(node, *requests, handle_.SharedDRAManager(),
                                             handle_.interner(), dra_devices_, &v);
  }
  switch (strategy_) {
    case Strategy::kLeast:
      *score = noderesources::LeastAllocatedScore(v, *requests);
      break;
    case Strategy::kMost:
      *score = noderesources::MostAllocatedScore(v, *requests);
      break;
    case Strategy::kRatio:
      *score = noderesources::RequestedToCapacityRatioScore(v, *requests, shape_);
      break;
  }
  return {};
}

std::vector<framework::ClusterEvent> NodeResourcesFit::EventsToRegister() const {
  using framework::ActionType;
  using framework::EventResource;
  return {{EventResource::kPod, Actions(ActionType::kDelete, ActionType::kUpdate)},
          {EventResource::kNode, Actions(ActionType::kAdd, ActionType::kUpdate)}};
}

QueueingHint NodeResourcesFit::Hint(const framework::PodInfo& pod,
                                    const framework::ClusterEvent& event,
                                    const void* subject) const {
  using framework::ActionType;
  using framework::EventResource;
  if (subject == nullptr) return QueueingHint::kQueue;
  switch (event.resource) {
    case EventResource::kPod:
    case EventResource::kAssignedPod:
    case EventResource::kUnscheduledPod: {
      const api::Pod& other = *PodSubject(subject);
      if (event.action == ActionType::kDelete) return PodDeletedHint(pod, other);
      // An in-place resize (kube registers only its scale-downs). Conservatively: the pod itself,
      // or a bound pod, may have freed something.
      if (SamePod(other, *pod.pod) || SubjectIsAssigned(event, other)) return QueueingHint::kQueue;
      return QueueingHint::kQueueSkip;
    }
    case EventResource::kNode:
      if (event.action == ActionType::kDelete) return QueueingHint::kQueueSkip;
      return NodeChangeHint(pod, nullptr, *NodeSubject(subject));
    default:
      return QueueingHint::kQueue;
  }
}

QueueingHint NodeResourcesFit::NodeChangeHint(const framework::PodInfo& pod,
                                              const api::Node* old_node,
                                              const api::Node& new_node) const {
  // The pod does not fit the node anyway.
  if (!FitsEmptyNode(pod, new_node, enable_dra_extended_resource_)) return QueueingHint::kQueueSkip;
  if (old_node == nullptr) return QueueingHint::kQueue;
  // It fits, but if nothing it needs grew, the update cannot be what makes it schedulable.
  if (!AnyRequestedResourceIncreased(pod.request, *old_node, new_node,
                                     enable_dra_extended_resource_))
    return QueueingHint::kQueueSkip;
  return QueueingHint::kQueue;
}

QueueingHint NodeResourcesFit::PodDeletedHint(const framework::PodInfo& pod,
                                              const api::Pod& deleted) const {
  (void)pod;
  if (deleted.node_name.empty() && deleted.nominated_node_name.empty())
    return QueueingHint::kQueueSkip;
  return QueueingHint::kQueue;
}

Status NodeResourcesFit::Sign(const framework::PodInfo& pod,
                              std::vector<framework::SignFragment>* fragments) const {
  if (enable_dra_extended_resource_ &&
      noderesources::RequestsDraBackedResource(pod.request, handle_.SharedDRAManager())) {
    return Status::Unschedulable(noderesources::kDraExtendedResourceSignRefusal);
  }
  fragments->push_back({std::string(noderesources::kResourcesSignerKey),
                        noderesources::ResourceSignature(pod.request, handle_.interner())});
  return {};
}

}  // namespace corral::plugins
