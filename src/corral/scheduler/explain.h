#pragma once
// What `--explain` records of one scheduling attempt: per-node filter verdicts and scores, and how
// the node was chosen (a nominated node, a batching hint, a random tie-break, nodes left out by a
// PreFilter result or never evaluated because of percentageOfNodesToScore), and what PostFilter
// (preemption) did. Built only for pods the driver asked to explain.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/api/types.h"
#include "corral/framework/preemption_dry_run.h"
#include "corral/framework/status.h"

namespace corral::scheduler {

struct PluginScoreDetail {
  std::string_view plugin;
  int64_t raw = 0;
  int64_t normalized = 0;
  int64_t weighted = 0;
};

struct NodeExplain {
  Symbol node;
  std::optional<framework::Status> filter;  // nullopt ⇒ passed
  std::vector<PluginScoreDetail> scores;    // empty when not scored
  std::optional<int64_t> total;
  // Left out of the candidates by a PreFilter result (or a placement domain) and never evaluated;
  // `filter` then holds kube's "node(s) didn't satisfy plugin(s) [..]" status.
  bool absent = false;
};

// One PostFilter (preemption) run after the attempt found no feasible node.
struct PostFilterExplain {
  std::string message;  // the post-filter part of the FitError; empty when it nominated a node
  Symbol nominated;     // the node the pod was nominated to, or empty
  // Evicted for it, most important first, as (namespace, name).
  std::vector<std::pair<Symbol, Symbol>> victims;
  // The dry run of the PostFilter plugin that has one (DefaultPreemption); `ran` false otherwise.
  framework::PreemptionDryRun dry_run;
};

struct CycleExplain {
  Symbol selected;                              // empty when unschedulable
  std::optional<framework::Status> pre_filter;  // set when PreFilter rejected the pod
  std::vector<NodeExplain> nodes;  // every node the cycle evaluated (in evaluation order), then
                                   // the absent ones (in snapshot order)
  // How the node was found: the pod's nominated node or the batching hint passed the filters
  // first (nothing else was evaluated), and the pod whose scored node list the batch holds.
  bool from_nominated = false;
  bool from_hint = false;
  Symbol hint_source_namespace, hint_source_name;
  // Candidates after PreFilter, those evaluated, and how many feasible nodes the search stopped at
  // (numFeasibleNodesToFind from percentageOfNodesToScore).
  size_t num_candidates = 0;
  size_t num_evaluated = 0;
  int32_t num_to_find = 0;
  // Nodes sharing the top total score; more than one ⇒ the tie was broken at random (seeded).
  size_t num_tied = 0;
  std::optional<PostFilterExplain> post_filter;
  // The attempt's FitError message when it found no node (kube's "0/N nodes are available: ...",
  // with PostFilter's "preemption: 0/N nodes are available: ..." appended); empty otherwise.
  std::string fit_error;
};

}  // namespace corral::scheduler
