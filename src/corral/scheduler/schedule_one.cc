// The scheduling cycle of one pod (kube's pkg/scheduler/schedule_one.go), split into kube's steps:
//   ScheduleCycle       orchestration: snapshot, SchedulePod, then assume, reserve, permit and
//                       bind, or handle the failure
//   SchedulePod         PreFilter → FindNodesThatPassFilters → (one feasible node: done) →
//                       Prioritize → SelectHost
//   HandleFailure       FitError message, explain, requeue with the rejecting plugins

#include <algorithm>

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include "corral/pipeline/fit_error.h"
#include "corral/pipeline/select.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {
constexpr int32_t kMinFeasibleNodesToFind = 100;
constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;
// How many nodes ahead the memoized filter pass prefetches NodeInfos (their generation is read).
constexpr size_t kPrefetchDistance = 24;

// Rejecting plugins already recorded in a filter pass, as (plugin name, pending).
using RecordedRejectors = absl::InlinedVector<std::pair<std::string_view, bool>, 4>;

// Adds the plugin that rejected a node to the pod's unschedulable (or pending) plugins, the first
// time this pass sees it: nodes mostly fail on a handful of plugins, so the pod's sets are not
// probed (and no string is built) per node.
void RecordRejector(const Status& fs, RecordedRejectors& recorded, QueuedPod& qp) {
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
}  // namespace

struct Scheduler::Diagnosis {
  std::string pre_filter_msg;
  // Status for nodes the cycle did not evaluate because PreFilter excluded them.
  std::optional<Status> absent_status;
  size_t num_absent = 0;
};

// One scheduling attempt's working state.
struct Scheduler::CycleContext {
  QueuedPod* qp = nullptr;
  framework::Framework* fwk = nullptr;
  const PodInfo* pod = nullptr;
  CycleState state;
  Diagnosis diag;
  Symbol nominated;  // the pod's nominated node at the start of the cycle (preemption), if any
  bool explain = false;
  CycleExplain ex;
  // Opportunistic batching: the batch of the pod's profile (null when off), the hinted node,
  // whether the cycle scored (its score table is then the next batch).
  OpportunisticBatch* batch = nullptr;
  Symbol hint;
  bool scored = false;
};

int32_t Scheduler::NumFeasibleNodesToFind(const framework::Framework& fwk,
                                          int32_t num_nodes) const {
  if (num_nodes < kMinFeasibleNodesToFind) return num_nodes;
  int32_t pct = 0;
  if (fwk.percentage_of_nodes_to_score().has_value()) {
    pct = *fwk.percentage_of_nodes_to_score();
  } else if (options_.config.percentage_of_nodes_to_score.has_value()) {
    pct = *options_.config.percentage_of_nodes_to_score;
  }
  if (pct == 0) {
    pct = 50 - num_nodes / 125;
    if (pct < kMinFeasibleNodesPercentageToFind) pct = kMinFeasibleNodesPercentageToFind;
  }
  if (pct >= 100) return num_nodes;
  int32_t num = static_cast<int32_t>(static_cast<int64_t>(num_nodes) * pct / 100);
  return num < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : num;
}

std::span<const framework::NodeStatus> Scheduler::Failed() {
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

std::string Scheduler::FitErrorMessage(size_t num_nodes, const Diagnosis& d,
                                       const std::string& post_filter_msg) {
  std::string msg = pipeline::NoneAvailable(num_nodes, "nodes");
  if (!d.pre_filter_msg.empty()) {
    msg += fmt::format(" {}.", d.pre_filter_msg);
  } else {
    // kube's reason histogram. Few distinct reasons and long runs of nodes with the same ones:
    // count runs of statuses with identical reason views, then merge equal reasons by a linear scan
    // (no allocation per node).
    absl::InlinedVector<std::pair<std::string_view, int64_t>, 8> reasons;
    auto add = [&](const Status& s, int64_t n) {
      for (std::string_view r : s.reasons()) {
        auto it = std::find_if(reasons.begin(), reasons.end(),
                               [&](const auto& e) { return e.first == r; });
        if (it == reasons.end()) {
          reasons.emplace_back(r, n);
        } else {
          it->second += n;
        }
      }
    };
    auto same_views = [](const Status& a, const Status& b) {
      const auto& ra = a.reasons();
      const auto& rb = b.reasons();
      if (ra.size() != rb.size()) return false;
      for (size_t i = 0; i < ra.size(); ++i) {
        if (ra[i].data() != rb[i].data() || ra[i].size() != rb[i].size()) return false;
      }
      return true;
    };
    const Status* run = nullptr;
    int64_t run_length = 0;
    // Every failure of this pass has its FailedRef: a memo hit's stored status (still in place),
    // or null for a status held in failed_. Reading through the refs compares pointers for runs of
    // memo hits instead of materializing and reading each node's copy.
    for (size_t k = 0; k < num_failed_; ++k) {
      const Status* memoized = failed_refs_[k].memoized;
      const Status& st = memoized != nullptr ? *memoized : failed_[k].status;
      if (run == &st || (run != nullptr && same_views(*run, st))) {
        ++run_length;
        continue;
      }
      if (run != nullptr) add(*run, run_length);
      run = &st;
      run_length = 1;
    }
    if (run != nullptr) add(*run, run_length);
    if (d.absent_status.has_value() && d.num_absent > 0) {
      add(*d.absent_status, static_cast<int64_t>(d.num_absent));
    }
    pipeline::AppendReasonHistogram(reasons, msg);
  }
  if (!post_filter_msg.empty()) msg += " " + post_filter_msg;
  return msg;
}

void Scheduler::RecordAttempt(const framework::Framework& fwk, std::string_view result) {
  metrics::Labels labels = {{"profile", fwk.profile_name()}, {"result", std::string(result)}};
  metrics_
      .GetCounter("scheduler_schedule_attempts_total",
                  "Number of attempts to schedule pods, by the result.", labels)
      .Inc();
  if (options_.wall_clock != nullptr) {
    static const std::vector<double> kBuckets = metrics::ExponentialBuckets(0.001, 2, 15);
    double seconds =
        std::chrono::duration<double>(options_.wall_clock->Now() - cycle_start_).count();
    metrics_
        .GetHistogram("scheduler_scheduling_attempt_duration_seconds",
                      "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
                      kBuckets, {{"profile", fwk.profile_name()}, {"result", std::string(result)}})
        .Observe(seconds);
  }
}

void Scheduler::StartAttempt(CycleContext& c, QueuedPod* qp) {
  c.qp = qp;
  c.fwk = qp->fwk;
  c.pod = &qp->info;
  snapshot_ = &cache_.snapshot();
  ++stats_.cycles;
  c.explain = options_.explain && options_.explain(*c.pod->pod);
  qp->unschedulable_plugins.clear();
  qp->pending_plugins.clear();
  if (auto it = batches_.find(c.fwk); it != batches_.end()) c.batch = it->second.get();
}

Status Scheduler::RunAlgorithm(CycleContext& c, const NodeInfo** selected, bool* hinted) {
  Status s = SchedulePod(c, selected);
  *hinted = false;
  if (c.batch != nullptr) {
    // kube StoreScheduleResults / a failed cycle (the next pod flushes with pod_failed).
    if (s.ok()) {
      *hinted = !c.hint.empty() && c.hint == (*selected)->name();
      c.batch->StoreScheduleResults(c.qp->signature, c.hint, (*selected)->name(),
                                    c.scored ? &scores_ : nullptr, stats_.cycles, &c.qp->info);
    } else {
      c.batch->CycleFailed(stats_.cycles);
    }
  }
  return s;
}

bool Scheduler::ScheduleCycle(QueuedPod* qp) {
  if (options_.wall_clock != nullptr) cycle_start_ = options_.wall_clock->Now();
  CycleContext c;
  StartAttempt(c, qp);
  in_cycle_ = true;
  event_during_cycle_ = false;

  const NodeInfo* selected = nullptr;
  bool hinted = false;
  Status s = RunAlgorithm(c, &selected, &hinted);
  if (hinted) ++stats_.batched;
  if (!s.ok()) {
    if (s.code() == Code::kError) return HandleFailure(c, Code::kError, s.Message());
    // PostFilter (DefaultPreemption) may evict victims and nominate the pod; the
    // pod is still unschedulable in this cycle and retries once the victims are gone (kube).
    std::string post_filter_msg = c.fwk->HasPostFilterPlugins() ? RunPostFilter(c) : std::string();
    return HandleFailure(c, Code::kUnschedulable,
                         FitErrorMessage(snapshot_->NumNodes(), c.diag, post_filter_msg));
  }
  return AssumeAndBind(c, selected->name());
}

Status Scheduler::SchedulePod(CycleContext& c, const NodeInfo** selected) {
  feasible_.clear();
  num_failed_ = 0;
  failed_refs_pending_ = false;
  const size_t num_all = snapshot_->NumNodes();
  if (num_all == 0) return Status::Error("no nodes available to schedule pods");

  framework::PreFilterResult pre;
  std::vector<std::string_view> restricting;
  Status s = c.fwk->RunPreFilterPlugins(c.state, *c.pod, &pre, &restricting);
  if (!s.ok()) {
    if (!s.IsRejected()) return s;
    c.diag.pre_filter_msg = s.Message();
    c.diag.absent_status = s;  // every node has the PreFilter status (for preemption)
    if (!s.plugin().empty()) c.qp->unschedulable_plugins.insert(std::string(s.plugin()));
    if (c.explain) c.ex.pre_filter = s;
    return s;
  }
  // A topology-constrained workload cycle places its members inside one domain only.
  // Without a PreFilterResult the domain's node list is the candidate set as is (no copy).
  if (member_domain_ != nullptr) {
    if (pre.node_names.has_value()) {
      absl::erase_if(*pre.node_names, [&](Symbol n) { return !member_domain_->names.contains(n); });
    }
    restricting.push_back("TopologyPlacementGenerator");
  }
  s = FindNodesThatPassFilters(c, pre, restricting);
  if (!s.ok()) return s;
  if (feasible_.empty()) return Status::Unschedulable("no feasible node");
  // A single feasible node is never scored (kube).
  if (feasible_.size() == 1) {
    *selected = feasible_[0];
    if (c.explain) c.ex.selected = (*selected)->name();
    return {};
  }
  return PrioritizeAndSelect(c, selected);
}

Status Scheduler::FindNodesThatPassFilters(CycleContext& c, const framework::PreFilterResult& pre,
                                           std::vector<std::string_view>& restricting) {
  const auto& all = snapshot_->nodes();
  const size_t num_all = all.size();
  // Candidate nodes: all, or those named by the PreFilterResult (in snapshot order; kube iterates a
  // Go map here, which is random).
  std::span<const NodeInfo* const> candidates(all);
  restricted_.clear();
  if (pre.node_names.has_value() || member_domain_ != nullptr) {
    if (pre.node_names.has_value()) {
      for (const NodeInfo* n : all) {
        if (pre.node_names->contains(n->name())) restricted_.push_back(n);
      }
      candidates = restricted_;
    } else {
      candidates = member_domain_->nodes;  // the placement's nodes, in snapshot order
    }
    c.diag.num_absent = num_all - candidates.size();
    std::sort(restricting.begin(), restricting.end());  // kube: sets.List (sorted)
    c.diag.absent_status = Status::WithOwnedReason(
        Code::kUnschedulableAndUnresolvable,
        fmt::format("node(s) didn't satisfy plugin(s) {}", pipeline::GoList(restricting)));
  }
  // kube asks the batch for a hint right after PreFilter (a nominated pod flushes it with
  // pod_nominated), then evaluates the nominated node (set by an earlier preemption) and, when it
  // does not pass, the hinted node. A node that passes is the only feasible one.
  c.nominated = nominator_.NodeOf(&c.qp->info);
  if (c.batch != nullptr) {
    c.hint = c.batch->GetNodeHint(c.state, *c.pod, c.qp->signature, !c.nominated.empty(),
                                  stats_.cycles, *snapshot_, cluster_epoch_);
  }
  for (Symbol first : {c.nominated, c.hint}) {
    const NodeInfo* n = first.empty() ? nullptr : snapshot_->Get(first);
    if (n == nullptr || (pre.node_names.has_value() && !pre.node_names->contains(first)) ||
        (member_domain_ != nullptr && !member_domain_->names.contains(first))) {
      continue;
    }
    // A failure here is not recorded: the node is evaluated again with the others below.
    if (c.fwk->RunFilterPluginsWithNominatedPods(c.state, *c.pod, *n).ok()) {
      feasible_.push_back(n);
      if (c.explain) c.ex.nodes.push_back({n->name(), std::nullopt, {}, std::nullopt});
      return {};
    }
  }

  const auto num_candidates = static_cast<int32_t>(candidates.size());
  int32_t num_to_find = NumFeasibleNodesToFind(*c.fwk, num_candidates);
  if (!c.fwk->HasScorePlugins()) num_to_find = std::min(num_to_find, 1);
  size_t processed = 0;
  if (num_candidates > 0) {
    if (!c.fwk->HasFilterPlugins()) {
      for (int32_t i = 0; i < num_to_find; ++i) {
        feasible_.push_back(
            candidates[(next_start_node_index_ + static_cast<size_t>(i)) % candidates.size()]);
      }
      processed = feasible_.size();
    } else {
      // CorralFilterMemo (filter_memo.h): an equivalent pod's verdicts on unchanged nodes are
      // reused. Only over the whole node list (the memo is by snapshot position), and not while a
      // pod-group member is nominated (see Nominator::num_group_members).
      // A key gets a table only after a pass that rejected many nodes (filled from that pass's
      // verdicts below): pods that fit at once pay one lookup, none a table.
      FilterMemo::Table* memo = nullptr;
      std::optional<FilterMemo::Key> memo_key;
      const std::optional<std::string>& signature =
          c.qp->signature.has_value() ? c.qp->signature : c.qp->memo_signature;
      if (filter_memo_ != nullptr && signature.has_value() && candidates.size() == num_all &&
          !pre.node_names.has_value() && member_domain_ == nullptr &&
          nominator_.num_group_members() == 0) {
        if (std::optional<uint64_t> key = c.fwk->NodeLocalFilterKey(c.state, *c.pod)) {
          memo_key = FilterMemo::Key{c.fwk, *signature, c.pod->priority(), *key};
          memo = filter_memo_->Get(*memo_key, num_all, /*create=*/false);
        }
      }
      FilterMemo::Nominations nominations;
      nominations.clock = nominator_.clock();
      if (memo != nullptr) {
        // The nodes whose nominations changed since the table's previous pass, when few: the
        // others need no version lookup.
        constexpr size_t kMaxChanges = 16;
        const uint64_t since = memo->last_clock();
        if (since == nominations.clock) {
          nominations.since = since;
        } else if (nominator_.ChangedSince(since, kMaxChanges, &nomination_changes_)) {
          nomination_changed_nodes_.clear();
          for (Symbol name : nomination_changes_) {
            if (const NodeInfo* n = snapshot_->Get(name)) {
              nomination_changed_nodes_.push_back(n);
              nominations.changed_bits |= FilterMemo::Nominations::Bit(n);
            }
          }
          nominations.changed = nomination_changed_nodes_;
          nominations.since = since;
        }
        memo->set_last_clock(nominations.clock);
      }
      // The pod's nominated node as a NodeInfo, so the loop compares pointers, not names (a name
      // is behind a second pointer per node).
      const NodeInfo* nominated_info = c.nominated.empty() ? nullptr : snapshot_->Get(c.nominated);
      RecordedRejectors recorded;
      // The memoized status last recorded: consecutive hits on the same interned status have the
      // same rejector (memoized statuses stay in place for the whole pass).
      const Status* last_recorded = nullptr;
      // Positions advance with a wrap instead of a division per node.
      const size_t n = candidates.size();
      // Room for every node's failure, so that the loop only assigns.
      if (failed_.size() < n) failed_.resize(n, {nullptr, Status()});
      if (failed_refs_.size() < n) failed_refs_.resize(n, {nullptr, nullptr});
      size_t pos = next_start_node_index_ % n;
      size_t ahead = (pos + kPrefetchDistance) % n;
      for (size_t i = 0; i < n; ++i, pos = pos + 1 == n ? 0 : pos + 1) {
        const NodeInfo* node = candidates[pos];
        if (memo != nullptr) {
          __builtin_prefetch(candidates[ahead]);
          ahead = ahead + 1 == n ? 0 : ahead + 1;
        }
        // The pod's own nominated node is never memoized: the two-pass evaluation leaves the pod
        // itself out of that node's nominated pods, which an equivalent pod would not.
        const bool memoize = memo != nullptr && node != nominated_info;
        const Status* memoized = memoize
                                     ? memo->Find(pos, node, nominations,
                                                  [&] { return nominator_.Version(node->name()); })
                                     : nullptr;
        ++processed;
        if (memoized != nullptr && !memoized->ok() && memoized->code() != Code::kError &&
            !c.explain) {
          // The common memo hit: a failure, referenced (copied into failed_ only if Failed()
          // is called).
          ++filter_memo_->stats().hits;
          if (memoized != last_recorded) {
            RecordRejector(*memoized, recorded, *c.qp);
            last_recorded = memoized;
          }
          failed_refs_[num_failed_++] = {node, memoized};
          failed_refs_pending_ = true;
          continue;
        }
        last_recorded = nullptr;
        Status fs;
        if (memoized != nullptr) {
          ++filter_memo_->stats().hits;
          fs = *memoized;
        } else {
          fs = c.fwk->RunFilterPluginsWithNominatedPods(c.state, *c.pod, *node);
          if (memoize && fs.code() != Code::kError) {
            ++filter_memo_->stats().misses;
            memo->Store(pos, node, nominations.clock, fs);
          }
        }
        if (fs.ok()) {
          feasible_.push_back(node);
          if (c.explain) c.ex.nodes.push_back({node->name(), std::nullopt, {}, std::nullopt});
          if (static_cast<int32_t>(feasible_.size()) >= num_to_find) break;
          continue;
        }
        if (fs.code() == Code::kError) return fs;
        RecordRejector(fs, recorded, *c.qp);
        if (c.explain) c.ex.nodes.push_back({node->name(), fs, {}, std::nullopt});
        failed_refs_[num_failed_].memoized = nullptr;
        failed_[num_failed_++] = {node, std::move(fs)};
      }
      if (memo == nullptr && memo_key.has_value() &&
          ((feasible_.empty() && processed == n) ||
           num_failed_ >= std::min(FilterMemo::kMinFailedForTable, std::max<size_t>(1, n / 2)))) {
        // The pass rejected many nodes: a table from its verdicts, in pass order from the start
        // position. Without a table, no failure is memoized, so failed_ holds them all; a visited
        // node that is not the next failure is the next feasible node.
        memo = filter_memo_->Get(*memo_key, num_all, /*create=*/true);
        memo->set_last_clock(nominations.clock);
        size_t p = next_start_node_index_ % n;
        size_t k = 0;
        for (size_t i = 0; i < processed; ++i, p = p + 1 == n ? 0 : p + 1) {
          const NodeInfo* node = candidates[p];
          const bool failed = k < num_failed_ && failed_[k].node == node;
          if (node != nominated_info) {
            ++filter_memo_->stats().misses;
            memo->Store(p, node, nominations.clock, failed ? failed_[k].status : Status());
          }
          if (failed) ++k;
        }
      }
    }
  }
  next_start_node_index_ = (next_start_node_index_ + processed) % num_all;
  return {};
}

Status Scheduler::PrioritizeAndSelect(CycleContext& c, const NodeInfo** selected) {
  Status ps = c.fwk->RunPreScorePlugins(c.state, *c.pod, feasible_);
  if (!ps.ok()) return ps;
  Status ss = c.fwk->RunScorePlugins(c.state, *c.pod, feasible_, &scores_);
  if (!ss.ok()) return ss;
  if (!c.fwk->HasScorePlugins()) std::fill(scores_.total.begin(), scores_.total.end(), 1);
  c.scored = true;
  // kube's heap order: TotalScore desc, then the node's Randomizer desc, then feasible order (the
  // rest of that order is the batch list).
  const size_t best = pipeline::SelectBest(
      feasible_.size(), [&](size_t j) { return scores_.total[j]; },
      [&](size_t j) { return NodeRandomizer(feasible_[j]->name()); });
  if (best != pipeline::kNone) *selected = feasible_[best];
  if (c.explain) {
    const auto& plugins = c.fwk->score_plugins();
    size_t fi = 0;
    for (auto& ne : c.ex.nodes) {
      if (ne.filter.has_value()) continue;
      for (size_t pi = 0; pi < scores_.plugins.size(); ++pi) {
        const auto& e = plugins[scores_.plugins[pi]];
        int64_t norm = scores_.normalized[pi * scores_.n() + fi];
        ne.scores.push_back({e.name, scores_.raw[pi * scores_.n() + fi], norm, norm * e.weight});
      }
      ne.total = scores_.total[fi];
      ++fi;
    }
    c.ex.selected = (*selected)->name();
  }
  return {};
}

bool Scheduler::AssumeAndBind(CycleContext& c, Symbol node_name) {
  const PodInfo& pod = *c.pod;
  framework::Framework& fwk = *c.fwk;
  // Assume, Reserve, Permit, then bind (binding is instantaneous in Corral's model).
  cache_.AddPod(&c.qp->info, node_name, /*assumed=*/true);
  nominator_.Delete(&c.qp->info);  // kube: an assumed pod is no longer nominated
  Status rs = fwk.RunReservePluginsReserve(c.state, pod, node_name);
  if (!rs.ok()) {
    fwk.RunReservePluginsUnreserve(c.state, pod, node_name);
    cache_.RemovePod(&c.qp->info);
    return HandleFailure(c, rs.IsRejected() ? Code::kUnschedulable : Code::kError, rs.Message());
  }
  Duration timeout{};
  std::vector<std::pair<std::string_view, Duration>> waits;
  Status perm = fwk.RunPermitPlugins(c.state, pod, node_name, &timeout, &waits);
  if (perm.code() == Code::kWait) {
    // The pod stays assumed and waits at Permit until every waiting plugin allows it,
    // one rejects it, or a timeout passes (waiting_pods.cc). Binding is deferred until then.
    auto wp = std::make_unique<WaitingPod>();
    wp->qp = c.qp;
    wp->fwk = c.fwk;
    wp->state = std::move(c.state);
    wp->node = node_name;
    wp->wall_start = cycle_start_;
    const TimePoint now = clock_.Now();
    for (const auto& [plugin, t] : waits) wp->pending.push_back({plugin, now + t, t});
    waiting_.Add(&c.qp->info, std::move(wp));
    in_cycle_ = false;
    c.qp->where = QueueLocation::kInFlight;
    if (c.explain && observer_ != nullptr) observer_->OnExplain(*pod.pod, c.ex);
    return true;
  }
  if (!perm.ok()) {
    fwk.RunReservePluginsUnreserve(c.state, pod, node_name);
    cache_.RemovePod(&c.qp->info);
    return HandleFailure(c, perm.code() == Code::kError ? Code::kError : Code::kUnschedulable,
                         perm.Message());
  }
  in_cycle_ = false;
  if (c.explain && observer_ != nullptr) observer_->OnExplain(*pod.pod, c.ex);
  return BindAssumed(c.qp, fwk, c.state, node_name, cycle_start_);
}

bool Scheduler::HandleFailure(CycleContext& c, Code code, std::string message) {
  in_cycle_ = false;
  if (code == Code::kError) {
    ++stats_.errors;
  } else {
    ++stats_.unschedulable_attempts;
  }
  RecordAttempt(*c.fwk, code == Code::kError ? "error" : "unschedulable");
  const api::Pod& pod = *c.pod->pod;
  last_failure_[&pod] = message;
  if (c.explain && observer_ != nullptr) observer_->OnExplain(pod, c.ex);
  if (observer_ != nullptr) observer_->OnUnschedulable(pod, message);
  queue_->Requeue(c.qp, code, event_during_cycle_);
  return false;
}

// ---- preemption ---------------------------------------------------------------------------------

std::string Scheduler::RunPostFilter(CycleContext& c) {
  framework::NodeToStatus statuses;
  statuses.nodes = Failed();
  if (c.diag.absent_status.has_value()) statuses.absent = *c.diag.absent_status;
  framework::PostFilterResult r;
  Status ps = c.fwk->RunPostFilterPlugins(c.state, *c.pod, statuses, &r);
  metrics_
      .GetCounter("scheduler_preemption_attempts_total",
                  "Total preemption attempts in the cluster till now")
      .Inc();
  if (ps.ok() && !r.nominated_node_name.empty()) ExecutePreemption(c, r);
  // kube handleSchedulingFailure: ModeOverride replaces the nomination (empty clears it).
  if (r.mode == framework::NominatingMode::kOverride)
    nominator_.Add(&c.qp->info, r.nominated_node_name);
  return ps.ok() ? std::string() : ps.Message();
}

void Scheduler::ExecutePreemption(CycleContext& c, const framework::PostFilterResult& r) {
  static const std::vector<double> kVictimBuckets = metrics::ExponentialBuckets(1, 2, 7);
  metrics_
      .GetHistogram("scheduler_preemption_victims", "Number of selected preemption victims",
                    kVictimBuckets, {})
      .Observe(static_cast<double>(r.victims.size()));
  PreemptionRecord rec;
  rec.preemptor = c.pod->pod;
  rec.node = r.nominated_node_name;
  rec.num_pdb_violations = r.num_pdb_violations;
  rec.priority = c.pod->priority();
  for (const auto& v : r.victims) {
    rec.victims.push_back({v.pod->pod, v.violates_pdb,
                           v.node.empty() ? r.nominated_node_name : v.node, v.pod->priority(),
                           v.group == nullptr
                               ? std::string()
                               : fmt::format("{}/{}", interner_.Str(v.group->meta.namespace_),
                                             interner_.Str(v.group->meta.name))});
  }
  // Lower-priority pods nominated to this node may no longer fit there: clear their nominations and
  // let them retry now (kube patches their status, which requeues them).
  std::vector<const PodInfo*> lower;
  for (const PodInfo* p : nominator_.PodsForNode(r.nominated_node_name)) {
    if (p->priority() < c.pod->priority()) lower.push_back(p);
  }
  for (const PodInfo* p : lower) {
    nominator_.Delete(p);
    if (auto it = pods_.find(p->pod); it != pods_.end()) queue_->Activate(it->second.get());
  }
  if (observer_ != nullptr) observer_->OnPreempted(rec);
  // Evict. A victim already terminating is not deleted twice (kube skips pods with
  // a deletionTimestamp).
  for (const auto& v : r.victims) {
    if (terminating_victims_.contains(v.pod)) continue;
    if (options_.delete_victims_immediately) {
      DeletePod(v.pod->pod);  // fires AssignedPod/Delete while the preemptor is in its cycle
    } else {
      terminating_victims_.insert(v.pod);
    }
  }
}

// One member of a workload cycle (workload_cycle.cc): the pod's scheduling algorithm as
// in ScheduleCycle, without assume, PostFilter or failure handling.
bool Scheduler::ScheduleMember(QueuedPod* qp, CycleState& state, const PlacementDomain* domain,
                               Symbol* node, std::string* failure, bool* hinted) {
  // Members use opportunistic-batching hints as pod cycles do (kube: "using the OB hint where
  // possible"); a rolled-back placement invalidates the batch (RollBack).
  CycleContext c;
  StartAttempt(c, qp);
  member_domain_ = domain;
  const NodeInfo* selected = nullptr;
  Status s = RunAlgorithm(c, &selected, hinted);
  member_domain_ = nullptr;
  if (c.explain && observer_ != nullptr) observer_->OnExplain(*c.pod->pod, c.ex);
  if (!s.ok()) {
    *failure =
        s.code() == Code::kError ? s.Message() : FitErrorMessage(snapshot_->NumNodes(), c.diag, "");
    return false;
  }
  *node = selected->name();
  state = std::move(c.state);
  return true;
}

}  // namespace corral::scheduler
