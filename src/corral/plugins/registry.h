#pragma once
// The in-tree plugin registry: the only place that sees every plugin (kube's plugins/registry.go).

#include "corral/framework/registry.h"

namespace corral::plugins {

framework::Registry NewInTreeRegistry();

}  // namespace corral::plugins
