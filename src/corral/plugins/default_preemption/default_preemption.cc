#include "corral/plugins/default_preemption/default_preemption.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <string>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "corral/framework/fit_error.h"
#include "corral/framework/framework.h"
#include "corral/framework/pdb.h"
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
      if (pf != nullptr && pf->Extensions() != nullptr) ext_slots_.push_back(e.slot);
    }
    size_t with_ext = 0;
    for (const framework::PreFilterPlugin* pf :
         fwk_->PluginsImplementing<framework::PreFilterPlugin>()) {
      if (pf->Extensions() != nullptr) ++with_ext;
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
  // The pod must fit with every lower-priority pod gone; affinity to a victim is not considered
  // (kube).
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
  for (MemoTable& t : memo_) {
    if (t.fwk == fwk_ && t.priority == pod.priority() && t.filter_key == *filter_key &&
        t.signature == *signature) {
      t.last_used = memo_clock_;
      // Entries of nodes that left the snapshot are never valid again; drop them all when they
      // could dominate.
      if (t.entries.size() > 2 * handle_.snapshot().NumNodes() + 64) t.entries.clear();
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
    t->entries.clear();
  }
  t->fwk = fwk_;
  t->signature = std::move(*signature);
  t->priority = pod.priority();
  t->filter_key = *filter_key;
  t->last_used = memo_clock_;
  return t;
}

Status DefaultPreemption::SelectVictimsMemo(LazyMemoTable& lazy, Symbol self_nominated,
                                            const framework::CycleState& state, const PodInfo& pod,
                                            const NodeInfo& node,
                                            std::vector<framework::PreemptionVictim>* victims,
                                            int32_t* num_pdb_violations) {
  // The pod's own nomination is left out of the nominated pods on its nominated node only, so a
  // result there is specific to this pod. KEP-5710 units reach beyond the node: never memoized.
  if (node.name() == self_nominated || VictimUnits::HostsAllModeMember(handle_, node, pod)) {
    return SelectVictims(state, pod, node, victims, num_pdb_violations);
  }
  // SelectVictims' own first check: a node without lower-priority pods answers at once and is
  // never stored. It reads every pod's PodInfo, so once the table exists an entry is tried first.
  auto no_lower = [&]() {
    return std::none_of(node.pods().begin(), node.pods().end(),
                        [&](const PodInfo* p) { return p->priority() < pod.priority(); });
  };
  if (!lazy.looked_up) {
    if (no_lower()) return SelectVictims(state, pod, node, victims, num_pdb_violations);
    lazy.looked_up = true;  // looked up once a node needs it
    lazy.table = MemoTableFor(state, pod);
  }
  MemoTable* table = lazy.table;
  if (table == nullptr) return SelectVictims(state, pod, node, victims, num_pdb_violations);
  auto it = table->entries.find(&node);
  if (it != table->entries.end()) {
    const MemoEntry& e = it->second;
    bool valid = e.api_node == node.node() && e.generation == node.generation() &&
                 (!e.now.has_value() || *e.now == handle_.clock().Now()) &&
                 e.nomination_version == handle_.NominationVersion(node.name());
    // Generations are process-wide unique (NodeInfo::generation): the same NodeInfo with the same
    // generation holds the same pods, so the victims cannot dangle.
    // A success read the PodDisruptionBudgets of the victims' namespaces: it was kept only when
    // there were none, and stays valid while that holds.
    if (valid && e.status.ok()) {
      for (Symbol ns : e.namespaces) {
        if (!handle_.PodDisruptionBudgets(ns).empty()) valid = false;
      }
    }
    if (valid) {
      ++memo_hits_;
      *victims = e.victims;
      *num_pdb_violations = e.num_pdb_violations;
      return e.status;
    }
  }
  if (no_lower()) return SelectVictims(state, pod, node, victims, num_pdb_violations);
  const uint64_t nomination_version = handle_.NominationVersion(node.name());
  ++memo_misses_;
  Status s = SelectVictims(state, pod, node, victims, num_pdb_violations);
  MemoEntry e;
  std::vector<const PodInfo*>& lower = potential_;  // refilled in node order
  lower.clear();
  for (const PodInfo* p : node.pods()) {
    if (p->priority() < pod.priority()) lower.push_back(p);
  }
  if (s.ok() && AnyPdbFor(lower)) {
    table->entries.erase(&node);
    return s;
  }
  for (const PodInfo* p : lower) {
    const Symbol ns = p->pod->meta.namespace_;
    if (std::find(e.namespaces.begin(), e.namespaces.end(), ns) == e.namespaces.end())
      e.namespaces.push_back(ns);
  }
  e.api_node = node.node();
  e.generation = node.generation();
  e.nomination_version = nomination_version;
  if (OrderReadsClock(lower)) e.now = handle_.clock().Now();
  e.status = s;
  e.victims = *victims;
  e.num_pdb_violations = *num_pdb_violations;
  table->entries.insert_or_assign(&node, std::move(e));
  return s;
}

size_t DefaultPreemption::PickOneNodeForPreemption(
    std::span<const PreemptionCandidate> candidates) const {
  // kube applies the criteria one after another, keeping the candidates that tie on each; the
  // survivor is the first candidate whose score tuple is lexicographically greatest, which one
  // pass over precomputed tuples finds (each score higher is better).
  constexpr int64_t kPriorityOffset = int64_t{std::numeric_limits<int32_t>::max()} + 1;
  using Scores = std::array<int64_t, 5>;
  auto scores_of = [&](const PreemptionCandidate& c) {
    Scores s;
    s[0] = -int64_t{c.num_pdb_violations};          // fewest PDB violations
    s[1] = -int64_t{c.victims[0].pod->priority()};  // lowest highest-priority victim
    int64_t sum = 0;                                // smallest sum of offset priorities
    int32_t max_priority = c.victims[0].pod->priority();
    TimePoint earliest = StartTime(*c.victims[0].pod);
    for (const auto& v : c.victims) {
      const PodInfo* p = v.pod;
      sum += p->priority() + kPriorityOffset;
      if (p->priority() == max_priority) {
        earliest = std::min(earliest, StartTime(*p));
      } else if (p->priority() > max_priority) {
        max_priority = p->priority();
        earliest = StartTime(*p);
      }
    }
    s[2] = -sum;
    s[3] = -static_cast<int64_t>(c.victims.size());  // fewest victims
    s[4] = earliest.time_since_epoch().count();      // latest start of the highest-priority ones
    return s;
  };
  size_t best = 0;
  Scores best_scores = scores_of(candidates[0]);
  for (size_t i = 1; i < candidates.size(); ++i) {
    Scores s = scores_of(candidates[i]);
    if (s > best_scores) {
      best = i;
      best_scores = s;
    }
  }
  return best;
}

namespace {

// kube's FitError text for the preemption dry run: "0/N nodes are available: <histogram>.".
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
  std::string msg = fmt::format("0/{} nodes are available:", num_all);
  framework::AppendReasonHistogram(reasons, msg);
  return msg;
}

std::string FitMessage(size_t num_all, const std::vector<std::pair<Symbol, Status>>& statuses,
                       std::string_view absent_reason) {
  // Count per distinct reason first (few of them; most share one static string), then sort by
  // text: one std::string per distinct reason instead of one per node.
  std::vector<std::pair<std::string_view, int64_t>> counts;
  for (const auto& [node, st] : statuses) {
    for (std::string_view r : st.reasons()) {
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) {
        return (c.first.data() == r.data() && c.first.size() == r.size()) || c.first == r;
      });
      if (it == counts.end()) {
        counts.emplace_back(r, 1);
      } else {
        ++it->second;
      }
    }
  }
  return FitMessageFromCounts(num_all, counts, statuses.size(), absent_reason);
}

Status Preemption(Code code, std::string_view msg) {
  return Status::WithOwnedReason(code, "preemption: " + std::string(msg));
}

}  // namespace

Status DefaultPreemption::PostFilter(framework::CycleState& state, const PodInfo& pod,
                                     const framework::NodeToStatus& statuses,
                                     framework::PostFilterResult* result) {
  fwk_ = handle_.GetFramework(pod.pod->scheduler_name);
  if (fwk_ == nullptr)
    return Status::Error("preemption: the pod's profile is unknown to the handle");
  pdb_cache_.clear();
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
  if (statuses.absent.code() == Code::kUnschedulable) {
    absl::flat_hash_map<Symbol, Code>& explicit_codes = explicit_codes_;  // keeps its capacity
    explicit_codes.clear();
    for (const auto& ns : statuses.nodes) explicit_codes[ns.node->name()] = ns.status.code();
    for (const NodeInfo* n : all) {
      auto it = explicit_codes.find(n->name());
      if ((it == explicit_codes.end() ? Code::kUnschedulable : it->second) ==
          Code::kUnschedulable) {
        potential.push_back(n);
      }
    }
  } else {
    for (const auto& ns : statuses.nodes) {
      if (ns.status.code() == Code::kUnschedulable) potential.push_back(ns.node);
    }
  }
  std::vector<std::pair<Symbol, Status>>& dry_statuses = dry_statuses_;
  dry_statuses.clear();
  std::vector<PreemptionCandidate>&non_violating = non_violating_candidates_,
  &violating = violating_candidates_;
  non_violating.clear();
  violating.clear();
  std::vector<std::string> errors;
  if (!potential.empty()) {
    // 3) Dry run from a random offset.
    const auto n = static_cast<int32_t>(potential.size());
    const auto offset = static_cast<size_t>(handle_.rng().Uniform(static_cast<uint64_t>(n)));
    const auto want = static_cast<size_t>(NumCandidates(n));
    // No node holds a pod of lower priority (the cluster-wide minimum says so): every potential
    // node would answer SelectVictims' first check, "No preemption victims found for incoming
    // pod", and none is a candidate. The message counts them without visiting the nodes (after the
    // offset is drawn, so the RNG stream is the same as the walk's).
    if (std::optional<int32_t> min = handle_.MinPodPriorityOnNodes();
        min.has_value() && *min >= pod.priority()) {
      result->mode = framework::NominatingMode::kOverride;  // clears a stale nomination
      result->nominated_node_name = Symbol();
      return Preemption(
          Code::kUnschedulable,
          FitMessageFromCounts(all.size(), {{kNoVictimsReason, static_cast<int64_t>(n)}},
                               potential.size(), kNotHelpfulReason));
    }
    LazyMemoTable memo;
    const Symbol self_nominated = handle_.NominatedNodeName(pod);
    for (size_t i = 0; i < potential.size(); ++i) {
      const NodeInfo& node = *potential[(offset + i) % potential.size()];
      PreemptionCandidate c{node.name(), {}, 0};
      Status s = SelectVictimsMemo(memo, self_nominated, state, pod, node, &c.victims,
                                   &c.num_pdb_violations);
      if (s.ok() && !c.victims.empty()) {
        auto& list = c.num_pdb_violations == 0 ? non_violating : violating;
        if (list.size() < want) list.push_back(std::move(c));
        if (!non_violating.empty() && non_violating.size() + violating.size() >= want) break;
        continue;
      }
      if (s.ok()) {
        s = Status::Error(fmt::format("expected at least one victim pod on node {:?}",
                                      handle_.interner().Str(node.name())));
      }
      if (s.code() == Code::kError) errors.push_back(s.Message());
      dry_statuses.emplace_back(node.name(), std::move(s));
    }
  }
  std::vector<PreemptionCandidate>& candidates = non_violating;
  for (auto& c : violating) candidates.push_back(std::move(c));
  if (candidates.empty()) {
    if (!errors.empty()) {
      std::string msg =
          errors.size() == 1 ? errors[0] : "[" + fmt::format("{}", fmt::join(errors, ", ")) + "]";
      return Preemption(Code::kError, msg);
    }
    result->mode = framework::NominatingMode::kOverride;  // clears a stale nomination
    result->nominated_node_name = Symbol();
    return Preemption(Code::kUnschedulable,
                      FitMessage(all.size(), dry_statuses, kNotHelpfulReason));
  }
  // 4) The best candidate.
  PreemptionCandidate& best =
      candidates[candidates.size() == 1 ? 0 : PickOneNodeForPreemption(candidates)];
  result->mode = framework::NominatingMode::kOverride;
  result->nominated_node_name = best.node;
  result->victims = std::move(best.victims);
  result->num_pdb_violations = best.num_pdb_violations;
  return {};
}

}  // namespace corral::plugins
