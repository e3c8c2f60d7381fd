// Reliability properties over random clusters and workloads (RapidCheck; a fixed seed and a few
// hundred cases in the default suite, thousands under the `property_long` label). A cluster has
// zones, racks, labels and a taint; the workload has low-priority pods already bound (some with an
// app label), pending pods of several priorities in runs of identical replicas (node selectors,
// tolerations, required node affinity by metadata.name narrowing the filter pass, required and
// preferred node affinity on zones, pod affinity and anti-affinity, topology spread constraints,
// priorities given directly or through PriorityClass objects, one of which never preempts),
// PodDisruptionBudgets over the app labels, and gangs of both Workload API generations (v1alpha1
// Workload + spec.workloadRef; PodGroup + spec.schedulingGroup, with a group priority, a zone
// topology constraint and disruptionMode). On each case:
//   (1) termination within a cycle budget: scheduling to idle takes at most kCyclesPerPodPerRound
//       cycles per pod and per event-free round (no virtual time passes within a round; a cycle
//       that keeps itself alive without anything changing, as a preemption that finds room "without
//       a victim" where the next cycle does not, exceeds it);
//   (2) no over-commit: on every node the cpu requested by the pods bound there fits allocatable;
//   (3) gangs all-or-nothing: a gang ends with 0 or ≥ minCount members bound, and a
//       topology-constrained one inside one zone;
//   (4) no victim has a priority ≥ its preemptor's;
//   (5) batching on = batching off (every node is scored: percentageOfNodesToScore 100): the same
//       placements and victims, bound in the same order, and the same preemptions in the same
//       order (preemptor, node, victims);
//   (6) the same inputs and seed give the same placements and victims;
//   (7) required pod anti-affinity holds at the end: no two bound pods share a node when one of
//       them carries a hostname anti-affinity term matching the other's labels;
//   (8) a pod whose PriorityClass says preemptionPolicy Never never preempts.
// A second property, BatchingLeavesPreemptionChoicesUnchanged, draws clusters shaped so that the
// choice among equally good preemption candidates depends on the order the candidates are listed
// in (identical full nodes, identical victims) after batched placements of node-pinned replicas
// (whose filter passes rotate the start index): it fails if that order follows the filter pass.

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
  int app;  // label app=a<app>; -1: none
};
struct PendingSpec {
  int cpu_milli;
  int priority;
  bool ssd;        // nodeSelector disk=ssd
  bool tolerates;  // tolerates the taint
  int replicas;    // identical copies in a row (opportunistic batching hints them)
  int pin;  // > 0: required node affinity matchFields metadata.name, one of the first `pin` nodes
  int app;  // label app=a<app>; -1: none (the pod terms below then select a0)
  int node_pref;  // 0 none; 1 preferred zone z<i % 3> (weight 40); 2 required zone NotIn z2
  int pod_terms;  // 0 none; 1 required anti-affinity on hostname; 2 required affinity on zone;
                  // 3 preferred anti-affinity on zone; 4 preferred affinity on rack
  int spread;     // 0 none; 1 zone maxSkew 1 DoNotSchedule; 2 hostname maxSkew 1 ScheduleAnyway;
                  // 3 rack maxSkew 2 DoNotSchedule with minDomains 2
  int pclass;     // -1: `priority` as given; else the PriorityClass kClasses[pclass]
};
struct PdbSpec {
  int app;  // selects app=a<app>
  int value;
  bool min_available;  // else maxUnavailable
  bool percent;
};
// PriorityClass objects the pending pods may name (admission copies value and preemptionPolicy
// into the pod, as kube's Priority admission plugin does).
struct ClassSpec {
  const char* name;
  int32_t value;
  bool never;  // preemptionPolicy Never
};
constexpr ClassSpec kClasses[] = {
    {"low", 10, false}, {"batch-never", 100000, true}, {"critical", 1000000, false}};
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
  std::vector<PdbSpec> pdbs;
  uint64_t seed = 1;
};

struct World {
  Interner in = api::NewInterner();
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;
  api::ObjectSet objects;
  std::map<const api::Pod*, int> gang_of;  // gang index
  Symbol app_key;
  Symbol hostname_key = api::wk::kHostnameLabel;
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

api::NodeAffinity& MutableNodeAffinity(api::Pod& p) {
  if (!p.affinity.has_value()) p.affinity.emplace();
  if (!p.affinity->node_affinity.has_value()) p.affinity->node_affinity.emplace();
  return *p.affinity->node_affinity;
}

void AddNodePreference(World& w, int kind, int index, Symbol zone_key, api::Pod& p) {
  if (kind == 0) return;
  api::NodeSelectorRequirement req;
  req.key = zone_key;
  api::NodeAffinity& na = MutableNodeAffinity(p);
  if (kind == 1) {
    req.op = api::NodeSelectorOp::kIn;
    req.values.push_back(w.in.Intern(fmt::format("z{}", index % 3)));
    api::PreferredSchedulingTerm t;
    t.weight = 40;
    t.preference.match_expressions.push_back(std::move(req));
    na.preferred.push_back(std::move(t));
  } else {
    req.op = api::NodeSelectorOp::kNotIn;
    req.values.push_back(w.in.Intern("z2"));
    api::NodeSelectorTerm term;
    term.match_expressions.push_back(std::move(req));
    na.required.emplace();
    na.required->node_selector_terms.push_back(std::move(term));
  }
}

api::PodAffinityTerm AppTerm(World& w, Symbol app, Symbol topology_key) {
  api::PodAffinityTerm t;
  t.label_selector.emplace();
  t.label_selector->match_labels.Set(w.app_key, app);
  t.topology_key = topology_key;
  return t;
}

void AddPodTerms(World& w, int kind, Symbol app, Symbol zone_key, api::Pod& p) {
  if (kind == 0) return;
  if (!p.affinity.has_value()) p.affinity.emplace();
  switch (kind) {
    case 1:
      p.affinity->pod_anti_affinity.emplace();
      p.affinity->pod_anti_affinity->required.push_back(AppTerm(w, app, w.hostname_key));
      break;
    case 2:
      p.affinity->pod_affinity.emplace();
      p.affinity->pod_affinity->required.push_back(AppTerm(w, app, zone_key));
      break;
    case 3:
      p.affinity->pod_anti_affinity.emplace();
      p.affinity->pod_anti_affinity->preferred.push_back({50, AppTerm(w, app, zone_key)});
      break;
    default:
      p.affinity->pod_affinity.emplace();
      p.affinity->pod_affinity->preferred.push_back(
          {30, AppTerm(w, w.in.Intern("a0"), w.in.Intern("rack"))});
      break;
  }
}

void AddSpread(World& w, int kind, Symbol app, Symbol zone_key, api::Pod& p) {
  if (kind == 0) return;
  api::TopologySpreadConstraint c;
  c.label_selector.emplace();
  c.label_selector->match_labels.Set(w.app_key, app);
  switch (kind) {
    case 1:
      c.topology_key = zone_key;
      break;
    case 2:
      c.topology_key = w.hostname_key;
      c.when_unsatisfiable = api::WhenUnsatisfiable::kScheduleAnyway;
      break;
    default:
      c.topology_key = w.in.Intern("rack");
      c.max_skew = 2;
      c.min_domains = 2;
      break;
  }
  p.topology_spread_constraints.push_back(std::move(c));
}

void Fill(World& w, const Spec& spec) {
  w.app_key = w.in.Intern("app");
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
    if (b.app >= 0) p.meta.labels.Set(w.app_key, w.in.Intern(fmt::format("a{}", b.app)));
  }
  for (const ClassSpec& c : kClasses) {
    api::PriorityClass& pc = w.objects.priority_classes.emplace_back();
    pc.meta.name = w.in.Intern(c.name);
    pc.value = c.value;
    pc.preemption_policy =
        c.never ? api::PreemptionPolicy::kNever : api::PreemptionPolicy::kPreemptLowerPriority;
  }
  for (size_t i = 0; i < spec.pdbs.size(); ++i) {
    const PdbSpec& ps = spec.pdbs[i];
    api::PodDisruptionBudget& pdb = w.objects.pod_disruption_budgets.emplace_back();
    pdb.meta.name = w.in.Intern(fmt::format("pdb-{}", i));
    pdb.meta.namespace_ = api::wk::kDefaultNamespace;
    pdb.selector.emplace();
    pdb.selector->match_labels.Set(w.app_key, w.in.Intern(fmt::format("a{}", ps.app)));
    api::IntOrPercent v{ps.percent ? ps.value * 25 : ps.value, ps.percent};
    if (ps.min_available) {
      pdb.min_available = v;
    } else {
      pdb.max_unavailable = v;
    }
  }
  for (size_t i = 0; i < spec.pending.size(); ++i) {
    const PendingSpec& ps = spec.pending[i];
    for (int r = 0; r < ps.replicas; ++r) {
      api::Pod& p = w.AddPod(fmt::format("plain-{}-{}", i, r), ps.cpu_milli, ps.priority);
      if (ps.pclass >= 0) {
        const ClassSpec& c = kClasses[ps.pclass];
        p.priority_class_name = w.in.Intern(c.name);
        p.priority = c.value;
        p.preemption_policy =
            c.never ? api::PreemptionPolicy::kNever : api::PreemptionPolicy::kPreemptLowerPriority;
      }
      const Symbol app = w.in.Intern(fmt::format("a{}", std::max(ps.app, 0)));
      if (ps.app >= 0) p.meta.labels.Set(w.app_key, app);
      AddNodePreference(w, ps.node_pref, static_cast<int>(i), zone_key, p);
      AddPodTerms(w, ps.pod_terms, app, zone_key, p);
      AddSpread(w, ps.spread, app, zone_key, p);
      if (ps.ssd) p.node_selector.Set(w.in.Intern("disk"), w.in.Intern("ssd"));
      if (ps.pin > 0) {
        // NodeAffinity's PreFilter narrows the candidates: the filter pass covers only these nodes
        // (and rotates its start index by their number). A matchFields requirement takes exactly
        // one value, so the pin is one term per node (terms are ORed), each also holding the
        // pod's other required node affinity (requirements within a term are ANDed).
        api::NodeAffinity& na = MutableNodeAffinity(p);
        api::NodeSelectorTerm base;
        if (na.required.has_value()) base = na.required->node_selector_terms.front();
        na.required.emplace();
        for (int k = 0; k < ps.pin && k < static_cast<int>(w.nodes.size()); ++k) {
          api::NodeSelectorRequirement req;
          req.key = w.in.Intern("metadata.name");
          req.values.push_back(w.nodes[static_cast<size_t>(k)].meta.name);
          api::NodeSelectorTerm term = base;
          term.match_fields.push_back(std::move(req));
          na.required->node_selector_terms.push_back(std::move(term));
        }
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
  explicit Recorder(const Interner& in) : in_(in) {}

  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    bound[&pod] = node;
    binds.push_back(fmt::format("{}@{}", in_.Str(pod.meta.name), in_.Str(node)));
  }
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    std::string line = fmt::format("{}@{}:", in_.Str(p.preemptor->meta.name), in_.Str(p.node));
    for (const auto& v : p.victims) {
      bound.erase(v.pod);
      victims[v.pod] = v.node;
      line += fmt::format(" {}", in_.Str(v.pod->meta.name));
      // (4) No victim of priority ≥ its preemptor's.
      if (v.priority >= p.priority) bad_victim = true;
    }
    // (8) preemptionPolicy Never: the pod waits, it does not preempt.
    if (p.preemptor->preemption_policy == api::PreemptionPolicy::kNever) never_preempted = true;
    preemptions.push_back(std::move(line));
  }
  std::map<const api::Pod*, Symbol> bound;  // pods placed by the scheduler, minus victims
  std::map<const api::Pod*, Symbol> victims;
  std::vector<std::string> binds;        // "pod@node", in the order the scheduler bound them
  std::vector<std::string> preemptions;  // "preemptor@node: victims", in order
  bool bad_victim = false;
  bool never_preempted = false;

 private:
  const Interner& in_;
};

struct Outcome {
  bool terminated = true;
  int64_t cycles = 0;
  std::map<std::string, std::string> placements;  // pod → node
  std::map<std::string, std::string> victims;     // pod → node
  std::vector<std::string> binds;
  std::vector<std::string> preemptions;
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
  out.binds = rec.binds;
  out.preemptions = rec.preemptions;
  return out;
}

Spec GenSpec() {
  Spec spec;
  spec.nodes = *rc::gen::resize(
      8, rc::gen::nonEmpty(rc::gen::container<std::vector<NodeSpec>>(rc::gen::construct<NodeSpec>(
             rc::gen::element(2000, 3400, 8000, 8000, 16000, 32000), rc::gen::inRange(0, 3),
             rc::gen::inRange(0, 4), rc::gen::arbitrary<bool>(),
             rc::gen::weightedElement<bool>({{4, false}, {1, true}})))));
  spec.bound =
      *rc::gen::resize(10, rc::gen::container<std::vector<BoundSpec>>(rc::gen::construct<BoundSpec>(
                               rc::gen::inRange(0, 6), rc::gen::element(500, 2000, 4000),
                               rc::gen::element(0, 10), rc::gen::element(-1, -1, 0, 1, 2))));
  spec.pending = *rc::gen::resize(
      8,
      rc::gen::container<std::vector<PendingSpec>>(rc::gen::construct<PendingSpec>(
          rc::gen::element(500, 1000, 4000), rc::gen::element(0, 10, 1000, 100000),
          rc::gen::weightedElement<bool>({{3, false}, {1, true}}), rc::gen::arbitrary<bool>(),
          rc::gen::inRange(1, 5), rc::gen::element(0, 0, 0, 1, 2, 3), rc::gen::element(-1, 0, 1, 2),
          rc::gen::element(0, 0, 0, 1, 2), rc::gen::element(0, 0, 0, 1, 2, 3, 4),
          rc::gen::element(0, 0, 0, 1, 2, 3), rc::gen::element(-1, -1, -1, 0, 1, 2))));
  spec.gangs = *rc::gen::resize(
      4, rc::gen::container<std::vector<GangSpec>>(rc::gen::construct<GangSpec>(
             rc::gen::inRange(0, 2), rc::gen::inRange(1, 7), rc::gen::inRange(1, 7),
             rc::gen::element(2000, 4000, 8000), rc::gen::element(1000, 100000),
             rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>())));
  spec.pdbs = *rc::gen::resize(
      3, rc::gen::container<std::vector<PdbSpec>>(rc::gen::construct<PdbSpec>(
             rc::gen::inRange(0, 3), rc::gen::inRange(0, 3), rc::gen::arbitrary<bool>(),
             rc::gen::weightedElement<bool>({{3, false}, {1, true}}))));
  spec.seed = *rc::gen::inRange<uint64_t>(1, 1000);
  return spec;
}

RC_GTEST_PROP(ReliabilityPropertyTest, RandomClustersKeepTheInvariants, ()) {
  const Spec spec = GenSpec();
  World w;
  Fill(w, spec);
  Recorder rec(w.in);
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
  // (7) Required anti-affinity on hostname holds between every two bound pods.
  std::map<Symbol, std::vector<const api::Pod*>> on_node;
  for (const api::Pod& p : w.pods) {
    if (p.IsBound() && !rec.victims.contains(&p)) on_node[p.node_name].push_back(&p);
  }
  for (const auto& [p, node] : rec.bound) on_node[node].push_back(p);
  for (const auto& [node, pods] : on_node) {
    for (const api::Pod* a : pods) {
      if (!a->affinity.has_value() || !a->affinity->pod_anti_affinity.has_value()) continue;
      for (const api::PodAffinityTerm& t : a->affinity->pod_anti_affinity->required) {
        if (t.topology_key != w.hostname_key) continue;
        const Symbol want = *t.label_selector->match_labels.Find(w.app_key);
        for (const api::Pod* b : pods) {
          const Symbol* app = b->meta.labels.Find(w.app_key);
          const bool shares_node_with_a_match = b != a && app != nullptr && *app == want;
          RC_ASSERT(!shares_node_with_a_match);
        }
      }
    }
  }
  // (8) preemptionPolicy Never never preempts.
  RC_ASSERT(!rec.never_preempted);
  // (5) Batching on = off.
  World w_off;
  Fill(w_off, spec);
  Recorder rec_off(w_off.in);
  const Outcome off = Run(w_off, spec, /*batching=*/false, rec_off);
  RC_ASSERT(off.terminated);
  RC_ASSERT(on.placements == off.placements);
  RC_ASSERT(on.victims == off.victims);
  RC_ASSERT(on.binds == off.binds);
  RC_ASSERT(on.preemptions == off.preemptions);
  // (6) Same inputs and seed, same output.
  World w_again;
  Fill(w_again, spec);
  Recorder rec_again(w_again.in);
  const Outcome again = Run(w_again, spec, /*batching=*/true, rec_again);
  RC_ASSERT(again.placements == on.placements);
  RC_ASSERT(again.victims == on.victims);
  RC_ASSERT(again.cycles == on.cycles);
}

// Clusters where a preemptor has many equally good candidates: more than 100 identical nodes (so
// that DefaultPreemption's dry run visits only some of them: max(10%, 100) from a random offset
// into the potential nodes), each running one identical victim of priority 0; replicas pinned to
// the first k nodes (priority 500: the queue places them first, so batching hints them, and their
// narrowed filter passes rotate the start index by k, or not when a hint skips the pass); then
// preemptors (priority 100) that fit any node after evicting its victim. Every candidate ties on
// kube's criteria, so the pick is the first one visited: it changes with batching if the potential
// nodes are listed in the order the filter pass visited them instead of snapshot order.
Spec GenPreemptionOrderSpec() {
  Spec spec;
  const int n = *rc::gen::inRange(101, 131);
  const int k = *rc::gen::inRange(1, 40);
  for (int i = 0; i < n; ++i) spec.nodes.push_back({4000, i % 3, i % 4, false, false});
  for (int i = 0; i < n; ++i) spec.bound.push_back({i, 2000, 0, -1});
  const int runs = *rc::gen::inRange(1, 3);
  for (int r = 0; r < runs; ++r) {
    spec.pending.push_back({500, 500, false, false, *rc::gen::inRange(2, 6), k, -1, 0, 0, 0, -1});
  }
  const int preemptors = *rc::gen::inRange(1, 4);
  for (int i = 0; i < preemptors; ++i) {
    spec.pending.push_back({3000, 100, false, false, 1, 0, -1, 0, 0, 0, -1});
  }
  spec.seed = *rc::gen::inRange<uint64_t>(1, 1000);
  return spec;
}

RC_GTEST_PROP(ReliabilityPropertyTest, BatchingLeavesPreemptionChoicesUnchanged, ()) {
  const Spec spec = GenPreemptionOrderSpec();
  World w_on;
  Fill(w_on, spec);
  Recorder rec_on(w_on.in);
  const Outcome on = Run(w_on, spec, /*batching=*/true, rec_on);
  World w_off;
  Fill(w_off, spec);
  Recorder rec_off(w_off.in);
  const Outcome off = Run(w_off, spec, /*batching=*/false, rec_off);
  RC_ASSERT(on.terminated);
  RC_ASSERT(off.terminated);
  RC_ASSERT(!on.preemptions.empty());
  RC_ASSERT(on.preemptions == off.preemptions);
  RC_ASSERT(on.binds == off.binds);
}

}  // namespace
}  // namespace corral
