#pragma once
// UnmodeledVolumePlugin: the shared body of kube's volume plugins that Corral accepts by name but
// whose subject it does not model (VolumeZone, VolumeRestrictions, NodeVolumeLimits). Corral models
// no volume sources, claims, PersistentVolumes or CSI objects: a pod whose volumes would need one
// of these plugins has a claim or an ephemeral volume, and VolumeBinding reports such a pod at
// PreFilter. So these plugins skip every pod (PreFilter returns Skip, which also skips Filter);
// they exist so that configurations naming them load and expand as in kube, and they sign a pod
// with its volumes as kube's do.

#include <string>
#include <string_view>
#include <vector>

#include "corral/core/interner.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

class UnmodeledVolumePlugin : public framework::PreFilterPlugin,
                              public framework::FilterPlugin,
                              public framework::SignPlugin {
 public:
  std::string_view Name() const override { return name_; }

  // Skip.
  framework::Status PreFilter(framework::CycleState&, size_t, const framework::PodInfo&,
                              const framework::Snapshot&, framework::PreFilterResult*) override {
    return framework::Status::Skip();
  }
  // Success (run only when a profile enables Filter without PreFilter).
  framework::Status Filter(const framework::CycleState&, size_t, const framework::PodInfo&,
                           const framework::NodeInfo&) const override {
    return {};
  }
  // Filter always succeeds, so its verdict depends on nothing.
  bool FilterIsNodeLocal(const framework::PodInfo&) const override { return true; }

  // {v1.Pod.Spec.Volumes.NonSyntheticSources(): ...}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override {
    fragments->push_back(
        {std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
    return {};
  }

 protected:
  UnmodeledVolumePlugin(std::string_view name, const Interner& interner)
      : name_(name), interner_(interner) {}

 private:
  std::string_view name_;
  const Interner& interner_;
};
static_assert(framework::kImplements<UnmodeledVolumePlugin, framework::PreFilterPlugin,
                                     framework::FilterPlugin, framework::SignPlugin>);

}  // namespace corral::plugins
