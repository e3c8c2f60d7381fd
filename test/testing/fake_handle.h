#pragma once
// A Handle for plugin unit tests: a snapshot over NodeInfos of a TestWorld, plus namespaces,
// selector owners and PDBs registered by the test.

#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/framework/handle.h"

#include "test/testing/builders.h"

namespace corral::testing {

class FakeHandle : public framework::Handle {
 public:
  explicit FakeHandle(TestWorld& w) : w_(w), rng_(1) {}

  // Rebuilds the snapshot from `nodes` (in the given order; tests that care about zone interleaving
  // build the order themselves).
  void SetNodes(std::vector<framework::NodeInfo*> nodes) {
    framework::SnapshotBuilder b(snapshot_);
    b.nodes().clear();
    b.by_name().clear();
    b.with_affinity().clear();
    b.with_required_anti_affinity().clear();
    b.image_nodes().clear();
    for (framework::NodeInfo* n : nodes) {
      b.nodes().push_back(n);
      b.by_name()[n->name()] = n;
      if (!n->pods_with_affinity().empty()) b.with_affinity().push_back(n);
      if (!n->pods_with_required_anti_affinity().empty())
        b.with_required_anti_affinity().push_back(n);
      for (const auto& [img, size] : n->image_sizes()) {
        (void)size;
        ++b.image_nodes()[img];
      }
    }
  }
  void AddNamespace(const api::Namespace* ns) { namespaces_[ns->meta.name] = ns; }
  void AddSelectorOwner(const api::SelectorOwner* o) { owners_[o->meta.namespace_].push_back(o); }
  void AddPdb(const api::PodDisruptionBudget* p) { pdbs_[p->meta.namespace_].push_back(p); }

  const Interner& interner() const override { return w_.in; }
  const framework::FeatureGates& features() const override { return w_.gates; }
  const Clock& clock() const override { return clock_; }
  Rng& rng() override { return rng_; }
  const framework::Snapshot& snapshot() const override { return snapshot_; }
  const api::Namespace* GetNamespace(Symbol name) const override {
    auto it = namespaces_.find(name);
    return it == namespaces_.end() ? nullptr : it->second;
  }
  std::span<const api::SelectorOwner* const> SelectorOwners(Symbol ns) const override {
    auto it = owners_.find(ns);
    if (it == owners_.end()) return {};
    return it->second;
  }
  std::span<const api::PodDisruptionBudget* const> PodDisruptionBudgets(Symbol ns) const override {
    auto it = pdbs_.find(ns);
    if (it == pdbs_.end()) return {};
    return it->second;
  }
  std::span<const framework::PodInfo* const> NominatedPodsForNode(Symbol) const override {
    return {};
  }
  void Activate(std::span<const framework::PodInfo* const> pods) override {
    activated.insert(activated.end(), pods.begin(), pods.end());
  }

  ManualClock clock_;
  std::vector<const framework::PodInfo*> activated;

 private:
  TestWorld& w_;
  Rng rng_;
  framework::Snapshot snapshot_;
  absl::flat_hash_map<Symbol, const api::Namespace*> namespaces_;
  absl::flat_hash_map<Symbol, std::vector<const api::SelectorOwner*>> owners_;
  absl::flat_hash_map<Symbol, std::vector<const api::PodDisruptionBudget*>> pdbs_;
};

}  // namespace corral::testing
