#pragma once
// NodeResourcesBalancedAllocation (kube's noderesources/balanced_allocation.go): favours nodes
// whose resource usage becomes more balanced by placing the pod.
//
// Per node, over the configured resources the node offers (scalars only when the pod requests
// them), with actual requests (not the non-zero defaults):
//   f_r = min(requested_r / allocatable_r, 1)
//   std = |f_1 - f_2| / 2 for two resources, population standard deviation for more, else 0
//   balance = int64((1 - std) * 100)
//   score = 50 + (50 + balance(with the pod) - balance(without it)) / 2
// (kube v1.36+, PR 135573; before, the score was balance(with the pod) alone). Best-effort pods (no
// request of any configured resource) are skipped in PreScore (kube issue 129138).

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/dynamic_resources/extended_resource.h"
#include "corral/plugins/names.h"
#include "corral/plugins/node_resources/args.h"
#include "corral/plugins/node_resources/resource_allocation.h"

namespace corral::plugins {

namespace noderesources {
// int64((1 - std) * 100) of min(requested/allocatable, 1) over resources with allocatable > 0.
int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable);
// 50 + (50 + BalancedResourceScore(with the pod) - BalancedResourceScore(without it)) / 2.
int64_t BalancedAllocationScore(const NodeResourceVectors& v);
}  // namespace noderesources

class NodeResourcesBalancedAllocation final : public framework::PreScorePlugin,
                                              public framework::ScorePlugin,
                                              public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodeResourcesBalancedAllocation;

  // `args` must be null (defaults) or a NodeResourcesBalancedAllocationArgs; it is validated.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  // REQUIRES: `args` passed Validate(). Prefer New().
  NodeResourcesBalancedAllocation(const NodeResourcesBalancedAllocationArgs& args,
                                  framework::Handle& handle);

  std::string_view Name() const override { return kName; }

  // Skip for best-effort pods; otherwise records the pod's request of each configured resource.
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  // PreScore reads only the pod's requests, which placing a pod does not change.
  const framework::PreScoreExtensions* PreScoreExtensions() const override {
    return framework::PodOnlyPreScoreExtensions();
  }
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;

  // {kResourcesSignerKey: the pod's request}, as NodeResourcesFit (kube signs with the
  // same function).
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  framework::Handle& handle_;
  std::vector<noderesources::ScoredResource> resources_;
  mutable dra::ClassDeviceCounter dra_devices_;  // DRA-backed extended resources' devices per node
};
static_assert(framework::kImplements<NodeResourcesBalancedAllocation, framework::PreScorePlugin,
                                     framework::ScorePlugin, framework::SignPlugin>);

}  // namespace corral::plugins
