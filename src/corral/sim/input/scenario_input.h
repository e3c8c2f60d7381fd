#pragma once
// The scenario format's intermediate form, shared by its two halves: scenario_decode.cc reads the
// YAML into these structs (types, ranges and enums checked, every field's node kept for positioned
// messages), and scenario_compile.cc turns them into a SimSpec (cross-references, templates through
// the manifest loader, the timed program). Only scenario.cc, scenario_decode.cc and
// scenario_compile.cc include this header; everyone else uses scenario.h.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/doc/decoder.h"
#include "corral/doc/node.h"
#include "corral/sim/input/fleet_scenario.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/spec.h"

namespace corral::sim::scenario_internal {

using doc::Node;

// ---- intermediate input structs -----------------------------------------------------------------

struct SchedulerIn {
  const Node* gates = nullptr;
  std::string config_path;
  const Node* config_node = nullptr;
  Distribution bind_latency = Distribution::Fixed(Duration{0});
  CostModel cost;
  bool workload_cycle = true;
};

struct PoolIn {
  const Node* self = nullptr;
  std::string name, prefix;
  int64_t count = 0;
  std::vector<Symbol> zones;
  int32_t racks = 0;
  const Node* labels = nullptr;
  const Node* taints = nullptr;
  const Node* resources = nullptr;
  const Node* tmpl = nullptr;
  bool has_count = false;
  std::string path;      // "nodePools[2]" or "clusters[1].nodePools[0]", for messages
  uint32_t cluster = 0;  // index into ScenarioIn::clusters (0 when there are none)
};

// A member cluster: its name, its scheduler settings and (flattened into ScenarioIn::pools) its
// node pools.
struct ClusterIn {
  const Node* self = nullptr;
  int32_t index = -1;  // its place in the file's `clusters`, once RemoveAbsentClusters dropped some
  const Node* name_node = nullptr;
  std::string name;
  SchedulerIn scheduler;
};

struct WorkloadIn {
  const Node* self = nullptr;
  std::string name, kind = "Pods", ns = "default";
  const Node* ns_node = nullptr;
  int64_t count = -1;
  Arrival arrival;
  bool arrival_set = false;
  int64_t start = 0;
  int32_t parallelism = 1;
  int32_t min_count = 0;
  Distribution duration = Distribution::Forever();
  bool recreate = true;
  std::string priority_class;
  const Node* priority_node = nullptr;
  const Node* labels = nullptr;
  const Node* resources = nullptr;
  const Node* node_selector = nullptr;
  const Node* tolerations = nullptr;
  const Node* spread = nullptr;
  const Node* affinity = nullptr;
  const Node* scheduler_name = nullptr;
  const Node* tmpl = nullptr;
  std::string cluster;  // the member cluster it runs in (scenarios with clusters)
  const Node* cluster_node = nullptr;
  FleetWorkloadIn fleet;  // a workload that arrives at the fleet (fleet_scenario.h)
};

struct OpIn {
  const Node* self = nullptr;
  std::string op;
  std::optional<int64_t> at;
  std::string pool, workload, priority_class;
  const Node* pool_node = nullptr;
  const Node* workload_node = nullptr;
  const Node* class_node = nullptr;
  int64_t count = -1;
  bool remove = false;
  int64_t duration = 0;
  bool has_duration = false;
  int32_t value = 0;
  bool has_value = false;
  std::vector<Symbol> namespaces;
  std::string stage = "Scheduled";
  double rate = 0;
  bool wait = false;
  std::string mode = "create";
  int64_t number = 1;
  int64_t interval = 500'000'000;
  bool has_interval = false;
  // scale: a workload controller of the manifests, by kind, namespace and name.
  std::string controller_kind, controller_name, controller_namespace = "default";
  const Node* controller_node = nullptr;
  int32_t replicas = -1;
};

struct ScenarioIn {
  std::string name, description;
  uint64_t seed = 1;
  int64_t duration = 0;
  int64_t sample_interval = 0;
  SchedulerIn scheduler;
  const Node* priority_classes = nullptr;
  const Node* namespaces = nullptr;
  std::vector<std::string> manifests;
  const Node* manifests_node = nullptr;
  std::vector<PoolIn> pools;
  std::vector<WorkloadIn> workloads;
  std::vector<OpIn> ops;
  std::vector<ClusterIn> clusters;
  const Node* clusters_node = nullptr;
  const Node* top_pools_node = nullptr;  // the top-level nodePools, when given
  FleetIn fleet;                         // fleet_scenario.h
};

// Decodes the scenario document `root` (a map) into `in`; every problem goes to the decoder's
// diagnostics and decoding goes on after it.
void DecodeScenario(doc::Decoder& d, const Node& root, ScenarioIn& in);

// Drops the clusters of opts.absent_clusters from `in` (contract of ScenarioOptions): their pools
// and fleet entries go, the remaining clusters keep their order. Problems go to `diags` at their
// positions in `file`; `in` is left as it was when there is one.
void RemoveAbsentClusters(ScenarioIn& in, std::string_view file, const Interner& interner,
                          Diagnostics& diags, const ScenarioOptions& opts);

// Compiles a decoded scenario into a spec (contract of scenario.h). `in` must outlive the call; its
// nodes point into the parsed document.
Result<SimSpec> CompileScenario(ScenarioIn& in, std::string_view file, const std::string& base_dir,
                                Interner& interner, Diagnostics& diags,
                                const ScenarioOptions& opts);

}  // namespace corral::sim::scenario_internal
