#pragma once
// PreBindWaitPlugin: a PreBind plugin that may hold a pod in its binding cycle. kube's PreBind runs
// in the binding goroutine and may block there (DynamicResources polls device binding conditions);
// Corral's scheduler runs binding inline, so such a plugin returns Wait instead: the pod stays
// assumed, not bound, and the scheduler calls the plugin's PreBind again every
// PreBindPollInterval on its injected clock (the later PreBind plugins, Bind and PostBind run once
// it returns Success; an error unreserves the pod, as a failed binding cycle does). PreBind must
// therefore be idempotent for a pod it asked to wait.

#include "corral/core/clock.h"
#include "corral/framework/plugin.h"

namespace corral::framework {

class PreBindWaitPlugin : public virtual Plugin {
 public:
  // How long after a PreBind that returned Wait the scheduler calls PreBind again.
  virtual Duration PreBindPollInterval() const = 0;
};

}  // namespace corral::framework
