#pragma once
// Opportunistic batching (KEP-5598; kube's pkg/scheduler/framework/runtime/batch.go
// with rescoring).
//
// One OpportunisticBatch per profile. A successful full cycle of a signed pod leaves the scored
// node list (the chosen node popped) as the batch; the next pod with the same signature, scheduled
// in the very next cycle, gets the top of that list as a hint. If the hinted node passes every
// filter it is the only feasible node and nothing is scored.
//
//   GetNodeHint           kube's checks in kube's order: cycle continuity (pod_skipped), last cycle
//                         succeeded (pod_failed), pod not nominated (pod_nominated), signature
//                         equal (pod_incompatible), age ≤ 500 ms on the injected clock (expired),
//                         last chosen node present (node_missing); then the last chosen node is
//                         filtered: still feasible ⇒ rescored (prescore_error, rescore_error,
//                         normalize_error); then pop.
//   StoreScheduleResults  hint used ⇒ keep the batch; otherwise a new batch from the cycle's scores
//                         (pod_not_batchable, empty_list).
//
// The list is a binary heap of (TotalScore desc, Randomizer desc) entries, each with its raw and
// normalized per-plugin scores, so rescoring re-normalizes every plugin over the cached raw scores.
//
// Corral keeps the batch exact (docs/deviations.md, "Opportunistic batching"): kube leaves the
// cached normalized scores untouched when a node is popped, so a full cycle (which normalizes over
// the remaining nodes only) can order them differently. Corral tracks each normalizing plugin's max
// and min raw score over the list with their counts and re-normalizes the list only when a pop or
// rescore moves one of them. This relies on every normalizer depending on the list only through its
// max and min raw scores, which is true of every in-tree plugin (DefaultNormalizeScore,
// TaintToleration, NodeAffinity, InterPodAffinity, PodTopologySpread); the node's own normalized
// score is computed over {node, max, min}.

// Beyond kube (docs/deviations.md): a batch whose pods have cross-node scores (a Score plugin's
// RescoreExtension::CrossNode, gate CorralBatchingRescoreHook) rescores after every placement on
// node A: PreScore over the list plus A if still feasible (incrementally through
// PreScoreExtensions::AddPod when the last bind is the only cluster event since, gate
// CorralIncrementalPreScore), A rescored by the node-local plugins, the cached nodes the Rescore
// hooks report changed updated, then every plugin re-normalized over the list and the
// list re-sorted.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/core/clock.h"
#include "corral/framework/framework.h"
#include "corral/metrics/metrics.h"

namespace corral::scheduler {

// kube's flush reasons (pkg/scheduler/metrics).
namespace batch_flush {
inline constexpr std::string_view kPodSkipped = "pod_skipped";
inline constexpr std::string_view kPodFailed = "pod_failed";
inline constexpr std::string_view kPodNominated = "pod_nominated";
inline constexpr std::string_view kPodIncompatible = "pod_incompatible";
inline constexpr std::string_view kExpired = "expired";
inline constexpr std::string_view kNodeMissing = "node_missing";
inline constexpr std::string_view kEmptyList = "empty_list";
inline constexpr std::string_view kPodNotBatchable = "pod_not_batchable";
inline constexpr std::string_view kPreScoreError = "prescore_error";
inline constexpr std::string_view kRescoreError = "rescore_error";
inline constexpr std::string_view kNormalizeError = "normalize_error";
// Every reason, in kube's order.
inline constexpr std::string_view kAll[] = {
    kPodSkipped, kPodFailed,       kPodNominated,  kPodIncompatible, kExpired,       kNodeMissing,
    kEmptyList,  kPodNotBatchable, kPreScoreError, kRescoreError,    kNormalizeError};
}  // namespace batch_flush

// The non-zero `scheduler_batch_cache_flushed_total` counts of `metrics`, summed over profiles, in
// batch_flush::kAll order.
std::vector<std::pair<std::string, int64_t>> BatchFlushCounts(const metrics::Registry& metrics);

class OpportunisticBatch {
 public:
  static constexpr Duration kMaxBatchAge = std::chrono::milliseconds(500);

  // `clock` decides expiry; `wall_clock` (may be null) times the duration histograms.
  OpportunisticBatch(const framework::Framework& fwk, const Clock& clock, const Clock* wall_clock,
                     metrics::Registry& metrics);

  // Per-node tie-break key (kube's Randomizer). Supplied by the scheduler.
  using RandomizerFn = uint64_t (*)(const void* ctx, Symbol node);
  void set_randomizer(RandomizerFn fn, const void* ctx) {
    rnd_fn_ = fn;
    rnd_ctx_ = ctx;
  }

  // Called after PreFilter. Returns the hinted node (empty: none). `state` is the pod's cycle state
  // (PreFilter done); rescoring runs PreScore/Score on it.
  // `cluster_epoch` counts the scheduler's cluster events (every add/update/delete of a node or
  // pod, binds included): kept incremental state is used only when exactly one event (the last
  // pod's bind) happened since the previous call.
  Symbol GetNodeHint(framework::CycleState& state, const framework::PodInfo& pod,
                     const std::optional<std::string>& signature, bool nominated, int64_t cycle,
                     const framework::Snapshot& snapshot, uint64_t cluster_epoch = 0);

  // After the node was selected. `scores` is the cycle's score table (null: one feasible node,
  // nothing scored); a new batch takes it over by swapping, leaving the caller the batch's old
  // table. `pod` (may be null) is the pod placed on `chosen`; incremental PreScore adds it to the
  // kept state.
  void StoreScheduleResults(const std::optional<std::string>& signature, Symbol hinted,
                            Symbol chosen, framework::ScoreTable* scores, int64_t cycle,
                            const framework::PodInfo* pod = nullptr);
  // The cycle failed (unschedulable or error): the next pod flushes with pod_failed.
  void CycleFailed(int64_t cycle);

  // ---- introspection (tests, stats, explain) ----
  bool has_state() const { return has_state_; }
  // The namespace and name of the pod whose cycle scored the batch's node list (empty when none).
  Symbol source_namespace() const { return source_namespace_; }
  Symbol source_name() const { return source_name_; }
  size_t size() const { return heap_.size(); }
  // Nodes the batch holds rows for (the creating cycle's scored nodes).
  size_t rows() const { return has_state_ ? names_.size() : 0; }
  int64_t batched_pods() const { return batched_pods_; }
  // Of those, pods placed while the batch was cross-node (rescored through Rescore hooks).
  int64_t batched_cross_node_pods() const { return batched_cross_node_pods_; }
  // Bytes held by the cache (capacity of its arrays).
  size_t MemoryBytes() const;
  // Hook for tests: the sequence of steps of the last rescore ("prescore", "score", "normalize",
  // "sort"; a cross-node rescore: "prescore" or "prescore_incremental", "score", "rescore_hook",
  // "normalize", "sort").
  const std::vector<std::string_view>& last_rescore_steps() const { return rescore_steps_; }
  // Whether the batch rescores through the plugins' Rescore hooks (its pods have
  // cross-node scores).
  bool cross_node() const { return cross_node_; }
  // Cross-node rescores whose PreScore was incremental, and nodes the Rescore hooks
  // reported changed.
  int64_t incremental_prescores() const { return incremental_prescores_; }
  int64_t hook_rescored_nodes() const { return hook_rescored_nodes_; }

 private:
  struct Entry {
    int64_t total;
    uint64_t rnd;
    uint32_t row;  // index into raw_/norm_ rows and names_
  };
  static bool HeapLess(const Entry& a, const Entry& b) {
    // std heap is a max-heap on `less`: top = highest total, then highest randomizer.
    if (a.total != b.total) return a.total < b.total;
    return a.rnd < b.rnd;
  }
  struct Extremes {
    int64_t max = 0, min = 0;
    int64_t max_count = 0, min_count = 0;
  };

  void Flush(std::string_view reason);
  bool Compatible(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::optional<std::string>& signature, bool nominated, int64_t cycle,
                  const framework::Snapshot& snapshot, bool fresh);
  // Cross-node rescoring (Corral, CorralBatchingRescoreHook): the last pod landed on `last`; every
  // cached node whose raw score a Rescore hook reports changed is updated, `last` is rescored if
  // still feasible, and the list is re-normalized and re-sorted. `fresh`: nothing but that pod's
  // bind happened since the previous hint. False ⇒ flushed.
  bool CrossNodeRescore(framework::CycleState& state, const framework::PodInfo& pod,
                        const framework::NodeInfo& last, const framework::Snapshot& snapshot,
                        bool fresh);
  void BeginRescore();
  void EndRescore();
  // Re-inserts the last chosen node with fresh scores. False ⇒ flushed.
  bool Rescore(framework::CycleState& state, const framework::PodInfo& pod,
               const framework::NodeInfo& node);
  // Removes row's raw scores from the extremes; returns true if a normalizing plugin's
  // max/min vanished.
  bool RemoveFromExtremes(uint32_t row);
  // Adds row's raw scores; returns true if a normalizing plugin's max/min changed.
  bool AddToExtremes(uint32_t row);
  void RecomputeExtremes();
  // Turns the stored score table into the sorted list (first hint request of a batch).
  void Materialize(const framework::PodInfo& pod);
  // Re-normalizes every plugin over the list (heap_ rows) and rebuilds the heap.
  framework::Status Renormalize(const framework::CycleState& state, const framework::PodInfo& pod);
  // Normalizes one row against the current extremes (the list unchanged otherwise).
  framework::Status NormalizeOne(const framework::CycleState& state, const framework::PodInfo& pod,
                                 uint32_t row);
  uint64_t Rnd(Symbol node) const { return rnd_fn_ == nullptr ? 0 : rnd_fn_(rnd_ctx_, node); }
  void Attempt(std::string_view result);

  const framework::Framework& fwk_;
  const Clock& clock_;
  const Clock* wall_clock_;
  metrics::Registry& metrics_;
  RandomizerFn rnd_fn_ = nullptr;
  const void* rnd_ctx_ = nullptr;

  // Batch state.
  bool has_state_ = false;
  bool materialized_ = false;
  framework::ScoreTable table_;  // the creating cycle's scores, until materialized
  std::string signature_;
  TimePoint creation_;
  Symbol source_namespace_, source_name_;  // the pod whose cycle created the batch
  std::vector<size_t>
      plugins_;  // score plugin indices (Framework::score_plugins) of the cached scores
  std::vector<Symbol> names_;  // row → node
  std::vector<int64_t> raw_;   // row * P + p
  std::vector<int64_t> norm_;  // row * P + p
  std::vector<Entry> heap_;
  std::vector<Extremes> extremes_;  // per plugin (normalizing plugins only are meaningful)
  std::vector<bool> normalizes_;    // per plugin
  bool any_normalize_ = false;
  bool dirty_ = false;       // a normalizing plugin's max/min left the list: re-normalize
  uint32_t popped_row_ = 0;  // row of the last hinted node (re-used on rescore)

  // Last cycle.
  int64_t last_cycle_ = -1;
  Symbol last_chosen_;
  bool last_succeeded_ = false;

  int64_t batched_pods_ = 0;
  int64_t batched_cross_node_pods_ = 0;
  std::vector<std::pair<std::string_view, metrics::Counter*>> attempts_;  // cached series by result
  metrics::Counter* rescore_attempts_ = nullptr;
  std::vector<std::pair<std::string_view, metrics::Counter*>> flushes_;  // cached series by reason
  std::vector<std::string_view> rescore_steps_;
  std::vector<framework::NodeScore> ns_;  // scratch: normalize
  std::vector<uint32_t> rows_scratch_;

  // Cross-node rescoring. Row r's NodeInfo is table_.nodes[r] (valid while `fresh`;
  // re-looked-up otherwise).
  bool cross_node_ = false;
  framework::CycleState score_state_;  // PreScore state kept for incremental PreScore
  bool score_state_valid_ = false;
  const framework::PodInfo* last_pod_ = nullptr;  // the pod placed on last_chosen_
  uint64_t epoch_ = 0;                            // cluster_epoch at the previous GetNodeHint
  bool have_epoch_ = false;
  TimePoint rescore_start_;
  int64_t incremental_prescores_ = 0;
  int64_t hook_rescored_nodes_ = 0;
  std::vector<const framework::NodeInfo*> nodes_scratch_;
  std::vector<framework::NodeRescore> changed_;
};

}  // namespace corral::scheduler
