#include "corral/plugins/default_preemption/default_preemption.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <span>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "corral/framework/framework.h"
#include "corral/framework/pdb.h"
#include "corral/pipeline/fit_error.h"
#include "corral/plugins/helper/field_errors.h"

namespace corral::plugins {

using framework::Code;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

Result<void> DefaultPreemptionArgs::Validate(std::string_view path) const {
  const helper::FieldPath root(path);
  const helper::FieldPath pct = root.Child("minCandidateNodesPercentage");
  const helper::FieldPath abs = root.Child("minCandidateNodesAbsolute");
  helper::FieldErrors errs;
  if (min_candidate_nodes_percentage < 0 || min_candidate_nodes_percentage > 100) {
    errs.Invalid(pct, min_candidate_nodes_percentage, "not in valid range [0, 100]");
  }
  if (min_candidate_nodes_absolute < 0) {
    errs.Invalid(abs, min_candidate_nodes_absolute, "not in valid range [0, inf)");
  }
  if (min_candidate_nodes_percentage == 0 && min_candidate_nodes_absolute == 0) {
    errs.Invalid(pct, 0, "cannot be zero at the same time as minCandidateNodesAbsolute");
    errs.Invalid(abs, 0, "cannot be zero at the same time as minCandidateNodesPercentage");
  }
  return errs.ToResult();
}

Result<std::unique_ptr<framework::Plugin>> DefaultPreemption::New(const framework::PluginArgs* args,
                                                                  framework::Handle& handle) {
  DefaultPreemptionArgs typed;
  if (args != nullptr) {
    const auto* a = dynamic_cast<const DefaultPreemptionArgs*>(args);
    if (a == nullptr)
      return Error::Invalid("got args of another type, want *DefaultPreemptionArgs");
    typed = *a;
  }
  if (auto ok = typed.Validate(); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<DefaultPreemption>(handle, typed));
}

int32_t DefaultPreemption::NumCandidates(int32_t num_nodes) const {
  int32_t n = static_cast<int32_t>(static_cast<int64_t>(num_nodes) *
                                   args_.min_candidate_nodes_percentage / 100);
  if (n < args_.min_candidate_nodes_absolute) n = args_.min_candidate_nodes_absolute;
  if (n > num_nodes) n = num_nodes;
  return n;
}

TimePoint DefaultPreemption::StartTime(const PodInfo& p) const {
  return p.pod->start_time.has_value() ? *p.pod->start_time : handle_.clock().Now();
}

bool DefaultPreemption::MoreImportantPod(const PodInfo& a, const PodInfo& b) const {
  if (a.priority() != b.priority()) return a.priority() > b.priority();
  return StartTime(a) < StartTime(b);
}

std::string_view DefaultPreemption::Ineligible(const PodInfo& pod,
                                               const framework::NodeToStatus& statuses) const {
  if (pod.pod->preemption_policy == api::PreemptionPolicy::kNever) {
    return "not eligible due to preemptionPolicy=Never.";
  }
  Symbol nominated = handle_.NominatedNodeName(pod);
  if (nominated.empty()) return {};
  // The nominated node became UnschedulableAndUnresolvable: preempt again elsewhere.
  if (statuses.Get(nominated).code() == Code::kUnschedulableAndUnresolvable) return {};
  if (const NodeInfo* node = handle_.snapshot().Get(nominated); node != nullptr) {
    for (const PodInfo* p : node->pods()) {
      if (p->priority() < pod.priority() && handle_.IsTerminatingByPreemption(*p)) {
        return "not eligible due to a terminating pod on the nominated node.";
      }
    }
  }
  return {};
}

const std::vector<DefaultPreemption::PdbState>& DefaultPreemption::PdbsOf(Symbol ns) {
  for (const auto& [n, v] : pdb_cache_) {
    if (n == ns) return v;
  }
  std::vector<PdbState> states;
  for (const api::PodDisruptionBudget* pdb : handle_.PodDisruptionBudgets(ns)) {
    states.push_back({pdb, framework::DisruptionsAllowed(handle_, *pdb)});
  }
  pdb_cache_.emplace_back(ns, std::move(states));
  return pdb_cache_.back().second;
}

void DefaultPreemption::SplitByPdbViolation(std::span<const PodInfo* const> pods,
                                            std::vector<const PodInfo*>* violating,
                                            std::vector<const PodInfo*>* non_violating) {
  violating->clear();
  non_violating->clear();
  // Budgets left for this node's victims (kube copies DisruptionsAllowed per call).
  std::vector<std::pair<const api::PodDisruptionBudget*, int32_t>> left;
  for (const PodInfo* p : pods) {
    const api::Pod& pod = *p->pod;
    bool violated = false;
    for (const PdbState& st : PdbsOf(pod.meta.namespace_)) {
      if (!framework::PdbCoversForPreemption(*st.pdb, pod)) continue;
      auto it =
          std::find_if(left.begin(), left.end(), [&](const auto& e) { return e.first == st.pdb; });
      if (it == left.end()) {
        left.emplace_back(st.pdb, st.allowed);
        it = left.end() - 1;
      }
      if (--it->second < 0) violated = true;
    }
    (violated ? violating : non_violating)->push_back(p);
  }
}

bool DefaultPreemption::NeedsStateCopy(const framework::CycleState& state) {
  if (ext_fwk_ != fwk_) {
    ext_fwk_ = fwk_;
    ext_slots_.clear();
    for (const auto& e : fwk_->filter_plugins()) {
      const auto* pf = dynamic_cast<const framework::PreFilterPlugin*>(e.plugin);
      if (pf != nullptr && pf->PreFilterExtensions() != nullptr) ext_slots_.push_back(e.slot);
    }
    size_t with_ext = 0;
    for (const framework::PreFilterPlugin* pf :
         fwk_->PluginsImplementing<framework::PreFilterPlugin>()) {
      if (pf->PreFilterExtensions() != nullptr) ++with_ext;
    }
    ext_unslotted_ = with_ext != ext_slots_.size();
  }
  if (ext_unslotted_) return true;
  const std::vector<bool>& skip = state.skip_filter();
  for (size_t slot : ext_slots_) {
    if (slot >= skip.size() || !skip[slot]) return true;
  }
  return false;
}

Status DefaultPreemption::SelectVictims(const framework::CycleState& state, const PodInfo& pod,
                                        const NodeInfo& node,
                                        std::vector<framework::PreemptionVictim>* victims,
                                        int32_t* num_pdb_violations) {
  if (fwk_ == nullptr) fwk_ = handle_.GetFramework(pod.pod->scheduler_name);
  victims->clear();
  *num_pdb_violations = 0;
  potential_.clear();
  for (const PodInfo* p : node.pods()) {
    if (p->priority() < pod.priority()) potential_.push_back(p);
  }
  // Checked before copying anything: nothing on this node can change.
  if (potential_.empty()) return Status::Unresolvable(kNoVictimsReason);
  // KEP-5710: a lower-priority member of a disruptionMode-all group here ⇒ the units' dry run.
  const bool by_units = units_.Build(handle_, node, pod);
  if (by_units) {
    potential_ = units_.OnNodePods();
    if (potential_.empty()) return Status::Unresolvable(kNoVictimsReason);
  }
  // The working copies. Copy-assignment reuses scratch_node_'s buffers, so the hot loop does not
  // allocate once they have grown. The CycleState is copied only when a PreFilter extension can
  // run (and change it); otherwise the extension runners would be no-ops and are not called.
  scratch_node_ = node;
  NodeInfo& copy = scratch_node_;
  const bool extensions = NeedsStateCopy(state);
  std::optional<framework::CycleState> cloned;
  if (extensions) cloned.emplace(state.Clone());
  const framework::CycleState& st = extensions ? *cloned : state;
  auto add = [&](const PodInfo* p) -> Status {
    copy.AddPod(p);
    return extensions ? fwk_->RunPreFilterExtensionAddPod(*cloned, pod, *p, copy) : Status();
  };
  auto remove = [&](const PodInfo* p) -> Status {
    copy.RemovePod(p);
    return extensions ? fwk_->RunPreFilterExtensionRemovePod(*cloned, pod, *p, copy) : Status();
  };
  for (const PodInfo* p : potential_) {
    if (Status s = remove(p); !s.ok()) return s;
  }
  // The pod must fit with every lower-priority pod gone; affinity to a victim is not
  // considered (kube).
  if (Status s = fwk_->RunFilterPluginsWithNominatedPods(st, pod, copy); !s.ok()) return s;
  if (by_units) {
    auto fits = [&] { return fwk_->RunFilterPluginsWithNominatedPods(st, pod, copy).ok(); };
    return units_.Reprieve({add, remove, fits}, victims, num_pdb_violations);
  }
  std::stable_sort(potential_.begin(), potential_.end(),
                   [&](const PodInfo* a, const PodInfo* b) { return MoreImportantPod(*a, *b); });
  SplitByPdbViolation(potential_, &violating_, &non_violating_);
  // Reprieve: put a victim back; it stays a victim only if the pod no longer fits.
  auto reprieve = [&](const PodInfo* p, bool violating, bool* fits) -> Status {
    if (Status s = add(p); !s.ok()) return s;
    *fits = fwk_->RunFilterPluginsWithNominatedPods(st, pod, copy).ok();
    if (!*fits) {
      if (Status s = remove(p); !s.ok()) return s;
      victims->push_back({p, violating});
    }
    return {};
  };
  for (const PodInfo* p : violating_) {
    bool fits = false;
    if (Status s = reprieve(p, true, &fits); !s.ok()) return s;
    if (!fits) ++*num_pdb_violations;
  }
  for (const PodInfo* p : non_violating_) {
    bool fits = false;
    if (Status s = reprieve(p, false, &fits); !s.ok()) return s;
  }
  if (!violating_.empty() && !non_violating_.empty()) {
    std::stable_sort(
        victims->begin(), victims->end(),
        [&](const framework::PreemptionVictim& a, const framework::PreemptionVictim& b) {
          return MoreImportantPod(*a.pod, *b.pod);
        });
  }
  return {};
}

bool DefaultPreemption::AnyPdbFor(std::span<const PodInfo* const> pods) const {
  Symbol last;
  bool first = true;
  for (const PodInfo* p : pods) {
    const Symbol ns = p->pod->meta.namespace_;
    if (!first && ns == last) continue;
    first = false;
    last = ns;
    if (!handle_.PodDisruptionBudgets(ns).empty()) return true;
  }
  return false;
}

bool DefaultPreemption::OrderReadsClock(std::span<const PodInfo* const> pods) {
  bool with = false, without = false;
  for (const PodInfo* p : pods) {
    (p->pod->start_time.has_value() ? with : without) = true;
  }
  return with && without;
}

std::optional<std::string> DefaultPreemption::FilterSignature(const framework::CycleState& state,
                                                              const PodInfo& pod) const {
  // Framework::SignPod needs every PreFilter/Filter/PreScore/Score plugin to sign and the
  // OpportunisticBatching gate; the dry run reads the pod only through the Filter plugins that
  // run (and their PreFilter state), so their fragments are what identifies the pod here.
  std::string sig;
  std::vector<framework::SignFragment> fragments;
  const std::vector<bool>& skip = state.skip_filter();
  for (const auto& e : fwk_->filter_plugins()) {
    if (e.slot < skip.size() && skip[e.slot]) continue;
    const auto* signer = dynamic_cast<const framework::SignPlugin*>(e.plugin);
    if (signer == nullptr) return std::nullopt;
    fragments.clear();
    if (!signer->Sign(pod, &fragments).ok()) return std::nullopt;
    sig += e.name;
    sig.push_back('\0');
    for (const auto& f : fragments) {
      sig += f.key;
      sig.push_back('\0');
      sig += f.value;
      sig.push_back('\0');
    }
    sig.push_back('\1');
  }
  return sig;
}

DefaultPreemption::MemoTable* DefaultPreemption::MemoTableFor(const framework::CycleState& state,
                                                              const PodInfo& pod) {
  if (!handle_.features().Enabled(framework::Feature::kCorralPreemptionMemo)) return nullptr;
  const std::optional<uint64_t> filter_key = fwk_->NodeLocalFilterKey(state, pod);
  if (!filter_key.has_value()) return nullptr;
  std::optional<std::string> signature = FilterSignature(state, pod);
  if (!signature.has_value()) return nullptr;
  ++memo_clock_;
  // Slots of nodes that left the snapshot are never valid again; start over when they could
  // dominate (every table's entries are indexed by the old slots).
  if (num_slots_ > 2 * handle_.snapshot().NumNodes() + 64) {
    std::fill(slot_of_.begin(), slot_of_.end(), kNoSlot);
    num_slots_ = 0;
    for (MemoTable& t : memo_) t.entries.clear();
  }
  for (MemoTable& t : memo_) {
    if (t.fwk == fwk_ && t.priority == pod.priority() && t.filter_key == *filter_key &&
        t.signature == *signature) {
      t.last_used = memo_clock_;
      return &t;
    }
  }
  MemoTable* t = nullptr;
  if (memo_.size() < kMaxMemoTables) {
    t = &memo_.emplace_back();
  } else {
    t = &*std::min_element(memo_.begin(), memo_.end(), [](const MemoTable& a, const MemoTable& b) {
      return a.last_used < b.last_used;
    });
    for (MemoEntry& e : t->entries) e.node_info = nullptr;  // keeps the buffers
  }
  t->fwk = fwk_;
  t->signature = std::move(*signature);
  t->priority = pod.priority();
  t->filter_key = *filter_key;
  t->last_used = memo_clock_;
  return t;
}

uint32_t DefaultPreemption::NewSlot(Symbol node) {
  const uint32_t id = node.id();
  if (id >= slot_of_.size())
    slot_of_.resize(std::max<size_t>(id + 1, 2 * slot_of_.size()), kNoSlot);
  slot_of_[id] = num_slots_++;
  return slot_of_[id];
}

bool DefaultPreemption::HasPdb(Symbol ns) {
  for (const auto& [n, has] : has_pdb_cache_) {
    if (n == ns) return has;
  }
  const bool has = !handle_.PodDisruptionBudgets(ns).empty();
  has_pdb_cache_.emplace_back(ns, has);
  return has;
}

const Status& DefaultPreemption::DryRunUnmemoized(const framework::CycleState& state,
                                                  const PodInfo& pod, const NodeInfo& node,
                                                  CandidateRef* cand) {
  int32_t num_pdb_violations = 0;
  status_scratch_ = SelectVictims(state, pod, node, &victims_scratch_, &num_pdb_violations);
  if (status_scratch_.ok() && !victims_scratch_.empty()) {
    cand->scores = ScoresOf(victims_scratch_, num_pdb_violations);
    cand->pool_begin = static_cast<uint32_t>(victim_pool_.size());
    victim_pool_.insert(victim_pool_.end(), victims_scratch_.begin(), victims_scratch_.end());
  }
  return status_scratch_;
}

Code DefaultPreemption::DryRunNode(LazyMemoTable& lazy, Symbol self_nominated,
                                   const framework::CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node, TimePoint now, CandidateRef* cand,
                                   const Status** status) {
  auto unmemoized = [&]() {
    *status = &DryRunUnmemoized(state, pod, node, cand);
    return (*status)->code();
  };
  // The pod's own nomination is left out of the nominated pods on its nominated node only, so a
  // result there is specific to this pod. KEP-5710 units reach beyond the node: never memoized.
  if (node.name() == self_nominated ||
      (lazy.all_mode_groups && VictimUnits::HostsAllModeMember(handle_, node, pod))) {
    return unmemoized();
  }
  // SelectVictims' own first check: a node without lower-priority pods answers at once and is
  // never stored. It reads every pod's PodInfo, so once the table exists an entry is tried first.
  auto no_lower = [&]() {
    return std::none_of(node.pods().begin(), node.pods().end(),
                        [&](const PodInfo* p) { return p->priority() < pod.priority(); });
  };
  if (!lazy.looked_up) {
    if (no_lower()) return unmemoized();
    lazy.looked_up = true;  // looked up once a node needs it
    lazy.table = MemoTableFor(state, pod);
  }
  MemoTable* table = lazy.table;
  if (table == nullptr) return unmemoized();
  const uint32_t slot = SlotOf(node.name());
  if (slot >= table->entries.size()) table->entries.resize(num_slots_);
  {
    const MemoEntry& e = table->entries[slot];
    // Generations are process-wide unique (NodeInfo::generation): the same NodeInfo with the same
    // generation holds the same pods, so the victims cannot dangle.
    bool valid = e.node_info == &node && e.api_node == node.node() &&
                 e.generation == node.generation() && (!e.reads_clock || e.now == now) &&
                 e.nomination_version == handle_.NominationVersion(node.name());
    // A success read the PodDisruptionBudgets of the victims' namespaces: it was kept only when
    // there were none, and stays valid while that holds.
    if (valid && e.code == Code::kSuccess) {
      for (Symbol ns : e.namespaces) {
        if (HasPdb(ns)) valid = false;
      }
    }
    if (valid) {
      ++memo_hits_;
      cand->memo_slot = slot;
      if (e.candidate) cand->scores = e.scores;
      *status = &e.status;
      return e.code;
    }
  }
  if (no_lower()) return unmemoized();
  const uint64_t nomination_version = handle_.NominationVersion(node.name());
  ++memo_misses_;
  int32_t num_pdb_violations = 0;
  Status s = SelectVictims(state, pod, node, &victims_scratch_, &num_pdb_violations);
  MemoEntry& e = table->entries[slot];
  std::vector<const PodInfo*>& lower = potential_;  // refilled in node order
  lower.clear();
  for (const PodInfo* p : node.pods()) {
    if (p->priority() < pod.priority()) lower.push_back(p);
  }
  if (s.ok() && AnyPdbFor(lower)) {
    e.node_info = nullptr;
    status_scratch_ = std::move(s);
    if (!victims_scratch_.empty()) {
      cand->scores = ScoresOf(victims_scratch_, num_pdb_violations);
      cand->pool_begin = static_cast<uint32_t>(victim_pool_.size());
      victim_pool_.insert(victim_pool_.end(), victims_scratch_.begin(), victims_scratch_.end());
    }
    *status = &status_scratch_;
    return Code::kSuccess;
  }
  e.namespaces.clear();
  for (const PodInfo* p : lower) {
    const Symbol ns = p->pod->meta.namespace_;
    if (std::find(e.namespaces.begin(), e.namespaces.end(), ns) == e.namespaces.end())
      e.namespaces.push_back(ns);
  }
  e.node_info = &node;
  e.api_node = node.node();
  e.generation = node.generation();
  e.nomination_version = nomination_version;
  e.reads_clock = OrderReadsClock(lower);
  e.now = now;
  e.status = std::move(s);
  e.code = e.status.code();
  e.victims.assign(victims_scratch_.begin(), victims_scratch_.end());
  e.candidate = e.code == Code::kSuccess && !e.victims.empty();
  if (e.candidate) {
    e.scores = ScoresOf(e.victims, num_pdb_violations);
    cand->scores = e.scores;
  }
  cand->memo_slot = slot;
  *status = &e.status;
  return e.code;
}

DefaultPreemption::PickScores DefaultPreemption::ScoresOf(
    std::span<const framework::PreemptionVictim> victims, int32_t num_pdb_violations) {
  constexpr int64_t kPriorityOffset = int64_t{std::numeric_limits<int32_t>::max()} + 1;
  PickScores s;
  s.num_pdb_violations = num_pdb_violations;
  s.num_victims = static_cast<int32_t>(victims.size());
  s.first_priority = victims[0].pod->priority();
  // The start times of the highest-priority victims: the earliest known one, and whether one is
  // "now" (no status.startTime).
  int32_t max_priority = s.first_priority;
  auto restart = [&](const PodInfo& p) {
    s.earliest = p.pod->start_time.has_value() ? *p.pod->start_time : TimePoint::max();
    s.reads_now = !p.pod->start_time.has_value();
  };
  restart(*victims[0].pod);
  for (const auto& v : victims) {
    const PodInfo& p = *v.pod;
    s.priority_sum += p.priority() + kPriorityOffset;
    if (p.priority() == max_priority) {
      if (p.pod->start_time.has_value()) {
        s.earliest = std::min(s.earliest, *p.pod->start_time);
      } else {
        s.reads_now = true;
      }
    } else if (p.priority() > max_priority) {
      max_priority = p.priority();
      restart(p);
    }
  }
  return s;
}

DefaultPreemption::PickKey DefaultPreemption::KeyOf(const PickScores& s, TimePoint now) {
  // Each score higher is better.
  const TimePoint earliest = s.reads_now ? std::min(s.earliest, now) : s.earliest;
  return {
      -int64_t{s.num_pdb_violations},       // fewest PDB violations
      -int64_t{s.first_priority},           // lowest highest-priority victim
      -s.priority_sum,                      // smallest sum of offset priorities
      -int64_t{s.num_victims},              // fewest victims
      earliest.time_since_epoch().count(),  // latest start of the highest-priority ones
  };
}

size_t DefaultPreemption::PickOneNodeForPreemption(
    std::span<const PreemptionCandidate> candidates) const {
  // kube applies the criteria one after another, keeping the candidates that tie on each; the
  // survivor is the first candidate whose score tuple is lexicographically greatest, which one
  // pass over precomputed tuples finds.
  const TimePoint now = handle_.clock().Now();
  auto key = [&](const PreemptionCandidate& c) {
    return KeyOf(ScoresOf(c.victims, c.num_pdb_violations), now);
  };
  size_t best = 0;
  PickKey best_key = key(candidates[0]);
  for (size_t i = 1; i < candidates.size(); ++i) {
    PickKey k = key(candidates[i]);
    if (k > best_key) {
      best = i;
      best_key = k;
    }
  }
  return best;
}

namespace {

// kube's FitError text for the preemption dry run: "0/N nodes are available: <histogram>.", from
// the count of each reason over the `num_explicit` nodes with a dry-run status; the other nodes
// count under `absent_reason`.
std::string FitMessageFromCounts(size_t num_all,
                                 const std::vector<std::pair<std::string_view, int64_t>>& counts,
                                 size_t num_explicit, std::string_view absent_reason) {
  std::map<std::string, int64_t> reasons;
  for (const auto& [r, n] : counts) reasons[std::string(r)] += n;
  if (num_explicit < num_all)
    reasons[std::string(absent_reason)] += static_cast<int64_t>(num_all - num_explicit);
  std::string msg = pipeline::NoneAvailable(num_all, "nodes");
  pipeline::AppendReasonHistogram(reasons, msg);
  return msg;
}

Status Preemption(Code code, std::string_view msg) {
  return Status::WithOwnedReason(code, "preemption: " + std::string(msg));
}

// The potential nodes (status kUnschedulable), in snapshot order, when `listed` holds every node of
// `all` exactly once in a rotation of snapshot order, as a filter pass over all nodes that found
// none feasible lists them (its round-robin walk from the start index). Each node's status is then
// found by position: only the two arrays are read, not the NodeInfos (at thousands of nodes per
// attempt, reading each node's name cost two dependent cache misses per node). False, and
// `potential` untouched, when `listed` is not such a rotation.
bool PotentialByRotation(std::span<const NodeInfo* const> all,
                         std::span<const framework::NodeStatus> listed,
                         std::vector<const NodeInfo*>& potential) {
  const size_t n = all.size();
  if (n == 0 || listed.size() != n) return false;
  const auto first = std::find(all.begin(), all.end(), listed[0].node);
  if (first == all.end()) return false;
  // One pass in snapshot order checks the rotation and collects the nodes (undone if it fails).
  const auto start = static_cast<size_t>(first - all.begin());
  const size_t old_size = potential.size();
  for (size_t j = 0, i = start == 0 ? 0 : n - start; j < n; ++j, i = i + 1 == n ? 0 : i + 1) {
    if (listed[i].node != all[j]) {
      potential.resize(old_size);
      return false;
    }
    if (listed[i].status.code() == Code::kUnschedulable) potential.push_back(all[j]);
  }
  return true;
}

}  // namespace

void DefaultPreemption::CountFailure(const Status& s) {
  ++num_failed_;
  // Few distinct reasons per call (most share one static string): compare the pointer first.
  for (std::string_view r : s.reasons()) {
    auto it = std::find_if(reason_counts_.begin(), reason_counts_.end(), [&](const ReasonCount& c) {
      return (c.reason.data() == r.data() && c.reason.size() == r.size()) || c.reason == r;
    });
    if (it == reason_counts_.end()) {
      reason_counts_.push_back({r, 1, s});  // the copy keeps an owned reason alive
    } else {
      ++it->count;
    }
  }
}

Status DefaultPreemption::PostFilter(framework::CycleState& state, const PodInfo& pod,
                                     const framework::NodeToStatus& statuses,
                                     framework::PostFilterResult* result) {
  fwk_ = handle_.GetFramework(pod.pod->scheduler_name);
  if (fwk_ == nullptr)
    return Status::Error("preemption: the pod's profile is unknown to the handle");
  pdb_cache_.clear();
  has_pdb_cache_.clear();
  dry_run_ = {};
  // 1) Eligibility.
  if (std::string_view why = Ineligible(pod, statuses); !why.empty()) {
    return Preemption(Code::kUnschedulable, why);
  }
  // 2) Potential nodes: filter status Unschedulable.
  const framework::Snapshot& snap = handle_.snapshot();
  const auto& all = snap.nodes();
  if (all.empty()) return Preemption(Code::kError, "no nodes available");
  // Scratch vectors are members (cleared, capacity kept): at thousands of nodes per attempt their
  // reallocation was a visible share of the time.
  std::vector<const NodeInfo*>& potential = potential_nodes_;
  potential.clear();
  // kube's NodesForStatusCode lists the snapshot when the absent status matches and otherwise
  // iterates its status map (a Go map: random order). Corral takes snapshot order in both cases, so
  // the candidates do not depend on the order the filter pass visited the nodes in (which rotates
  // with the start index, and differs when opportunistic batching lets a cycle skip the pass).
  if (!PotentialByRotation(all, statuses.nodes, potential)) {
    // The explicit codes by node name (dense, stamped per call instead of cleared).
    if (++explicit_epoch_ == 0) {
      std::fill(explicit_stamp_.begin(), explicit_stamp_.end(), 0);
      explicit_epoch_ = 1;
    }
    for (const auto& ns : statuses.nodes) {
      const uint32_t id = ns.node->name().id();
      if (id >= explicit_stamp_.size()) {
        explicit_stamp_.resize(id + 1, 0);
        explicit_codes_.resize(id + 1);
      }
      explicit_stamp_[id] = explicit_epoch_;
      explicit_codes_[id] = ns.status.code();
    }
    const Code absent = statuses.absent.code();
    for (const NodeInfo* n : all) {
      const uint32_t id = n->name().id();
      const bool exp = id < explicit_stamp_.size() && explicit_stamp_[id] == explicit_epoch_;
      if ((exp ? explicit_codes_[id] : absent) == Code::kUnschedulable) potential.push_back(n);
    }
  }
  reason_counts_.clear();
  num_failed_ = 0;
  failed_slots_.clear();
  victim_pool_.clear();
  std::vector<CandidateRef>&non_violating = non_violating_candidates_,
  &violating = violating_candidates_;
  non_violating.clear();
  violating.clear();
  std::vector<std::string> errors;
  LazyMemoTable memo;
  const TimePoint now = handle_.clock().Now();
  if (!potential.empty()) {
    // 3) Dry run from a random offset.
    const auto n = static_cast<int32_t>(potential.size());
    const auto offset = static_cast<size_t>(handle_.rng().Uniform(static_cast<uint64_t>(n)));
    const auto want = static_cast<size_t>(NumCandidates(n));
    dry_run_.ran = true;
    dry_run_.potential = n;
    dry_run_.offset = static_cast<int32_t>(offset);
    dry_run_.num_candidates = static_cast<int32_t>(want);
    // No node holds a pod of lower priority (the cluster-wide minimum says so): every potential
    // node would answer SelectVictims' first check, "No preemption victims found for incoming
    // pod", and none is a candidate. The message counts them without visiting the nodes (after the
    // offset is drawn, so the RNG stream is the same as the walk's).
    if (std::optional<int32_t> min = handle_.MinPodPriorityOnNodes();
        min.has_value() && *min >= pod.priority()) {
      dry_run_.none_lower = true;
      result->mode = framework::NominatingMode::kOverride;  // clears a stale nomination
      result->nominated_node_name = Symbol();
      return Preemption(
          Code::kUnschedulable,
          FitMessageFromCounts(all.size(), {{kNoVictimsReason, static_cast<int64_t>(n)}},
                               potential.size(), kNotHelpfulReason));
    }
    const Symbol self_nominated = handle_.NominatedNodeName(pod);
    for (size_t i = 0; i < potential.size(); ++i) {
      size_t k = offset + i;
      if (k >= potential.size()) k -= potential.size();
      const NodeInfo& node = *potential[k];
      ++dry_run_.evaluated;
      CandidateRef c;
      const Status* s = nullptr;
      const Code code = DryRunNode(memo, self_nominated, state, pod, node, now, &c, &s);
      if (code == Code::kSuccess && c.scores.num_victims > 0) {
        c.node = node.name();
        auto& list = c.scores.num_pdb_violations == 0 ? non_violating : violating;
        if (list.size() < want) list.push_back(c);
        if (!non_violating.empty() && non_violating.size() + violating.size() >= want) break;
        continue;
      }
      if (code == Code::kSuccess) {
        Status err = Status::Error(fmt::format("expected at least one victim pod on node {:?}",
                                               handle_.interner().Str(node.name())));
        errors.push_back(err.Message());
        CountFailure(err);
        continue;
      }
      if (code == Code::kError) {
        errors.push_back(s->Message());
      } else if (c.memo_slot != kNoSlot) {
        failed_slots_.push_back(c.memo_slot);  // counted if the message is needed
        continue;
      }
      CountFailure(*s);
    }
  }
  dry_run_.found = static_cast<int32_t>(non_violating.size() + violating.size());
  if (non_violating.empty() && violating.empty()) {
    if (!errors.empty()) {
      std::string msg =
          errors.size() == 1 ? errors[0] : "[" + fmt::format("{}", fmt::join(errors, ", ")) + "]";
      return Preemption(Code::kError, msg);
    }
    result->mode = framework::NominatingMode::kOverride;  // clears a stale nomination
    result->nominated_node_name = Symbol();
    for (uint32_t slot : failed_slots_) CountFailure(memo.table->entries[slot].status);
    std::vector<std::pair<std::string_view, int64_t>> counts;
    counts.reserve(reason_counts_.size());
    for (const ReasonCount& c : reason_counts_) counts.emplace_back(c.reason, c.count);
    return Preemption(Code::kUnschedulable,
                      FitMessageFromCounts(all.size(), counts, num_failed_, kNotHelpfulReason));
  }
  // 4) The best candidate: kube's list is the non-violating candidates, then the violating ones.
  const CandidateRef* best = nullptr;
  PickKey best_key{};
  for (const auto* list : {&non_violating, &violating}) {
    for (const CandidateRef& c : *list) {
      PickKey k = KeyOf(c.scores, now);
      if (best == nullptr || k > best_key) {
        best = &c;
        best_key = k;
      }
    }
  }
  std::span<const framework::PreemptionVictim> victims;
  if (best->memo_slot == kNoSlot) {
    victims = std::span(victim_pool_)
                  .subspan(best->pool_begin, static_cast<size_t>(best->scores.num_victims));
  } else {
    victims = memo.table->entries[best->memo_slot].victims;
  }
  result->mode = framework::NominatingMode::kOverride;
  result->nominated_node_name = best->node;
  result->victims.assign(victims.begin(), victims.end());
  result->num_pdb_violations = best->scores.num_pdb_violations;
  return {};
}

}  // namespace corral::plugins
