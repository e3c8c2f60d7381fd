#pragma once
// ImageLocality (kube's imagelocality/image_locality.go): favours nodes that already hold the pod's
// container images, weighted by how widely each image has spread (to avoid piling pods onto the few
// nodes that pulled an image first).
//
// For a node, over the images of init containers then containers (duplicates count each time):
//   sum = Σ int64(float64(size of the image on the node) * (nodes holding it / all nodes))
//   clamp sum to [23 MiB, 1000 MiB * number of containers]
//   score = 100 * (sum - 23 MiB) / (1000 MiB * containers - 23 MiB)
// Image names are canonicalized as kube's normalizedImageName (":latest" appended when the name has
// no tag or digest); a node reports every name of an image.
//
// Differences from kube, both invisible unless nodes disagree on an image or pods mount image
//   volumes: - kube takes an image's size from the first node that reported the name to its cache;
//     Corral uses the size the scored node reports.
//   - kube (ImageVolume) also scores image volume references; Corral's object model has no
//     image volumes.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class ImageLocality final : public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = names::kImageLocality;
  static constexpr std::string_view kImageNamesSignerKey = "v1.Pod.Spec.CanonicalImageNames()";
  static constexpr int64_t kMb = 1024 * 1024;
  static constexpr int64_t kMinThreshold = 23 * kMb;
  static constexpr int64_t kMaxContainerThreshold = 1000 * kMb;

  // Takes no args (kube has no ImageLocalityArgs): `args` must be null.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit ImageLocality(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  // Resolves the pod's canonical image names and their spread over the snapshot once per cycle
  // (kube has no PreScore and redoes this per node). Never skips.
  framework::Status PreScore(framework::CycleState& state, size_t slot,
                             const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes) override;
  // PreScore reads only the pod's images and the nodes' image lists, which placing a pod does
  // not change.
  const framework::PreScoreExtensions* PreScoreExtensions() const override {
    return framework::PodOnlyPreScoreExtensions();
  }
  framework::Status Score(const framework::CycleState& state, size_t slot,
                          const framework::PodInfo& pod, const framework::NodeInfo& node,
                          int64_t* score) const override;

  // {kImageNamesSignerKey: JSON array of the canonical image names of init containers and
  // containers, sorted, duplicates kept (the score counts each container)}.
  framework::Status Sign(const framework::PodInfo& pod,
                         std::vector<framework::SignFragment>* fragments) const override;

  // kube's normalizedImageName: `name` + ":latest" unless the last ':' comes after the last '/'.
  static std::string NormalizedImageName(std::string_view name);
  // kube's calculatePriority.
  static int64_t CalculatePriority(int64_t sum_scores, int64_t num_containers);

 private:
  framework::Handle& handle_;
};
static_assert(framework::kImplements<ImageLocality, framework::PreScorePlugin,
                                     framework::ScorePlugin, framework::SignPlugin>);

}  // namespace corral::plugins
