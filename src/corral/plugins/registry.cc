#include "corral/plugins/registry.h"

#include "corral/core/check.h"
#include "corral/plugins/names.h"
// Plugin headers (one per in-tree plugin), alphabetical.
#include "corral/plugins/default_binder/default_binder.h"
#include "corral/plugins/default_preemption/default_preemption.h"
#include "corral/plugins/dynamic_resources/dynamic_resources.h"
#include "corral/plugins/gang_scheduling/gang_scheduling.h"
#include "corral/plugins/image_locality/image_locality.h"
#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/node_affinity/node_affinity.h"
#include "corral/plugins/node_declared_features/node_declared_features.h"
#include "corral/plugins/node_name/node_name.h"
#include "corral/plugins/node_ports/node_ports.h"
#include "corral/plugins/node_resources/balanced_allocation.h"
#include "corral/plugins/node_resources/fit.h"
#include "corral/plugins/node_unschedulable/node_unschedulable.h"
#include "corral/plugins/node_volume_limits/node_volume_limits.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"
#include "corral/plugins/queue_sort/priority_sort.h"
#include "corral/plugins/scheduling_gates/scheduling_gates.h"
#include "corral/plugins/taint_toleration/taint_toleration.h"
#include "corral/plugins/volume_binding/volume_binding.h"
#include "corral/plugins/volume_restrictions/volume_restrictions.h"
#include "corral/plugins/volume_zone/volume_zone.h"

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
  Add(r, names::kDefaultBinder, &DefaultBinder::New);
  Add(r, names::kDynamicResources, &DynamicResources::New);
  Add(r, names::kDefaultPreemption, &DefaultPreemption::New);
  Add(r, names::kGangScheduling, &GangScheduling::New);
  Add(r, names::kImageLocality, &ImageLocality::New);
  Add(r, names::kInterPodAffinity, &InterPodAffinity::New);
  Add(r, names::kNodeAffinity, &NodeAffinity::New);
  Add(r, names::kNodeDeclaredFeatures, &NodeDeclaredFeatures::New);
  Add(r, names::kNodeName, &NodeName::New);
  Add(r, names::kNodePorts, &NodePorts::New);
  Add(r, names::kNodeResourcesBalancedAllocation, &NodeResourcesBalancedAllocation::New);
  Add(r, names::kNodeResourcesFit, &NodeResourcesFit::New);
  Add(r, names::kNodeUnschedulable, &NodeUnschedulable::New);
  Add(r, names::kNodeVolumeLimits, &NodeVolumeLimits::New);
  Add(r, names::kPodTopologySpread, &PodTopologySpread::New);
  Add(r, names::kPrioritySort, &PrioritySort::New);
  Add(r, names::kSchedulingGates, &SchedulingGates::New);
  Add(r, names::kTaintToleration, &TaintToleration::New);
  Add(r, names::kVolumeBinding, &VolumeBinding::New);
  Add(r, names::kVolumeRestrictions, &VolumeRestrictions::New);
  Add(r, names::kVolumeZone, &VolumeZone::New);
  return r;
}

}  // namespace corral::plugins
