#include "corral/plugins/dynamic_resources/pool_index.h"

#include <algorithm>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

namespace corral::plugins::dra {

namespace res = api::resource;

bool HasBindingConditions(const res::ResourceSlice& slice) {
  for (const res::Device& d : slice.devices) {
    if (!d.binding_conditions.empty()) return true;
  }
  return false;
}

void GroupPools(std::span<const res::ResourceSlice* const> slices, const Interner& in,
                std::vector<Pool>* pools, bool binding_conditions) {
  // Each slice's pool is found by (driver, pool name): a node that many node-selector slices apply
  // to (one counter-set slice per node, all selecting by one label) has as many pools.
  absl::flat_hash_map<std::pair<Symbol, Symbol>, size_t> index;
  index.reserve(slices.size());
  for (const res::ResourceSlice* s : slices) {
    auto [it, added] = index.try_emplace(std::make_pair(s->driver, s->pool_name), pools->size());
    if (added) {
      pools->push_back({s->driver, s->pool_name, s->pool_generation, {s}, false, false, {}});
      continue;
    }
    Pool& p = (*pools)[it->second];
    if (s->pool_generation > p.generation) {
      p.generation = s->pool_generation;
      p.slices.clear();
    }
    if (s->pool_generation == p.generation) p.slices.push_back(s);
  }
  std::sort(pools->begin(), pools->end(), [&](const Pool& x, const Pool& y) {
    if (x.driver != y.driver) return in.Str(x.driver) < in.Str(y.driver);
    return in.Str(x.name) < in.Str(y.name);
  });
  absl::flat_hash_set<Symbol> names;
  for (Pool& p : *pools) {
    std::sort(p.slices.begin(), p.slices.end(), [&](const auto* x, const auto* y) {
      return in.Str(x->meta.name) < in.Str(y->meta.name);
    });
    if (binding_conditions) {
      std::stable_partition(p.slices.begin(), p.slices.end(),
                            [](const res::ResourceSlice* x) { return !HasBindingConditions(*x); });
    }
    p.incomplete = static_cast<int64_t>(p.slices.size()) != p.slices[0]->resource_slice_count;
    names.clear();
    for (const auto* s : p.slices) {
      for (const auto& d : s->devices) {
        if (!names.insert(d.name).second && !p.invalid) {
          p.invalid = true;
          p.invalid_reason = fmt::format("duplicate device name {}", in.Str(d.name));
        }
      }
    }
  }
  if (binding_conditions) {
    std::stable_partition(pools->begin(), pools->end(), [](const Pool& p) {
      for (const res::ResourceSlice* s : p.slices) {
        if (HasBindingConditions(*s)) return false;
      }
      return true;
    });
  }
}

PoolIndex::PoolIndex(const framework::DraManager& dra, const Interner& in, bool binding_conditions)
    : dra_(&dra),
      binding_conditions_(binding_conditions),
      generation_(dra.ObjectsGeneration()),
      slices_data_(dra.ResourceSlices().data()),
      slices_size_(dra.ResourceSlices().size()) {
  for (const res::ResourceSlice* s : dra.ResourceSlices()) {
    if (!s->node_name.empty()) {
      by_node_[s->node_name].slices.push_back(s);
    } else {
      shared_.push_back(s);
    }
    for (const res::Device& d : s->devices) {
      if (!d.consumes_counters.empty()) counter_devices_.emplace_back(s, &d);
    }
  }
  for (auto& [node, entry] : by_node_) {
    GroupPools(entry.slices, in, &entry.pools, binding_conditions);
  }
}

bool PoolIndex::Matches(const framework::DraManager& dra) const {
  return dra_ == &dra && generation_ == dra.ObjectsGeneration() &&
         slices_data_ == dra.ResourceSlices().data() && slices_size_ == dra.ResourceSlices().size();
}

std::span<const res::ResourceSlice* const> PoolIndex::NodeSlices(Symbol node) const {
  auto it = by_node_.find(node);
  if (it == by_node_.end()) return {};
  return it->second.slices;
}

std::span<const Pool> PoolIndex::NodePools(Symbol node) const {
  auto it = by_node_.find(node);
  if (it == by_node_.end()) return {};
  return it->second.pools;
}

}  // namespace corral::plugins::dra
