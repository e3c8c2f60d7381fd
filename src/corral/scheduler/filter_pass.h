#pragma once
// FilterPass: the feasible-node search of one scheduling attempt, after PreFilter (kube's
// findNodesThatPassFilters in pkg/scheduler/schedule_one.go).
//
// Contract:
//  (1) Candidates are every node of the snapshot, or the nodes a PreFilterResult names, or the
//      nodes of a placement domain (a topology-constrained workload cycle), always in snapshot
//      order. The nodes left out are absent: the pass does not evaluate them, and they count in the
//      FitError with one status, kube's "node(s) didn't satisfy plugin(s) [..]" naming the plugins
//      that restricted the candidates (sorted, as kube's sets.List).
//  (2) The pod's nominated node, then the opportunistic-batching hint, is evaluated first (when it
//      is a candidate). One that passes is the only feasible node and nothing else is evaluated; a
//      failure there is not recorded (the node is evaluated again with the others).
//  (3) Otherwise the candidates are visited round-robin from where the previous pass stopped, and
//      the search stops once numFeasibleNodesToFind feasible nodes are found (one when the profile
//      has no score plugins). The start then advances by the number of nodes visited, modulo the
//      size of the cluster.
//  (4) Every rejected node is recorded in visiting order (Failed()), and each rejecting plugin is
//      added once to the pod's unschedulable (or, for Pending, pending) plugins. A filter Error
//      ends the pass with that status.
//  (5) With CorralFilterMemo (filter_memo.h) an equivalent pod's verdicts on unchanged nodes are
//      reused; this replaces a verdict's computation only (same visiting order, same stop).
//  (6) The loop over the candidates neither allocates nor makes a virtual call of its own: scratch
//      vectors only grow, and explain records are built only when an explain record is given.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>

#include "corral/framework/framework.h"
#include "corral/scheduler/explain.h"
#include "corral/scheduler/filter_memo.h"
#include "corral/scheduler/queue.h"

namespace corral::scheduler {

// kube's numFeasibleNodesToFind: all nodes below 100; otherwise `percentage` of them (0 or unset:
// kube's adaptive 50 - n/125, at least 5), and at least 100.
int32_t NumFeasibleNodesToFind(std::optional<int32_t> percentage, int32_t num_nodes);

class FilterPass {
 public:
  // A placement domain's nodes (snapshot order) and their names.
  struct Domain {
    std::span<const framework::NodeInfo* const> nodes;
    const absl::flat_hash_set<Symbol>* names = nullptr;
  };
  // One pass's inputs. The references must stay valid for the pass.
  struct Request {
    framework::Framework* fwk = nullptr;
    framework::CycleState* state = nullptr;
    QueuedPod* qp = nullptr;
    const framework::Snapshot* snapshot = nullptr;
    const framework::PreFilterResult* pre = nullptr;
    // The plugins that restricted the candidates (PreFilterResult and domain); sorted in place.
    std::vector<std::string_view>* restricting = nullptr;
    const Domain* domain = nullptr;                       // null: no placement domain
    Symbol nominated;                                     // the pod's nominated node, or empty
    Symbol hint;                                          // the batching hint, or empty
    std::optional<int32_t> percentage_of_nodes_to_score;  // the profile's, else the scheduler's
    FilterMemo* memo = nullptr;                           // null: CorralFilterMemo off
    LoggedNominator* nominator = nullptr;
    CycleExplain* explain = nullptr;  // null: no explain record
  };

  // Forgets the previous pass's results (not its start position). Called at the start of every
  // attempt, so that an attempt that PreFilter rejects has no feasible or failed nodes.
  void Reset();
  // Runs the pass. Ok (with zero or more feasible nodes) or the first filter Error.
  framework::Status Run(const Request& r);

  // The feasible nodes found, in visiting order.
  std::vector<const framework::NodeInfo*>& feasible() { return feasible_; }
  // The rejected nodes with their statuses, in visiting order.
  std::span<const framework::NodeStatus> Failed();
  // Calls `add(status, n)` for each run of consecutive rejected nodes whose statuses have identical
  // reasons (compared by view), in visiting order: the FitError's reason histogram without
  // materializing one status per node.
  template <class Add>
  void ForEachFailureRun(Add&& add) const;

  // Absent nodes (contract 1): how many, and their status (null when none).
  size_t num_absent() const { return num_absent_; }
  std::optional<framework::Status>& absent_status() { return absent_status_; }
  // The candidates, and how many of them this pass evaluated in its round-robin loop (0 when the
  // nominated or hinted node passed).
  size_t num_candidates() const { return num_candidates_; }
  size_t num_processed() const { return processed_; }
  // The nominated or hinted node that passed, if one did (contract 2).
  Symbol first_passed() const { return first_passed_; }

  // The candidates of a PreFilterResult (contract 1): the snapshot's nodes named in `names`, in
  // snapshot order, valid until the next call or pass. Costs O(|names|) look-ups when the set is
  // small against the cluster, one scan of the snapshot otherwise.
  std::span<const framework::NodeInfo* const> RestrictToNames(
      const absl::flat_hash_set<Symbol>& names, const framework::Snapshot& snapshot);

 private:
  // Rejecting plugins already recorded in a pass, as (plugin name, pending).
  using RecordedRejectors = absl::InlinedVector<std::pair<std::string_view, bool>, 4>;
  static void RecordRejector(const framework::Status& fs, RecordedRejectors& recorded,
                             QueuedPod& qp);
  // A name set at most 1/kNameLookupRatio of the cluster is looked up name by name.
  static constexpr size_t kNameLookupRatio = 8;
  // The round-robin loop over `candidates` with filter plugins (contract 3-5).
  framework::Status Search(const Request& r, std::span<const framework::NodeInfo* const> candidates,
                           int32_t num_to_find);

  std::vector<const framework::NodeInfo*> feasible_;
  std::vector<const framework::NodeInfo*> restricted_;
  // Snapshot positions of nodes, filled on first need and rebuilt when a position read back no
  // longer holds its node (RestrictToNames), and the scratch list of positions of one pass.
  absl::flat_hash_map<const framework::NodeInfo*, size_t> node_positions_;
  std::vector<size_t> restricted_positions_;
  size_t next_start_node_index_ = 0;
  std::optional<framework::Status> absent_status_;
  size_t num_absent_ = 0;
  size_t num_candidates_ = 0;
  size_t processed_ = 0;
  Symbol first_passed_;
  // The failed nodes of the last pass (Failed()): failed_[0, num_failed_), except that an entry
  // whose failed_refs_ status is set gets that memoized status only when Failed() is first called
  // (a pass that finds feasible nodes never copies them). Entries beyond num_failed_ are left from
  // earlier passes: an entry whose node and status are identical is not written again. Both vectors
  // only grow, so a pass does not allocate.
  struct FailedRef {
    const framework::NodeInfo* node;
    const framework::Status* memoized;  // a FilterMemo::Table status (valid until the next pass)
  };
  std::vector<framework::NodeStatus> failed_;
  std::vector<FailedRef> failed_refs_;
  size_t num_failed_ = 0;
  bool failed_refs_pending_ = false;
  // Nodes whose nominations changed since a memo table's previous pass (FilterMemo::Nominations).
  std::vector<Symbol> nomination_changes_;
  std::vector<const framework::NodeInfo*> nomination_changed_nodes_;
};

template <class Add>
void FilterPass::ForEachFailureRun(Add&& add) const {
  auto same_views = [](const framework::Status& a, const framework::Status& b) {
    const auto& ra = a.reasons();
    const auto& rb = b.reasons();
    if (ra.size() != rb.size()) return false;
    for (size_t i = 0; i < ra.size(); ++i) {
      if (ra[i].data() != rb[i].data() || ra[i].size() != rb[i].size()) return false;
    }
    return true;
  };
  const framework::Status* run = nullptr;
  int64_t run_length = 0;
  // Every failure of the pass has its FailedRef: a memo hit's stored status (still in place), or
  // null for a status held in failed_. Reading through the refs compares pointers for runs of memo
  // hits instead of materializing and reading each node's copy.
  for (size_t k = 0; k < num_failed_; ++k) {
    const framework::Status* memoized = failed_refs_[k].memoized;
    const framework::Status& st = memoized != nullptr ? *memoized : failed_[k].status;
    if (run == &st || (run != nullptr && same_views(*run, st))) {
      ++run_length;
      continue;
    }
    if (run != nullptr) add(*run, run_length);
    run = &st;
    run_length = 1;
  }
  if (run != nullptr) add(*run, run_length);
}

}  // namespace corral::scheduler
