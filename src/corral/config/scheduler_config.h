#pragma once
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) from YAML or JSON: decoded with the
// doc toolkit (every problem as file:line: path: message), defaulted as kube's v1 defaults do
// (profiles merged with the default plugin set), and validated with kube's messages
// (pkg/scheduler/apis/config/validation/validation.go). Plugin args (pluginConfig[].args) are
// decoded into the typed args of each in-tree plugin; args for unknown plugins are an error, as
// kube's strict decoding makes them.

#include <string>
#include <string_view>

#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/framework/config.h"
#include "corral/framework/feature_gates.h"

namespace corral::config {

// Unknown fields (at every level, pluginConfig args included) are always errors with a "did you
// mean": kube-scheduler decodes its configuration strictly and has no option to relax that.
struct LoadConfigOptions {
  bool strict = false;  // every other warning is an error too
};

// Decodes, defaults and validates. On failure, every diagnostic is in `diags` and the Result holds
// an Error summarizing them.
Result<framework::SchedulerConfig> ParseSchedulerConfig(std::string_view text,
                                                        std::string_view file, Interner& interner,
                                                        const framework::FeatureGates& gates,
                                                        Diagnostics& diags,
                                                        const LoadConfigOptions& opts = {});
Result<framework::SchedulerConfig> LoadSchedulerConfig(const std::string& path, Interner& interner,
                                                       const framework::FeatureGates& gates,
                                                       Diagnostics& diags,
                                                       const LoadConfigOptions& opts = {});

}  // namespace corral::config
