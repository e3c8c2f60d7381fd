#include "corral/framework/config.h"

namespace corral::framework {

Plugins DefaultPlugins(const FeatureGates& gates) {
  Plugins p;
  auto& mp = p.multi_point.enabled;
  mp = {
      {"SchedulingGates", 0},   {"PrioritySort", 0},     {"NodeUnschedulable", 0},
      {"NodeName", 0},          {"TaintToleration", 3},  {"NodeAffinity", 2},
      {"NodePorts", 0},         {"NodeResourcesFit", 1}, {"VolumeRestrictions", 0},
      {"NodeVolumeLimits", 0},  {"VolumeBinding", 0},    {"VolumeZone", 0},
      {"PodTopologySpread", 2}, {"InterPodAffinity", 2},
  };
  // DynamicResources joins before DefaultPreemption while the DRA gate is on (GA, locked on
  // in v1.37).
  if (gates.Enabled(Feature::kDynamicResourceAllocation)) mp.push_back({"DynamicResources", 0});
  mp.push_back({"DefaultPreemption", 0});
  if (gates.Enabled(Feature::kGenericWorkload)) mp.push_back({"GangScheduling", 0});
  mp.push_back({"NodeResourcesBalancedAllocation", 1});
  mp.push_back({"ImageLocality", 1});
  mp.push_back({"DefaultBinder", 0});
  // kube appends NodeDeclaredFeatures while its gate is on (GA and locked on in v1.37, beta and on
  // by default in v1.36, alpha and off in v1.35).
  if (gates.Enabled(Feature::kNodeDeclaredFeatures)) mp.push_back({"NodeDeclaredFeatures", 0});
  return p;
}

Plugins MergePlugins(const Plugins& d, const Plugins& c) {
  Plugins out;
  out.pre_enqueue = pipeline::MergePluginSet(d.pre_enqueue, c.pre_enqueue);
  out.queue_sort = pipeline::MergePluginSet(d.queue_sort, c.queue_sort);
  out.pre_filter = pipeline::MergePluginSet(d.pre_filter, c.pre_filter);
  out.filter = pipeline::MergePluginSet(d.filter, c.filter);
  out.post_filter = pipeline::MergePluginSet(d.post_filter, c.post_filter);
  out.pre_score = pipeline::MergePluginSet(d.pre_score, c.pre_score);
  out.score = pipeline::MergePluginSet(d.score, c.score);
  out.reserve = pipeline::MergePluginSet(d.reserve, c.reserve);
  out.permit = pipeline::MergePluginSet(d.permit, c.permit);
  out.pre_bind = pipeline::MergePluginSet(d.pre_bind, c.pre_bind);
  out.bind = pipeline::MergePluginSet(d.bind, c.bind);
  out.post_bind = pipeline::MergePluginSet(d.post_bind, c.post_bind);
  out.multi_point = pipeline::MergePluginSet(d.multi_point, c.multi_point);
  return out;
}

void ApplyDefaults(SchedulerConfig& config, const FeatureGates& gates) {
  if (config.profiles.empty()) config.profiles.emplace_back();
  Plugins defaults = DefaultPlugins(gates);
  for (auto& p : config.profiles) {
    if (p.scheduler_name.empty()) p.scheduler_name = "default-scheduler";
    p.plugins = MergePlugins(defaults, p.plugins);
  }
}

}  // namespace corral::framework
