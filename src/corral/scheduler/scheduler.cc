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

Scheduler::Scheduler(Interner& interner, const Clock& clock, Options options)
    : interner_(interner), clock_(clock), options_(std::move(options)), rng_(options_.seed) {}

Scheduler::~Scheduler() = default;

Result<std::unique_ptr<Scheduler>> Scheduler::New(Interner& interner, const Clock& clock,
                                                  Options options,
                                                  const framework::Registry& registry) {
  framework::ApplyDefaults(options.config, options.gates);
  std::unique_ptr<Scheduler> s(new Scheduler(interner, clock, std::move(options)));
  s->snapshot_ = &s->cache_.snapshot();
  if (s->options_.gates.Enabled(framework::Feature::kCorralFilterMemo)) {
    s->filter_memo_ = std::make_unique<FilterMemo>();
  }
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
    if (s->options_.gates.Enabled(framework::Feature::kOpportunisticBatching)) {
      auto b = std::make_unique<OpportunisticBatch>(*s->frameworks_.back(), clock,
                                                    s->options_.wall_clock, s->metrics_);
      b->set_randomizer(
          [](const void* ctx, Symbol node) {
            return static_cast<const Scheduler*>(ctx)->NodeRandomizer(node);
          },
          s.get());
      s->batches_[s->frameworks_.back().get()] = std::move(b);
    }
  }
  const auto& cfg = s->options_.config;
  SchedulingQueue::Options qopts;
  qopts.initial_backoff = std::chrono::seconds(cfg.pod_initial_backoff_seconds);
  qopts.max_backoff = std::chrono::seconds(cfg.pod_max_backoff_seconds);
  qopts.pop_from_backoff = s->options_.gates.Enabled(framework::Feature::kSchedulerPopFromBackoffQ);
  s->queue_ = std::make_unique<SchedulingQueue>(clock, qopts);
  return s;
}

const OpportunisticBatch* Scheduler::batch(std::string_view scheduler_name) const {
  const framework::Framework* fwk = profile(scheduler_name);
  auto it = batches_.find(fwk);
  return it == batches_.end() ? nullptr : it->second.get();
}

Scheduler::BatchTotals Scheduler::batch_totals() const {
  BatchTotals t;
  for (const auto& [fwk, b] : batches_) {
    t.cross_node_pods += b->batched_cross_node_pods();
    t.incremental_prescores += b->incremental_prescores();
    t.hook_rescored_nodes += b->hook_rescored_nodes();
  }
  return t;
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
  wm_.SetObjects(objects);
  dra_.set_pods_resource(interner_.Intern("pods"));
  dra_.set_pod_groups_resource(interner_.Intern("podgroups"));
  dra_.set_interner(&interner_);
  dra_.Reset(objects != nullptr ? objects->resources.get() : nullptr);
  if (objects == nullptr) return;
  for (const auto& ns : objects->namespaces) namespaces_[ns.meta.name] = &ns;
  for (const auto& o : objects->selector_owners) owners_[o.meta.namespace_].push_back(&o);
  for (const auto& p : objects->pod_disruption_budgets) pdbs_[p.meta.namespace_].push_back(&p);
  // The volume cache keeps the binder's assumptions and bindings, so it is rebuilt only when the
  // storage objects themselves change.
  if (objects->storage.get() != volumes_source_) {
    volumes_source_ = objects->storage.get();
    volumes_ = volumes_source_ == nullptr
                   ? nullptr
                   : std::make_unique<state::VolumeCache>(*volumes_source_, interner_);
  }
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

Symbol Scheduler::NominatedNodeOf(const api::Pod* pod) const {
  auto it = pods_.find(pod);
  return it == pods_.end() ? Symbol() : nominator_.NodeOf(&it->second->info);
}

std::span<const PodInfo* const> Scheduler::NominatedPodsForNode(Symbol node) const {
  // Contract (Handle): not yet bound or assumed. Members of a workload cycle stay nominated while
  // they are assumed (the cycle may roll back), so assumed ones are filtered out here. Other pods
  // lose their nomination when they are assumed, so only group members need the cache lookup.
  if (nominator_.size() == 0) return {};
  std::span<const PodInfo* const> pods = nominator_.PodsForNode(node);
  if (nominator_.num_group_members() == 0) return pods;  // no group member: nothing to filter out
  auto assumed = [&](const PodInfo* p) {
    return (p->pod->scheduling_group.has_value() || p->pod->workload_ref.has_value()) &&
           cache_.Contains(p);
  };
  size_t i = 0;
  while (i < pods.size() && !assumed(pods[i])) ++i;
  if (i == pods.size()) return pods;
  nominated_scratch_.assign(pods.begin(), pods.begin() + static_cast<std::ptrdiff_t>(i));
  for (++i; i < pods.size(); ++i) {
    if (!assumed(pods[i])) nominated_scratch_.push_back(pods[i]);
  }
  return nominated_scratch_;
}

uint64_t Scheduler::NominationVersion(Symbol node) const {
  // Group members drop out of NominatedPodsForNode while assumed, which the nominator does not
  // see; a node with a nominated group member therefore always reads as changed.
  if (nominator_.num_group_members() == 0) return nominator_.Version(node);
  for (const PodInfo* p : nominator_.PodsForNode(node)) {
    if (p->pod->scheduling_group.has_value() || p->pod->workload_ref.has_value()) {
      return nominator_.Unique();
    }
  }
  return nominator_.Version(node);
}

const framework::Framework* Scheduler::GetFramework(Symbol scheduler_name) const {
  auto it = by_scheduler_name_.find(scheduler_name);
  return it == by_scheduler_name_.end() ? nullptr : it->second;
}

void Scheduler::Activate(std::span<const PodInfo* const> pods) {
  for (const PodInfo* p : pods) {
    auto it = pods_.find(p->pod);
    if (it != pods_.end()) queue_->Activate(it->second.get(), /*gang_first=*/true);
  }
}

void Scheduler::AddNode(const api::Node* node) {
  if (!node_rnd_.contains(node->meta.name)) node_rnd_[node->meta.name] = rng_.Next();
  cache_.AddNode(node);
  topology_domains_.clear();
  FireEvent({framework::EventResource::kNode, framework::ActionType::kAdd}, node);
}

void Scheduler::UpdateNode(const api::Node* node) {
  cache_.AddNode(node);  // replaces the held object
  topology_domains_.clear();
  FireEvent({framework::EventResource::kNode, framework::ActionType::kUpdate}, node);
}

void Scheduler::RemoveNode(Symbol name) {
  cache_.RemoveNode(name);
  topology_domains_.clear();
  FireEvent({framework::EventResource::kNode, framework::ActionType::kDelete}, nullptr);
}

bool Scheduler::AddPod(const api::Pod* pod) {
  auto qp = std::make_unique<QueuedPod>();
  qp->info.pod = pod;
  qp->info.id = static_cast<uint32_t>(pods_.size() + 1);
  framework::ComputePodInfo(qp->info, options_.gates, &interner_);
  if (pod->scheduling_group.has_value()) {
    const api::PodGroup* pg =
        wm_.GetPodGroup(pod->meta.namespace_, pod->scheduling_group->pod_group_name);
    if (pg != nullptr) qp->info.group_priority = pg->priority;
  }
  QueuedPod* raw = qp.get();
  if (pod->IsBound()) {
    cache_.AddPod(&raw->info, pod->node_name, /*assumed=*/false);
    wm_.AddPod(&raw->info, /*bound=*/true);
    pods_.emplace(pod, std::move(qp));
    FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kAdd}, pod);
    return true;
  }
  auto it = by_scheduler_name_.find(pod->scheduler_name);
  if (it == by_scheduler_name_.end()) {
    // Another scheduler's pod; a group it shares with this scheduler's pods is unschedulable.
    if (auto key = framework::PodGroupKeyOf(*pod)) {
      wm_.NoteForeignMember(*key, pod->scheduler_name);
      OnGroupMemberAdded(*wm_.Get(*key));
    }
    return false;
  }
  raw->fwk = it->second;
  raw->signature = raw->fwk->SignPod(raw->info);
  if (filter_memo_ != nullptr && !raw->fwk->signatures_enabled()) {
    raw->memo_signature = raw->fwk->Signature(raw->info);
  }
  pods_.emplace(pod, std::move(qp));
  // A pod that arrives nominated (status.nominatedNodeName) is honoured like one nominated here.
  if (!pod->nominated_node_name.empty()) nominator_.Add(&raw->info, pod->nominated_node_name);
  framework::PodGroupState* group = wm_.AddPod(&raw->info, /*bound=*/false);
  queue_->Add(raw);
  if (group != nullptr) OnGroupMemberAdded(*group);
  return true;
}

void Scheduler::DeletePod(const api::Pod* pod) {
  auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  QueuedPod* qp = it->second.get();
  if (std::unique_ptr<WaitingPod> wp = waiting_.Take(&qp->info)) {
    wp->fwk->RunReservePluginsUnreserve(wp->state, qp->info, wp->node);
  }
  DropPreBindWait(&qp->info);
  wm_.DeletePod(&qp->info);
  // Queueing hints see the deleted pod as kube's informer last saw it: on the node the scheduler
  // bound it to (the input object of a pod bound during this run has no nodeName).
  std::optional<api::Pod> last;
  if (Symbol node = cache_.NodeOf(&qp->info); !node.empty() && node != pod->node_name) {
    last = *pod;
    last->node_name = node;
  }
  nominator_.Delete(&qp->info);
  terminating_victims_.erase(&qp->info);
  bool was_cached = cache_.RemovePod(&qp->info);
  queue_->Delete(qp);
  last_failure_.erase(pod);
  pods_.erase(it);
  // kube's resourceclaim controller: the pod's claims are released (and its generated ones go).
  if (!pod->resource_claims.empty() || dra_.HasExtendedResourceClaims()) dra_.ReleasePod(*pod);
  if (was_cached) {
    FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kDelete},
              last.has_value() ? &*last : pod);
  }
}

std::pair<const framework::EnqueueExtensions*, const framework::ClusterEvent*>
Scheduler::Registration(const framework::Framework* fwk, const std::string& plugin_name,
                        const framework::ClusterEvent& event) {
  framework::Plugin* plugin = fwk->GetPlugin(plugin_name);
  auto [it, inserted] = enqueue_registrations_.try_emplace(plugin);
  if (inserted && plugin != nullptr) {
    it->second.ext = dynamic_cast<const framework::EnqueueExtensions*>(plugin);
    if (it->second.ext != nullptr) it->second.events = it->second.ext->EventsToRegister();
  }
  const framework::EnqueueExtensions* ext = it->second.ext;
  if (ext == nullptr) return {nullptr, nullptr};
  for (const auto& reg : it->second.events) {
    bool resource_match = reg.resource == event.resource ||
                          (reg.resource == framework::EventResource::kPod &&
                           (event.resource == framework::EventResource::kAssignedPod ||
                            event.resource == framework::EventResource::kUnscheduledPod));
    if (!resource_match) continue;
    if ((static_cast<uint8_t>(reg.action) & static_cast<uint8_t>(event.action)) == 0) continue;
    return {ext, &reg};
  }
  return {ext, nullptr};
}

void Scheduler::FireEvent(const framework::ClusterEvent& event, const void* subject) {
  ++cluster_epoch_;
  if (in_cycle_) event_during_cycle_ = true;
  if (queue_ == nullptr || queue_->UnschedulableSize() == 0) return;
  auto registration = [&](const framework::Framework* fwk, const std::string& plugin_name) {
    return Registration(fwk, plugin_name, event);
  };
  // Whether the plugin's hint can be Queue for this event: no registration (every event may help)
  // or a matching registered event.
  const SchedulingQueue::RegisteredFn registered = [&](const framework::Framework* fwk,
                                                       const std::string& plugin_name) {
    auto [ext, reg] = registration(fwk, plugin_name);
    return ext == nullptr || reg != nullptr;
  };
  queue_->OnEvent(
      event, subject,
      [&](QueuedPod* pod, const std::string& plugin_name) {
        auto [ext, reg] = registration(pod->fwk, plugin_name);
        if (ext == nullptr)
          return framework::QueueingHint::kQueue;  // no registration: every event may help
        if (reg == nullptr) return framework::QueueingHint::kQueueSkip;
        return ext->Hint(pod->info, event, subject);
      },
      &registered);
}

bool Scheduler::ScheduleOne() {
  QueuedPod* qp = queue_->Pop();
  if (qp == nullptr) return false;
  // With the workload cycle, popping a member pops its whole group. A deferred resize is scheduled
  // alone (kube's queue does not count it as a group member).
  framework::PodGroupState* group =
      options_.workload_cycle && !IsDeferredResize(qp->info) ? wm_.GroupOf(qp->info) : nullptr;
  framework::ResolvedPodGroup resolved;
  if (group != nullptr && framework::ResolvePodGroup(*this, *qp->info.pod, &resolved).ok()) {
    if (const api::CompositePodGroup* root = CompositeRootOf(resolved)) {
      ScheduleComposite(qp, *root);  // KEP-6012: the whole hierarchy in one cycle
    } else {
      ScheduleGroup(qp, *group, resolved);
    }
  } else {
    ScheduleCycle(qp);
  }
  ProcessWaitingOutcomes();
  return true;
}

void Scheduler::RunUntilIdle() {
  while (ScheduleOne()) {
  }
}

Status Scheduler::Evaluate(const api::Pod& pod, Symbol node_name) {
  auto it = by_scheduler_name_.find(pod.scheduler_name);
  if (it == by_scheduler_name_.end())
    return Status::Error("no profile for the pod's schedulerName");
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
    if (auto it = last_failure_.find(qp->info.pod); it != last_failure_.end() && msg.empty())
      msg = it->second;
    out.emplace_back(qp->info.pod, msg);
  }
  return out;
}

}  // namespace corral::scheduler
