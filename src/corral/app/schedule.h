#pragma once
// `corral schedule`: load a cluster from manifests, run the scheduler until no pod can make
// progress, and report placements, unschedulable pods (kube's FitError messages) and
// per-node explanations.

#include <cstdint>
#include <string>
#include <vector>

#include "corral/api/types.h"
#include "corral/core/diagnostics.h"
#include "corral/core/result.h"
#include "corral/doc/decoder.h"
#include "corral/framework/config.h"
#include "corral/framework/feature_gates.h"
#include "corral/scheduler/explain.h"

namespace corral::app {

struct ScheduleRequest {
  std::vector<std::string> inputs;  // files or directories
  std::string config_path;          // a KubeSchedulerConfiguration file; empty for kube's defaults
  framework::FeatureGates gates;
  uint64_t seed = 1;
  std::vector<std::string> explain;  // "ns/name"
  bool explain_all = false;
  bool strict = false;
  // Unknown fields in the manifests (kubectl's --validate); the configuration is always strict.
  doc::FieldValidation unknown_fields = doc::FieldValidation::kStrict;
  bool workload_cycle =
      true;  // pod groups in the workload cycle (false: Permit-only, kube's alpha)
};

struct PluginScoreOut {
  std::string plugin;
  int64_t raw = 0, normalized = 0, weighted = 0;
};
struct NodeOut {
  std::string node;
  bool passed = true;
  bool absent = false;  // left out by a PreFilter result, never evaluated
  std::string filter_plugin, filter_code;
  std::vector<std::string> filter_reasons;
  std::vector<PluginScoreOut> scores;
  bool scored = false;
  int64_t total = 0;
};
// One scheduling attempt of an explained pod.
struct ExplainOut {
  std::string pod;
  int32_t attempt = 1;  // 1-based, of `attempts` in total for the pod
  int32_t attempts = 1;
  std::string selected;        // empty when unschedulable
  std::string pre_filter;      // PreFilter rejection message, if any
  std::vector<NodeOut> nodes;  // evaluated nodes in evaluation order, then absent nodes
  // How the node was found: "nominated node" or "batching hint" (nothing else evaluated), else
  // empty; for a hint, the pod whose scored node list the batch holds.
  std::string selected_from;
  std::string hint_source;
  int64_t candidates = 0;   // nodes after PreFilter
  int64_t evaluated = 0;    // of those, evaluated by the filter loop
  int64_t num_to_find = 0;  // numFeasibleNodesToFind (percentageOfNodesToScore)
  int64_t tied = 0;         // nodes sharing the top score (> 1: broken at random)
  // PostFilter (preemption) after a failed attempt.
  bool post_filter = false;
  std::string preemption_message;  // why it nominated nothing; empty when it did
  std::string nominated;
  std::vector<std::string> victims;
  // The attempt's FitError message (kube's "0/N nodes are available: ..."); empty when it placed
  // the pod.
  std::string fit_error;
  // The preemption dry run (kube's GetOffsetAndNumCandidates and the walk); dry_run false when
  // there was none (an ineligible pod, no potential node).
  bool dry_run = false;
  int64_t dry_potential = 0, dry_offset = 0, dry_wanted = 0, dry_evaluated = 0, dry_found = 0;
  bool dry_none_lower = false;
};

struct ScheduleOutcome {
  struct Placement {
    std::string pod, node, profile;
  };
  struct Unschedulable {
    std::string pod, message;
  };
  std::vector<Placement> placements;         // in scheduling order
  std::vector<Unschedulable> unschedulable;  // in queue order
  std::vector<Unschedulable>
      ignored;  // pending pods of schedulers with no profile here (not scheduled)
  // Pod groups (gang instances), in first-seen order.
  struct Group {
    std::string group;   // "ns/podGroup" or, for v1alpha1, "ns/workload/podGroup[/replicaKey]"
    std::string policy;  // "gang" | "basic"; empty when the group object is missing
    int32_t min_count = 0;
    int64_t members = 0, scheduled = 0, waiting = 0, unschedulable = 0;
    std::string domain;  // topology domain chosen (key=value), empty when none
    std::string reason;  // why the group is not (fully) placed; empty when it is
  };
  std::vector<Group> groups;
  // Preemptions (DefaultPreemption), in the order they happened: the preemptor is nominated to
  // `node` and the victims (most important first) are deleted.
  struct Preemption {
    std::string preemptor;
    int32_t priority = 0;
    std::string node;
    int32_t pdb_violations = 0;
    struct Victim {
      std::string pod;
      int32_t priority = 0;
      bool violates_pdb = false;
      std::string reason;  // why it was chosen
      std::string node;    // pod-group preemptions: where it ran
      std::string unit;    // pod-group preemptions: its disruptionMode-all group, evicted whole
    };
    std::vector<Victim> victims;
    // Pod-group preemptions (KEP-5710): the group and every nominated member with its node; `node`
    // then lists the distinct nominated nodes, comma-separated.
    std::string group;
    std::vector<std::pair<std::string, std::string>> nominations;
  };
  std::vector<Preemption> preemptions;
  std::vector<ExplainOut> explain;  // sorted by pod key, then attempt
  int64_t cycles = 0;
  // Opportunistic batching (KEP-5598): pods placed on a batch hint, and batch flushes by
  // kube reason.
  bool batching = false;
  int64_t batched = 0;
  // Beyond kube: pods batched on cross-node batches (Rescore hooks), cross-node rescores whose
  // PreScore was incremental, and nodes the Rescore hooks reported changed.
  int64_t batched_cross_node = 0;
  int64_t incremental_prescores = 0;
  int64_t rescore_hook_nodes = 0;
  std::vector<std::pair<std::string, int64_t>> batch_flushes;
  std::string metrics_text;  // Prometheus text of the scheduler's metrics
  std::string metrics_json;  // the same as JSON (an object)
  int64_t pods_bound_initially = 0;
  Diagnostics diagnostics;  // loader warnings (errors make RunSchedule fail)
};

// Errors: input errors (ErrorCode::kInvalidInput, message lists every diagnostic), invalid
// configs, or an --explain target that names no pending pod (with the closest pod's name).
Result<ScheduleOutcome> RunSchedule(const ScheduleRequest& req);

std::string FormatScheduleJson(const ScheduleOutcome& out);
std::string FormatScheduleTable(const ScheduleOutcome& out);

// One explained attempt from the scheduler's record, names resolved with `in` (`corral schedule
// --explain` and `corral simulate --explain` share it).
ExplainOut MakeExplainOut(const Interner& in, const api::Pod& pod,
                          const scheduler::CycleExplain& ex);
// The text of one explained attempt below its heading line ("explain POD: selected NODE"): how the
// node was found, every node's verdict and scores, the PreFilter exclusions, PostFilter
// (preemption) with its dry run, and the FitError message.
std::string FormatExplainBody(const ExplainOut& e);

}  // namespace corral::app
