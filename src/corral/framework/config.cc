#include "corral/framework/config.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

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
  // DynamicResources joins before DefaultPreemption while the DRA gate is on (GA, locked on in
  // v1.37).
  if (gates.Enabled(Feature::kDynamicResourceAllocation)) mp.push_back({"DynamicResources", 0});
  mp.push_back({"DefaultPreemption", 0});
  if (gates.Enabled(Feature::kGenericWorkload)) mp.push_back({"GangScheduling", 0});
  mp.push_back({"NodeResourcesBalancedAllocation", 1});
  mp.push_back({"ImageLocality", 1});
  mp.push_back({"DefaultBinder", 0});
  return p;
}

namespace {

PluginSet MergePluginSet(const PluginSet& def, const PluginSet& custom) {
  absl::flat_hash_set<std::string> disabled_names;
  PluginSet out;
  for (const auto& d : custom.disabled) {
    out.disabled.push_back(d);
    disabled_names.insert(d);
  }
  for (const auto& d : def.disabled) {
    out.disabled.push_back(d);
    disabled_names.insert(d);
  }
  absl::flat_hash_map<std::string, size_t> custom_index;
  for (size_t i = 0; i < custom.enabled.size(); ++i) custom_index[custom.enabled[i].name] = i;
  absl::flat_hash_set<size_t> replaced;
  if (!disabled_names.contains("*")) {
    for (const auto& d : def.enabled) {
      if (disabled_names.contains(d.name)) continue;
      auto it = custom_index.find(d.name);
      if (it != custom_index.end()) {
        out.enabled.push_back(custom.enabled[it->second]);  // replaced in place, order preserved
        replaced.insert(it->second);
      } else {
        out.enabled.push_back(d);
      }
    }
  }
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced.contains(i)) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

}  // namespace

Plugins MergePlugins(const Plugins& d, const Plugins& c) {
  Plugins out;
  out.pre_enqueue = MergePluginSet(d.pre_enqueue, c.pre_enqueue);
  out.queue_sort = MergePluginSet(d.queue_sort, c.queue_sort);
  out.pre_filter = MergePluginSet(d.pre_filter, c.pre_filter);
  out.filter = MergePluginSet(d.filter, c.filter);
  out.post_filter = MergePluginSet(d.post_filter, c.post_filter);
  out.pre_score = MergePluginSet(d.pre_score, c.pre_score);
  out.score = MergePluginSet(d.score, c.score);
  out.reserve = MergePluginSet(d.reserve, c.reserve);
  out.permit = MergePluginSet(d.permit, c.permit);
  out.pre_bind = MergePluginSet(d.pre_bind, c.pre_bind);
  out.bind = MergePluginSet(d.bind, c.bind);
  out.post_bind = MergePluginSet(d.post_bind, c.post_bind);
  out.multi_point = MergePluginSet(d.multi_point, c.multi_point);
  return out;
}

SchedulerConfig DefaultSchedulerConfig(const FeatureGates& gates) {
  SchedulerConfig c;
  ApplyDefaults(c, gates);
  return c;
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
