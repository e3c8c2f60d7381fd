#include "corral/plugins/registry.h"

#include "corral/core/check.h"
#include "corral/plugins/names.h"
// Plugin headers (one per in-tree plugin), alphabetical.
#include "corral/plugins/image_locality/image_locality.h"
#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/node_resources/balanced_allocation.h"
#include "corral/plugins/node_resources/fit.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"

namespace corral::plugins {

namespace {
template <class F>
void Add(framework::Registry& r, std::string_view name, F factory) {
  auto st = r.Register(std::string(name), std::move(factory));
  CORRAL_CHECK_MSG(st.ok(), "duplicate in-tree plugin");
}
}  // namespace

framework::Registry NewInTreeRegistry() {
  framework::Registry r;
  // Entries: Add(r, names::kX, &XPlugin::New); — alphabetical by name.
  Add(r, names::kImageLocality, &ImageLocality::New);
  Add(r, names::kInterPodAffinity, &InterPodAffinity::New);
  Add(r, names::kInterPodAffinity, &InterPodAffinity::New);
  Add(r, names::kNodeResourcesBalancedAllocation, &NodeResourcesBalancedAllocation::New);
  Add(r, names::kNodeResourcesFit, &NodeResourcesFit::New);
  Add(r, names::kPodTopologySpread, &PodTopologySpread::New);
  Add(r, names::kPodTopologySpread, &PodTopologySpread::New);
  return r;
}

}  // namespace corral::plugins
