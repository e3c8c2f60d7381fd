#pragma once
// Per-kind decoders of the fleet loader (corral/loader/fleet_loader.h). Internal.

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/doc/decoder.h"

namespace corral::loader::internal {

// Karmada (decode_fleet_karmada.cc).
void DecodeKarmadaCluster(doc::Decoder& d, const doc::Node& root, api::Cluster& out);
// `cluster_scoped`: ClusterResourceBinding.
void DecodeResourceBinding(doc::Decoder& d, const doc::Node& root, bool cluster_scoped,
                           api::FleetWork& out);

// policy.karmada.io PropagationPolicy / ClusterPropagationPolicy: the resource selectors and the
// placement a matched template's binding gets.
struct ResourceSelector {
  Symbol api_version;
  Symbol kind;
  Symbol namespace_;
  Symbol name;
  std::optional<api::LabelSelector> label_selector;
};
struct PropagationPolicy {
  api::ObjectMeta meta;
  bool cluster_scoped = false;
  std::vector<ResourceSelector> selectors;
  api::Placement placement;
  int32_t priority = 0;  // spec.priority, the explicit priority among matching policies
  // spec.schedulePriority with priorityClassSource KubePriorityClass: the PriorityClass whose value
  // and preemptionPolicy the bindings of the templates it claims get; the line of the name.
  Symbol priority_class_name;
  uint32_t priority_class_line = 0;
};
void DecodePlacement(doc::Decoder& d, const doc::Node& n, api::Placement& out);
// spec.schedulerName of a binding or policy: Corral is karmada-scheduler, whose name is
// "default-scheduler" (also the default when empty); any other name is an error, since that
// scheduler, not Karmada's, would place the work.
void CheckKarmadaSchedulerName(doc::Decoder& d, const doc::Node& n);
void DecodePropagationPolicy(doc::Decoder& d, const doc::Node& root, bool cluster_scoped,
                             PropagationPolicy& out);

// apps/v1 Deployment, StatefulSet and batch/v1 Job as resource templates: replicas as Karmada's
// interpreter reads them and the pod template's requests (Karmada's AddPodTemplateRequest).
struct ResourceTemplate {
  api::ObjectMeta meta;
  Symbol api_version;
  Symbol kind;
  int32_t replicas = 0;
  api::ResourceList request;
  Symbol priority_class_name;
  std::shared_ptr<const api::Pod> pod;  // spec.template
};
void DecodeResourceTemplate(doc::Decoder& d, const doc::Node& root, std::string_view kind,
                            ResourceTemplate& out);

// Kueue (decode_fleet_kueue.cc).
void DecodeMultiKueueCluster(doc::Decoder& d, const doc::Node& root, api::Cluster& out);
void DecodeMultiKueueConfig(doc::Decoder& d, const doc::Node& root, api::MultiKueueConfig& out);
void DecodeKueueWorkload(doc::Decoder& d, const doc::Node& root, api::FleetWork& out);
void DecodeDispatcherProfile(doc::Decoder& d, const doc::Node& root, api::DispatcherProfile& out);

}  // namespace corral::loader::internal
