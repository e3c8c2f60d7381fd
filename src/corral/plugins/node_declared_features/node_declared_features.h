#pragma once
// NodeDeclaredFeatures (kube's nodedeclaredfeatures plugin, gate NodeDeclaredFeatures, GA and
// locked on in v1.37): a pod whose spec needs node features (features.h) fits only nodes that
// declare every one of them in status.declaredFeatures.

#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"
#include "corral/plugins/node_declared_features/features.h"

namespace corral::plugins {

// Plugin args that only a driver sets (never decoded from a KubeSchedulerConfiguration, where the
// plugin takes none), for kube's scheduler_perf test that replaces the registry with mock features
// and sets every node's status.declaredFeatures: the registry to infer from, and the features
// every node declares.
class NodeDeclaredFeaturesArgs final : public framework::PluginArgs {
 public:
  NodeDeclaredFeaturesArgs(ndf::FeatureRegistry features, std::vector<std::string> every_node)
      : registry(std::move(features)), every_node_declares(std::move(every_node)) {}
  ndf::FeatureRegistry registry;
  std::vector<std::string> every_node_declares;
};

class NodeDeclaredFeatures final : public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions,
                                   public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kNodeDeclaredFeatures;
  static constexpr std::string_view kErrReasonUnsatisfiedRequirements =
      "node(s) didn't match Pod's required features";

  // Takes no args (or NodeDeclaredFeaturesArgs from a driver).
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  // `declared`: the features every node declares (Corral's nodes carry no
  // status.declaredFeatures of their own: docs/deviations.md).
  NodeDeclaredFeatures(const Interner& interner, ndf::FeatureRegistry registry,
                       std::vector<Symbol> declared = {},
                       ndf::Version version = ndf::kSchedulerVersion)
      : interner_(interner),
        registry_(std::move(registry)),
        declared_(std::move(declared)),
        version_(version) {}

  std::string_view Name() const override { return kName; }

  // Skip when the pod requires no feature; else records the required features for Filter.
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  // UnschedulableAndUnresolvable kErrReasonUnsatisfiedRequirements unless the node declares every
  // required feature.
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  bool FilterIsNodeLocal(const framework::PodInfo& pod) const override {
    (void)pod;
    return true;
  }

  // Node/Add|Update and Pod/Update of the pod itself (kube: Node Add|UpdateNodeDeclaredFeature,
  // TargetPod Update). Corral's hints see only the new object: a node event queues when the node
  // now declares every feature the pod requires (kube: when its declared features changed); an
  // update of the pod itself always queues (kube: when its requirements changed).
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

  // {v1.Pod.Spec.RequiredFeatures(): the required feature names}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

  const ndf::FeatureRegistry& registry() const { return registry_; }

 private:
  bool NodeDeclaresAll(const std::vector<std::string>& required) const;

  const Interner& interner_;
  ndf::FeatureRegistry registry_;
  std::vector<Symbol> declared_;
  ndf::Version version_;
};
static_assert(framework::kImplements<NodeDeclaredFeatures, framework::PreFilterPlugin,
                                     framework::FilterPlugin, framework::EnqueueExtensions,
                                     framework::SignPlugin>);

}  // namespace corral::plugins
