#pragma once
// VolumeZone, accepted by name. kube's volumezone plugin checks that the zones of a pod's bound
// PersistentVolumes match the node's zone labels. Corral models no volume sources, claims,
// PersistentVolumes or CSI objects: a pod whose volumes would need this plugin has a claim or an
// ephemeral volume, and VolumeBinding reports such a pod at PreFilter. So this plugin skips every
// pod (PreFilter returns Skip, which also skips its Filter); it exists so that configurations
// naming it load and expand as in kube.

#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class VolumeZone final : public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kVolumeZone;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit VolumeZone(const Interner& interner) : interner_(interner) {}

  std::string_view Name() const override { return kName; }

  // Skip.
  framework::Status PreFilter(framework::CycleState& state, size_t slot,
                              const framework::PodInfo& pod, const framework::Snapshot& snapshot,
                              framework::PreFilterResult* result) override;
  // Success (run only when a profile enables Filter without PreFilter).
  framework::Status Filter(const framework::CycleState& state, size_t slot,
                           const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // {v1.Pod.Spec.Volumes.NonSyntheticSources(): ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

 private:
  const Interner& interner_;
};

}  // namespace corral::plugins
