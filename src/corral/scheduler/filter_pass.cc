#include "corral/scheduler/filter_pass.h"

#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>

#include "corral/pipeline/fit_error.h"

namespace corral::scheduler {

using framework::Code;
using framework::NodeInfo;
using framework::Status;

namespace {
constexpr int32_t kMinFeasibleNodesToFind = 100;
constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;
// How many nodes ahead the memoized pass prefetches NodeInfos (their generation is read).
constexpr size_t kPrefetchDistance = 24;
// Without a memo every visited node is filtered, and the filter plugins read its NodeInfo (the node
// pointer, allocatable, requested and the pod list's size: four cache lines), its api::Node (name
// and labels in the first line, unschedulable and taints in the third) and its labels' storage; the
// nodes are scattered, so each is a likely cache miss. They are prefetched in stages, each stage
// reading only what an earlier one brought in: NodeInfos kInfoAhead nodes ahead, api::Nodes
// kNodeAhead ahead, label storage kLabelsAhead ahead. Only hints: nothing is decided on them.
constexpr size_t kInfoAhead = 12;
constexpr size_t kNodeAhead = 6;
constexpr size_t kLabelsAhead = 3;

void PrefetchLines(const void* p, std::initializer_list<size_t> offsets) {
  const char* base = static_cast<const char*>(p);
  for (size_t off : offsets) __builtin_prefetch(base + off);
}

}  // namespace

int32_t NumFeasibleNodesToFind(std::optional<int32_t> percentage, int32_t num_nodes) {
  if (num_nodes < kMinFeasibleNodesToFind) return num_nodes;
  int32_t pct = percentage.value_or(0);
  if (pct == 0) {
    pct = 50 - num_nodes / 125;
    if (pct < kMinFeasibleNodesPercentageToFind) pct = kMinFeasibleNodesPercentageToFind;
  }
  if (pct >= 100) return num_nodes;
  int32_t num = static_cast<int32_t>(static_cast<int64_t>(num_nodes) * pct / 100);
  return num < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : num;
}

// Adds the plugin that rejected a node to the pod's unschedulable (or pending) plugins, the first
// time this pass sees it: nodes mostly fail on a handful of plugins, so the pod's sets are not
// probed (and no string is built) per node.
void FilterPass::RecordRejector(const Status& fs, RecordedRejectors& recorded, QueuedPod& qp) {
  const std::pair<std::string_view, bool> rejector(fs.plugin(), fs.code() == Code::kPending);
  const bool seen = std::any_of(recorded.begin(), recorded.end(), [&](const auto& r) {
    return r.first.data() == rejector.first.data() && r.first.size() == rejector.first.size() &&
           r.second == rejector.second;
  });
  if (fs.plugin().empty() || seen) return;
  if (recorded.size() < 8) recorded.push_back(rejector);
  if (fs.code() == Code::kPending) {
    qp.pending_plugins.insert(std::string(fs.plugin()));
  } else {
    qp.unschedulable_plugins.insert(std::string(fs.plugin()));
  }
}

void FilterPass::Reset() {
  feasible_.clear();
  num_failed_ = 0;
  failed_refs_pending_ = false;
  absent_status_.reset();
  num_absent_ = 0;
  num_candidates_ = 0;
  processed_ = 0;
  first_passed_ = Symbol();
}

std::span<const framework::NodeStatus> FilterPass::Failed() {
  if (failed_refs_pending_) {
    for (size_t k = 0; k < num_failed_; ++k) {
      const FailedRef& r = failed_refs_[k];
      if (r.memoized == nullptr) continue;
      framework::NodeStatus& e = failed_[k];
      e.node = r.node;
      if (!e.status.IdenticalTo(*r.memoized)) e.status = *r.memoized;
    }
    failed_refs_pending_ = false;
  }
  return {failed_.data(), num_failed_};
}

std::span<const NodeInfo* const> FilterPass::RestrictToNames(
    const absl::flat_hash_set<Symbol>& names, const framework::Snapshot& snapshot) {
  const auto& all = snapshot.nodes();
  restricted_.clear();
  // A large set: one scan of the snapshot in order.
  if (names.size() * kNameLookupRatio >= all.size()) {
    for (const NodeInfo* n : all) {
      if (names.contains(n->name())) restricted_.push_back(n);
    }
    return restricted_;
  }
  // A small set (a DaemonSet pod's node, say): look each name up and order the nodes by their
  // snapshot position. A remembered position is used only after checking that the snapshot still
  // holds the node there, so a stale map is rebuilt rather than trusted.
  restricted_positions_.clear();
  bool rebuilt = false;
  for (Symbol name : names) {
    const NodeInfo* n = snapshot.Get(name);
    if (n == nullptr) continue;
    auto it = node_positions_.find(n);
    if (it == node_positions_.end() || it->second >= all.size() || all[it->second] != n) {
      if (rebuilt) continue;  // Get found it, so this cannot happen after a rebuild
      node_positions_.clear();
      for (size_t i = 0; i < all.size(); ++i) node_positions_[all[i]] = i;
      rebuilt = true;
      it = node_positions_.find(n);
      if (it == node_positions_.end()) continue;
    }
    restricted_positions_.push_back(it->second);
  }
  std::sort(restricted_positions_.begin(), restricted_positions_.end());
  for (size_t pos : restricted_positions_) restricted_.push_back(all[pos]);
  return restricted_;
}

Status FilterPass::Run(const Request& r) {
  const framework::PreFilterResult& pre = *r.pre;
  const auto& all = r.snapshot->nodes();
  const size_t num_all = all.size();
  // Candidate nodes: all, or those named by the PreFilterResult (in snapshot order; kube iterates a
  // Go map here, which is random).
  std::span<const NodeInfo* const> candidates(all);
  restricted_.clear();
  if (pre.node_names.has_value() || r.domain != nullptr) {
    if (pre.node_names.has_value()) {
      candidates = RestrictToNames(*pre.node_names, *r.snapshot);
    } else {
      candidates = r.domain->nodes;  // the placement's nodes, in snapshot order
    }
    num_absent_ = num_all - candidates.size();
    std::sort(r.restricting->begin(), r.restricting->end());  // kube: sets.List (sorted)
    absent_status_ = Status::WithOwnedReason(
        Code::kUnschedulableAndUnresolvable,
        fmt::format("node(s) didn't satisfy plugin(s) {}", pipeline::GoList(*r.restricting)));
  }
  num_candidates_ = candidates.size();
  if (r.explain != nullptr) r.explain->num_candidates = num_candidates_;
  // The nominated node (set by an earlier preemption) and, when it does not pass, the hinted node.
  // A node that passes is the only feasible one.
  for (Symbol first : {r.nominated, r.hint}) {
    const NodeInfo* n = first.empty() ? nullptr : r.snapshot->Get(first);
    if (n == nullptr || (pre.node_names.has_value() && !pre.node_names->contains(first)) ||
        (r.domain != nullptr && !r.domain->names->contains(first))) {
      continue;
    }
    // A failure here is not recorded: the node is evaluated again with the others below.
    if (r.fwk->RunFilterPluginsWithNominatedPods(*r.state, r.qp->info, *n).ok()) {
      feasible_.push_back(n);
      first_passed_ = first;
      if (r.explain != nullptr) {
        r.explain->nodes.push_back({n->name(), std::nullopt, {}, std::nullopt});
        r.explain->num_evaluated = 1;
      }
      return {};
    }
  }

  const auto num_candidates = static_cast<int32_t>(candidates.size());
  int32_t num_to_find = NumFeasibleNodesToFind(r.percentage_of_nodes_to_score, num_candidates);
  if (!r.fwk->HasScorePlugins()) num_to_find = std::min(num_to_find, 1);
  if (r.explain != nullptr) r.explain->num_to_find = num_to_find;
  processed_ = 0;
  if (num_candidates > 0) {
    if (!r.fwk->HasFilterPlugins()) {
      for (int32_t i = 0; i < num_to_find; ++i) {
        feasible_.push_back(
            candidates[(next_start_node_index_ + static_cast<size_t>(i)) % candidates.size()]);
      }
      processed_ = feasible_.size();
    } else {
      Status s = Search(r, candidates, num_to_find);
      if (!s.ok()) return s;
    }
  }
  if (r.explain != nullptr) r.explain->num_evaluated = processed_;
  next_start_node_index_ = (next_start_node_index_ + processed_) % num_all;
  return {};
}

Status FilterPass::Search(const Request& r, std::span<const NodeInfo* const> candidates,
                          int32_t num_to_find) {
  const size_t num_all = r.snapshot->NumNodes();
  const framework::PreFilterResult& pre = *r.pre;
  QueuedPod& qp = *r.qp;
  const framework::PodInfo& pod = qp.info;
  CycleExplain* const explain = r.explain;
  // CorralFilterMemo (filter_memo.h): an equivalent pod's verdicts on unchanged nodes are reused.
  // Only over the whole node list (the memo is by snapshot position), and not while a pod-group
  // member is nominated (see Nominator::num_group_members). A key gets a table only after a pass
  // that rejected every node, or the key's second pass that rejected many (filled from that pass's
  // verdicts below): pods that fit at once pay one lookup, none a table.
  FilterMemo::Table* memo = nullptr;
  std::optional<FilterMemo::Key> memo_key;
  const std::optional<std::string>& signature =
      qp.signature.has_value() ? qp.signature : qp.memo_signature;
  if (r.memo != nullptr && signature.has_value() && candidates.size() == num_all &&
      !pre.node_names.has_value() && r.domain == nullptr && r.nominator->num_group_members() == 0) {
    if (std::optional<uint64_t> key = r.fwk->NodeLocalFilterKey(*r.state, pod)) {
      memo_key = FilterMemo::Key{r.fwk, *signature, pod.priority(), *key};
      memo = r.memo->Get(*memo_key, num_all, /*create=*/false);
    }
  }
  FilterMemo::Nominations nominations;
  nominations.clock = r.nominator->clock();
  if (memo != nullptr) {
    // The nodes whose nominations changed since the table's previous pass, when few: the others
    // need no version lookup.
    constexpr size_t kMaxChanges = 16;
    const uint64_t since = memo->last_clock();
    if (since == nominations.clock) {
      nominations.since = since;
    } else if (r.nominator->ChangedSince(since, kMaxChanges, &nomination_changes_)) {
      nomination_changed_nodes_.clear();
      for (Symbol name : nomination_changes_) {
        if (const NodeInfo* n = r.snapshot->Get(name)) {
          nomination_changed_nodes_.push_back(n);
          nominations.changed_bits |= FilterMemo::Nominations::Bit(n);
        }
      }
      nominations.changed = nomination_changed_nodes_;
      nominations.since = since;
    }
    memo->set_last_clock(nominations.clock);
  }
  // The pod's nominated node as a NodeInfo, so the loop compares pointers, not names (a name is
  // behind a second pointer per node).
  const NodeInfo* nominated_info = r.nominated.empty() ? nullptr : r.snapshot->Get(r.nominated);
  RecordedRejectors recorded;
  // The memoized status last recorded: consecutive hits on the same interned status have the same
  // rejector (memoized statuses stay in place for the whole pass).
  const Status* last_recorded = nullptr;
  // Positions advance with a wrap instead of a division per node.
  const size_t n = candidates.size();
  // Room for every node's failure, so that the loop only assigns.
  if (failed_.size() < n) failed_.resize(n, {nullptr, Status()});
  if (failed_refs_.size() < n) failed_refs_.resize(n, {nullptr, nullptr});
  size_t processed = 0;
  size_t pos = next_start_node_index_ % n;
  size_t ahead = (pos + kPrefetchDistance) % n;
  for (size_t i = 0; i < n; ++i, pos = pos + 1 == n ? 0 : pos + 1) {
    const NodeInfo* node = candidates[pos];
    if (memo != nullptr) {
      __builtin_prefetch(candidates[ahead]);
      ahead = ahead + 1 == n ? 0 : ahead + 1;
    } else if (n > kInfoAhead) {
      auto at = [&](size_t k) {
        const size_t p = pos + k;
        return candidates[p >= n ? p - n : p];
      };
      const NodeInfo* info = at(kInfoAhead);
      __builtin_prefetch(info);
      __builtin_prefetch(&info->requested());
      __builtin_prefetch(&info->non_zero_requested());
      __builtin_prefetch(&info->pods());
      PrefetchLines(at(kNodeAhead)->node(), {0, 128});
      __builtin_prefetch(at(kLabelsAhead)->labels().items().data());
    }
    // The pod's own nominated node is never memoized: the two-pass evaluation leaves the pod
    // itself out of that node's nominated pods, which an equivalent pod would not.
    const bool memoize = memo != nullptr && node != nominated_info;
    const Status* memoized =
        memoize
            ? memo->Find(pos, node, nominations, [&] { return r.nominator->Version(node->name()); })
            : nullptr;
    ++processed;
    if (memoized != nullptr && !memoized->ok() && memoized->code() != Code::kError &&
        explain == nullptr) {
      // The common memo hit: a failure, referenced (copied into failed_ only on Failed()).
      ++r.memo->stats().hits;
      if (memoized != last_recorded) {
        RecordRejector(*memoized, recorded, qp);
        last_recorded = memoized;
      }
      failed_refs_[num_failed_++] = {node, memoized};
      failed_refs_pending_ = true;
      continue;
    }
    last_recorded = nullptr;
    Status fs;
    if (memoized != nullptr) {
      ++r.memo->stats().hits;
      fs = *memoized;
    } else {
      fs = r.fwk->RunFilterPluginsWithNominatedPods(*r.state, pod, *node);
      if (memoize && fs.code() != Code::kError) {
        ++r.memo->stats().misses;
        memo->Store(pos, node, nominations.clock, fs);
      }
    }
    if (fs.ok()) {
      feasible_.push_back(node);
      if (explain != nullptr) explain->nodes.push_back({node->name(), std::nullopt, {}, {}});
      if (static_cast<int32_t>(feasible_.size()) >= num_to_find) break;
      continue;
    }
    if (fs.code() == Code::kError) return fs;
    RecordRejector(fs, recorded, qp);
    if (explain != nullptr) explain->nodes.push_back({node->name(), fs, {}, std::nullopt});
    failed_refs_[num_failed_].memoized = nullptr;
    failed_[num_failed_++] = {node, std::move(fs)};
  }
  processed_ = processed;
  if (memo == nullptr && memo_key.has_value() &&
      ((feasible_.empty() && processed == n) ||
       (num_failed_ >= std::min(FilterMemo::kMinFailedForTable, std::max<size_t>(1, n / 2)) &&
        r.memo->AdmitAfterFeasiblePass(*memo_key)))) {
    // The pass rejected many nodes: a table from its verdicts, in pass order from the start
    // position. Without a table, no failure is memoized, so failed_ holds them all; a visited node
    // that is not the next failure is the next feasible node.
    memo = r.memo->Get(*memo_key, num_all, /*create=*/true);
    memo->set_last_clock(nominations.clock);
    size_t p = next_start_node_index_ % n;
    size_t k = 0;
    for (size_t i = 0; i < processed; ++i, p = p + 1 == n ? 0 : p + 1) {
      const NodeInfo* node = candidates[p];
      const bool failed = k < num_failed_ && failed_[k].node == node;
      if (node != nominated_info) {
        ++r.memo->stats().misses;
        memo->Store(p, node, nominations.clock, failed ? failed_[k].status : Status());
      }
      if (failed) ++k;
    }
  }
  return {};
}

}  // namespace corral::scheduler
