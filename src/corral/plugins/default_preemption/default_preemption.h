#pragma once
// DefaultPreemption (kube's defaultpreemption plugin with the preemption Evaluator): a PostFilter
// that, when no node is feasible, looks for a node where evicting lower-priority pods lets the pod
// fit, and names those victims and that node in its PostFilterResult. The scheduler evicts the
// victims and nominates the pod (it retries once they are gone).
//
// Algorithm (kube's Evaluator.Preempt):
//   1. Eligibility: preemptionPolicy Never, or a lower-priority pod on the pod's nominated node
//      that is already terminating by preemption (unless that node is now
//      UnschedulableAndUnresolvable) ⇒ no.
//   2. Potential nodes: those whose filter status is Unschedulable (UU nodes can never help).
//   3. Dry run from a random offset (Handle::rng) over the potential nodes, serially, until at
//      least one candidate without PDB violations exists and the candidates number max(N ×
//      minCandidateNodesPercentage / 100, minCandidateNodesAbsolute) (capped at N). Per node
//      (SelectVictims): remove every lower-priority pod (on copies of the NodeInfo and the
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
// Entries are stored densely by the node's memo slot (one per node name, SlotOf) and record the
// NodeInfo they were computed on (the name alone does not identify the object). A stored success
// also keeps its PickOneNodeForPreemption scores (PickScores: clock-free, "now" applied when
// compared), and candidates refer to their entries: only the chosen node's victims are copied.
// The candidate walk (offset, counts, stop condition) and PickOneNodeForPreemption run unchanged,
// so decisions, victims and messages are identical with the gate on or off.

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/inlined_vector.h>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/framework/preemption_dry_run.h"
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

class DefaultPreemption final : public framework::PostFilterPlugin,
                                public framework::PreemptionDryRunReporter {
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
  // kube util.MoreImportantPod: higher priority, then earlier start time (a pod without one
  // started "now").
  bool MoreImportantPod(const framework::PodInfo& a, const framework::PodInfo& b) const;

  const framework::PreemptionDryRun& LastDryRun() const override { return dry_run_; }

  // Dry-run memo statistics since construction (nodes answered from the memo, nodes computed while
  // the memo applied). Nodes where the memo cannot apply count in neither.
  int64_t memo_hits() const { return memo_hits_; }
  int64_t memo_misses() const { return memo_misses_; }

 private:
  framework::PreemptionDryRun dry_run_;
  // PickOneNodeForPreemption's criteria for one candidate, computed once from its victims. The
  // only clock-dependent part (the start of a highest-priority victim without status.startTime,
  // read as "now") is kept apart, so a memoized tuple stays exact at any later instant.
  struct PickScores {
    int64_t priority_sum = 0;  // Σ (priority + 2^31)
    // The earliest status.startTime among the highest-priority victims that have one.
    TimePoint earliest = TimePoint::max();
    int32_t num_pdb_violations = 0;
    int32_t first_priority = 0;  // victims[0] (the most important)
    int32_t num_victims = 0;
    bool reads_now = false;  // a highest-priority victim has no start time: min(earliest, now)
  };
  using PickKey = std::array<int64_t, 5>;  // higher is better, compared lexicographically
  static PickScores ScoresOf(std::span<const framework::PreemptionVictim> victims,
                             int32_t num_pdb_violations);
  static PickKey KeyOf(const PickScores& s, TimePoint now);

  // One memoized SelectVictims result and what it was computed from. Empty while node_info is
  // null. What a visit reads (validity, outcome, the namespaces of a success) fills the first cache
  // line; the scores the second; the rest is read only for the chosen candidate or a
  // failure's reasons.
  struct alignas(64) MemoEntry {
    const framework::NodeInfo* node_info = nullptr;
    const api::Node* api_node = nullptr;
    uint64_t generation = 0;
    uint64_t nomination_version = 0;
    TimePoint now;             // the clock when stored; compared only when `reads_clock`
    bool reads_clock = false;  // the result read the clock
    framework::Code code = framework::Code::kSuccess;  // status.code()
    bool candidate = false;  // a success with at least one victim: `scores` is set
    absl::InlinedVector<Symbol, 2> namespaces;  // of the lower-priority pods
    PickScores scores;
    framework::Status status;
    std::vector<framework::PreemptionVictim> victims;
  };
  // The entries for one preemptor class (profile, signature, priority, filter key), indexed by the
  // node's memo slot (slot_of_).
  struct MemoTable {
    const framework::Framework* fwk = nullptr;
    std::string signature;
    int32_t priority = 0;
    uint64_t filter_key = 0;
    uint64_t last_used = 0;
    std::vector<MemoEntry> entries;
  };
  static constexpr size_t kMaxMemoTables = 8;
  static constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

  // A candidate found by the current PostFilter call: its scores and where its victims are (a memo
  // entry, or victim_pool_). Victims are copied out only for the chosen one.
  struct CandidateRef {
    Symbol node;
    PickScores scores;
    // Where the result is: the current table's entry of this slot (status and victims), or, when
    // kNoSlot, victims in victim_pool_[pool_begin, pool_begin + scores.num_victims).
    uint32_t memo_slot = kNoSlot;
    uint32_t pool_begin = 0;
  };

  // The memo table for the current PostFilter call, or null when the memo does not apply to `pod`.
  MemoTable* MemoTableFor(const framework::CycleState& state, const framework::PodInfo& pod);
  // The memo slot of the node named `node` (assigned on first use). Slots are dense: the tables are
  // vectors indexed by them instead of hash maps.
  uint32_t SlotOf(Symbol node) {
    const uint32_t id = node.id();
    if (id < slot_of_.size() && slot_of_[id] != kNoSlot) return slot_of_[id];
    return NewSlot(node);
  }
  uint32_t NewSlot(Symbol node);
  // What identifies `pod` to the Filter plugins that run this cycle: the Sign fragments of each
  // (FilterPlugin::FilterIsNodeLocal plugins sign everything their verdicts read); nullopt if one
  // cannot sign.
  std::optional<std::string> FilterSignature(const framework::CycleState& state,
                                             const framework::PodInfo& pod) const;
  // The current call's table, looked up on first use, and whether any disruptionMode-all pod group
  // exists (Handle::HasAllModePodGroups, read once per call rather than once per visited node).
  struct LazyMemoTable {
    bool looked_up = false;
    MemoTable* table = nullptr;
    bool all_mode_groups = true;
  };
  // SelectVictims through the memo (when it applies). `self_nominated` is the pod's nominated node,
  // `now` the clock's time for this call. Returns the node's status code and sets *status to the
  // status, valid until the next call. cand->memo_slot is set when the result is a memo entry (its
  // status and victims stay valid for the rest of the PostFilter call, by slot); a success with
  // victims also sets cand->scores (and pool_begin when not memoized).
  framework::Code DryRunNode(LazyMemoTable& lazy, Symbol self_nominated,
                             const framework::CycleState& state, const framework::PodInfo& pod,
                             const framework::NodeInfo& node, TimePoint now, CandidateRef* cand,
                             const framework::Status** status);
  // SelectVictims into victims_scratch_ and, for a candidate, its victims appended to victim_pool_.
  const framework::Status& DryRunUnmemoized(const framework::CycleState& state,
                                            const framework::PodInfo& pod,
                                            const framework::NodeInfo& node, CandidateRef* cand);
  // Whether a PodDisruptionBudget exists in the namespace of any of `pods`.
  bool AnyPdbFor(std::span<const framework::PodInfo* const> pods) const;
  // Whether a PodDisruptionBudget exists in `ns` (cached for the current PostFilter call).
  bool HasPdb(Symbol ns);
  // Whether sorting `pods` by MoreImportantPod reads the clock (some but not all have a
  // start time).
  static bool OrderReadsClock(std::span<const framework::PodInfo* const> pods);
  // Whether PreFilter extensions (AddPod/RemovePod) can run for this cycle, i.e. the dry run must
  // work on a copy of the CycleState.
  bool NeedsStateCopy(const framework::CycleState& state);
  // Counts a failed node's reasons for the "not helpful" message.
  void CountFailure(const framework::Status& s);

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
  std::vector<std::pair<Symbol, bool>> has_pdb_cache_;               // per namespace, current call
  // Scratch reused across calls.
  std::vector<const framework::PodInfo*> potential_;
  std::vector<const framework::PodInfo*> violating_, non_violating_;
  // PostFilter's scratch.
  std::vector<framework::Code> explicit_codes_;  // by node name Symbol id; valid where stamped
  std::vector<uint32_t> explicit_stamp_;         // == explicit_epoch_: explicit_codes_ is set
  uint32_t explicit_epoch_ = 0;
  std::vector<const framework::NodeInfo*> potential_nodes_;
  // The "not helpful" histogram: each distinct reason (kept alive by a copy of one status that
  // carries it) and the number of failed nodes that gave it.
  struct ReasonCount {
    std::string_view reason;
    int64_t count = 0;
    framework::Status keeper;
  };
  std::vector<ReasonCount> reason_counts_;
  size_t num_failed_ = 0;  // failed dry-run nodes counted in reason_counts_
  // Failed nodes whose status is a memo entry: counted only when the message is needed (no
  // candidate), so a walk that finds candidates never reads their statuses.
  std::vector<uint32_t> failed_slots_;
  std::vector<CandidateRef> non_violating_candidates_, violating_candidates_;
  std::vector<framework::PreemptionVictim> victim_pool_;      // unmemoized candidates' victims
  std::vector<framework::PreemptionVictim> victims_scratch_;  // SelectVictims' output
  framework::Status status_scratch_;                          // DryRunUnmemoized's result
  framework::NodeInfo scratch_node_;  // SelectVictims' working copy of the node
  VictimUnits units_;  // SelectVictims' KEP-5710 units on nodes with disruptionMode-all members
  // PreFilter plugins with extensions, by the framework they were looked up for.
  const framework::Framework* ext_fwk_ = nullptr;
  std::vector<size_t> ext_slots_;  // their CycleState slots
  bool ext_unslotted_ = false;     // one has no Filter entry, so its slot is unknown: always copy
  // Dry-run memo.
  std::vector<MemoTable> memo_;
  std::vector<uint32_t> slot_of_;  // node name Symbol id → memo slot (kNoSlot: none yet)
  uint32_t num_slots_ = 0;
  uint64_t memo_clock_ = 0;
  int64_t memo_hits_ = 0, memo_misses_ = 0;
};
static_assert(framework::kImplements<DefaultPreemption, framework::PostFilterPlugin>);

}  // namespace corral::plugins
