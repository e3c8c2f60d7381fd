#include "corral/fleet/plugins/taint_toleration/taint_toleration.h"

#include "corral/api/selectors.h"

#include "fmt/format.h"

namespace corral::fleet {

namespace {

std::string_view EffectName(api::TaintEffect e) {
  switch (e) {
    case api::TaintEffect::kNoSchedule:
      return "NoSchedule";
    case api::TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case api::TaintEffect::kNoExecute:
      return "NoExecute";
    case api::TaintEffect::kNone:
      break;
  }
  return "";
}

}  // namespace

std::string TaintToString(const api::Taint& taint, const Interner& interner) {
  std::string_view key = interner.Str(taint.key);
  std::string_view value = interner.Str(taint.value);
  std::string_view effect = EffectName(taint.effect);
  if (effect.empty()) {
    return value.empty() ? std::string(key) : fmt::format("{}={}:", key, value);
  }
  return value.empty() ? fmt::format("{}:{}", key, effect)
                       : fmt::format("{}={}:{}", key, value, effect);
}

framework::Status TaintToleration::Filter(const api::FleetWork& work,
                                          const api::Cluster& cluster) const {
  if (work.TargetContains(cluster.meta.name)) return {};
  const api::Taint* taint = api::FindUntoleratedTaint(
      cluster.taints, work.placement.cluster_tolerations, api::kDoNotScheduleTaints);
  if (taint == nullptr) return {};
  return framework::Status::WithOwnedReason(
      framework::Code::kUnschedulable,
      fmt::format("cluster(s) had untolerated taint {{{}}}", TaintToString(*taint, interner_)));
}

}  // namespace corral::fleet
