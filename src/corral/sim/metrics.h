#pragma once
// What a simulation run measures (RunResult) and the two measuring instruments it is built from:
//
//  - LogHistogram: counts of non-negative int64 values (nanoseconds) in log buckets with 32
//    sub-buckets per power of two (resolution about 3%), exact for 0..31. Constant memory (15 KiB),
//    no allocation per Add. Percentiles use the nearest-rank rule and report the bucket's midpoint,
//    clamped to the observed min/max, so they are deterministic and within 1.6% of the true value.
//  - ThroughputCollector: kube scheduler_perf's SchedulingThroughput
//    (test/integration/scheduler_perf util.go throughputCollector) on the virtual clock: a sample
//    every interval (1 s); no sampling until at least one pod is scheduled; the first sample is
//    skipped; an interval with no newly scheduled pod is merged into the next non-empty one, which
//    is then recorded once per merged interval. Summaries are Average and Perc50/90/95/99 with
//    kube's index rule ceil(n·p/100) − 1 over the sorted samples.
//
// RunResult holds every output of a run; the formatters (output.h, report.h) only read it. Fields
// for features the scheduler does not expose yet (preemption, batching, gang scheduling) are
// present with `available = false`, never filled with made-up numbers.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "corral/core/interner.h"
#include "corral/sim/provenance.h"

namespace corral::sim {

struct FleetResult;  // fleet_spec.h

class LogHistogram {
 public:
  static constexpr int kSubBits = 5;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr size_t kBuckets = kSub + (63 - kSubBits) * kSub;

  void Add(int64_t v);
  void Merge(const LogHistogram& o);
  int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  int64_t min() const { return count_ == 0 ? 0 : min_; }
  int64_t max() const { return max_; }
  double mean() const { return count_ == 0 ? 0 : sum_ / static_cast<double>(count_); }
  // Nearest-rank percentile (p in (0, 100]); 0 when empty.
  int64_t Percentile(double p) const;

  static size_t BucketOf(int64_t v);
  static int64_t BucketLow(size_t b);
  static int64_t BucketHigh(size_t b);  // exclusive
  uint64_t bucket_count(size_t b) const { return buckets_[b]; }

 private:
  std::array<uint64_t, kBuckets> buckets_{};
  int64_t count_ = 0;
  double sum_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
};

class ThroughputCollector {
 public:
  struct Summary {
    bool has_samples = false;
    double average = 0, perc50 = 0, perc90 = 0, perc95 = 0, perc99 = 0;
    size_t samples = 0;
  };

  // Collection starts at `now_ns`; `scheduled` counts the measured pods scheduled so far.
  void Start(int64_t now_ns, int64_t scheduled);
  // One tick of the sampling interval.
  void Tick(int64_t now_ns, int64_t scheduled);
  // `n` ticks at first_ns, first_ns + interval_ns, ... with the same count: one Tick and n − 1
  // empty intervals, in O(1).
  void TickMany(int64_t first_ns, int64_t interval_ns, int64_t n, int64_t scheduled);
  bool running() const { return running_; }
  void Stop() { running_ = false; }
  const std::vector<double>& samples() const { return samples_; }
  // kube's collect(): sorts a copy of the samples.
  Summary Summarize() const;
  static Summary SummarizeSamples(std::vector<double> samples);

 private:
  bool running_ = false;
  bool started_ = false;
  int64_t last_count_ = 0;
  int64_t last_time_ = 0;
  int64_t skipped_ = 0;
  std::vector<double> samples_;
};

// One resource tracked for utilization: requested / allocatable summed over schedulable nodes.
struct ResourceTrack {
  std::string name;  // "cpu", "memory", "pods", "nvidia.com/gpu", ...
  Symbol sym;
  bool milli = false;        // cpu: quantities are tracked in milli-units
  std::string unit;          // "cores", "GiB", "pods", "" (count)
  double display_scale = 1;  // tracked value × scale = display value
};

inline constexpr size_t kMaxTracked = 6;

struct Sample {
  int64_t t_ns = 0;
  int32_t nodes = 0;
  int32_t nodes_schedulable = 0;
  int64_t pending = 0;  // in the scheduler's queue (activeQ, backoffQ, unschedulable, gated)
  int64_t running = 0;  // bound (including binding)
  int64_t arrived = 0, scheduled = 0, completed = 0, evicted = 0;  // cumulative
  int64_t unschedulable_attempts = 0, cycles = 0;                  // cumulative
  int64_t preempted = 0;                                           // cumulative victims
  int64_t batched = 0, batch_flushes = 0;  // cumulative (opportunistic batching)
  std::array<float, kMaxTracked> util{};   // per tracked resource, 0..1
};

// Pods deleted and brought back by their workload, by cause. A pod is counted once per deletion,
// under the first cause that took it: a preemption victim that a drain removes during its grace
// period counts as a preemption only, and a gang member already counted as a preemption victim is
// not counted again when its gang restarts.
struct Evictions {
  int64_t drain = 0;         // a drain op evicted it
  int64_t node_failure = 0;  // its node was deleted (deleteNodes, node churn)
  int64_t gang_restart = 0;  // another member of its gang was lost, so the gang restarted
  int64_t preemption = 0;    // chosen as a preemption victim (counted when chosen)
  int64_t total() const { return drain + node_failure + gang_restart + preemption; }
};

// Waits of the pods (or gangs) still waiting when the run ended: each is a censored observation,
// known only to be at least the time waited so far.
struct CensoredWaits {
  int64_t count = 0;
  LogHistogram waited;  // time waited so far, per pod or gang
};

struct WorkloadStats {
  std::string name;
  std::string kind;  // "pods", "job", "gang"
  // The kind of the workload controller read from manifests that creates this workload's pods
  // (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job); empty for the scenario's own workloads.
  std::string controller;
  int64_t arrivals = 0;  // arrival events (jobs/gangs count once; a controller's pods each count)
  int64_t pods_arrived = 0, pods_scheduled = 0, pods_completed = 0, pods_evicted = 0,
          pods_preempted = 0;
  int64_t pods_pending_end = 0;
  LogHistogram latency;         // arrival → bound, per pod
  LogHistogram group_wait;      // arrival → every pod of the job/gang bound
  int64_t groups_complete = 0;  // all pods bound
  Evictions evictions;          // by cause; pods_evicted + pods_preempted == evictions.total()
  CensoredWaits pending_waits;  // pods pending at the end, waited so far
  LogHistogram latency_with_pending;     // latency plus pending_waits (lower bounds)
  CensoredWaits waiting_groups;          // jobs/gangs not complete at the end, waited so far
  LogHistogram group_wait_with_waiting;  // group_wait plus waiting_groups (lower bounds)
};

// Availability of scheduler features whose metrics a run reports.
struct FeatureStatus {
  bool available = false;
  std::string note;  // why absent, or what the numbers mean
};

// One member cluster of a run with several clusters.
struct ClusterResult {
  std::string name;
  int64_t nodes_end = 0;
  int64_t pods_scheduled = 0, pods_pending_end = 0, pods_running_end = 0;
  int64_t cycles = 0;
  LogHistogram latency;                              // arrival → bound, of this cluster's pods
  CensoredWaits pending_waits;                       // this cluster's pods pending at the end
  LogHistogram latency_with_pending;                 // latency plus pending_waits
  std::array<double, kMaxTracked> mean_util{};       // over the run's samples
  std::vector<int64_t> pending;                      // per sample of RunResult::samples
  std::vector<std::array<float, kMaxTracked>> util;  // per sample
};

struct RunResult {
  std::string name;
  std::string description;
  std::string source;
  uint64_t seed = 1;
  std::string cost_model;  // "instant", "measured", "fixed 2ms"
  std::string bind_latency;
  int64_t end_ns = 0;
  int64_t sample_interval_ns = 0;
  int64_t nodes_end = 0, nodes_max = 0;

  // Pods.
  int64_t pods_arrived = 0, pods_scheduled = 0, pods_completed = 0, pods_evicted = 0;
  int64_t pods_pending_end = 0;        // still in the scheduler's queue at the end
  int64_t pods_unschedulable_end = 0;  // of those, pods that failed at least one attempt
  int64_t pods_running_end = 0;
  int64_t pods_preempted =
      0;  // preemption victims (deleted after their grace period, recreated as evicted pods are)
  int64_t preemptions = 0;  // preemptors that evicted at least one victim
  int64_t pods_ignored =
      0;                // pods whose schedulerName no profile serves (left to another scheduler)
  int64_t batched = 0;  // pods placed on an opportunistic-batching hint
  std::vector<std::pair<std::string, int64_t>> batch_flushes;  // reason → count (kube's reasons)
  std::string scheduler_metrics;  // the scheduler's own registry, Prometheus text (kube's names)
  int64_t cycles = 0, unschedulable_attempts = 0, errors = 0;
  LogHistogram latency;    // arrival → bound
  LogHistogram gang_wait;  // gang arrival → all pods bound
  int64_t gangs_arrived = 0, gangs_complete = 0, gang_restarts = 0;
  std::vector<std::pair<int64_t, int64_t>>
      gang_waits;  // (arrival, wait) of completed gangs, ≤ 100000

  std::vector<ResourceTrack> resources;
  std::vector<Sample> samples;
  // Node heat map: per sample, one byte per node slot (0..200 = utilization·200, 254 = the node has
  // none of the resource, 255 = no node), for the first min(3, resources) tracked resources other
  // than pods.
  std::vector<std::string> heat_resources;
  std::vector<std::vector<uint8_t>> heat[3];  // heat[r][sample][slot]
  std::vector<std::string> slot_names;        // last node name per slot
  std::vector<std::string> slot_pools;

  // Time-weighted mean utilization per tracked resource over the run.
  std::array<double, kMaxTracked> mean_util{};
  std::array<double, kMaxTracked> peak_util{};

  ThroughputCollector::Summary
      throughput;  // scheduled pods per virtual second (1 s samples, kube rules)
  std::vector<WorkloadStats> workloads;
  std::vector<std::pair<std::string, int64_t>>
      pending_reasons;  // message → pods, most frequent first

  FeatureStatus preemption, batching, gang_scheduling;
  std::vector<std::string> notes;
  std::string
      failure;  // set when a blocking op could never complete (e.g. a barrier on hopeless pods)

  // Per member cluster (empty for a run of one cluster); the fields above are the fleet's totals.
  std::vector<ClusterResult> clusters;
  // The fleet's dispatching (fleet_spec.h), when the run has a fleet.
  std::shared_ptr<const FleetResult> fleet;

  // Honest statistics: pods and gangs still waiting at the end, as censored observations, and the
  // latency and gang-wait distributions that include them at their wait so far (lower bounds).
  CensoredWaits pending_waits;
  LogHistogram latency_with_pending;
  CensoredWaits waiting_gangs;
  LogHistogram gang_wait_with_waiting;
  // Evictions by cause; pods_evicted == drain + node_failure + gang_restart and pods_preempted ==
  // preemption. The workloads' counts sum to these.
  Evictions evictions;

  // The run was stopped before its end (a signal): every figure covers virtual time up to end_ns.
  bool partial = false;
  std::string partial_cause;  // what stopped it: the signal's name, "SIGINT" or "SIGTERM"

  // What the run was made of (provenance.h); empty when the caller did not describe it.
  Provenance provenance;

  // Non-deterministic (wall clock); only for stderr and --timing.
  double wall_seconds = 0;
  double scheduler_wall_seconds = 0;
};

}  // namespace corral::sim
