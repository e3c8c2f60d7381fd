#pragma once
// VolumeBinding, accepted by name. Corral does not model PersistentVolumes, claims or storage
// classes, so instead of scheduling a pod that needs volume binding as if it had no volumes, the
// plugin reports it: a pod with a PersistentVolumeClaim or a generic ephemeral volume is
// UnschedulableAndUnresolvable at PreFilter with kReason. Every other pod is skipped (PreFilter and
// PreScore return Skip), which is what kube does for a pod without claims.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

// kube's VolumeBindingArgs. Only validated: nothing here is modelled.
struct VolumeBindingArgs final : framework::PluginArgs {
  int64_t bind_timeout_seconds = 600;
  // shape (StorageCapacityScoring) is accepted and ignored.
  bool has_shape = false;

  // kube's ValidateVolumeBindingArgs; `path` prefixes field names ("" for none), e.g.
  // "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a
  // negative value".
  Result<void> Validate(std::string_view path = "") const;
};

class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions,
                            public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kVolumeBinding;
  static constexpr std::string_view kReason =
      "pod has unbound PersistentVolumeClaims: volume scheduling is not modelled by Corral";

  // Args: VolumeBindingArgs or null (defaults).
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit VolumeBinding(const Interner& interner) : interner_(interner) {}

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable kReason for a pod with claims; Skip otherwise.
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  // The same verdict, for profiles that run Filter without PreFilter.
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Skip: no pod that reaches scoring has claims.
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  // 0 (never called after PreScore's Skip).
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;
  // Nothing to reserve or bind.
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod, Symbol node) override;
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;

  // No cluster event Corral models can bind a claim: none is registered, so a rejected pod waits
  // for the unschedulable-pods flush instead of being retried on every event.
  std::vector<framework::ClusterEvent> EventsToRegister() const override { return {}; }

  // {v1.Pod.Spec.Volumes.NonSyntheticSources(): ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  const Interner& interner_;
};
static_assert(framework::kImplements<
              VolumeBinding, framework::PreFilterPlugin, framework::FilterPlugin,
              framework::PreScorePlugin, framework::ScorePlugin, framework::ReservePlugin,
              framework::PreBindPlugin, framework::EnqueueExtensions, framework::SignPlugin>);

}  // namespace corral::plugins
