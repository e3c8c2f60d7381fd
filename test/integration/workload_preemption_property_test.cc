// Workload-aware preemption (KEP-5710), property tests (RapidCheck, fixed seed in CI). Random
// clusters are filled with low-priority lone pods and pod groups (disruptionMode single or all,
// with group priorities), then a gang of higher priority arrives:
//   (1) no victim has a priority ≥ the gang's (the unit's priority: its PodGroup's when set);
//   (2) a disruptionMode-all group is evicted whole or not at all;
//   (3) a preemption nominates at least minCount members (never preempts to place fewer);
//   (4) once the victims are gone the gang is placed (nothing of higher priority arrives in
//       between), on its nominated nodes;
//   (5) the same inputs and seed give the same preemptions.

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral {
namespace {

struct LowUnit {
  int kind;  // 0: lone pod, 1: group disruptionMode single, 2: group disruptionMode all
  int priority;
  int pods;
  int cpu_milli;
};

struct Spec {
  std::vector<int> nodes;  // cpu milli
  std::vector<LowUnit> low;
  int gang_size = 1;
  int min_count = 1;
  int gang_cpu = 1000;
  int gang_priority = 50;
  uint64_t seed = 1;
};

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    bound[&pod] = node;
  }
  // Only the gang phase's preemptions are checked: while the low units are placed, a
  // higher-priority low pod may preempt lower ones (a pod preemption, not the gang's).
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    if (gang_phase) {
      preemptions.push_back(p);
      // Victims are deleted right after this call: remember which pods were bound at that moment.
      bound_at_preemption.push_back(bound);
    }
    for (const auto& v : p.victims) bound.erase(v.pod);
  }
  bool gang_phase = false;
  std::map<const api::Pod*, Symbol> bound;
  std::vector<scheduler::PreemptionRecord> preemptions;
  std::vector<std::map<const api::Pod*, Symbol>> bound_at_preemption;
};

struct World {
  Interner in = api::NewInterner();
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;
  api::ObjectSet objects;
  std::vector<const api::Pod*> gang;
  std::map<std::string, std::pair<int, api::DisruptionMode>> groups;  // name → priority, mode

  void AddNode(int cpu_milli) {
    api::Node& n = nodes.emplace_back();
    n.meta.name = in.Intern("node-" + std::to_string(nodes.size() - 1));
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)},
                  {api::wk::kMemory, api::Quantity::FromInt(int64_t{64} << 30)},
                  {api::wk::kPods, api::Quantity::FromInt(110)}};
    std::sort(n.capacity.begin(), n.capacity.end(),
              [](auto& a, auto& b) { return a.first < b.first; });
    n.allocatable = n.capacity;
  }
  api::Pod& AddPod(const std::string& name, int cpu_milli, int priority, const std::string& group) {
    api::Pod& p = pods.emplace_back();
    p.meta.name = in.Intern(name);
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.scheduler_name = api::wk::kDefaultScheduler;
    p.priority = priority;
    if (!group.empty()) p.scheduling_group = api::PodSchedulingGroup{in.Intern(group)};
    api::Container c;
    c.name = in.Intern("c");
    c.resources.requests.push_back({api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)});
    p.containers.push_back(std::move(c));
    return p;
  }
  void AddGroup(const std::string& name, int min_count, int priority, api::DisruptionMode mode) {
    api::PodGroup& g = objects.pod_groups.emplace_back();
    g.meta.name = in.Intern(name);
    g.meta.namespace_ = api::wk::kDefaultNamespace;
    g.policy = {api::PodGroupPolicyKind::kGang, min_count};
    g.priority = priority;
    g.disruption_mode = mode;
    groups[name] = {priority, mode};
  }
};

void Fill(World& w, const Spec& spec) {
  for (int cpu : spec.nodes) w.AddNode(cpu);
  for (size_t u = 0; u < spec.low.size(); ++u) {
    const LowUnit& lu = spec.low[u];
    std::string group;
    if (lu.kind > 0) {
      group = "low-" + std::to_string(u);
      w.AddGroup(group, lu.pods, lu.priority,
                 lu.kind == 2 ? api::DisruptionMode::kAll : api::DisruptionMode::kSingle);
    }
    const int n = lu.kind > 0 ? lu.pods : 1;
    // Lone pods get their own priority; group members a different one (the group's wins).
    for (int i = 0; i < n; ++i) {
      w.AddPod(fmt::format("u{}-{}", u, i), lu.cpu_milli, lu.kind > 0 ? 1000000 : lu.priority,
               group);
    }
  }
  w.AddGroup("gang", spec.min_count, spec.gang_priority, api::DisruptionMode::kSingle);
  for (int i = 0; i < spec.gang_size; ++i) {
    w.gang.push_back(&w.AddPod(fmt::format("gang-{}", i), spec.gang_cpu, 0, "gang"));
  }
}

Recorder Run(World& w, const Spec& spec) {
  ManualClock clock;
  scheduler::Scheduler::Options opts;
  opts.seed = spec.seed;
  auto registry = plugins::NewInTreeRegistry();
  auto s = std::move(scheduler::Scheduler::New(w.in, clock, std::move(opts), registry)).value();
  Recorder rec;
  s->set_observer(&rec);
  s->SetClusterObjects(&w.objects);
  for (auto& n : w.nodes) s->AddNode(&n);
  const size_t low_pods = w.pods.size() - w.gang.size();
  for (size_t i = 0; i < low_pods; ++i) s->AddPod(&w.pods[i]);
  s->RunUntilIdle();
  rec.gang_phase = true;
  for (const api::Pod* p : w.gang) s->AddPod(p);
  s->RunUntilIdle();
  return rec;
}

int32_t UnitPriority(const World& w, const api::Pod& p) {
  if (p.scheduling_group.has_value()) {
    auto it = w.groups.find(std::string(w.in.Str(p.scheduling_group->pod_group_name)));
    if (it != w.groups.end()) return it->second.first;
  }
  return p.priority;
}

RC_GTEST_PROP(WorkloadPreemptionPropertyTest, GangPreemptionInvariants, ()) {
  Spec spec;
  spec.nodes = *rc::gen::resize(
      5, rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(rc::gen::inRange(1000, 4001))));
  spec.low =
      *rc::gen::resize(12, rc::gen::container<std::vector<LowUnit>>(rc::gen::construct<LowUnit>(
                               rc::gen::inRange(0, 3), rc::gen::element(0, 10, 20, 60),
                               rc::gen::inRange(1, 4), rc::gen::inRange(200, 1501))));
  spec.gang_size = *rc::gen::inRange(1, 5);
  spec.min_count = *rc::gen::inRange(1, spec.gang_size + 1);
  spec.gang_cpu = *rc::gen::inRange(200, 2001);
  spec.gang_priority = *rc::gen::element(15, 50);
  spec.seed = *rc::gen::inRange<uint64_t>(1, 1000);

  World w;
  Fill(w, spec);
  Recorder rec = Run(w, spec);
  RC_CLASSIFY(!rec.preemptions.empty(), "gang preempted");

  std::set<const api::Pod*> gang(w.gang.begin(), w.gang.end());
  for (size_t k = 0; k < rec.preemptions.size(); ++k) {
    const auto& r = rec.preemptions[k];
    // A low pod left pending by the first phase may retry and preempt on its own once the gang's
    // victims are gone: a pod preemption, not the gang's.
    if (r.group.empty() && r.preemptor != nullptr && !gang.contains(r.preemptor)) continue;
    RC_ASSERT(r.group == "default/gang");
    RC_ASSERT(r.priority == spec.gang_priority);
    // (3) At least minCount members nominated.
    RC_ASSERT(static_cast<int>(r.nominations.size()) >= spec.min_count);
    std::map<std::string, int> evicted_of_all_group;
    for (const auto& v : r.victims) {
      // (1) Lower priority only.
      RC_ASSERT(v.priority < r.priority);
      RC_ASSERT(UnitPriority(w, *v.pod) < r.priority);
      RC_ASSERT(!gang.contains(v.pod));
      if (v.pod->scheduling_group.has_value()) {
        std::string g(w.in.Str(v.pod->scheduling_group->pod_group_name));
        if (w.groups.at(g).second == api::DisruptionMode::kAll) {
          RC_ASSERT(v.unit == "default/" + g);
          ++evicted_of_all_group[g];
        }
      }
    }
    // (2) Whole or nothing: every bound member of an evicted all-group is a victim.
    for (const auto& [g, n] : evicted_of_all_group) {
      int bound_members = 0;
      for (const auto& [p, node] : rec.bound_at_preemption[k]) {
        if (p->scheduling_group.has_value() && w.in.Str(p->scheduling_group->pod_group_name) == g)
          ++bound_members;
      }
      RC_ASSERT(n == bound_members);
    }
  }
  // (4) Placed once the victims are gone, on the nominated nodes of the last preemption.
  if (!rec.preemptions.empty()) {
    int placed = 0;
    for (const api::Pod* p : w.gang) placed += rec.bound.contains(p) ? 1 : 0;
    RC_ASSERT(placed >= spec.min_count);
    for (const auto& [pod, node] : rec.preemptions.back().nominations) {
      auto it = rec.bound.find(pod);
      RC_ASSERT(it != rec.bound.end());
      RC_ASSERT(it->second == node);
    }
  }
  // (5) Deterministic.
  World w2;
  Fill(w2, spec);
  Recorder again = Run(w2, spec);
  RC_ASSERT(again.preemptions.size() == rec.preemptions.size());
  for (size_t k = 0; k < rec.preemptions.size(); ++k) {
    RC_ASSERT(again.preemptions[k].victims.size() == rec.preemptions[k].victims.size());
    for (size_t i = 0; i < rec.preemptions[k].victims.size(); ++i) {
      RC_ASSERT(w2.in.Str(again.preemptions[k].victims[i].pod->meta.name) ==
                w.in.Str(rec.preemptions[k].victims[i].pod->meta.name));
    }
  }
}

}  // namespace
}  // namespace corral
