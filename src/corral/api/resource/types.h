#pragma once
// resource.k8s.io/v1 objects for Dynamic Resource Allocation with structured parameters:
// DeviceClass, ResourceSlice, ResourceClaim and ResourceClaimTemplate, as the scheduler reads them
// (k8s.io/api/resource/v1). Fields the scheduler does not act on (opaque driver config, device
// status data) are not kept; fields that would change allocation but that Corral does not model are
// rejected by the loader (docs/formats.md lists both).
//
// CEL selectors are compiled once, when the object is loaded; a selector holds its program.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/api/types.h"
#include "corral/cel/cel.h"

namespace corral::api::resource {

// A CEL device selector with its compiled program (never null in a loaded object).
struct DeviceSelector {
  std::string expression;
  std::shared_ptr<const cel::Program> program;
};

struct DeviceClass {
  ObjectMeta meta;
  std::vector<DeviceSelector> selectors;
  // spec.extendedResourceName (DRAExtendedResource): the extended resource a pod may request to
  // get devices of this class; empty when unset. Every class also backs its implicit name
  // "deviceclass.resource.kubernetes.io/<class name>", interned by the loader.
  Symbol extended_resource_name;
  Symbol implicit_extended_resource_name;
};

struct Counter {
  Symbol name;
  Quantity value;
};

// A named set of counters a ResourceSlice shares between its devices (partitionable devices).
struct CounterSet {
  Symbol name;
  std::vector<Counter> counters;
};

// The counters a device consumes from one of its slice's counter sets.
struct DeviceCounterConsumption {
  Symbol counter_set;
  std::vector<Counter> counters;
  // compatibilityGroups (DRADeviceCompatibilityGroups): the groups under which the device may share
  // the counter set with other devices; empty when unset (an empty list reads as unset).
  std::vector<Symbol> compatibility_groups;
};

// A device taint (DRADeviceTaints). NoSchedule and NoExecute keep the device from being allocated
// to a request that does not tolerate the taint; None has no effect on allocation.
enum class DeviceTaintEffect : uint8_t { kNoSchedule, kNoExecute, kNone };

struct DeviceTaint {
  Symbol key;
  Symbol value;  // empty when unset
  DeviceTaintEffect effect = DeviceTaintEffect::kNoSchedule;
};

enum class DeviceTolerationOperator : uint8_t { kEqual, kExists };

// A request's toleration of device taints. tolerationSeconds only matters for eviction, which the
// scheduler does not do, so it is not kept.
struct DeviceToleration {
  Symbol key;  // empty: every key (operator Exists)
  DeviceTolerationOperator op = DeviceTolerationOperator::kEqual;
  Symbol value;
  std::optional<DeviceTaintEffect> effect;  // nullopt: every effect
};

// A capacity's requestPolicy (consumable capacity): how a request for the capacity is defaulted and
// rounded. At most one of valid_values and valid_range is set (the loader checks kube's rules).
struct CapacityRequestPolicyRange {
  Quantity min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
};
struct CapacityRequestPolicy {
  std::optional<Quantity> default_value;
  std::vector<Quantity> valid_values;  // ascending
  std::optional<CapacityRequestPolicyRange> valid_range;
};

struct Device {
  Symbol name;
  // Attribute and capacity names split into domain and id (an unqualified name takes the driver
  // as its domain); the views point into the interner. Kept in input order.
  std::vector<cel::DeviceAttribute> attributes;
  std::vector<cel::DeviceCapacity> capacity;
  // The requestPolicy of each capacity entry, parallel to `capacity`; empty when none has one.
  std::vector<std::optional<CapacityRequestPolicy>> capacity_policies;
  std::vector<DeviceCounterConsumption> consumes_counters;
  // allowMultipleAllocations: the device is shared between allocations, each consuming a part of
  // its capacity.
  bool allow_multiple_allocations = false;
  // Per-device node selection (slice.spec.perDeviceNodeSelection): exactly one is set then.
  Symbol node_name;
  std::optional<NodeSelector> node_selector;
  bool all_nodes = false;
  std::vector<DeviceTaint> taints;  // the slice's own; DeviceTaintRules add theirs when allocating
  // Device binding conditions (DRADeviceBindingConditions, beta and on in kube v1.37): the
  // condition types that must all be True in the claim's status.devices entry of this device before
  // a pod using it is bound, and those of which any True makes the binding fail. bindsToNode pins
  // an allocation of the device to the node it was made for.
  std::vector<Symbol> binding_conditions;
  std::vector<Symbol> binding_failure_conditions;
  bool binds_to_node = false;
};

struct ResourceSlice {
  ObjectMeta meta;
  Symbol driver;
  Symbol pool_name;
  int64_t pool_generation = 0;
  int64_t resource_slice_count = 1;
  // Exactly one of node_name, node_selector, all_nodes, per_device_node_selection.
  Symbol node_name;
  std::optional<NodeSelector> node_selector;
  bool all_nodes = false;
  bool per_device_node_selection = false;
  std::vector<Device> devices;
  std::vector<CounterSet> shared_counters;
};

enum class AllocationMode : uint8_t { kExactCount, kAll };

// One entry of a request's capacity.requests. `domain` is empty for an unqualified name, which
// refers to the capacity of that id in the device's driver domain.
struct CapacityRequest {
  std::string_view domain;
  std::string_view id;
  Quantity value;
};

// The capacity an allocation consumes of a shared device, by the device's capacity name.
struct ConsumedCapacity {
  std::string_view domain;
  std::string_view id;
  Quantity value;
};

// ExactDeviceRequest, and the DeviceSubRequest of firstAvailable (which has a name and
// no adminAccess).
struct DeviceRequestSpec {
  Symbol name;  // sub-requests only
  // The request name allocation results carry: the request's, or "<request>/<sub-request>".
  Symbol result_name;
  Symbol device_class_name;
  std::vector<DeviceSelector> selectors;
  AllocationMode allocation_mode = AllocationMode::kExactCount;
  int64_t count = 1;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  bool has_capacity = false;  // capacity set (DRAConsumableCapacity), even with no requests
  std::vector<CapacityRequest> capacity_requests;
};

struct DeviceRequest {
  Symbol name;
  std::optional<DeviceRequestSpec> exactly;
  std::vector<DeviceRequestSpec> first_available;
};

// A matchAttribute constraint: every device allocated for `requests` (all requests when empty)
// must have the attribute, with the same value.
struct DeviceConstraint {
  std::vector<Symbol> requests;
  Symbol match_attribute;  // fully qualified ("domain/id")
  std::string_view match_domain, match_id;
};

// DeviceTaintRule (resource.k8s.io v1alpha3/v1beta2): `taint` applies to every device its selector
// picks (unset fields match every driver, pool, device), as if the device's slice listed it.
struct DeviceTaintRule {
  ObjectMeta meta;
  std::optional<Symbol> driver;
  std::optional<Symbol> pool;
  std::optional<Symbol> device;
  DeviceTaint taint;
};

struct DeviceRequestAllocationResult {
  Symbol request;  // "<request>" or "<request>/<subrequest>"
  Symbol driver;
  Symbol pool;
  Symbol device;
  bool admin_access = false;
  // A share of a device with allowMultipleAllocations (kube's shareID is set) and the capacity the
  // share consumes.
  bool shared = false;
  std::vector<ConsumedCapacity> consumed_capacity;
  // The device's binding conditions, copied from its slice when allocated.
  std::vector<Symbol> binding_conditions;
  std::vector<Symbol> binding_failure_conditions;
};

struct AllocationResult {
  std::vector<DeviceRequestAllocationResult> devices;
  std::optional<NodeSelector> node_selector;  // nullopt: available on every node
  // status.allocation.allocationTimestamp: when PreBind first wrote the allocation (set only while
  // DRADeviceBindingConditions is on); the binding timeout counts from it.
  std::optional<TimePoint> allocation_timestamp;
};

enum class ConditionStatus : uint8_t { kTrue, kFalse, kUnknown };

// A metav1.Condition of a device's status, as drivers write them.
struct Condition {
  Symbol type;
  ConditionStatus status = ConditionStatus::kUnknown;
  std::string reason;
  std::string message;
};

// One entry of a claim's status.devices (DRAResourceClaimDeviceStatus): the conditions a driver
// reports for an allocated device. Entries are matched to allocation results by driver, pool and
// device (kube's getAllocatedDeviceStatus ignores shareID).
struct AllocatedDeviceStatus {
  Symbol driver;
  Symbol pool;
  Symbol device;
  std::vector<Condition> conditions;
};

struct ConsumerReference {
  Symbol resource;  // "pods", or "podgroups" for a PodGroup's claim (DRAWorkloadResourceClaims)
  Symbol name;
  Symbol uid;
};

struct ResourceClaimSpec {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
};

struct ResourceClaim {
  ObjectMeta meta;
  ResourceClaimSpec spec;
  // status
  std::optional<AllocationResult> allocation;
  std::vector<ConsumerReference> reserved_for;
  std::vector<AllocatedDeviceStatus> devices;  // status.devices
};

struct ResourceClaimTemplate {
  ObjectMeta meta;
  ResourceClaimSpec spec;
};

// kube's ResourceClaimReservedForMaxSize: a claim is reserved for at most this many consumers.
inline constexpr size_t kReservedForMaxSize = 256;

// One entry of a scheduling.k8s.io PodGroup's spec.resourceClaims (DRAWorkloadResourceClaims):
// exactly one of the two sources is set. A pod of the group shares the claim when its own
// spec.resourceClaims has an entry with the same name and the same source.
struct PodGroupResourceClaim {
  Symbol name;
  Symbol resource_claim_name;
  Symbol resource_claim_template_name;
  // status.resourceClaimStatuses: the claim made from the template for the group (empty until the
  // resourceclaim controller made it).
  Symbol generated_claim_name;
};

// The resource claims of one PodGroup. They are kept with the resource.k8s.io objects (not in
// api::PodGroup) so that the DRA plugin and store find them by the group's namespace and name.
struct PodGroupClaims {
  Symbol namespace_;
  Symbol pod_group;
  Symbol uid;
  std::vector<PodGroupResourceClaim> claims;  // at most 4, unique names
};

// All resource.k8s.io objects of an input, and the PodGroups' resource claims.
struct ResourceObjects {
  std::vector<DeviceClass> device_classes;
  std::vector<ResourceSlice> resource_slices;
  std::vector<ResourceClaim> resource_claims;
  std::vector<ResourceClaimTemplate> resource_claim_templates;
  std::vector<DeviceTaintRule> device_taint_rules;
  std::vector<PodGroupClaims> pod_group_claims;

  bool empty() const {
    return device_classes.empty() && resource_slices.empty() && resource_claims.empty() &&
           resource_claim_templates.empty() && device_taint_rules.empty() &&
           pod_group_claims.empty();
  }
};

}  // namespace corral::api::resource
