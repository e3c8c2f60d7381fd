#pragma once
// DynamicResources (DRA with structured parameters), as kube v1.37's plugin
// (pkg/scheduler/framework/plugins/dynamicresources) behaves for ResourceClaims:
//   - PreEnqueue: every claim of the pod must exist (a template claim needs its generated claim,
//     made by the loader as kube's resourceclaim controller would; see
//     loader/internal/decode_resource.h), must not be being deleted, and a generated claim must be
//     owned by the pod. Otherwise UnschedulableAndUnresolvable with kube's message.
//   - PreFilter: Skip for a pod without claims. "resourceclaim in use" when an allocated claim can
//     take no more consumers; "resource claim ns/name is in the process of being allocated" while
//     another pod's allocation of it is in flight; "request r: device class c does not exist".
//     Claims to allocate get an Allocator (allocator.h) over the slices and allocated devices.
//   - Filter: allocated claims must be available on the node (their allocation's node selector);
//     unallocated ones must be allocatable together on the node ("cannot allocate all claims"),
//     and the results are kept per node for Reserve. A CEL run-time error is an Error status.
//   - PostFilter: an allocated claim that was unavailable on some node and that no other pod uses
//     is deallocated ("deallocation of ResourceClaim completed"), so the next attempt can
//     allocate it elsewhere; otherwise "still not schedulable". Both are Unschedulable.
//   - Reserve: the node's allocations become in flight (their devices are taken from every other
//     pod); Unreserve drops them and removes the pod from reservedFor.
//   - PreBind: writes each allocation and adds the pod to reservedFor; with device binding
//     conditions (DRADeviceBindingConditions) it sets the allocation's timestamp and holds the pod
//     until the conditions are met, fail or time out (binding_conditions.h), polling every 5 s as
//     a PreBindWaitPlugin. Filter then treats a claim whose binding failed or timed out as
//     unavailable, so PostFilter deallocates it.
//   - QueueingHints: node added or updated; a bound pod deleted whose claims were released; a pod
//     bound that shares a claim (its claim status changed).
// Cost: pods without claims are skipped at PreFilter (no state, no Filter call). For pods with
// claims, Filter runs the allocator's search, which allocates its per-node state as kube's does;
// CEL selectors are compiled at load and evaluate without allocating. The plugin's PoolIndex
// (kept while the slices are unchanged) groups pools once per set of applying shared slices and
// remembers class selectors' answers; the cycle's allocator answers the nodes that see the same
// shared slices alone from one search (allocator.h).
// Allocation honours device taints (DRADeviceTaints, DRADeviceTaintRules; device_taints.h).
// No Score: kube v1.37 ranks nodes by the firstAvailable sub-requests chosen; not implemented
// (docs/deviations.md). Pods with claims are unsignable (KEP-5598).
// Extended resources backed by DRA (DRAExtendedResource, extended_resource.h): a pod whose request
// a DeviceClass backs gets a special claim, built per node at Filter for the resources the node
// does not advertise, allocated with the pod's other claims, held in flight by Reserve and written
// by PreBind (released when the pod is deleted).

#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/framework/prebind_wait.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

namespace dra {
class PoolIndex;
}  // namespace dra

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::PreBindWaitPlugin,
                               public framework::EnqueueExtensions,
                               public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kDynamicResources;

  // Args: DynamicResourcesArgs (binding_conditions.h): bindingTimeout; filterTimeout bounds
  // wall-clock time, which Corral's deterministic allocator does not use, and is an error.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit DynamicResources(framework::Handle& handle, Duration binding_timeout = kBindingTimeout)
      : handle_(handle), binding_timeout_(binding_timeout) {}
  // kube's DynamicResourcesBindingTimeoutDefault.
  static constexpr Duration kBindingTimeout = std::chrono::seconds(600);

  std::string_view Name() const override { return kName; }
  framework::Status PreEnqueue(const framework::PodInfo& pod) override;
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) override;
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod, Symbol node) override;
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;
  Duration PreBindPollInterval() const override;
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;
  // kube: a pod with ResourceClaims is unsignable.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus are both on.
  bool BindingConditionsEnabled() const;

  framework::Handle& handle_;
  Duration binding_timeout_;
  size_t slot_ = 0;  // this plugin's CycleState slot, learnt at PreFilter
  // The slices grouped into pools, shared by the allocators of successive cycles while the
  // manager's slices stay the same (dra::PoolIndex::Matches).
  std::mutex pool_index_mu_;
  std::shared_ptr<const dra::PoolIndex> pool_index_;
};
static_assert(framework::kImplements<DynamicResources, framework::PreEnqueuePlugin,
                                     framework::PreFilterPlugin, framework::FilterPlugin,
                                     framework::PostFilterPlugin, framework::ReservePlugin,
                                     framework::PreBindPlugin, framework::PreBindWaitPlugin,
                                     framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
