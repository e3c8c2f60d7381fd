#pragma once
// DynamicResources (DRA), accepted by name. Corral does not model ResourceClaims, DeviceClasses or
// ResourceSlices, so a pod that references ResourceClaims is reported instead of being scheduled as
// if it had none: UnschedulableAndUnresolvable at PreFilter with kReason. Every other pod is
// skipped (PreFilter/PreScore Skip), as kube does for pods without claims. Pods with claims are
// unsignable, as in kube (KEP-5598).

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class DynamicResources final : public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::EnqueueExtensions,
                               public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kDynamicResources;
  static constexpr std::string_view kReason =
      "pod has ResourceClaims: dynamic resource allocation is not modelled by Corral";

  // Takes no args (kube's DynamicResourcesArgs filter timeout has nothing to act on here).
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);

  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod, Symbol node) override;
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;
  // No modelled event can allocate a claim.
  std::vector<framework::ClusterEvent> EventsToRegister() const override { return {}; }
  // kube: a pod with ResourceClaims is unsignable.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;
};
static_assert(framework::kImplements<DynamicResources, framework::PreFilterPlugin,
                                     framework::FilterPlugin, framework::PreScorePlugin,
                                     framework::ReservePlugin, framework::PreBindPlugin,
                                     framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
