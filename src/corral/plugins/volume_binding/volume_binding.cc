#include "corral/plugins/volume_binding/volume_binding.h"

#include <string>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

Result<void> VolumeBindingArgs::Validate(std::string_view path) const {
  if (bind_timeout_seconds < 0) {
    std::string field = path.empty() ? std::string() : std::string(path) + ".";
    return Error::Invalid(
        field + "bindTimeoutSeconds: Invalid value: " + std::to_string(bind_timeout_seconds) +
        ": invalid BindTimeoutSeconds, should not be a negative value");
  }
  return {};
}

Result<std::unique_ptr<framework::Plugin>> VolumeBinding::New(const framework::PluginArgs* args,
                                                              framework::Handle& handle) {
  if (args != nullptr) {
    const auto* typed = dynamic_cast<const VolumeBindingArgs*>(args);
    if (typed == nullptr) return Error::Invalid("args are not of type VolumeBindingArgs");
    if (auto ok = typed->Validate(); !ok) return ok.error();
  }
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeBinding>(handle.interner()));
}

framework::Status VolumeBinding::PreFilter(framework::CycleState& state, size_t slot,
                                           const framework::PodInfo& pod,
                                           const framework::Snapshot& snapshot,
                                           framework::PreFilterResult* result) {
  (void)state;
  (void)slot;
  (void)snapshot;
  (void)result;
  if (HasClaimVolumes(*pod.pod)) return framework::Status::Unresolvable(kReason);
  return framework::Status::Skip();
}

framework::Status VolumeBinding::Filter(const framework::CycleState& state, size_t slot,
                                        const framework::PodInfo& pod,
                                        const framework::NodeInfo& node) const {
  (void)state;
  (void)slot;
  (void)node;
  if (HasClaimVolumes(*pod.pod)) return framework::Status::Unresolvable(kReason);
  return {};
}

framework::Status VolumeBinding::PreScore(framework::CycleState& state, size_t slot,
                                          const framework::PodInfo& pod,
                                          std::span<const framework::NodeInfo* const> nodes) {
  (void)state;
  (void)slot;
  (void)pod;
  (void)nodes;
  return framework::Status::Skip();
}

framework::Status VolumeBinding::Score(const framework::CycleState& state, size_t slot,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& node, int64_t* score) const {
  (void)state;
  (void)slot;
  (void)pod;
  (void)node;
  *score = 0;
  return {};
}

framework::Status VolumeBinding::Reserve(framework::CycleState& state,
                                         const framework::PodInfo& pod, Symbol node) {
  (void)state;
  (void)pod;
  (void)node;
  return {};
}

void VolumeBinding::Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                              Symbol node) {
  (void)state;
  (void)pod;
  (void)node;
}

framework::Status VolumeBinding::PreBind(framework::CycleState& state,
                                         const framework::PodInfo& pod, Symbol node) {
  (void)state;
  (void)pod;
  (void)node;
  return {};
}

framework::Status VolumeBinding::Sign(const framework::PodInfo& pod,
                                      std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
