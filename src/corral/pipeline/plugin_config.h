#pragma once
// The configured plugin set of one extension point, for any level: enabled plugins with their score
// weights and disabled names ("*" disables every default), and kube's merge of a user's set with
// the defaults (pkg/scheduler/apis/config/v1/default_plugins.go, mergePluginSet).

#include <cstdint>
#include <string>
#include <vector>

namespace corral::pipeline {

struct PluginEntry {
  std::string name;
  int32_t weight = 0;  // Score only; 0 ⇒ 1
  bool operator==(const PluginEntry&) const = default;
};

struct PluginSet {
  std::vector<PluginEntry> enabled;
  std::vector<std::string> disabled;  // may contain "*"
};

// kube's mergePluginSet: the default enabled plugins minus the disabled ones (a custom entry of the
// same name replaces a default in place, keeping its position), then the remaining custom ones; "*"
// in either disabled list drops every default. The disabled list is the custom one, then the
// default one.
PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom);

}  // namespace corral::pipeline
