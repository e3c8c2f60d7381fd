#pragma once
// The resource pools the structured allocator (allocator.h) searches, grouped once per set of
// ResourceSlices instead of once per node per Filter call:
//   - GroupPools is kube's gatherPools for the slices that apply to one node: slices grouped by
//     (driver, pool), only the newest generation kept, pools sorted by driver then pool name and
//     each pool's slices by name; a pool is incomplete when it has fewer slices than its
//     resourceSliceCount and invalid when a device name repeats within it. With device binding
//     conditions (DRADeviceBindingConditions) the pools that have a slice with a device with
//     binding conditions come after all others, and within a pool such slices come after the
//     others (kube's incubating gatherPools: "pools without binding conditions are always
//     evaluated before those with binding conditions"), so simpler devices are preferred;
//   - PoolIndex keeps, for every node named by some slice's nodeName, its slices and their pools
//     already grouped, plus the slices that apply through a node selector, allNodes or per-device
//     node selection (their match depends on the node's labels, so they are matched per call),
//     and the devices that consume counters (partitionable devices).
// A PoolIndex depends only on the manager's slices: it stays valid while the manager reports the
// same ObjectsGeneration and slice list (Matches), whatever is allocated meanwhile.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/resource/types.h"
#include "corral/core/interner.h"
#include "corral/framework/dra_manager.h"

namespace corral::plugins::dra {

// A resource pool on one node: the slices of its newest generation (kube's gatherPools).
struct Pool {
  Symbol driver;
  Symbol name;
  int64_t generation = 0;
  std::vector<const api::resource::ResourceSlice*> slices;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
};

// Groups `slices`, the slices that apply to one node in the manager's order, into `pools` (which
// must be empty) as described in the file comment. `binding_conditions`: DRADeviceBindingConditions
// is on (off, binding conditions are ignored, as kube's API server drops them).
void GroupPools(std::span<const api::resource::ResourceSlice* const> slices, const Interner& in,
                std::vector<Pool>* pools, bool binding_conditions = true);

// Whether some device of the slice has binding conditions.
bool HasBindingConditions(const api::resource::ResourceSlice& slice);

class PoolIndex {
 public:
  // A device that consumes counters, with the slice that publishes it.
  using CounterDevice =
      std::pair<const api::resource::ResourceSlice*, const api::resource::Device*>;

  PoolIndex(const framework::DraManager& dra, const Interner& in, bool binding_conditions = true);

  // Whether this index was built from `dra`'s current slices.
  bool Matches(const framework::DraManager& dra) const;
  // The GroupPools flag the pools were grouped with.
  bool binding_conditions() const { return binding_conditions_; }

  // The slices whose nodeName is `node`, in the manager's order (empty when none).
  std::span<const api::resource::ResourceSlice* const> NodeSlices(Symbol node) const;
  // GroupPools of NodeSlices(node); empty when none.
  std::span<const Pool> NodePools(Symbol node) const;
  // The slices without a nodeName (node selector, allNodes, per-device node selection).
  std::span<const api::resource::ResourceSlice* const> SharedSlices() const { return shared_; }
  // Every device that consumes counters, in slice then device order.
  std::span<const CounterDevice> CounterDevices() const { return counter_devices_; }

 private:
  struct NodeEntry {
    std::vector<const api::resource::ResourceSlice*> slices;
    std::vector<Pool> pools;
  };
  const framework::DraManager* dra_;
  bool binding_conditions_;
  uint64_t generation_;
  const void* slices_data_;
  size_t slices_size_;
  absl::flat_hash_map<Symbol, NodeEntry> by_node_;
  std::vector<const api::resource::ResourceSlice*> shared_;
  std::vector<CounterDevice> counter_devices_;
};

}  // namespace corral::plugins::dra
