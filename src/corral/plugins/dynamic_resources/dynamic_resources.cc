#include "corral/plugins/dynamic_resources/dynamic_resources.h"

namespace corral::plugins {

using framework::Status;

Result<std::unique_ptr<framework::Plugin>> DynamicResources::New(const framework::PluginArgs* args,
                                                                 framework::Handle&) {
  if (args != nullptr) return Error::Invalid("DynamicResources takes no args in Corral");
  return std::unique_ptr<framework::Plugin>(std::make_unique<DynamicResources>());
}

namespace {
bool HasClaims(const framework::PodInfo& pod) {
  return !pod.pod->resource_claims.empty();
}
}  // namespace

Status DynamicResources::PreFilter(framework::CycleState&, size_t, const framework::PodInfo& pod,
                                   const framework::Snapshot&, framework::PreFilterResult*) {
  return HasClaims(pod) ? Status::Unresolvable(kReason) : Status::Skip();
}

Status DynamicResources::Filter(const framework::CycleState&, size_t, const framework::PodInfo& pod,
                                const framework::NodeInfo&) const {
  return HasClaims(pod) ? Status::Unresolvable(kReason) : Status();
}

Status DynamicResources::PreScore(framework::CycleState&, size_t, const framework::PodInfo&,
                                  std::span<const framework::NodeInfo* const>) {
  return Status::Skip();
}

Status DynamicResources::Reserve(framework::CycleState&, const framework::PodInfo&, Symbol) {
  return {};
}
void DynamicResources::Unreserve(framework::CycleState&, const framework::PodInfo&, Symbol) {}
Status DynamicResources::PreBind(framework::CycleState&, const framework::PodInfo&, Symbol) {
  return Status::Skip();
}

Status DynamicResources::Sign(const framework::PodInfo& pod,
                              std::vector<framework::SignFragment>*) const {
  return HasClaims(pod) ? Status::Unschedulable("pod has ResourceClaims") : Status();
}

}  // namespace corral::plugins
