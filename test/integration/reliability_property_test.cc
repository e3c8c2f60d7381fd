// Reliability properties over random clusters and workloads (RapidCheck; a fixed seed and a few
// hundred cases in the default suite, thousands under the `property_long` label). A cluster has
// zones, racks, labels and a taint; the workload has low-priority pods already bound, pending pods
// of several priorities in runs of identical replicas (node selectors, tolerations, required node
// affinity by metadata.name narrowing the filter pass) and gangs of both Workload API generations
// (v1alpha1 Workload + spec.workloadRef; PodGroup + spec.schedulingGroup, with a group priority,
// a zone topology constraint and disruptionMode). On each case:
//   (1) termination within a cycle budget: scheduling to idle takes at most kCyclesPerPodPerRound
//       cycles per pod and per event-free round (no virtual time passes within a round; a cycle
//       that keeps itself alive without anything changing, as a preemption that finds room "without
//       a victim" where the next cycle does not, exceeds it);
//   (2) no over-commit: on every node the cpu requested by the pods bound there fits allocatable;
//   (3) gangs all-or-nothing: a gang ends with 0 or ≥ minCount members bound, and a
//       topology-constrained one inside one zone;
//   (4) no victim has a priority ≥ its preemptor's;
//   (5) batching on = batching off (every node is scored: percentageOfNodesToScore 100);
//   (6) the same inputs and seed give the same placements and victims.

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

// Budget (1): every event may make each pod retry a few times; a round without any event gives
// each pod at most this many cycles.
constexpr int64_t kCyclesPerPodPerRound = 8;

struct NodeSpec {
  int cpu_milli;
  int zone;      // z0..z2
  int rack;      // r0..r3
  bool ssd;      // label disk=ssd
  bool tainted;  // dedicated=x:NoSchedule
};
struct BoundSpec {
  int node;  // index modulo the node count
  int cpu_milli;
  int priority;
};
struct PendingSpec {
  int cpu_milli;
  int priority;
  bool ssd;        // nodeSelector disk=ssd
  bool tolerates;  // tolerates the taint
  int replicas;    // identical copies in a row (opportunistic batching hints them)
  int pin;         // > 0: required node affinity matchFields metadata.name In the first `pin` nodes
};
struct GangSpec {
  int generation;  // 0: v1alpha1 Workload, 1: PodGroup
  int size;
  int min_count;  // clamped to size
  int cpu_milli;
  int priority;
  bool zone_topology;  // PodGroup only
  bool all;            // disruptionMode all (PodGroup only)
};
struct Spec {
  std::vector<NodeSpec> nodes;
  std::vector<BoundSpec> bound;
  std::vector<PendingSpec> pending;
  std::vector<GangSpec> gangs;
  uint64_t seed = 1;
};

struct World {
  Interner in = api::NewInterner();
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;
  api::ObjectSet objects;
  std::map<const api::Pod*, int> gang_of;  // gang index
  std::vector<int> min_count;
  std::vector<bool> zone_topology;

  static api::ResourceList Cpu(int milli) {
    return {{api::wk::kCpu, api::Quantity::FromMilli(milli)}};
  }
  api::Pod& AddPod(const std::string& name, int cpu_milli, int priority) {
    api::Pod& p = pods.emplace_back();
    p.meta.name = in.Intern(name);
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.scheduler_name = api::wk::kDefaultScheduler;
    p.priority = priority;
    api::Container c;
    c.name = in.Intern("c");
    c.resources.requests = Cpu(cpu_milli);
    p.containers.push_back(std::move(c));
    return p;
  }
};

void Fill(World& w, const Spec& spec) {
  const Symbol zone_key = w.in.Intern("topology.kubernetes.io/zone");
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    const NodeSpec& ns = spec.nodes[i];
    api::Node& n = w.nodes.emplace_back();
    n.meta.name = w.in.Intern(fmt::format("node-{}", i));
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    n.meta.labels.Set(zone_key, w.in.Intern(fmt::format("z{}", ns.zone)));
    n.meta.labels.Set(w.in.Intern("rack"), w.in.Intern(fmt::format("r{}", ns.rack)));
    if (ns.ssd) n.meta.labels.Set(w.in.Intern("disk"), w.in.Intern("ssd"));
    if (ns.tainted) {
      n.taints.push_back(
          {w.in.Intern("dedicated"), w.in.Intern("x"), api::TaintEffect::kNoSchedule});
    }
    n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(ns.cpu_milli)},
                  {api::wk::kMemory, api::Quantity::FromInt(int64_t{64} << 30)},
                  {api::wk::kPods, api::Quantity::FromInt(110)}};
    std::sort(n.capacity.begin(), n.capacity.end(),
              [](auto& a, auto& b) { return a.first < b.first; });
    n.allocatable = n.capacity;
  }
  // Bound pods only where they fit (the input is a valid cluster).
  std::vector<int> free(spec.nodes.size());
  for (size_t i = 0; i < spec.nodes.size(); ++i) free[i] = spec.nodes[i].cpu_milli;
  for (size_t i = 0; i < spec.bound.size(); ++i) {
    const BoundSpec& b = spec.bound[i];
    const size_t node = static_cast<size_t>(b.node) % spec.nodes.size();
    if (free[node] < b.cpu_milli) continue;
    free[node] -= b.cpu_milli;
    api::Pod& p = w.AddPod(fmt::format("bound-{}", i), b.cpu_milli, b.priority);
    p.node_name = w.nodes[node].meta.name;
  }
  for (size_t i = 0; i < spec.pending.size(); ++i) {
    const PendingSpec& ps = spec.pending[i];
    for (int r = 0; r < ps.replicas; ++r) {
      api::Pod& p = w.AddPod(fmt::format("plain-{}-{}", i, r), ps.cpu_milli, ps.priority);
      if (ps.ssd) p.node_selector.Set(w.in.Intern("disk"), w.in.Intern("ssd"));
      if (ps.pin > 0) {
        // NodeAffinity's PreFilter narrows the candidates: the filter pass covers only these nodes
        // (and rotates its start index by their number).
        api::NodeSelectorRequirement req;
        req.key = w.in.Intern("metadata.name");
        for (int k = 0; k < ps.pin && k < static_cast<int>(w.nodes.size()); ++k)
          req.values.push_back(w.nodes[static_cast<size_t>(k)].meta.name);
        api::NodeSelectorTerm term;
        term.match_fields.push_back(std::move(req));
        p.affinity.emplace();
        p.affinity->node_affinity.emplace();
        p.affinity->node_affinity->required.emplace();
        p.affinity->node_affinity->required->node_selector_terms.push_back(std::move(term));
      }
      if (ps.tolerates) {
        api::Toleration t;
        t.key = w.in.Intern("dedicated");
        t.op = api::TolerationOp::kExists;
        p.tolerations.push_back(t);
      }
    }
  }
  for (size_t g = 0; g < spec.gangs.size(); ++g) {
    const GangSpec& gs = spec.gangs[g];
    const int min_count = std::min(gs.min_count, gs.size);
    w.min_count.push_back(min_count);
    const std::string name = fmt::format("gang{}", g);
    const bool topology = gs.generation == 1 && gs.zone_topology;
    w.zone_topology.push_back(topology);
    if (gs.generation == 0) {
      api::Workload& wl = w.objects.workloads.emplace_back();
      wl.meta.name = w.in.Intern(name);
      wl.meta.namespace_ = api::wk::kDefaultNamespace;
      wl.generation = api::WorkloadApiGeneration::kV1Alpha1;
      wl.pod_groups.push_back(
          {w.in.Intern("workers"), {api::PodGroupPolicyKind::kGang, min_count}});
    } else {
      api::PodGroup& pg = w.objects.pod_groups.emplace_back();
      pg.meta.name = w.in.Intern(name);
      pg.meta.namespace_ = api::wk::kDefaultNamespace;
      pg.policy = {api::PodGroupPolicyKind::kGang, min_count};
      pg.priority = gs.priority;
      pg.disruption_mode = gs.all ? api::DisruptionMode::kAll : api::DisruptionMode::kSingle;
      if (topology) pg.topology_keys.push_back(zone_key);
    }
    for (int i = 0; i < gs.size; ++i) {
      api::Pod& p = w.AddPod(fmt::format("{}-{}", name, i), gs.cpu_milli, gs.priority);
      if (gs.generation == 0) {
        p.workload_ref = api::WorkloadReference{w.in.Intern(name), w.in.Intern("workers"), {}};
      } else {
        p.scheduling_group = api::PodSchedulingGroup{w.in.Intern(name)};
      }
      w.gang_of[&p] = static_cast<int>(g);
    }
  }
}

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    bound[&pod] = node;
  }
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    std::vector<std::string> names;
    for (const auto& v : p.victims) {
      bound.erase(v.pod);
      victims[v.pod] = v.node;
      // (4) No victim of priority ≥ its preemptor's.
      if (v.priority >= p.priority) bad_victim = true;
    }
  }
  std::map<const api::Pod*, Symbol> bound;  // pods placed by the scheduler, minus victims
  std::map<const api::Pod*, Symbol> victims;
  bool bad_victim = false;
};

struct Outcome {
  bool terminated = true;
  int64_t cycles = 0;
  std::map<std::string, std::string> placements;  // pod → node
  std::map<std::string, std::string> victims;     // pod → node
};

Outcome Run(World& w, const Spec& spec, bool batching, Recorder& rec) {
  ManualClock clock;
  scheduler::Scheduler::Options opts;
  opts.seed = spec.seed;
  opts.config.percentage_of_nodes_to_score = 100;
  (void)opts.gates.Set("OpportunisticBatching", batching);
  auto registry = plugins::NewInTreeRegistry();
  auto s = std::move(scheduler::Scheduler::New(w.in, clock, std::move(opts), registry)).value();
  s->set_observer(&rec);
  s->SetClusterObjects(&w.objects);
  for (auto& n : w.nodes) s->AddNode(&n);
  for (auto& p : w.pods) {
    if (p.IsBound()) s->AddPod(&p);
  }
  for (auto& p : w.pods) {
    if (!p.IsBound()) s->AddPod(&p);
  }
  Outcome out;
  const auto pods = static_cast<int64_t>(w.pods.size());
  // Rounds: to idle, then Permit timers fire on the virtual clock (as `corral schedule` does).
  for (int round = 0; round < 50 && out.terminated; ++round) {
    const int64_t budget = s->stats().cycles + kCyclesPerPodPerRound * pods;
    while (s->ScheduleOne()) {
      if (s->stats().cycles > budget) {
        out.terminated = false;
        break;
      }
    }
    std::optional<TimePoint> deadline = s->NextTimerDeadline();
    if (!deadline.has_value()) break;
    clock.Set(*deadline);
    s->FireTimers();
  }
  out.cycles = s->stats().cycles;
  for (const auto& [p, n] : rec.bound) {
    out.placements[std::string(w.in.Str(p->meta.name))] = std::string(w.in.Str(n));
  }
  for (const auto& [p, n] : rec.victims) {
    out.victims[std::string(w.in.Str(p->meta.name))] = std::string(w.in.Str(n));
  }
  return out;
}

Spec GenSpec() {
  Spec spec;
  spec.nodes = *rc::gen::resize(
      8, rc::gen::nonEmpty(rc::gen::container<std::vector<NodeSpec>>(rc::gen::construct<NodeSpec>(
             rc::gen::element(2000, 3400, 8000, 8000, 16000, 32000), rc::gen::inRange(0, 3),
             rc::gen::inRange(0, 4), rc::gen::arbitrary<bool>(),
             rc::gen::weightedElement<bool>({{4, false}, {1, true}})))));
  spec.bound = *rc::gen::resize(
      10, rc::gen::container<std::vector<BoundSpec>>(rc::gen::construct<BoundSpec>(
              rc::gen::inRange(0, 6), rc::gen::element(500, 2000, 4000), rc::gen::element(0, 10))));
  spec.pending = *rc::gen::resize(
      8, rc::gen::container<std::vector<PendingSpec>>(rc::gen::construct<PendingSpec>(
             rc::gen::element(500, 1000, 4000), rc::gen::element(0, 10, 1000, 100000),
             rc::gen::weightedElement<bool>({{3, false}, {1, true}}), rc::gen::arbitrary<bool>(),
             rc::gen::inRange(1, 5), rc::gen::element(0, 0, 0, 1, 2, 3))));
  spec.gangs = *rc::gen::resize(
      4, rc::gen::container<std::vector<GangSpec>>(rc::gen::construct<GangSpec>(
             rc::gen::inRange(0, 2), rc::gen::inRange(1, 7), rc::gen::inRange(1, 7),
             rc::gen::element(2000, 4000, 8000), rc::gen::element(1000, 100000),
             rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>())));
  spec.seed = *rc::gen::inRange<uint64_t>(1, 1000);
  return spec;
}

RC_GTEST_PROP(ReliabilityPropertyTest, RandomClustersKeepTheInvariants, ()) {
  const Spec spec = GenSpec();
  World w;
  Fill(w, spec);
  Recorder rec;
  const Outcome on = Run(w, spec, /*batching=*/true, rec);
  // (1) Termination within the cycle budget.
  RC_ASSERT(on.terminated);
  RC_CLASSIFY(!rec.victims.empty(), "preempted");
  // (2) No over-commit.
  std::map<Symbol, int64_t> used;
  for (const api::Pod& p : w.pods) {
    Symbol node;
    if (p.IsBound()) {
      if (rec.victims.contains(&p)) continue;
      node = p.node_name;
    } else if (auto it = rec.bound.find(&p); it != rec.bound.end()) {
      node = it->second;
    } else {
      continue;
    }
    used[node] += p.containers.front().resources.requests.front().second.MilliValue();
  }
  for (const api::Node& n : w.nodes) {
    int64_t alloc = 0;
    for (const auto& [k, q] : n.allocatable) {
      if (k == api::wk::kCpu) alloc = q.MilliValue();
    }
    RC_ASSERT(used[n.meta.name] <= alloc);
  }
  // (3) Gangs all-or-nothing; a topology-constrained gang in one zone.
  const Symbol zone_key = w.in.Intern("topology.kubernetes.io/zone");
  std::map<int, int> placed;
  std::map<int, std::set<Symbol>> zones;
  for (const auto& [p, node] : rec.bound) {
    auto g = w.gang_of.find(p);
    if (g == w.gang_of.end()) continue;
    ++placed[g->second];
    for (const api::Node& n : w.nodes) {
      if (n.meta.name == node) zones[g->second].insert(*n.meta.labels.Find(zone_key));
    }
  }
  for (const auto& [g, n] : placed) {
    RC_ASSERT(n >= w.min_count[static_cast<size_t>(g)]);
    if (w.zone_topology[static_cast<size_t>(g)]) RC_ASSERT(zones[g].size() == 1U);
  }
  // (4) No victim of priority ≥ its preemptor's.
  RC_ASSERT(!rec.bad_victim);
  // (5) Batching on = off.
  World w_off;
  Fill(w_off, spec);
  Recorder rec_off;
  const Outcome off = Run(w_off, spec, /*batching=*/false, rec_off);
  RC_ASSERT(off.terminated);
  RC_ASSERT(on.placements == off.placements);
  RC_ASSERT(on.victims == off.victims);
  // (6) Same inputs and seed, same output.
  World w_again;
  Fill(w_again, spec);
  Recorder rec_again;
  const Outcome again = Run(w_again, spec, /*batching=*/true, rec_again);
  RC_ASSERT(again.placements == on.placements);
  RC_ASSERT(again.victims == on.victims);
  RC_ASSERT(again.cycles == on.cycles);
}

}  // namespace
}  // namespace corral
