// The scheduling cycle of one pod (kube's pkg/scheduler/schedule_one.go), split into kube's steps:
//   ScheduleCycle       orchestration: snapshot, SchedulePod, then assume, reserve, permit and
//                       bind, or handle the failure
//   SchedulePod         PreFilter → FindNodesThatPassFilters → (one feasible node: done) →
//                       Prioritize → SelectHost
//   HandleFailure       FitError message, explain, requeue with the rejecting plugins

#include <algorithm>

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include "corral/framework/preemption_dry_run.h"
#include "corral/pipeline/fit_error.h"
#include "corral/pipeline/select.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

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
    filter_pass_.ForEachFailureRun(add);
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
  claim_status_version_at_cycle_ = dra_.ClaimStatusVersion();

  const NodeInfo* selected = nullptr;
  bool hinted = false;
  Status s = RunAlgorithm(c, &selected, &hinted);
  if (hinted) ++stats_.batched;
  if (!s.ok()) {
    if (s.code() == Code::kError) return HandleFailure(c, Code::kError, s.Message());
    // PostFilter (DefaultPreemption) may evict victims and nominate the pod; the
    // pod is still unschedulable in this cycle and retries once the victims are gone (kube).
    std::string post_filter_msg = c.fwk->HasPostFilterPlugins() ? RunPostFilter(c) : std::string();
    // KEP-5836: a deferred resize keeps its nominatedNodeName empty (it is already on its node).
    if (IsDeferredResize(*c.pod)) nominator_.Delete(&c.qp->info);
    std::string fit_error = FitErrorMessage(snapshot_->NumNodes(), c.diag, post_filter_msg);
    if (c.explain) c.ex.fit_error = fit_error;
    return HandleFailure(c, Code::kUnschedulable, std::move(fit_error));
  }
  if (IsDeferredResize(*c.pod)) return ParkDeferredResize(c);
  return AssumeAndBind(c, selected->name());
}

Status Scheduler::SchedulePod(CycleContext& c, const NodeInfo** selected) {
  filter_pass_.Reset();
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
  const std::vector<const NodeInfo*>& feasible = filter_pass_.feasible();
  if (feasible.empty()) return Status::Unschedulable("no feasible node");
  // A single feasible node is never scored (kube).
  if (feasible.size() == 1) {
    *selected = feasible[0];
    if (c.explain) c.ex.selected = (*selected)->name();
    return {};
  }
  return PrioritizeAndSelect(c, selected);
}

Status Scheduler::FindNodesThatPassFilters(CycleContext& c, const framework::PreFilterResult& pre,
                                           std::vector<std::string_view>& restricting) {
  // kube asks the batch for a hint right after PreFilter (a nominated pod flushes it with
  // pod_nominated); the pass then evaluates the nominated node (set by an earlier preemption) and,
  // when it does not pass, the hinted node before the others.
  c.nominated = nominator_.NodeOf(&c.qp->info);
  if (c.batch != nullptr) {
    c.hint = c.batch->GetNodeHint(c.state, *c.pod, c.qp->signature, !c.nominated.empty(),
                                  stats_.cycles, *snapshot_, cluster_epoch_);
  }
  FilterPass::Domain domain;
  if (member_domain_ != nullptr) domain = {member_domain_->nodes, &member_domain_->names};
  FilterPass::Request r;
  r.fwk = c.fwk;
  r.state = &c.state;
  r.qp = c.qp;
  r.snapshot = snapshot_;
  r.pre = &pre;
  r.restricting = &restricting;
  r.domain = member_domain_ != nullptr ? &domain : nullptr;
  r.nominated = c.nominated;
  r.hint = c.hint;
  r.percentage_of_nodes_to_score = c.fwk->percentage_of_nodes_to_score().has_value()
                                       ? c.fwk->percentage_of_nodes_to_score()
                                       : options_.config.percentage_of_nodes_to_score;
  r.memo = filter_memo_.get();
  r.nominator = &nominator_;
  r.explain = c.explain ? &c.ex : nullptr;
  Status s = filter_pass_.Run(r);
  if (c.explain) ExplainFilterPass(c, pre);
  c.diag.num_absent = filter_pass_.num_absent();
  if (filter_pass_.absent_status().has_value()) {
    c.diag.absent_status = std::move(filter_pass_.absent_status());
  }
  return s;
}

void Scheduler::ExplainFilterPass(CycleContext& c, const framework::PreFilterResult& pre) {
  const Symbol first = filter_pass_.first_passed();
  c.ex.from_nominated = !first.empty() && first == c.nominated;
  c.ex.from_hint = !first.empty() && !c.ex.from_nominated && first == c.hint;
  if (c.ex.from_hint && c.batch != nullptr) {
    c.ex.hint_source_namespace = c.batch->source_namespace();
    c.ex.hint_source_name = c.batch->source_name();
  }
  // The nodes a PreFilter result (or the placement domain) left out, with their common status.
  if (filter_pass_.num_absent() == 0 || !filter_pass_.absent_status().has_value()) return;
  for (const NodeInfo* n : snapshot_->nodes()) {
    const Symbol name = n->name();
    const bool candidate = pre.node_names.has_value() ? pre.node_names->contains(name)
                                                      : member_domain_->names.contains(name);
    if (!candidate) {
      c.ex.nodes.push_back(
          {name, *filter_pass_.absent_status(), {}, std::nullopt, /*absent=*/true});
    }
  }
}

Status Scheduler::PrioritizeAndSelect(CycleContext& c, const NodeInfo** selected) {
  const std::vector<const NodeInfo*>& feasible = filter_pass_.feasible();
  Status ps = c.fwk->RunPreScorePlugins(c.state, *c.pod, feasible);
  if (!ps.ok()) return ps;
  Status ss = c.fwk->RunScorePlugins(c.state, *c.pod, feasible, &scores_);
  if (!ss.ok()) return ss;
  if (!c.fwk->HasScorePlugins()) std::fill(scores_.total.begin(), scores_.total.end(), 1);
  c.scored = true;
  // kube's heap order: TotalScore desc, then the node's Randomizer desc, then feasible order (the
  // rest of that order is the batch list).
  const size_t best = pipeline::SelectBest(
      feasible.size(), [&](size_t j) { return scores_.total[j]; },
      [&](size_t j) { return NodeRandomizer(feasible[j]->name()); });
  if (best != pipeline::kNone) *selected = feasible[best];
  if (c.explain) {
    if (best != pipeline::kNone) {
      c.ex.num_tied = static_cast<size_t>(std::count(
          scores_.total.begin(), scores_.total.begin() + feasible.size(), scores_.total[best]));
    }
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
  if (dra_.ClaimStatusVersion() != claim_status_version_at_cycle_) {
    // A claim's status changed during the cycle (DynamicResources' PostFilter deallocated it):
    // kube's queue sees that ResourceClaim update while the pod is in flight, its hint queues
    // the pod, and the other pending pods get the event too.
    claim_status_version_at_cycle_ = dra_.ClaimStatusVersion();
    event_during_cycle_ = true;
    FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kDelete}, nullptr);
  }
  queue_->Requeue(c.qp, code, event_during_cycle_);
  return false;
}

bool Scheduler::ParkDeferredResize(CycleContext& c) {
  // kube's DeferredPodScheduling Permit: the resize fits, so the pod waits (unschedulable) for
  // the node's agent to actuate it; it is never assumed or bound, being bound already.
  c.qp->unschedulable_plugins.insert("DeferredPodScheduling");
  return HandleFailure(c, Code::kUnschedulableAndUnresolvable,
                       "pod resize fits, waiting for Kubelet actuation");
}

// ---- preemption ---------------------------------------------------------------------------------

std::string Scheduler::RunPostFilter(CycleContext& c) {
  framework::NodeToStatus statuses;
  statuses.nodes = filter_pass_.Failed();
  if (c.diag.absent_status.has_value()) statuses.absent = *c.diag.absent_status;
  framework::PostFilterResult r;
  Status ps = c.fwk->RunPostFilterPlugins(c.state, *c.pod, statuses, &r);
  metrics_
      .GetCounter("scheduler_preemption_attempts_total",
                  "Total preemption attempts in the cluster till now")
      .Inc();
  if (c.explain) {
    PostFilterExplain& pe = c.ex.post_filter.emplace();
    if (!ps.ok()) pe.message = ps.Message();
    if (ps.ok()) pe.nominated = r.nominated_node_name;
    for (const auto& v : r.victims) {
      pe.victims.emplace_back(v.pod->pod->meta.namespace_, v.pod->pod->meta.name);
    }
    for (const std::string& name : c.fwk->ListPlugins("PostFilter")) {
      const auto* dry =
          dynamic_cast<const framework::PreemptionDryRunReporter*>(c.fwk->GetPlugin(name));
      if (dry != nullptr && dry->LastDryRun().ran) pe.dry_run = dry->LastDryRun();
    }
  }
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
