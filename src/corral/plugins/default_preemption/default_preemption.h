#pragma once
// DefaultPreemption (kube's defaultpreemption plugin with the preemption Evaluator): a PostFilter
// that, when no node is feasible, looks for a node where evicting lower-priority pods lets the pod
// fit, and names those victims and that node in its PostFilterResult. The scheduler evicts the
// victims and nominates the pod (it retries once they are gone).
//
// Algorithm (kube's Evaluator.Preempt):
//   1. Eligibility: preemptionPolicy Never, or a lower-priority pod on the pod's nominated node
//   that is
//      already terminating by preemption (unless that node is now UnschedulableAndUnresolvable) ⇒
//      no.
//   2. Potential nodes: those whose filter status is Unschedulable (UU nodes can never help).
//   3. Dry run from a random offset (Handle::rng) over the potential nodes, serially, until at
//   least one
//      candidate without PDB violations exists and the candidates number
//      max(N × minCandidateNodesPercentage / 100, minCandidateNodesAbsolute) (capped at N).
//      Per node (SelectVictims): remove every lower-priority pod (on copies of the NodeInfo and the
//      CycleState, through the PreFilter AddPod/RemovePod extensions); if the pod still does not
//      fit, the node is no candidate. Otherwise reprieve, most important first (priority, then
//      earlier start), the PDB-violating victims, then the others: put each back and keep it if the
//      pod still fits.
//   4. Pick one candidate (PickOneNodeForPreemption): fewest PDB violations, lowest highest victim
//      priority, smallest sum of (priority + 2^31), fewest victims, latest start time among the
//      highest-priority victims, then the first.
//
// PodDisruptionBudgets: kube reads status.disruptionsAllowed, which the disruption controller
// computes from healthy pods. Corral computes it the same way from the pods it knows:
// currentHealthy = bound, non-terminating pods of the namespace matching the selector; expected =
// that count; desiredHealthy from minAvailable (int, or percent of expected rounded up) or expected
// − maxUnavailable (int, or percent rounded up); allowed = max(0, currentHealthy − desiredHealthy)
// (0 when expected is 0). Deviation: kube's final tie (6.) is Go map order (random); Corral takes
// the first candidate in dry-run order (non-violating candidates first), which is deterministic for
// a seed.
//
// Dry-run memo (Corral-only, feature gate CorralPreemptionMemo, on by default): SelectVictims'
// result for a node (victims and PDB-violation count, or the failure status) is kept and reused by
// a later preemptor when everything the result is a function of is provably unchanged:
//   - the preemptor's profile, priority, Framework::NodeLocalFilterKey (so every filter that runs
//     reads only the pod and the node) and the Sign fragments of the filters that run (what they
//     read of the pod; Framework::SignPod itself needs OpportunisticBatching and more plugins);
//   - the node: NodeInfo address, api::Node address and NodeInfo::generation (process-wide
//     unique, so the same generation means the same pods and victims never dangle);
//   - Handle::NominationVersion of the node, and the preemptor is not itself nominated to the node
//     (RunFilterPluginsWithNominatedPods leaves the pod's own nomination out);
//   - PodDisruptionBudgets: a successful result is kept only when no budget exists in the namespace
//     of any lower-priority pod on the node, and reused only while that still holds (failures do
//     not read budgets);
//   - the clock, when the importance order of the lower-priority pods compares a pod without
//     status.startTime (read as "now") with one that has it.
// The candidate walk (offset, counts, stop condition) and PickOneNodeForPreemption run unchanged,
// so decisions, victims and messages are identical with the gate on or off.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/default_preemption/victim_units.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

// kube's DefaultPreemptionArgs (defaults 10 and 100).
struct DefaultPreemptionArgs final : framework::PluginArgs {
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;

  // kube's ValidateDefaultPreemptionArgs; `path` prefixes field names ("" for none), e.g.
  // "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]".
  Result<void> Validate(std::string_view path = "") const;
};

// A node where the pod fits once `victims` are evicted (kube's Candidate).
struct PreemptionCandidate {
  Symbol node;
  std::vector<framework::PreemptionVictim> victims;  // most important first
  int32_t num_pdb_violations = 0;
};

class DefaultPreemption final : public framework::PostFilterPlugin {
 public:
  static constexpr std::string_view kName = names::kDefaultPreemption;
  static constexpr std::string_view kNoVictimsReason =
      "No preemption victims found for incoming pod";
  static constexpr std::string_view kNotHelpfulReason = "Preemption is not helpful for scheduling";

  // Args: DefaultPreemptionArgs or null (defaults).
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  DefaultPreemption(framework::Handle& handle, DefaultPreemptionArgs args)
      : handle_(handle), args_(args) {}

  std::string_view Name() const override { return kName; }

  // Success with the chosen node and its victims (mode kOverride); Unschedulable "preemption:
  // <why>" otherwise (with a result that clears the nomination when no candidate was found).
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) override;

  // ---- the steps, public for tests ----
  // kube calculateNumCandidates.
  int32_t NumCandidates(int32_t num_nodes) const;
  // kube PodEligibleToPreemptOthers: empty when eligible, else the reason.
  std::string_view Ineligible(const framework::PodInfo& pod,
                              const framework::NodeToStatus& statuses) const;
  // kube SelectVictimsOnNode: `state` and `node` are left untouched (the work happens on scratch
  // copies reused across calls). Success with *victims set (most important first), or the node's
  // failure status. Never memoized. On a node with a lower-priority member of a
  // disruptionMode-all PodGroup the victims are KEP-5710 units (victim_units.h): such a group is
  // evicted whole, members on other nodes included, or not at all.
  framework::Status SelectVictims(const framework::CycleState& state, const framework::PodInfo& pod,
                                  const framework::NodeInfo& node,
                                  std::vector<framework::PreemptionVictim>* victims,
                                  int32_t* num_pdb_violations);
  // kube pickOneNodeForPreemption over `candidates` (victims ordered most important first).
  // REQUIRES: non-empty. Returns an index into `candidates`.
  size_t PickOneNodeForPreemption(std::span<const PreemptionCandidate> candidates) const;
  // kube util.MoreImportantPod: higher priority, then earlier start time (a pod without one started
  // "now").
  bool MoreImportantPod(const framework::PodInfo& a, const framework::PodInfo& b) const;

  // Dry-run memo statistics since construction (nodes answered from the memo, nodes computed while
  // the memo applied). Nodes where the memo cannot apply count in neither.
  int64_t memo_hits() const { return memo_hits_; }
  int64_t memo_misses() const { return memo_misses_; }

 private:
  // One memoized SelectVictims result and what it was computed from.
  struct MemoEntry {
    const api::Node* api_node = nullptr;
    uint64_t generation = 0;
    uint64_t nomination_version = 0;
    std::vector<Symbol> namespaces;  // of the lower-priority pods
    std::optional<TimePoint> now;    // set when the result read the clock
    framework::Status status;
    std::vector<framework::PreemptionVictim> victims;
    int32_t num_pdb_violations = 0;
  };
  // The entries for one preemptor class (profile, signature, priority, filter key).
  struct MemoTable {
    const framework::Framework* fwk = nullptr;
    std::string signature;
    int32_t priority = 0;
    uint64_t filter_key = 0;
    uint64_t last_used = 0;
    absl::flat_hash_map<const framework::NodeInfo*, MemoEntry> entries;
  };
  static constexpr size_t kMaxMemoTables = 8;

  // The memo table for the current PostFilter call, or null when the memo does not apply to `pod`.
  MemoTable* MemoTableFor(const framework::CycleState& state, const framework::PodInfo& pod);
  // What identifies `pod` to the Filter plugins that run this cycle: the Sign fragments of each
  // (FilterPlugin::FilterIsNodeLocal plugins sign everything their verdicts read); nullopt if one
  // cannot sign.
  std::optional<std::string> FilterSignature(const framework::CycleState& state,
                                             const framework::PodInfo& pod) const;
  // The current call's table, looked up on first use.
  struct LazyMemoTable {
    bool looked_up = false;
    MemoTable* table = nullptr;
  };
  // SelectVictims through the memo (when it applies). `self_nominated` is the pod's nominated node.
  framework::Status SelectVictimsMemo(LazyMemoTable& lazy, Symbol self_nominated,
                                      const framework::CycleState& state,
                                      const framework::PodInfo& pod,
                                      const framework::NodeInfo& node,
                                      std::vector<framework::PreemptionVictim>* victims,
                                      int32_t* num_pdb_violations);
  // Whether a PodDisruptionBudget exists in the namespace of any of `pods`.
  bool AnyPdbFor(std::span<const framework::PodInfo* const> pods) const;
  // Whether sorting `pods` by MoreImportantPod reads the clock (some but not all have a start
  // time).
  static bool OrderReadsClock(std::span<const framework::PodInfo* const> pods);
  // Whether PreFilter extensions (AddPod/RemovePod) can run for this cycle, i.e. the dry run must
  // work on a copy of the CycleState.
  bool NeedsStateCopy(const framework::CycleState& state);

  struct PdbState {
    const api::PodDisruptionBudget* pdb;
    int32_t allowed;
  };
  // The PDBs of `ns` with their disruptionsAllowed (cached for the current PostFilter call).
  const std::vector<PdbState>& PdbsOf(Symbol ns);
  // kube filterPodsWithPDBViolation: splits `pods` (order kept) into violating and non-violating.
  void SplitByPdbViolation(std::span<const framework::PodInfo* const> pods,
                           std::vector<const framework::PodInfo*>* violating,
                           std::vector<const framework::PodInfo*>* non_violating);
  TimePoint StartTime(const framework::PodInfo& p) const;

  framework::Handle& handle_;
  DefaultPreemptionArgs args_;
  const framework::Framework* fwk_ = nullptr;  // the preemptor's profile, for the current call
  std::vector<std::pair<Symbol, std::vector<PdbState>>> pdb_cache_;  // per namespace, current call
  // Scratch reused across calls.
  std::vector<const framework::PodInfo*> potential_;
  std::vector<const framework::PodInfo*> violating_, non_violating_;
  std::vector<int32_t> pdb_allowed_scratch_;
  // PostFilter's scratch.
  absl::flat_hash_map<Symbol, framework::Code> explicit_codes_;
  std::vector<const framework::NodeInfo*> potential_nodes_;
  std::vector<std::pair<Symbol, framework::Status>> dry_statuses_;
  std::vector<PreemptionCandidate> non_violating_candidates_, violating_candidates_;
  framework::NodeInfo scratch_node_;  // SelectVictims' working copy of the node
  VictimUnits units_;  // SelectVictims' KEP-5710 units on nodes with disruptionMode-all members
  // PreFilter plugins with extensions, by the framework they were looked up for.
  const framework::Framework* ext_fwk_ = nullptr;
  std::vector<size_t> ext_slots_;  // their CycleState slots
  bool ext_unslotted_ = false;     // one has no Filter entry, so its slot is unknown: always copy
  // Dry-run memo.
  std::vector<MemoTable> memo_;
  uint64_t memo_clock_ = 0;
  int64_t memo_hits_ = 0, memo_misses_ = 0;
};

}  // namespace corral::plugins
