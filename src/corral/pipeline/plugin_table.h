#pragma once
// PluginTable: one profile's plugins, instantiated once each and listed per extension point, for
// any level (kube's frameworkImpl construction in pkg/scheduler/framework/runtime/framework.go).
// `PluginT` is the level's plugin base class; a plugin implements an extension point `P` when it
// derives from `P`.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "corral/core/result.h"
#include "corral/pipeline/plugin_config.h"

namespace corral::pipeline {

// One plugin at one extension point.
template <class P>
struct PointEntry {
  P* plugin;
  std::string_view name;
  size_t slot;     // the plugin's index in its table: CycleState slot and skip-bitmap index
  int32_t weight;  // Score only
};

template <class PluginT>
class PluginTable {
 public:
  // Instantiates every plugin named in `sets`, once, in order of first appearance; slot i is the
  // i-th. `make(name)` returns the plugin or an error (the level's registry lookup, arguments
  // and messages).
  template <class Make>
  Result<void> Instantiate(std::span<const PluginSet* const> sets, Make&& make) {
    for (const PluginSet* set : sets) {
      for (const PluginEntry& e : set->enabled) {
        if (slot_of_.contains(e.name)) continue;
        Result<std::unique_ptr<PluginT>> p = make(e.name);
        if (!p.ok()) return p.error();
        slot_of_.emplace(e.name, plugins_.size());
        plugins_.push_back(std::move(p).value());
        names_.push_back(e.name);
      }
    }
    return {};
  }

  // kube's per-point expansion: the plugins configured at the point, then multiPoint's. A plugin
  // named at the point must implement `P` ("plugin X does not extend <type_name> plugin") and
  // appear once ("plugin X already registered as <type_name>"). Unless the point disables "*",
  // multiPoint's plugins that implement `P` and are not disabled at the point join; one also named
  // at the point overrides it there and moves to the front. Order: overrides, multiPoint's, the
  // rest of the point's. Weights are the configured ones (AssignWeights settles Score's).
  template <class P>
  Result<std::vector<PointEntry<P>>> Expand(const PluginSet& set, const PluginSet& multi_point,
                                            std::string_view type_name) const {
    std::vector<PointEntry<P>> list;
    absl::flat_hash_set<std::string_view> in_list;
    for (const auto& e : set.enabled) {
      const size_t slot = slot_of_.at(e.name);
      P* p = dynamic_cast<P*>(plugins_[slot].get());
      if (p == nullptr) {
        return Error::Invalid(
            fmt::format("plugin {:?} does not extend {} plugin", e.name, type_name));
      }
      if (!in_list.insert(names_[slot]).second) {
        return Error::Invalid(
            fmt::format("plugin {:?} already registered as {:?}", e.name, type_name));
      }
      list.push_back({p, names_[slot], slot, e.weight});
    }
    if (multi_point.enabled.empty()) return list;
    absl::flat_hash_set<std::string_view> disabled(set.disabled.begin(), set.disabled.end());
    if (disabled.contains("*")) return list;
    std::vector<PointEntry<P>> overrides, multi, rest;
    absl::flat_hash_set<std::string_view> override_names, multi_names;
    for (const auto& e : multi_point.enabled) {
      const size_t slot = slot_of_.at(e.name);
      P* p = dynamic_cast<P*>(plugins_[slot].get());
      if (p == nullptr || disabled.contains(e.name)) continue;
      if (in_list.contains(e.name)) {
        override_names.insert(names_[slot]);
        continue;
      }
      if (!multi_names.insert(names_[slot]).second) {
        return Error::Invalid(
            fmt::format("plugin {:?} already registered as {:?}", e.name, type_name));
      }
      multi.push_back({p, names_[slot], slot, e.weight});
    }
    for (auto& e : list) (override_names.contains(e.name) ? overrides : rest).push_back(e);
    list.clear();
    list.insert(list.end(), overrides.begin(), overrides.end());
    list.insert(list.end(), multi.begin(), multi.end());
    list.insert(list.end(), rest.begin(), rest.end());
    return list;
  }

  // Score weights: a plugin's weight at the point wins over its multiPoint weight; 0 means 1; a
  // plugin configured nowhere with a weight gets 1. Fails with kube's "total score of Score plugins
  // could overflow" when Σ weight × max_score does not fit in int64.
  template <class P>
  Result<void> AssignWeights(std::vector<PointEntry<P>>& list, const PluginSet& set,
                             const PluginSet& multi_point, int64_t max_score) const {
    absl::flat_hash_map<std::string_view, int32_t> weights;
    for (const PluginSet* s : {&set, &multi_point}) {
      for (const auto& e : s->enabled) {
        if (weights.contains(e.name)) continue;
        if (dynamic_cast<P*>(plugins_[slot_of_.at(e.name)].get()) == nullptr) continue;
        weights[e.name] = e.weight == 0 ? 1 : e.weight;
      }
    }
    int64_t total = 0;
    for (auto& e : list) {
      auto it = weights.find(e.name);
      e.weight = it != weights.end() ? it->second : 1;
      if (static_cast<int64_t>(e.weight) * max_score >
          std::numeric_limits<int64_t>::max() - total) {
        return Error::Invalid("total score of Score plugins could overflow");
      }
      total += static_cast<int64_t>(e.weight) * max_score;
    }
    return {};
  }

  size_t size() const { return plugins_.size(); }
  PluginT* at(size_t slot) const { return plugins_[slot].get(); }
  const std::string& name(size_t slot) const { return names_[slot]; }
  std::optional<size_t> SlotOf(std::string_view name) const {
    auto it = slot_of_.find(name);
    return it == slot_of_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
  bool Contains(std::string_view name) const { return slot_of_.contains(name); }

 private:
  std::vector<std::unique_ptr<PluginT>> plugins_;  // slot i = plugins_[i]
  std::vector<std::string> names_;
  std::map<std::string, size_t, std::less<>> slot_of_;
};

}  // namespace corral::pipeline
