#include "corral/plugins/node_resources/balanced_allocation.h"

#include <cmath>
#include <utility>

#include <absl/container/inlined_vector.h>

#include "corral/plugins/node_resources/dra_extended.h"

namespace corral::plugins {

namespace noderesources {

int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable) {
  absl::InlinedVector<double, 4> fractions;
  double total = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) continue;
    double fraction = static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    if (fraction > 1) fraction = 1;
    total += fraction;
    fractions.push_back(fraction);
  }
  // Two resources (the common cpu + memory case): std = |f1 - f2| / 2. More: sqrt(Σ (f - mean)^2
  // / n).
  double std_dev = 0.0;
  if (fractions.size() == 2) {
    std_dev = std::fabs((fractions[0] - fractions[1]) / 2);
  } else if (fractions.size() > 2) {
    const double mean = total / static_cast<double>(fractions.size());
    double sum = 0;
    for (double f : fractions) sum = sum + (f - mean) * (f - mean);
    std_dev = std::sqrt(sum / static_cast<double>(fractions.size()));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(framework::kMaxNodeScore));
}

int64_t BalancedAllocationScore(const NodeResourceVectors& v) {
  const int64_t with_pod = BalancedResourceScore(v.requested, v.allocatable);
  const int64_t without_pod = BalancedResourceScore(v.allocated, v.allocatable);
  return framework::kMaxNodeScore / 2 + (framework::kMaxNodeScore / 2 + with_pod - without_pod) / 2;
}

}  // namespace noderesources

namespace {

struct BalancedAllocationState final : framework::StateData {
  noderesources::ResourceRequests requests;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<BalancedAllocationState>(*this);
  }
};

}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodeResourcesBalancedAllocation::New(
    const framework::PluginArgs* args, framework::Handle& handle) {
  const NodeResourcesBalancedAllocationArgs defaults;
  const NodeResourcesBalancedAllocationArgs* ba_args = &defaults;
  if (args != nullptr) {
    ba_args = dynamic_cast<const NodeResourcesBalancedAllocationArgs*>(args);
    if (ba_args == nullptr) {
      return Error::Invalid(
          "want args to be of type NodeResourcesBalancedAllocationArgs, got another plugin's args");
    }
  }
  if (Result<void> valid = ba_args->Validate(); !valid.ok()) return valid.error();
  std::unique_ptr<framework::Plugin> plugin =
      std::make_unique<NodeResourcesBalancedAllocation>(*ba_args, handle);
  return plugin;
}

NodeResourcesBalancedAllocation::NodeResourcesBalancedAllocation(
    const NodeResourcesBalancedAllocationArgs& args, framework::Handle& handle)
    : handle_(handle), resources_(noderesources::ClassifyResources(args.resources)) {}

framework::Status NodeResourcesBalancedAllocation::PreScore(
    framework::CycleState& state, size_t slot, const framework::PodInfo& pod,
    std::span<const framework::NodeInfo* const> nodes) {
  (void)nodes;
  auto s = std::make_unique<BalancedAllocationState>();
  s->requests = noderesources::CalculatePodResourceRequests(pod, resources_, /*use_requested=*/true,
                                                            handle_.interner());
  // Scoring best-effort pods would pile them onto one node (kube issue 129138).
  if (noderesources::IsBestEffort(s->requests)) return framework::Status::Skip();
  state.Write(slot, std::move(s));
  return {};
}

framework::Status NodeResourcesBalancedAllocation::Score(const framework::CycleState& state,
                                                         size_t slot, const framework::PodInfo& pod,
                                                         const framework::NodeInfo& node,
                                                         int64_t* score) const {
  *score = 0;
  const auto* s = state.Get<BalancedAllocationState>(slot);
  noderesources::ResourceRequests computed;
  const noderesources::ResourceRequests* requests = nullptr;
  if (s != nullptr) {
    requests = &s->requests;
  } else {
    computed =
        noderesources::CalculatePodResourceRequests(pod, resources_, true, handle_.interner());
    if (noderesources::IsBestEffort(computed)) return {};
    requests = &computed;
  }
  if (resources_.empty()) return framework::Status::Error("resources not found");
  noderesources::NodeResourceVectors v;
  noderesources::CalculateNodeVectors(node, *requests, /*use_requested=*/true, &v);
  if (handle_.features().Enabled(framework::Feature::kDRAExtendedResource)) {
    noderesources::ApplyDraExtendedResources(node, *requests, handle_.SharedDRAManager(),
                                             handle_.interner(), dra_devices_, &v);
  }
  *score = noderesources::BalancedAllocationScore(v);
  return {};
}

framework::Status NodeResourcesBalancedAllocation::Sign(
    const framework::PodInfo& pod, std::vector<framework::SignFragment>* fragments) const {
  if (handle_.features().Enabled(framework::Feature::kDRAExtendedResource) &&
      noderesources::RequestsDraBackedResource(pod.request, handle_.SharedDRAManager())) {
    return framework::Status::Unschedulable(noderesources::kDraExtendedResourceSignRefusal);
  }
  fragments->push_back({std::string(noderesources::kResourcesSignerKey),
                        noderesources::ResourceSignature(pod.request, handle_.interner())});
  return {};
}

}  // namespace corral::plugins
