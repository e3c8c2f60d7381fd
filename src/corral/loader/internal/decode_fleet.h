#pragma once
// Per-kind decoders of the fleet loader (corral/loader/fleet_loader.h). Internal.

#include "corral/api/cluster.h"
#include "corral/doc/decoder.h"

namespace corral::loader::internal {

// Karmada (decode_fleet_karmada.cc).
void DecodeKarmadaCluster(doc::Decoder& d, const doc::Node& root, api::Cluster& out);
// `cluster_scoped`: ClusterResourceBinding.
void DecodeResourceBinding(doc::Decoder& d, const doc::Node& root, bool cluster_scoped,
                           api::FleetWork& out);

// Kueue (decode_fleet_kueue.cc).
void DecodeMultiKueueCluster(doc::Decoder& d, const doc::Node& root, api::Cluster& out);
void DecodeMultiKueueConfig(doc::Decoder& d, const doc::Node& root, api::MultiKueueConfig& out);
void DecodeKueueWorkload(doc::Decoder& d, const doc::Node& root, api::FleetWork& out);
void DecodeDispatcherProfile(doc::Decoder& d, const doc::Node& root, api::DispatcherProfile& out);

}  // namespace corral::loader::internal
