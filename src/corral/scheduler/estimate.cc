#include "corral/scheduler/estimate.h"

#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "corral/core/clock.h"

namespace corral::scheduler {

using framework::NodeInfo;
using framework::PodInfo;
using framework::Resource;

namespace {

bool HasHostPort(const std::vector<api::Container>& containers) {
  return std::any_of(containers.begin(), containers.end(), [](const api::Container& c) {
    return std::any_of(c.ports.begin(), c.ports.end(),
                       [](const api::ContainerPort& p) { return p.host_port > 0; });
  });
}

// How many copies of a pod requesting `request` the free resources of `node` hold (kube's
// NodeResourcesFit arithmetic, every requested resource counted: cpu in millicores, the others in
// units, and the pod slots).
int64_t CopiesThatFit(const NodeInfo& node, const Resource& request) {
  const Resource& alloc = node.allocatable();
  const Resource& used = node.requested();
  int64_t n = alloc.allowed_pod_number - static_cast<int64_t>(node.pods().size());
  auto limit = [&](int64_t allocatable, int64_t requested, int64_t per_copy) {
    if (per_copy <= 0) return;
    n = std::min(n, std::max<int64_t>(0, allocatable - requested) / per_copy);
  };
  limit(alloc.milli_cpu, used.milli_cpu, request.milli_cpu);
  limit(alloc.memory, used.memory, request.memory);
  limit(alloc.ephemeral_storage, used.ephemeral_storage, request.ephemeral_storage);
  for (const auto& [name, amount] : request.scalar) {
    limit(alloc.Scalar(name), used.Scalar(name), amount);
  }
  return std::max<int64_t>(0, n);
}

// A trial placement on a copy of the member: the member's nodes and bound pods, then `pods` as
// pending pods, scheduled until idle. Returns how many of `pods` were bound.
Result<int32_t> PlaceOnCopy(const MemberSource& member, std::vector<api::Pod> pods) {
  api::ObjectSet objects = *member.objects;
  std::erase_if(objects.pods, [](const api::Pod& p) { return !p.IsBound(); });
  const size_t first_copy = objects.pods.size();
  for (api::Pod& p : pods) objects.pods.push_back(std::move(p));
  ManualClock clock;
  Scheduler::Options options = *member.options;
  options.explain = nullptr;
  options.wall_clock = nullptr;
  auto sandbox = Scheduler::New(*member.interner, clock, std::move(options), *member.registry);
  if (!sandbox.ok()) return sandbox.error();
  Scheduler& s = **sandbox;
  s.SetClusterObjects(&objects);
  for (const api::Node& n : objects.nodes) s.AddNode(&n);
  for (size_t i = 0; i < first_copy; ++i) s.AddPod(&objects.pods[i]);
  struct Counter : SchedulerObserver {
    const api::Pod* first = nullptr;
    const api::Pod* end = nullptr;
    int32_t bound = 0;
    void OnScheduled(const api::Pod& pod, Symbol, std::string_view) override {
      if (&pod >= first && &pod < end) ++bound;
    }
  } counter;
  counter.first = objects.pods.data() + first_copy;
  counter.end = objects.pods.data() + objects.pods.size();
  s.set_observer(&counter);
  for (size_t i = first_copy; i < objects.pods.size(); ++i) s.AddPod(&objects.pods[i]);
  s.RunUntilIdle();
  return counter.bound;
}

// `count` copies of `pod`, named "<name>-estimate-<i>", pending.
void AppendCopies(const api::Pod& pod, int32_t count, Interner& interner,
                  std::vector<api::Pod>& out) {
  for (int32_t i = 0; i < count; ++i) {
    api::Pod copy = pod;
    copy.meta.name =
        interner.Intern(fmt::format("{}-estimate-{}", interner.Str(pod.meta.name), out.size()));
    copy.node_name = Symbol();
    copy.nominated_node_name = Symbol();
    copy.phase = api::PodPhase::kPending;
    out.push_back(std::move(copy));
  }
}

}  // namespace

bool IndependentReplicas(const api::Pod& pod) {
  if (HasHostPort(pod.containers) || HasHostPort(pod.init_containers)) return false;
  if (pod.affinity.has_value()) {
    if (pod.affinity->pod_affinity.has_value() && !pod.affinity->pod_affinity->required.empty()) {
      return false;
    }
    if (pod.affinity->pod_anti_affinity.has_value() &&
        !pod.affinity->pod_anti_affinity->required.empty()) {
      return false;
    }
  }
  for (const api::TopologySpreadConstraint& c : pod.topology_spread_constraints) {
    if (c.when_unsatisfiable == api::WhenUnsatisfiable::kDoNotSchedule) return false;
  }
  for (const api::Volume& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kOther) return false;
  }
  return pod.resource_claims.empty() && !pod.workload_ref.has_value() &&
         !pod.scheduling_group.has_value();
}

int32_t Scheduler::EstimateIndependentReplicas(const api::Pod& pod, int32_t max) {
  if (max <= 0) return 0;
  const framework::Framework* fwk = GetFramework(pod.scheduler_name);
  if (fwk == nullptr) return 0;
  PodInfo info;
  info.pod = &pod;
  framework::ComputePodInfo(info, options_.gates, &interner_);
  snapshot_ = &cache_.snapshot();
  framework::CycleState state;
  framework::PreFilterResult pre;
  if (!fwk->RunPreFilterPlugins(state, info, &pre).ok()) return 0;
  int64_t total = 0;
  for (const NodeInfo* node : snapshot_->nodes()) {
    if (pre.node_names.has_value() && !pre.node_names->contains(node->name())) continue;
    if (!fwk->RunFilterPluginsWithNominatedPods(state, info, *node).ok()) continue;
    // The node takes one copy (it passed every filter). More only when nothing is nominated to
    // it: the filter counted nominated pods for the first copy, the arithmetic would not.
    int64_t n = NominatedPodsForNode(node->name()).empty() ? CopiesThatFit(*node, info.request) : 1;
    total += std::max<int64_t>(1, n);
    if (total >= max) return max;
  }
  return static_cast<int32_t>(total);
}

Result<int32_t> EstimateReplicas(Scheduler& scheduler, const MemberSource& member,
                                 const api::Pod& pod, int32_t max) {
  if (max <= 0) return 0;
  if (IndependentReplicas(pod)) return scheduler.EstimateIndependentReplicas(pod, max);
  std::vector<api::Pod> copies;
  AppendCopies(pod, max, *member.interner, copies);
  return PlaceOnCopy(member, std::move(copies));
}

Result<bool> GangFits(Scheduler& scheduler, const MemberSource& member,
                      std::span<const PodSetRequest> pod_sets, Symbol topology_key) {
  int64_t total = 0;
  for (const PodSetRequest& s : pod_sets) total += std::max(0, s.count);
  if (total == 0) return true;
  // Every pod set, restricted to one domain when `value` is set.
  auto fits = [&](Symbol value) -> Result<bool> {
    std::vector<api::Pod> templates;
    for (const PodSetRequest& s : pod_sets) {
      api::Pod t = *s.pod;
      if (!value.empty()) {
        const Symbol* own = t.node_selector.Find(topology_key);
        if (own != nullptr && *own != value) return false;
        t.node_selector.Set(topology_key, value);
      }
      templates.push_back(std::move(t));
    }
    if (pod_sets.size() == 1 && IndependentReplicas(templates[0])) {
      return scheduler.EstimateIndependentReplicas(templates[0], pod_sets[0].count) ==
             pod_sets[0].count;
    }
    std::vector<api::Pod> copies;
    for (size_t i = 0; i < pod_sets.size(); ++i) {
      AppendCopies(templates[i], pod_sets[i].count, *member.interner, copies);
    }
    auto placed = PlaceOnCopy(member, std::move(copies));
    if (!placed.ok()) return placed.error();
    return *placed == total;
  };
  if (topology_key.empty()) return fits(Symbol());
  std::vector<Symbol> values;
  for (const api::Node& n : member.objects->nodes) {
    if (const Symbol* v = n.meta.labels.Find(topology_key)) values.push_back(*v);
  }
  std::sort(values.begin(), values.end(),
            [&](Symbol a, Symbol b) { return member.interner->Str(a) < member.interner->Str(b); });
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (Symbol v : values) {
    auto ok = fits(v);
    if (!ok.ok() || *ok) return ok;
  }
  return false;
}

}  // namespace corral::scheduler
