#include "corral/plugins/dynamic_resources/pool_index.h"

#include <algorithm>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/core/check.h"

namespace corral::plugins::dra {

namespace res = api::resource;

namespace {

void HashRequirements(const std::vector<api::NodeSelectorRequirement>& rs, size_t* h) {
  for (const auto& r : rs) {
    *h = absl::HashOf(*h, r.key, static_cast<int>(r.op), r.values);
  }
  *h = absl::HashOf(*h, rs.size());
}

// A hash of the selector's structure (terms, requirements, values in order).
size_t HashSelector(const api::NodeSelector& sel) {
  size_t h = sel.node_selector_terms.size();
  for (const auto& t : sel.node_selector_terms) {
    HashRequirements(t.match_expressions, &h);
    HashRequirements(t.match_fields, &h);
  }
  return h;
}

bool SameRequirements(const std::vector<api::NodeSelectorRequirement>& a,
                      const std::vector<api::NodeSelectorRequirement>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].op != b[i].op || a[i].values != b[i].values) return false;
  }
  return true;
}

// Structural equality: equal terms, requirements and values, in the same order.
bool SameSelector(const api::NodeSelector& a, const api::NodeSelector& b) {
  if (a.node_selector_terms.size() != b.node_selector_terms.size()) return false;
  for (size_t i = 0; i < a.node_selector_terms.size(); ++i) {
    const auto& x = a.node_selector_terms[i];
    const auto& y = b.node_selector_terms[i];
    if (!SameRequirements(x.match_expressions, y.match_expressions) ||
        !SameRequirements(x.match_fields, y.match_fields)) {
      return false;
    }
  }
  return true;
}

}  // namespace

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

PoolIndex::PoolIndex(const framework::DraManager& dra, const Interner& in, bool binding_conditions,
                     bool key_attributes)
    : dra_(&dra),
      binding_conditions_(binding_conditions),
      generation_(dra.ObjectsGeneration()),
      slices_data_(dra.ResourceSlices().data()),
      slices_size_(dra.ResourceSlices().size()) {
  for (const res::ResourceSlice* s : dra.ResourceSlices()) {
    first_ordinal_.try_emplace(s, static_cast<uint32_t>(num_devices_));
    num_devices_ += s->devices.size();
    if (!s->node_name.empty()) {
      by_node_[s->node_name].slices.push_back(s);
    } else {
      shared_.push_back(s);
    }
    for (const res::Device& d : s->devices) {
      if (d.consumes_counters.empty()) continue;
      counter_positions_[{s->driver, s->pool_name, d.name}].push_back(
          static_cast<uint32_t>(counter_devices_.size()));
      counter_devices_.emplace_back(s, &d);
    }
  }
  for (auto& [node, entry] : by_node_) {
    entry.pools = std::make_shared<NodePoolSet>();
    GroupPools(entry.slices, in, &entry.pools->pools, binding_conditions);
  }
  empty_set_ = std::make_shared<const NodePoolSet>(NodePoolSet{{}, true});
  // The shared slices' rules: equal node selectors are found by their hash, then compared.
  absl::flat_hash_map<size_t, std::vector<uint32_t>> by_hash;
  for (size_t i = 0; i < shared_.size(); ++i) {
    const res::ResourceSlice& s = *shared_[i];
    const api::NodeSelector* sel = nullptr;
    if (!s.all_nodes && !s.per_device_node_selection) {
      // A slice without nodeName, allNodes, per-device selection or selector applies nowhere
      // (the loader requires one of them); an empty selector stands for it.
      static const api::NodeSelector kNowhere;
      sel = s.node_selector.has_value() ? &*s.node_selector : &kNowhere;
    }
    const size_t h = sel == nullptr ? 0 : HashSelector(*sel) | 1;
    std::vector<uint32_t>& candidates = by_hash[h];
    uint32_t rule = static_cast<uint32_t>(rules_.size());
    for (uint32_t r : candidates) {
      const api::NodeSelector* other = rules_[r].selector;
      if ((sel == nullptr) == (other == nullptr) &&
          (sel == nullptr || SameSelector(*sel, *other))) {
        rule = r;
        break;
      }
    }
    if (rule == rules_.size()) {
      rules_.push_back({sel, {}});
      candidates.push_back(rule);
    }
    rules_[rule].slices.push_back(static_cast<uint32_t>(i));
  }
  if (key_attributes) attribute_keys_ = AttributeKeys(dra.ResourceSlices());
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
  return it->second.pools->pools;
}

std::span<const uint32_t> PoolIndex::CounterDevicePositions(const framework::DeviceId& id) const {
  auto it = counter_positions_.find(id);
  if (it == counter_positions_.end()) return {};
  return it->second;
}

uint32_t PoolIndex::FirstOrdinal(const res::ResourceSlice& slice) const {
  auto it = first_ordinal_.find(&slice);
  CORRAL_CHECK_MSG(it != first_ordinal_.end(), "a slice the PoolIndex was not built from");
  return it->second;
}

std::atomic<uint8_t>* PoolIndex::ClassSelections(const res::DeviceClass& cls) const {
  std::lock_guard<std::mutex> l(selections_mu_);
  auto& table = selections_[&cls];
  if (table == nullptr) {
    table = std::make_unique<std::atomic<uint8_t>[]>(num_devices_);  // value-initialised: unknown
  }
  return table.get();
}

std::shared_ptr<const PoolIndex::NodePoolSet> PoolIndex::PoolsFor(const api::Node& node,
                                                                  const Interner& in) const {
  PoolSetKey key;
  key.rules.resize(rules_.size());
  bool any = false;
  for (size_t r = 0; r < rules_.size(); ++r) {
    const api::NodeSelector* sel = rules_[r].selector;
    key.rules[r] =
        sel == nullptr || api::MatchesNodeSelector(*sel, node.meta.labels, node.meta.name, in);
    any = any || key.rules[r];
  }
  auto own = by_node_.find(node.meta.name);
  if (!any) return own == by_node_.end() ? empty_set_ : own->second.pools;
  if (own != by_node_.end()) key.node = node.meta.name;
  std::lock_guard<std::mutex> l(cache_mu_);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  // GroupPools' input: the node's own slices, then the shared slices that apply, in the
  // manager's order.
  std::vector<const res::ResourceSlice*> slices;
  if (own != by_node_.end()) slices = own->second.slices;
  std::vector<uint32_t> applying;
  for (size_t r = 0; r < rules_.size(); ++r) {
    if (key.rules[r])
      applying.insert(applying.end(), rules_[r].slices.begin(), rules_[r].slices.end());
  }
  std::sort(applying.begin(), applying.end());
  for (uint32_t i : applying) slices.push_back(shared_[i]);
  auto set = std::make_shared<NodePoolSet>();
  GroupPools(slices, in, &set->pools, binding_conditions_);
  set->node_independent = own == by_node_.end();
  for (const Pool& p : set->pools) {
    for (const res::ResourceSlice* s : p.slices) {
      if (s->per_device_node_selection) set->node_independent = false;
      if (!binding_conditions_) continue;
      for (const res::Device& d : s->devices) {
        if (d.binds_to_node) set->node_independent = false;
      }
    }
  }
  if (cache_.size() >= kMaxCachedPoolSets) cache_.clear();
  cache_.emplace(std::move(key), set);
  return set;
}

}  // namespace corral::plugins::dra
