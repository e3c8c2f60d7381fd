#pragma once
// SimSpec: what a simulation runs, independent of the input format. Scenario YAML (scenario.h),
// plain manifests (manifests.h), scheduler_perf configs (perf_config.h) and Alibaba traces
// (trace.h) all compile into one SimSpec, which the Engine (engine.h) executes.
//
// Model:
//  - Node pools: a Node template stamped out `count` times (names `<prefix><i>`), with zone/rack
//    labels and label rules applied per node, or rendered per index by a callback
//    (scheduler_perf templates).
//  - Pod templates: a validated, defaulted api::Pod; pods are created lazily from it at arrival.
//  - Workloads: streams of arrivals of one pod template. Each arrival creates `pods_per_arrival`
//    pods (a Job's parallelism or a gang); arrivals come as one burst, at a fixed rate, as a
//    Poisson process, or at explicit times (traces, manifests). Pods run for a sampled duration
//    after binding, then complete.
//  - A program of ops, executed in order in virtual time (scheduler_perf style): each op may wait
//    for an absolute time (`at`), and some block until a condition holds (barrier, createPods with
//    wait, sleep).
//  - Clusters: none (one cluster, every input today), or one member per ClusterSpec with its own
//    scheduler settings; pools and workloads name their cluster by index.
//
// Ownership: a SimSpec owns everything it refers to, including the Interner-interned symbols'
// meaning; the Interner that interned them must outlive the spec and be the one the Engine's
// scheduler uses.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corral/api/controllers.h"
#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/clock.h"
#include "corral/core/result.h"
#include "corral/framework/config.h"
#include "corral/framework/feature_gates.h"
#include "corral/sim/distribution.h"

namespace corral::sim {

inline constexpr uint32_t kNone = UINT32_MAX;

struct FleetSpec;  // fleet_spec.h

// A label set on each node of a pool by index `i` (0-based within the pool's lifetime).
struct LabelRule {
  enum class Mode : uint8_t {
    kCycle,   // values[i % n]
    kRandom,  // values[rng % n] (scheduler_perf labelNodePrepareStrategy)
    kUnique,  // prefix + i (scheduler_perf uniqueNodeLabelStrategy)
  };
  Mode mode = Mode::kCycle;
  Symbol key;
  std::vector<Symbol> values;
  std::string prefix;
};

struct NodePool {
  std::string name;
  std::string name_prefix;    // node i is named name_prefix + i
  api::Node tmpl;             // meta.name is replaced; labels are extended per node
  int64_t initial_count = 0;  // created by the compiled createNodes op (informational)
  // Zones round-robin on topology.kubernetes.io/zone; racks (when > 0) on topology.corral.dev/rack
  // as "<zone>-rack-<k>", k = (i / zones) % racks_per_zone.
  std::vector<Symbol> zones;
  int32_t racks_per_zone = 0;
  std::vector<LabelRule> label_rules;
  // When set, node i is this callback's result (its name is kept if non-empty). Errors stop the run
  // as input errors.
  std::function<Result<api::Node>(int64_t index)> render;
  uint32_t cluster = 0;  // index into SimSpec::clusters (0: the only cluster)
};

struct PodTemplate {
  std::string name;         // for messages
  std::string name_prefix;  // pod names: name_prefix + counter
  api::Pod pod;             // validated and defaulted; meta.name replaced per pod
  // When set, pod i of this template is built from the callback's result (scheduler_perf templates
  // that use {{.Index}}); the returned pointer must stay valid for the run. meta.name of the result
  // is used if `keep_rendered_name`, else the engine names it.
  std::function<Result<const api::Pod*>(int64_t index, int64_t count)> render;
  bool keep_rendered_name = false;
};

struct ExplicitArrival {
  int64_t time_ns = 0;
  int64_t duration_ns = kForeverNs;  // run time after binding
  uint32_t tmpl = 0;                 // index into SimSpec::pod_templates
  Symbol name;                       // empty ⇒ engine names it
};

struct Arrival {
  enum class Kind : uint8_t { kBurst, kFixedRate, kPoisson, kExplicit };
  Kind kind = Kind::kBurst;
  double rate_per_s = 0;         // kFixedRate, kPoisson
  int64_t count = -1;            // max arrivals; -1 = unlimited (until stop or the end of the run)
  int64_t stop_ns = kForeverNs;  // no arrivals at or after this time (relative to run start)
};

enum class WorkloadKind : uint8_t { kPods, kJob, kGang };

struct Workload {
  std::string name;
  WorkloadKind kind = WorkloadKind::kPods;
  uint32_t tmpl = 0;
  int32_t pods_per_arrival = 1;  // Job parallelism, gang size
  int32_t min_count = 0;         // gang minCount (0 ⇒ pods_per_arrival)
  Arrival arrival;
  Distribution duration = Distribution::Forever();
  std::vector<ExplicitArrival> explicit_arrivals;  // kExplicit, sorted by time
  bool recreate_on_evict = true;  // evicted pods (drain, node removal) come back as new pods
  bool collect_metrics = false;   // counted by the scheduler_perf throughput collector
  bool wait = false;              // the starting op blocks until all its pods are bound
  std::string group;              // barrier/deletePods grouping key (namespace), informational
  uint32_t cluster = 0;           // index into SimSpec::clusters (0: the only cluster)
  // Arrives at the fleet (SimSpec::fleet) as one work item per arrival instead of in `cluster`.
  uint32_t fleet_work = kNone;  // index into FleetSpec::works
  // A workload controller's pods (index into SimSpec::controllers): starting the workload starts
  // the controller, which then creates, recreates and deletes its pods (sim/controllers/).
  uint32_t controller = kNone;
  // scheduler_perf's createPods steadyState: for steady_ns after the starting op, each pod that
  // gets bound is deleted (its duration is 0) and a new pod of the template is created in its
  // place; the starting op blocks for that time, then stops the workload. 0: not steady.
  int64_t steady_ns = 0;
};

struct ChurnSpec {
  // kCreate: one object per template each tick (at most `number` ticks; 0: no limit).
  // kRecreate (scenarios): `number` objects per template are created at once, then each tick
  // replaces the one of the ring slot.
  // kRing (scheduler_perf's `mode: recreate`, kube's churnOp): each tick, for each template, the
  // object of ring slot `tick % number` is deleted if there is one, else one is created there.
  enum class Mode : uint8_t { kCreate, kRecreate, kRing };
  Mode mode = Mode::kCreate;
  int64_t number = 1;  // ring slots per template (kRecreate, kRing); ticks (kCreate; 0: no limit)
  int64_t interval_ns = 500'000'000;
  std::vector<uint32_t> node_pools;  // templates that are nodes
  std::vector<uint32_t>
      workloads;  // pods: internal workloads (never started) naming the pod template
  Symbol ns;
  // No churn at or after this time. kForeverNs: until the program ends (kube's semantics) when the
  // run has no duration, else until the end of the run.
  int64_t stop_ns = kForeverNs;
};

struct Op {
  enum class Kind : uint8_t {
    kCreateNodes,      // pool, count
    kDeleteNodes,      // pool (or all), count: newest first
    kCordon,           // pool, count: oldest first among schedulable
    kUncordon,         // pool, count (-1 = all)
    kDrain,            // pool, count: cordon + evict (and delete the nodes when `remove`)
    kStartWorkload,    // workload
    kStopWorkload,     // workload
    kBarrier,          // until every (matching) pod is bound (or attempted)
    kSleep,            // duration
    kChurn,            // churn (background until the program ends)
    kDeletePods,       // namespace/selector at rate (0 = all at once)
    kSetPriority,      // priority class value for pods created from now on
    kStartCollecting,  // scheduler_perf startCollectingMetrics
    kStopCollecting,
    kScale,        // controller, count: the controller's wanted replicas (a Job's parallelism)
    kUpdateNodes,  // count nodes replaced by render_node(i) at rate (0 = all at once); blocks
    kResizePods,   // count pods resized in place by render_pod(i) at rate (updateAny pods/resize)
    kUpdatePods,   // count pods updated by update_pod(i, ...) at rate (updateAny of Pods)
    // scheduler_perf updateDeviceConditions: in namespaces[0], within duration_ns, sets condition
    // (condition_type, condition_status) on every allocated device with binding conditions.
    kUpdateDeviceConditions,
    // scheduler_perf checkPodScheduled: within duration_ns, every pod of namespaces[0] is bound
    // (expect_scheduled) or none is, for 5 s in a row.
    kCheckPodScheduled,
  };
  Kind kind = Kind::kCreateNodes;
  std::optional<int64_t> at_ns;  // wait until this time first
  uint32_t pool = kNone;
  uint32_t workload = kNone;
  uint32_t controller = kNone;  // scale: index into SimSpec::controllers
  int64_t count = -1;
  bool remove = false;             // drain: also delete the nodes afterwards
  bool attempted_only = false;     // barrier: stageRequirement Attempted
  bool wait = false;               // deletePods: block until done
  std::vector<Symbol> namespaces;  // barrier / deletePods filter (empty = all)
  std::optional<api::LabelSelector> selector;
  double rate_per_s = 0;
  int64_t duration_ns = 0;
  ChurnSpec churn;
  Symbol priority_class;
  int32_t priority_value = 0;
  uint32_t line = 0;     // source line, for messages
  std::string describe;  // "drain pool=general count=20", for the event log
  // updateNodes: node i's new object (its name picks the live node it replaces).
  std::function<Result<api::Node>(int64_t index)> render_node;
  // resizePods: pod i's resize (its name, in `pod_namespace`, picks the live pod; its containers'
  // resources are the new ones).
  std::function<Result<api::Pod>(int64_t index)> render_pod;
  // updatePods: renders pod i's update, finds the live pod of its name in `pod_namespace` with
  // `live` (null: none), and returns the object the API server stores for it, or the error kube
  // reports (a validation error positioned in the template).
  std::function<Result<api::Pod>(int64_t index,
                                 const std::function<const api::Pod*(Symbol name)>& live)>
      update_pod;
  Symbol pod_namespace;
  // updateDeviceConditions / checkPodScheduled.
  Symbol condition_type;
  api::resource::ConditionStatus condition_status = api::resource::ConditionStatus::kTrue;
  bool expect_scheduled = false;
};

// How scheduling time is charged to the virtual clock.
struct CostModel {
  enum class Mode : uint8_t { kInstant, kMeasured, kFixed };
  Mode mode = Mode::kInstant;
  int64_t fixed_ns = 0;
};

// The scheduler's API client rate limit (scheduler_perf's schedulerApiClientQPS and
// schedulerApiClientBurst: client-go's QPS and Burst): unset, calls cost nothing; set, every
// member's scheduler has its own token bucket (sim/api_client.h) that bindings, status patches and
// preemption's victim calls wait for. `dispatcher`: the calls go through the scheduler's API
// dispatcher (SchedulerAsyncAPICalls), which merges waiting calls of one pod.
struct ApiClientLimit {
  bool set = false;
  float qps = 0;
  int64_t burst = 0;
  bool dispatcher = false;
};

// A member cluster of a run with several clusters: its own scheduler settings. Its node pools and
// workloads name it by index (NodePool::cluster, Workload::cluster).
struct ClusterSpec {
  std::string name;
  framework::FeatureGates gates;
  std::string scheduler_config_path;  // KubeSchedulerConfiguration file, resolved
  std::optional<framework::SchedulerConfig> scheduler_config;
  std::vector<std::string> explicit_gates;  // "Name=true" as the input set them, in input order
};

struct SimSpec {
  std::string name;
  std::string description;
  std::string source;  // file(s) it came from
  uint64_t seed = 1;
  int64_t duration_ns = 0;         // 0 ⇒ until the program ends and nothing is left to happen
  int64_t sample_interval_ns = 0;  // 0 ⇒ chosen from the duration

  framework::FeatureGates gates;
  // "Name=true" for each gate the input or a flag set, in the order they were set (a gate set
  // twice appears twice); `gates` holds the effective values.
  std::vector<std::string> explicit_gates;
  std::string scheduler_config_path;  // KubeSchedulerConfiguration file, resolved
  std::optional<framework::SchedulerConfig>
      scheduler_config;  // decoded, when a loader was available
  CostModel cost;
  Distribution bind_latency = Distribution::Fixed(Duration{0});
  ApiClientLimit api_client;
  // Gangs: kube's beta workload scheduling cycle (true) or the alpha Permit-only mode (false).
  bool gang_workload_cycle = true;

  // Cluster-scoped and namespaced objects other than nodes and pods (namespaces, priority classes,
  // PDBs, selector owners, workloads, pod groups). Pods' priorities are already resolved.
  api::ObjectSet objects;
  // Nodes and bound/pending pods present at time 0 (manifests), added before the program runs.
  std::vector<api::Node> initial_nodes;
  std::vector<NodePool> pools;
  std::vector<PodTemplate> pod_templates;
  std::vector<Workload> workloads;
  // Workload controllers (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs), each run by
  // the workload that names it (Workload::controller).
  std::vector<api::Controller> controllers;
  std::vector<Op> program;

  std::vector<std::string> notes;  // shown in the summary (e.g. ignored inputs)
  // The files and directories a scenario's `manifests:` lists, resolved against the scenario's
  // directory (for provenance).
  std::vector<std::string> manifest_paths;

  // Empty: one cluster with the settings above (every single-cluster input). Otherwise one member
  // per entry, each with its own scheduler; the scheduler settings above then apply to none
  // of them.
  std::vector<ClusterSpec> clusters;
  // The fleet in front of the clusters (a scenario's `fleet:`), or none.
  std::shared_ptr<const FleetSpec> fleet;
};

}  // namespace corral::sim
