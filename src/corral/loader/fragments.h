#pragma once
// Decoders for Kubernetes API fragments embedded in other inputs (KubeSchedulerConfiguration plugin
// args, simulator scenario templates), with the same validation and messages as the manifest
// loader. The decoder's current path is the fragment's path.

#include "corral/api/types.h"
#include "corral/doc/decoder.h"
#include "corral/doc/node.h"

namespace corral::loader {

void DecodeNodeAffinityFragment(doc::Decoder& d, const doc::Node& n, api::NodeAffinity& out);
void DecodeTopologySpreadConstraintFragment(doc::Decoder& d, const doc::Node& n,
                                            api::TopologySpreadConstraint& out);

}  // namespace corral::loader
