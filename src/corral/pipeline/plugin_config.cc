#include "corral/pipeline/plugin_config.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

namespace corral::pipeline {

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

}  // namespace corral::pipeline
