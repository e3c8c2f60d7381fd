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
//     and the devices that consume counters (partitionable devices);
//   - PoolsFor: a node's pools when slices without a nodeName apply to it, grouped once per set of
//     such slices that apply (and per node when it also has slices of its own) instead of once
//     per call: the shared slices are told apart by their rule (allNodes, per-device selection,
//     or a node selector; equal selectors form one rule), so a call matches each distinct rule
//     once, not every slice;
//   - ClassSelections: whether a DeviceClass's selectors accept each device, found at most once
//     per class and device for all the searches that share the index (a selector reads the
//     device alone, so its answer does not change with the request, claim or node; kube
//     evaluates it per request and Allocate call);
//   - the keys of the devices' attribute values (attribute_keys.h) when some device has a
//     list-typed attribute, for matchAttribute.
// A PoolIndex depends only on the manager's slices: it stays valid while the manager reports the
// same ObjectsGeneration and slice list (Matches), whatever is allocated meanwhile.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/framework/dra_manager.h"
#include "corral/plugins/dynamic_resources/attribute_keys.h"

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

  // `key_attributes`: build the attribute keys (off only in tests that compare the allocator's
  // search without them).
  PoolIndex(const framework::DraManager& dra, const Interner& in, bool binding_conditions = true,
            bool key_attributes = true);

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
  // The positions in CounterDevices() of the devices with id `id` (one per slice that lists it).
  std::span<const uint32_t> CounterDevicePositions(const framework::DeviceId& id) const;
  // The keys of every device's attribute values (empty when no device has a list attribute).
  const AttributeKeys& attribute_keys() const { return attribute_keys_; }

  // The pools of one node, as GroupPools makes them of its own slices followed by the shared
  // slices that apply to it (kube's gatherPools).
  struct NodePoolSet {
    std::vector<Pool> pools;
    // Whether an allocation on these pools is the same on every node they are returned for: no
    // slice of the node's own, none with per-device node selection and, with binding conditions,
    // no device that binds to the node. Such a set is shared by all the nodes whose labels select
    // the same shared slices.
    bool node_independent = false;
  };
  // `node`'s pools: NodePools when no shared slice applies to it, otherwise the cached grouping
  // (thread-safe; the result stays valid while it is held).
  std::shared_ptr<const NodePoolSet> PoolsFor(const api::Node& node, const Interner& in) const;

  // A device's ordinal: FirstOrdinal(slice) plus its position in the slice, below num_devices().
  // `slice` must be one of the manager's slices.
  uint32_t FirstOrdinal(const api::resource::ResourceSlice& slice) const;
  size_t num_devices() const { return num_devices_; }
  // What `cls`'s selectors answered for each device ordinal: kSelectionUnknown (not evaluated
  // yet, or a CEL error, which is not remembered), kSelectionRejected or kSelectionAccepted.
  // Thread-safe: entries are read and written with relaxed atomics; the table lives as long as
  // the index.
  static constexpr uint8_t kSelectionUnknown = 0, kSelectionRejected = 1, kSelectionAccepted = 2;
  std::atomic<uint8_t>* ClassSelections(const api::resource::DeviceClass& cls) const;

 private:
  struct NodeEntry {
    std::vector<const api::resource::ResourceSlice*> slices;
    std::shared_ptr<NodePoolSet> pools;  // GroupPools of `slices`
  };
  const framework::DraManager* dra_;
  bool binding_conditions_;
  uint64_t generation_;
  const void* slices_data_;
  size_t slices_size_;
  absl::flat_hash_map<Symbol, NodeEntry> by_node_;
  std::vector<const api::resource::ResourceSlice*> shared_;
  std::vector<CounterDevice> counter_devices_;
  absl::flat_hash_map<framework::DeviceId, absl::InlinedVector<uint32_t, 1>> counter_positions_;
  AttributeKeys attribute_keys_;
  // The shared slices by rule: `selector` null for allNodes and per-device node selection (they
  // apply to every node), otherwise the rule's node selector; `slices` index shared_.
  struct SharedRule {
    const api::NodeSelector* selector = nullptr;
    std::vector<uint32_t> slices;
  };
  std::vector<SharedRule> rules_;
  // PoolsFor's cache: the node (empty when it has no slices of its own) and, per rule, whether
  // the rule applies. Cleared when it reaches kMaxCachedPoolSets entries.
  static constexpr size_t kMaxCachedPoolSets = 4096;
  struct PoolSetKey {
    Symbol node;
    std::vector<bool> rules;
    bool operator==(const PoolSetKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const PoolSetKey& k) {
      return H::combine(std::move(h), k.node, k.rules);
    }
  };
  mutable std::mutex cache_mu_;
  mutable absl::flat_hash_map<PoolSetKey, std::shared_ptr<const NodePoolSet>> cache_;
  std::shared_ptr<const NodePoolSet> empty_set_;  // of a node without slices
  absl::flat_hash_map<const api::resource::ResourceSlice*, uint32_t> first_ordinal_;
  size_t num_devices_ = 0;
  mutable std::mutex selections_mu_;
  mutable absl::flat_hash_map<const api::resource::DeviceClass*,
                              std::unique_ptr<std::atomic<uint8_t>[]>>
      selections_;
};

}  // namespace corral::plugins::dra
