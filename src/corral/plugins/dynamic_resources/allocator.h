#pragma once
// The structured-parameters allocator of kube's k8s.io/dynamic-resource-allocation/structured
// (the stable implementation), for one node at a time:
//   - pools: the slices available on the node (nodeName, nodeSelector, allNodes, or per device),
//     grouped by driver and pool, only the newest generation kept; a pool is incomplete when it
//     has fewer slices than resourceSliceCount and invalid when a device name repeats;
//   - requests in claim order, each `count` devices (ExactCount) or every matching device on the
//     node (All; an incomplete or invalid pool is an error then), or the first sub-request of
//     firstAvailable that can be satisfied;
//   - a device is a candidate when it is not allocated (unless the request has adminAccess), the
//     class's and the request's CEL selectors accept it, the counters it consumes are still
//     available in its pool's shared counter sets (allocated devices, shared ones included, and
//     the devices of the allocation being built count against them), the request tolerates its
//     NoSchedule and NoExecute taints (its own and those of DeviceTaintRules; device_taints.h),
//     every matchAttribute constraint that covers the request agrees on the attribute, and the
//     device's compatibility groups fit those of the devices on its counter sets (compat_groups.h);
//   - a device with allowMultipleAllocations is never "in use": each allocation takes a share of
//     its capacity (capacity.h), so it can serve several requests and claims while the shares fit;
//     the result is marked shared and carries the consumed capacity;
//   - depth-first search with backtracking over pools (sorted by driver, pool; those with binding
//     conditions last), slices (by name; those with binding conditions last) and devices (in
//     order): the first complete allocation wins.
// The search runs on the node's pools as PoolIndex::PoolsFor groups them. Pools that are the same
// on every node they apply to (node_independent: shared slices only, no per-device node selection,
// no device that binds to its node) give the same answer on all those nodes, so one Allocator (one
// scheduling cycle, in which the manager's state does not change) searches them once per set of
// claims and answers the other nodes from its memo.
// Results carry kube's node selector (the node's name for a node-local device or one with
// bindsToNode, the slices' selector requirements merged into one term, or none for allNodes) and
// each device's binding conditions.

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/framework/dra_manager.h"
#include "corral/plugins/dynamic_resources/compat_groups.h"
#include "corral/plugins/dynamic_resources/pool_index.h"

namespace corral::plugins::dra {

// The DRA feature gates the allocator honours (kube's structured.Features); both default on in kube
// v1.37. Off, a device that consumes counters is never allocated, and a request with capacity is
// an error while allowMultipleAllocations is ignored.
class Allocator {
 public:
  enum class Outcome { kAllocated, kUnsatisfiable, kFailedOnNode, kError };

  // The feature gates the allocator reads (kube's structured.Features); kube v1.37's defaults.
  struct Features {
    bool device_taints = true;          // DRADeviceTaints: taints prevent allocation
    bool device_taint_rules = true;     // DRADeviceTaintRules: DeviceTaintRules add taints
    bool partitionable_devices = true;  // DRAPartitionableDevices
    bool consumable_capacity = true;    // DRAConsumableCapacity
    // DRAListTypeAttributes (alpha, off): matchAttribute intersects the attributes' value sets
    // (list_attributes.h); off, it compares scalars and a list attribute never matches another.
    bool list_type_attributes = false;
    // DRADeviceCompatibilityGroups (alpha, off): devices that draw on one counter set must share a
    // compatibility group (compat_groups.h); off, a device that names groups, or draws on a
    // counter set where an allocated device names groups, is not allocated.
    bool compatibility_groups = false;
    // DRADeviceBindingConditions (beta, on): results carry the devices' binding conditions,
    // bindsToNode pins the allocation to the node, and devices without binding conditions are
    // tried first. Off, those fields are ignored (kube's API server drops them).
    bool device_binding = true;
  };

  // Indexes the manager's slices and the counters consumed by allocated devices. The manager's
  // state must not change while the allocator is used (one scheduling cycle). `index`, when given,
  // must match the manager (PoolIndex::Matches) and is shared instead of built again.
  Allocator(const framework::DraManager& dra, const Interner& interner)
      : Allocator(dra, interner, Features{}) {}
  Allocator(const framework::DraManager& dra, const Interner& interner, Features features,
            std::shared_ptr<const PoolIndex> index = nullptr);

  // Allocates every claim of `claims` for `node`. kAllocated: `results` has one entry per claim.
  // kUnsatisfiable: no allocation exists. kFailedOnNode: none exists and the node has an invalid
  // pool ("invalid resource pools were encountered" in `error`, kube's ErrFailedAllocationOnNode).
  // kError: kube's error text in `error` (a CEL run-time error, a missing class, all devices of an
  // incomplete or invalid pool, a constraint that cannot hold for all devices).
  // `reuse`: the claims stay alive and unchanged as long as the allocator (a cycle's claims), so
  // the answer on a node-independent pool set may be remembered by their addresses and given to
  // the other nodes of that set (see the file comment). Thread-safe.
  Outcome Allocate(const api::Node& node,
                   std::span<const api::resource::ResourceClaim* const> claims,
                   std::vector<api::resource::AllocationResult>* results, std::string* error,
                   bool reuse = false) const;

 private:
  const framework::DraManager& dra_;
  const Interner& in_;
  Features features_;
  std::shared_ptr<const PoolIndex> index_;
  // Counter consumption of allocated devices, by (driver, pool, counter set, counter).
  struct CounterKey {
    Symbol driver, pool, set, counter;
    bool operator==(const CounterKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const CounterKey& k) {
      return H::combine(std::move(h), k.driver, k.pool, k.set, k.counter);
    }
  };
  absl::flat_hash_map<CounterKey, api::Quantity> consumed_;
  // Folds allocated device `cd` into consumed_ and compat_.
  void AddAllocated(const PoolIndex::CounterDevice& cd);
  // The compatibility groups of allocated devices that consume counters.
  CompatBaseline compat_;
  // Answers on node-independent pool sets, by pool set and claims (see the file comment).
  struct MemoKey {
    const void* pools;
    std::vector<const api::resource::ResourceClaim*> claims;
    bool operator==(const MemoKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const MemoKey& k) {
      return H::combine(std::move(h), k.pools, k.claims);
    }
  };
  // The manager's state an entry was computed in (a guard: it must not change meanwhile).
  struct MemoState {
    uint64_t claim_status_version = 0;
    size_t allocated = 0, shared = 0;
    bool operator==(const MemoState&) const = default;
  };
  struct MemoEntry {
    std::shared_ptr<const PoolIndex::NodePoolSet> pools;  // keeps MemoKey::pools alive
    MemoState state;
    Outcome outcome;
    std::vector<api::resource::AllocationResult> results;
    std::string error;
  };
  mutable std::mutex memo_mu_;
  mutable absl::flat_hash_map<MemoKey, MemoEntry> memo_;

  friend class AllocationSearch;
};

// The allocator's feature switches (kube's gates), for callers outside the class.
using AllocatorFeatures = Allocator::Features;

}  // namespace corral::plugins::dra
