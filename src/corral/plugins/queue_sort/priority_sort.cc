#include "corral/plugins/queue_sort/priority_sort.h"

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

Result<std::unique_ptr<framework::Plugin>> PrioritySort::New(const framework::PluginArgs* args,
                                                             framework::Handle& handle) {
  (void)handle;
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<PrioritySort>());
}

bool PrioritySort::Less(const framework::QueuedPodView& a,
                        const framework::QueuedPodView& b) const {
  const int32_t pa = a.pod->priority();
  const int32_t pb = b.pod->priority();
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

}  // namespace corral::plugins
