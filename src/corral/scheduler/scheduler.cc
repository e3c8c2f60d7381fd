#include "corral/scheduler/scheduler.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "corral/api/well_known.h"

namespace corral::scheduler {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {
constexpr int32_t kMinFeasibleNodesToFind = 100;
constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;

std::string GoList(const std::vector<std::string_view>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ' ';
    out += names[i];
  }
  return out + "]";
}
}  // namespace

struct Scheduler::Diagnosis {
  std::string pre_filter_msg;
  // Status for nodes the cycle did not evaluate because PreFilter excluded them.
  std::optional<Status> absent_status;
  size_t num_absent = 0;
};

Scheduler::Scheduler(Interner& interner, const Clock& clock, Options options)
    : interner_(interner), clock_(clock), options_(std::move(options)), rng_(options_.seed) {}

Scheduler::~Scheduler() = default;

Result<std::unique_ptr<Scheduler>> Scheduler::New(Interner& interner, const Clock& clock, Options options,
                                                  const framework::Registry& registry) {
  framework::ApplyDefaults(options.config, options.gates);
  std::unique_ptr<Scheduler> s(new Scheduler(interner, clock, std::move(options)));
  s->snapshot_ = &s->cache_.snapshot();
  for (const auto& profile : s->options_.config.profiles) {
    Symbol name = interner.Intern(profile.scheduler_name);
    if (s->by_scheduler_name_.contains(name)) {
      return Error::Invalid(fmt::format("profiles[{}].schedulerName: Duplicate value: {:?}",
                                        s->frameworks_.size(), profile.scheduler_name));
    }
    auto fwk = framework::Framework::New(profile, registry, *s);
    if (!fwk.ok()) return fwk.error();
    s->by_scheduler_name_[name] = fwk->get();
    s->frameworks_.push_back(std::move(fwk).value());
  }
  const auto& cfg = s->options_.config;
  SchedulingQueue::Options qopts;
  qopts.initial_backoff = std::chrono::seconds(cfg.pod_initial_backoff_seconds);
  qopts.max_backoff = std::chrono::seconds(cfg.pod_max_backoff_seconds);
  qopts.pop_from_backoff = s->options_.gates.Enabled(framework::Feature::kSchedulerPopFromBackoffQ);
  s->queue_ = std::make_unique<SchedulingQueue>(clock, qopts);
  return s;
}

const framework::Framework* Scheduler::profile(std::string_view scheduler_name) const {
  auto sym = interner_.Find(scheduler_name);
  if (!sym) return nullptr;
  auto it = by_scheduler_name_.find(*sym);
  return it == by_scheduler_name_.end() ? nullptr : it->second;
}

void Scheduler::SetClusterObjects(const api::ObjectSet* objects) {
  namespaces_.clear();
  owners_.clear();
  pdbs_.clear();
  if (objects == nullptr) return;
  for (const auto& ns : objects->namespaces) namespaces_[ns.meta.name] = &ns;
  for (const auto& o : objects->selector_owners) owners_[o.meta.namespace_].push_back(&o);
  for (const auto& p : objects->pod_disruption_budgets) pdbs_[p.meta.namespace_].push_back(&p);
}

const api::Namespace* Scheduler::GetNamespace(Symbol name) const {
  auto it = namespaces_.find(name);
  return it == namespaces_.end() ? nullptr : it->second;
}

std::span<const api::SelectorOwner* const> Scheduler::SelectorOwners(Symbol ns) const {
  auto it = owners_.find(ns);
  if (it == owners_.end()) return {};
  return it->second;
}

std::span<const api::PodDisruptionBudget* const> Scheduler::PodDisruptionBudgets(Symbol ns) const {
  auto it = pdbs_.find(ns);
  if (it == pdbs_.end()) return {};
  return it->second;
}

std::span<const PodInfo* const> Scheduler::NominatedPodsForNode(Symbol) const {
  return {};  // Nominations arrive with preemption (issue 6).
}

void Scheduler::Activate(std::span<const PodInfo* const> pods) {
  for (const PodInfo* p : pods) {
    auto it = pods_.find(p->pod);
    if (it != pods_.end()) queue_->Activate(it->second.get());
  }
}

void Scheduler::AddNode(const api::Node* node) {
  cache_.AddNode(node);
  FireEvent({framework::EventResource::kNode, framework::ActionType::kAdd}, node);
}

void Scheduler::RemoveNode(Symbol name) {
  cache_.RemoveNode(name);
  FireEvent({framework::EventResource::kNode, framework::ActionType::kDelete}, nullptr);
}

bool Scheduler::AddPod(const api::Pod* pod) {
  auto qp = std::make_unique<QueuedPod>();
  qp->info.pod = pod;
  qp->info.id = static_cast<uint32_t>(pods_.size() + 1);
  framework::ComputePodInfo(qp->info, options_.gates, &interner_);
  QueuedPod* raw = qp.get();
  if (pod->IsBound()) {
    cache_.AddPod(&raw->info, pod->node_name, /*assumed=*/false);
    pods_.emplace(pod, std::move(qp));
    FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kAdd}, pod);
    return true;
  }
  auto it = by_scheduler_name_.find(pod->scheduler_name);
  if (it == by_scheduler_name_.end()) return false;  // another scheduler's pod
  raw->fwk = it->second;
  raw->signature = raw->fwk->SignPod(raw->info);
  pods_.emplace(pod, std::move(qp));
  queue_->Add(raw);
  return true;
}

void Scheduler::DeletePod(const api::Pod* pod) {
  auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  QueuedPod* qp = it->second.get();
  bool was_cached = cache_.RemovePod(&qp->info);
  queue_->Delete(qp);
  last_failure_.erase(pod);
  pods_.erase(it);
  if (was_cached) FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kDelete}, pod);
}

void Scheduler::FireEvent(const framework::ClusterEvent& event, const void* subject) {
  if (in_cycle_) event_during_cycle_ = true;
  if (queue_ == nullptr || queue_->UnschedulableSize() == 0) return;
  queue_->OnEvent(event, subject, [&](QueuedPod* pod, const std::string& plugin_name) {
    framework::Plugin* plugin = pod->fwk->GetPlugin(plugin_name);
    auto* ext = dynamic_cast<framework::EnqueueExtensions*>(plugin);
    if (ext == nullptr) return framework::QueueingHint::kQueue;  // no registration: every event may help
    for (const auto& reg : ext->EventsToRegister()) {
      bool resource_match =
          reg.resource == event.resource ||
          (reg.resource == framework::EventResource::kPod &&
           (event.resource == framework::EventResource::kAssignedPod ||
            event.resource == framework::EventResource::kUnscheduledPod));
      if (!resource_match) continue;
      if ((static_cast<uint8_t>(reg.action) & static_cast<uint8_t>(event.action)) == 0) continue;
      return ext->Hint(pod->info, event, subject);
    }
    return framework::QueueingHint::kQueueSkip;
  });
}

int32_t Scheduler::NumFeasibleNodesToFind(const framework::Framework& fwk, int32_t num_nodes) const {
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

std::string Scheduler::FitErrorMessage(size_t num_nodes, const Diagnosis& d,
                                       const std::string& post_filter_msg) const {
  std::string msg = fmt::format("0/{} nodes are available:", num_nodes);
  if (!d.pre_filter_msg.empty()) {
    msg += fmt::format(" {}.", d.pre_filter_msg);
  } else {
    std::map<std::string_view, int64_t> reasons;
    for (const auto& ns : failed_) {
      for (std::string_view r : ns.status.reasons()) ++reasons[r];
    }
    if (d.absent_status.has_value() && d.num_absent > 0) {
      for (std::string_view r : d.absent_status->reasons()) reasons[r] += static_cast<int64_t>(d.num_absent);
    }
    std::vector<std::string> parts;
    for (const auto& [r, n] : reasons) parts.push_back(fmt::format("{} {}", n, r));
    std::sort(parts.begin(), parts.end());  // Go sort.Strings: bytewise
    if (!parts.empty()) {
      msg += ' ';
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) msg += ", ";
        msg += parts[i];
      }
      msg += '.';
    }
  }
  if (!post_filter_msg.empty()) msg += " " + post_filter_msg;
  return msg;
}

bool Scheduler::ScheduleOne() {
  QueuedPod* qp = queue_->Pop();
  if (qp == nullptr) return false;
  ScheduleCycle(qp);
  return true;
}

void Scheduler::RunUntilIdle() {
  while (ScheduleOne()) {
  }
}

bool Scheduler::ScheduleCycle(QueuedPod* qp) {
  framework::Framework& fwk = *qp->fwk;
  const PodInfo& pod = qp->info;
  snapshot_ = &cache_.snapshot();
  ++stats_.cycles;
  in_cycle_ = true;
  event_during_cycle_ = false;
  const bool explain = options_.explain && options_.explain(*pod.pod);
  CycleExplain ex;
  feasible_.clear();
  failed_.clear();
  qp->unschedulable_plugins.clear();
  qp->pending_plugins.clear();

  auto finish_failure = [&](Code code, std::string message) {
    in_cycle_ = false;
    if (code == Code::kError) {
      ++stats_.errors;
    } else {
      ++stats_.unschedulable_attempts;
    }
    last_failure_[pod.pod] = message;
    if (explain && observer_ != nullptr) observer_->OnExplain(*pod.pod, ex);
    if (observer_ != nullptr) observer_->OnUnschedulable(*pod.pod, message);
    queue_->Requeue(qp, code, event_during_cycle_);
    return false;
  };

  const auto& all = snapshot_->nodes();
  const size_t num_all = all.size();
  if (num_all == 0) return finish_failure(Code::kError, "no nodes available to schedule pods");

  CycleState state;
  framework::PreFilterResult pre;
  Diagnosis diag;
  std::vector<std::string_view> restricting;
  Status s = fwk.RunPreFilterPlugins(state, pod, &pre, &restricting);
  if (!s.ok()) {
    if (!s.IsRejected()) return finish_failure(Code::kError, s.Message());
    diag.pre_filter_msg = s.Message();
    if (!s.plugin().empty()) qp->unschedulable_plugins.insert(std::string(s.plugin()));
    if (explain) ex.pre_filter = s;
    // PostFilter (preemption) would run here with every node carrying `s`.
    return finish_failure(s.code() == Code::kError ? Code::kError : Code::kUnschedulable,
                          FitErrorMessage(num_all, diag, ""));
  }

  // Candidate nodes: all, or those named by the PreFilterResult (in snapshot order; kube iterates a Go
  // map here, which is random).
  std::span<const NodeInfo* const> candidates(all);
  std::vector<const NodeInfo*> restricted;
  if (pre.node_names.has_value()) {
    for (const NodeInfo* n : all) {
      if (pre.node_names->contains(n->name())) restricted.push_back(n);
    }
    candidates = restricted;
    diag.num_absent = num_all - restricted.size();
    std::sort(restricting.begin(), restricting.end());  // kube: sets.List (sorted)
    diag.absent_status = Status::WithOwnedReason(
        Code::kUnschedulableAndUnresolvable,
        fmt::format("node(s) didn't satisfy plugin(s) {}", GoList(restricting)));
  }

  const auto num_candidates = static_cast<int32_t>(candidates.size());
  int32_t num_to_find = NumFeasibleNodesToFind(fwk, num_candidates);
  if (!fwk.HasScorePlugins()) num_to_find = std::min(num_to_find, 1);
  size_t processed = 0;
  if (num_candidates > 0) {
    if (!fwk.HasFilterPlugins()) {
      for (int32_t i = 0; i < num_to_find; ++i) {
        feasible_.push_back(candidates[(next_start_node_index_ + static_cast<size_t>(i)) % candidates.size()]);
      }
      processed = feasible_.size();
    } else {
      for (size_t i = 0; i < candidates.size(); ++i) {
        const NodeInfo* node = candidates[(next_start_node_index_ + i) % candidates.size()];
        Status fs = fwk.RunFilterPluginsWithNominatedPods(state, pod, *node);
        ++processed;
        if (fs.ok()) {
          feasible_.push_back(node);
          if (explain) ex.nodes.push_back({node->name(), std::nullopt, {}, std::nullopt});
          if (static_cast<int32_t>(feasible_.size()) >= num_to_find) break;
        } else {
          if (fs.code() == Code::kError) return finish_failure(Code::kError, fs.Message());
          if (!fs.plugin().empty()) {
            if (fs.code() == Code::kPending) {
              qp->pending_plugins.insert(std::string(fs.plugin()));
            } else {
              qp->unschedulable_plugins.insert(std::string(fs.plugin()));
            }
          }
          if (explain) ex.nodes.push_back({node->name(), fs, {}, std::nullopt});
          failed_.push_back({node, std::move(fs)});
        }
      }
    }
  }
  next_start_node_index_ = (next_start_node_index_ + processed) % num_all;

  if (feasible_.empty()) {
    // PostFilter (DefaultPreemption) joins here with issue 6.
    return finish_failure(Code::kUnschedulable, FitErrorMessage(num_all, diag, ""));
  }

  const NodeInfo* selected = feasible_[0];
  if (feasible_.size() > 1) {
    Status ps = fwk.RunPreScorePlugins(state, pod, feasible_);
    if (!ps.ok()) return finish_failure(Code::kError, ps.Message());
    Status ss = fwk.RunScorePlugins(state, pod, feasible_, &scores_);
    if (!ss.ok()) return finish_failure(Code::kError, ss.Message());
    if (!fwk.HasScorePlugins()) std::fill(scores_.total.begin(), scores_.total.end(), 1);
    // Uniformly random among the top-scored nodes (reservoir sampling over feasible order).
    int64_t best = INT64_MIN;
    size_t ties = 0;
    for (size_t j = 0; j < feasible_.size(); ++j) {
      int64_t t = scores_.total[j];
      if (t > best) {
        best = t;
        selected = feasible_[j];
        ties = 1;
      } else if (t == best) {
        ++ties;
        if (rng_.Uniform(ties) == 0) selected = feasible_[j];
      }
    }
    if (explain) {
      const auto& plugins = fwk.score_plugins();
      size_t fi = 0;
      for (auto& ne : ex.nodes) {
        if (ne.filter.has_value()) continue;
        for (size_t pi = 0; pi < scores_.plugins.size(); ++pi) {
          const auto& e = plugins[scores_.plugins[pi]];
          int64_t norm = scores_.normalized[pi * scores_.n() + fi];
          ne.scores.push_back({e.name, scores_.raw[pi * scores_.n() + fi], norm, norm * e.weight});
        }
        ne.total = scores_.total[fi];
        ++fi;
      }
    }
  }
  Symbol node_name = selected->name();
  if (explain) ex.selected = node_name;

  // Assume, Reserve, Permit, then bind (binding is instantaneous in Corral's model).
  cache_.AddPod(&qp->info, node_name, /*assumed=*/true);
  Status rs = fwk.RunReservePluginsReserve(state, pod, node_name);
  if (!rs.ok()) {
    fwk.RunReservePluginsUnreserve(state, pod, node_name);
    cache_.RemovePod(&qp->info);
    return finish_failure(rs.IsRejected() ? Code::kUnschedulable : Code::kError, rs.Message());
  }
  Duration timeout{};
  Status perm = fwk.RunPermitPlugins(state, pod, node_name, &timeout);
  if (!perm.ok()) {
    // Waiting on Permit arrives with gang scheduling (issue 5); until then a Wait is a rejection.
    fwk.RunReservePluginsUnreserve(state, pod, node_name);
    cache_.RemovePod(&qp->info);
    return finish_failure(perm.code() == Code::kError ? Code::kError : Code::kUnschedulable,
                          perm.code() == Code::kWait ? "permit wait is not supported yet" : perm.Message());
  }
  Status pb = fwk.RunPreBindPlugins(state, pod, node_name);
  if (pb.ok()) pb = fwk.RunBindPlugins(state, pod, node_name);
  if (!pb.ok() && !pb.IsSkip()) {
    fwk.RunReservePluginsUnreserve(state, pod, node_name);
    cache_.RemovePod(&qp->info);
    return finish_failure(Code::kError, pb.Message());
  }
  cache_.ConfirmPod(&qp->info);
  fwk.RunPostBindPlugins(state, pod, node_name);
  in_cycle_ = false;
  ++stats_.scheduled;
  qp->where = QueueLocation::kNone;
  last_failure_.erase(pod.pod);
  if (explain && observer_ != nullptr) observer_->OnExplain(*pod.pod, ex);
  if (observer_ != nullptr) observer_->OnScheduled(*pod.pod, node_name, fwk.profile_name());
  FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kAdd}, pod.pod);
  return true;
}

Status Scheduler::Evaluate(const api::Pod& pod, Symbol node_name) {
  auto it = by_scheduler_name_.find(pod.scheduler_name);
  if (it == by_scheduler_name_.end()) return Status::Error("no profile for the pod's schedulerName");
  const framework::Framework& fwk = *it->second;
  PodInfo info;
  info.pod = &pod;
  framework::ComputePodInfo(info, options_.gates, &interner_);
  snapshot_ = &cache_.snapshot();
  const NodeInfo* node = snapshot_->Get(node_name);
  if (node == nullptr) return Status::Unresolvable("node not found");
  CycleState state;
  framework::PreFilterResult pre;
  Status s = fwk.RunPreFilterPlugins(state, info, &pre);
  if (!s.ok()) return s;
  if (pre.node_names.has_value() && !pre.node_names->contains(node_name)) {
    return Status::Unresolvable("node excluded by PreFilter");
  }
  return fwk.RunFilterPluginsWithNominatedPods(state, info, *node);
}

void Scheduler::FlushUnschedulableLeftover() {
  queue_->FlushUnschedulableLeftover(kPodMaxInUnschedulablePodsDuration);
}

size_t Scheduler::NumPendingPods() const {
  return queue_->ActiveSize() + queue_->BackoffSize() + queue_->UnschedulableSize();
}

std::vector<std::pair<const api::Pod*, std::string>> Scheduler::PendingPods() const {
  std::vector<std::pair<const api::Pod*, std::string>> out;
  for (QueuedPod* qp : queue_->UnschedulablePods()) {
    std::string msg = qp->where == QueueLocation::kGated ? qp->gated_message : "";
    if (auto it = last_failure_.find(qp->info.pod); it != last_failure_.end() && msg.empty()) msg = it->second;
    out.emplace_back(qp->info.pod, msg);
  }
  return out;
}

}  // namespace corral::scheduler
