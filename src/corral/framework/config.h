#pragma once
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as typed structs, after decoding.
// Defaults and the merge of a user's profile with the default plugin set follow kube's v1
// defaulting (pkg/scheduler/apis/config/v1/{defaults.go,default_plugins.go}).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corral/framework/feature_gates.h"
#include "corral/framework/handle.h"
#include "corral/pipeline/plugin_config.h"

namespace corral::framework {

using pipeline::PluginEntry;
using pipeline::PluginSet;

struct Plugins {
  PluginSet pre_enqueue, queue_sort, pre_filter, filter, post_filter, pre_score, score, reserve,
      permit, pre_bind, bind, post_bind, multi_point;
};

struct ProfileConfig {
  std::string scheduler_name = "default-scheduler";
  std::optional<int32_t> percentage_of_nodes_to_score;
  Plugins plugins;
  // pluginConfig: typed args by plugin name. Shared so a config can be copied cheaply.
  std::map<std::string, std::shared_ptr<const PluginArgs>, std::less<>> plugin_args;
};

struct SchedulerConfig {
  int32_t parallelism = 16;
  std::optional<int32_t> percentage_of_nodes_to_score;  // 0 or unset ⇒ adaptive
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  std::vector<ProfileConfig> profiles;
};

// kube's v1.37 default plugin set: every default plugin under multiPoint with its score weight.
Plugins DefaultPlugins(const FeatureGates& gates);
// kube's mergePlugins: default enabled plugins (minus disabled, replaced in place by custom entries
// with the same name), then the remaining custom ones; "*" disables all defaults of that point.
Plugins MergePlugins(const Plugins& defaults, const Plugins& custom);
// Applies defaulting to a decoded config: at least one profile; each profile's plugins merged with
// the defaults.
void ApplyDefaults(SchedulerConfig& config, const FeatureGates& gates);

}  // namespace corral::framework
