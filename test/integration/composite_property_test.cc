// Property tests of CompositePodGroup hierarchies (KEP-6012) on random clusters and random trees
// (RapidCheck), with the CompositePodGroup gate on and the workload cycle, driven as `corral
// schedule` drives the scheduler (virtual time advanced across back-offs). Every tree is a root
// CompositePodGroup (gang with a random minGroupCount, or basic) over gang PodGroups and nested
// CompositePodGroups, some with a rack topology key. On every run:
//   (1) all or nothing at every composite: a CompositePodGroup with any bound pod below it has at
//       least its minGroupCount children scheduled (a gang PodGroup is scheduled when at least
//       minCount of its pods are bound; a CompositePodGroup when (1) holds for it);
//   (2) no gang PodGroup ends with bound members below its minCount (0 bound, or ≥ minCount);
//   (3) the bound pods below a CompositePodGroup with a topology key lie in one rack;
//   (4) no node is over-committed (cpu, pod count);
//   (5) no reservation survives a scheduling step (nothing assumed, nobody waiting at Permit);
//   (6) the same inputs and seed give the same placements.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/framework/resource.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"

namespace corral {
namespace {

struct NodeSpec {
  int cpu_milli;
  int max_pods;
  int rack;
};
// A PodGroup leaf: `size` pods of `cpu_milli` each, a gang of `min_count`.
struct LeafSpec {
  int size;
  int min_count;
  int cpu_milli;
};
// A CompositePodGroup: its leaves and nested composites (one level at most below a root).
struct TreeSpec {
  int min_group_count;  // 0 ⇒ basic
  bool topology;
  std::vector<LeafSpec> leaves;
  std::vector<TreeSpec> children;
};

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    placements[pod.meta.name] = node;
  }
  std::map<Symbol, Symbol> placements;  // pod name → node name
};

// The world of one case: nodes, objects and pods, named deterministically.
struct World {
  testing::TestWorld w;
  api::ObjectSet objects;
  std::vector<api::Node*> nodes;
  std::vector<api::Pod*> pods;
  std::map<Symbol, int> rack_of;  // node name → rack
  Symbol rack_key;
};

// A composite of the built world: its gang PodGroups' pods and nested composites.
struct BuiltTree {
  int min_group_count;
  bool topology;
  std::vector<std::pair<int, std::vector<Symbol>>> leaves;  // minCount, pod names
  std::vector<BuiltTree> children;
};

BuiltTree AddTree(World& wd, const TreeSpec& t, const std::string& name,
                  const std::string& parent) {
  BuiltTree out{t.min_group_count, t.topology, {}, {}};
  api::CompositePodGroup& c = wd.objects.composite_pod_groups.emplace_back();
  c.meta.name = wd.w.S(name);
  c.meta.namespace_ = api::wk::kDefaultNamespace;
  if (!parent.empty()) c.parent_name = wd.w.S(parent);
  c.gang = t.min_group_count > 0;
  c.min_group_count = t.min_group_count;
  if (t.topology) c.topology_keys.push_back(wd.rack_key);
  for (size_t i = 0; i < t.children.size(); ++i) {
    out.children.push_back(AddTree(wd, t.children[i], name + "-c" + std::to_string(i), name));
  }
  for (size_t i = 0; i < t.leaves.size(); ++i) {
    const LeafSpec& l = t.leaves[i];
    const std::string pg_name = name + "-g" + std::to_string(i);
    api::PodGroup& pg = wd.objects.pod_groups.emplace_back();
    pg.meta.name = wd.w.S(pg_name);
    pg.meta.namespace_ = api::wk::kDefaultNamespace;
    pg.policy = {api::PodGroupPolicyKind::kGang, l.min_count};
    pg.parent_name = wd.w.S(name);
    std::vector<Symbol> names;
    for (int k = 0; k < l.size; ++k) {
      const std::string pod_name = pg_name + "-" + std::to_string(k);
      api::Pod& p = wd.w.Pod(pod_name).Req({{"cpu", std::to_string(l.cpu_milli) + "m"}}).Obj();
      p.scheduling_group = api::PodSchedulingGroup{pg.meta.name};
      wd.pods.push_back(&p);
      names.push_back(p.meta.name);
    }
    out.leaves.emplace_back(l.min_count, std::move(names));
  }
  return out;
}

// Runs the scheduler over the world until nothing changes; returns the placements.
std::map<Symbol, Symbol> Run(World& wd, uint64_t seed) {
  ManualClock clock;
  scheduler::Scheduler::Options opts;
  opts.seed = seed;
  opts.workload_cycle = true;
  RC_ASSERT(opts.gates.Set("CompositePodGroup", true).ok());
  auto registry = plugins::NewInTreeRegistry();
  auto made = scheduler::Scheduler::New(wd.w.in, clock, std::move(opts), registry);
  RC_ASSERT(made.ok());
  scheduler::Scheduler& s = **made;
  Recorder rec;
  s.set_observer(&rec);
  s.SetClusterObjects(&wd.objects);
  for (api::Node* n : wd.nodes) s.AddNode(n);
  auto run_until_idle = [&] {
    while (s.ScheduleOne()) {
      for (const auto& g : s.workloads().groups()) RC_ASSERT(g->assumed.empty());  // (5)
      RC_ASSERT(s.NumWaitingOnPermit() == 0u);
    }
  };
  for (api::Pod* p : wd.pods) s.AddPod(p);
  run_until_idle();
  for (int round = 0; round < 50; ++round) {
    auto d = s.NextTimerDeadline();
    if (!d) break;
    const int64_t before = s.stats().scheduled;
    if (*d > clock.Now()) clock.Set(*d);
    s.FireTimers();
    run_until_idle();
    if (s.stats().scheduled == before) break;
  }
  return rec.placements;
}

// Checks (1)–(3) below `t`; returns whether `t` counts as scheduled and adds its bound pods'
// racks to `racks`.
bool CheckTree(const World& wd, const BuiltTree& t, const std::map<Symbol, Symbol>& placed,
               std::set<int>* racks) {
  int scheduled = 0;
  bool any_bound = false;
  std::set<int> mine;
  for (const BuiltTree& c : t.children) {
    std::set<int> theirs;
    if (CheckTree(wd, c, placed, &theirs)) ++scheduled;
    any_bound = any_bound || !theirs.empty();
    mine.insert(theirs.begin(), theirs.end());
  }
  for (const auto& [min_count, names] : t.leaves) {
    int bound = 0;
    for (Symbol n : names) {
      auto it = placed.find(n);
      if (it == placed.end()) continue;
      ++bound;
      mine.insert(wd.rack_of.at(it->second));
    }
    RC_ASSERT(bound == 0 || bound >= min_count);  // (2)
    if (bound >= min_count) ++scheduled;
    any_bound = any_bound || bound > 0;
  }
  const int need = t.min_group_count > 0 ? t.min_group_count : 1;
  if (any_bound) RC_ASSERT(scheduled >= need);   // (1)
  if (t.topology) RC_ASSERT(mine.size() <= 1u);  // (3)
  racks->insert(mine.begin(), mine.end());
  return any_bound && scheduled >= need;
}

void Check(const std::vector<NodeSpec>& ns, const std::vector<TreeSpec>& trees, uint64_t seed) {
  auto build = [&](World& wd) {
    wd.rack_key = wd.w.S("topology.example.com/rack");
    for (size_t i = 0; i < ns.size(); ++i) {
      const std::string name = "node-" + std::to_string(i);
      api::Node& n = wd.w.Node(name)
                         .Capacity({{"cpu", std::to_string(ns[i].cpu_milli) + "m"},
                                    {"memory", "8Gi"},
                                    {"pods", std::to_string(ns[i].max_pods)}})
                         .Label("topology.example.com/rack", "rack-" + std::to_string(ns[i].rack))
                         .Obj();
      wd.nodes.push_back(&n);
      wd.rack_of[n.meta.name] = ns[i].rack;
    }
    std::vector<BuiltTree> built;
    for (size_t i = 0; i < trees.size(); ++i) {
      built.push_back(AddTree(wd, trees[i], "t" + std::to_string(i), ""));
    }
    return built;
  };
  World wd;
  const std::vector<BuiltTree> built = build(wd);
  const std::map<Symbol, Symbol> placed = Run(wd, seed);
  // What a failure reports: the nodes, the trees and where each pod went.
  for (size_t i = 0; i < ns.size(); ++i) {
    RC_LOG() << "node-" << i << " cpu " << ns[i].cpu_milli << "m pods " << ns[i].max_pods
             << " rack " << ns[i].rack << "\n";
  }
  for (const api::CompositePodGroup& c : wd.objects.composite_pod_groups) {
    RC_LOG() << "composite " << wd.w.in.Str(c.meta.name) << " parent " << wd.w.in.Str(c.parent_name)
             << " minGroupCount " << c.min_group_count
             << (c.topology_keys.empty() ? "" : " rack-topology") << "\n";
  }
  for (const api::PodGroup& g : wd.objects.pod_groups) {
    RC_LOG() << "group " << wd.w.in.Str(g.meta.name) << " minCount " << g.policy.min_count << "\n";
  }
  for (const api::Pod* p : wd.pods) {
    auto it = placed.find(p->meta.name);
    RC_LOG() << "pod " << wd.w.in.Str(p->meta.name) << " cpu "
             << framework::ComputePodRequest(*p, framework::FeatureGates()).milli_cpu << "m -> "
             << (it == placed.end() ? "-" : wd.w.in.Str(it->second)) << "\n";
  }
  for (const BuiltTree& t : built) {
    std::set<int> racks;
    CheckTree(wd, t, placed, &racks);
  }
  // (4).
  std::map<Symbol, int64_t> cpu;
  std::map<Symbol, int> count;
  for (const api::Pod* p : wd.pods) {
    auto it = placed.find(p->meta.name);
    if (it == placed.end()) continue;
    cpu[it->second] += framework::ComputePodRequest(*p, framework::FeatureGates()).milli_cpu;
    ++count[it->second];
  }
  for (size_t i = 0; i < ns.size(); ++i) {
    RC_ASSERT(cpu[wd.nodes[i]->meta.name] <= ns[i].cpu_milli);
    RC_ASSERT(count[wd.nodes[i]->meta.name] <= ns[i].max_pods);
  }
  // (6): a second world from the same specs, by name.
  World again;
  build(again);
  const std::map<Symbol, Symbol> placed_again = Run(again, seed);
  std::map<std::string, std::string> a, b;
  for (const auto& [pod, node] : placed) a[std::string(wd.w.in.Str(pod))] = wd.w.in.Str(node);
  for (const auto& [pod, node] : placed_again) {
    b[std::string(again.w.in.Str(pod))] = again.w.in.Str(node);
  }
  RC_ASSERT(a == b);
}

rc::Gen<NodeSpec> GenNode() {
  return rc::gen::build<NodeSpec>(rc::gen::set(&NodeSpec::cpu_milli, rc::gen::inRange(500, 4001)),
                                  rc::gen::set(&NodeSpec::max_pods, rc::gen::inRange(1, 8)),
                                  rc::gen::set(&NodeSpec::rack, rc::gen::inRange(0, 3)));
}

rc::Gen<LeafSpec> GenLeaf() {
  return rc::gen::mapcat(rc::gen::inRange(1, 5), [](int size) {
    return rc::gen::build<LeafSpec>(
        rc::gen::set(&LeafSpec::size, rc::gen::just(size)),
        rc::gen::set(&LeafSpec::min_count, rc::gen::inRange(1, size + 1)),
        rc::gen::set(&LeafSpec::cpu_milli, rc::gen::inRange(100, 2001)));
  });
}

// `lo`..`hi`-1 elements of `g`, generated at RapidCheck's nominal size (100) so that gen::inRange
// spans its whole range (as in gang_property_test.cc).
template <typename T>
rc::Gen<std::vector<T>> VectorOf(int lo, int hi, rc::Gen<T> g) {
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange(lo, hi)), [g](int n) {
    return rc::gen::container<std::vector<T>>(static_cast<size_t>(n), rc::gen::resize(100, g));
  });
}

// A composite with 1–3 leaves and, at `depth` 0, 0–2 nested composites; minGroupCount within the
// number of children (0 ⇒ basic).
rc::Gen<TreeSpec> GenTree(int depth) {
  auto nested = depth == 0 ? VectorOf(0, 3, rc::gen::lazy([] { return GenTree(1); }))
                           : rc::gen::just(std::vector<TreeSpec>{});
  return rc::gen::mapcat(
      rc::gen::pair(VectorOf(1, 4, GenLeaf()), nested),
      [](std::pair<std::vector<LeafSpec>, std::vector<TreeSpec>> p) {
        const int children = static_cast<int>(p.first.size() + p.second.size());
        return rc::gen::build<TreeSpec>(
            rc::gen::set(&TreeSpec::min_group_count,
                         rc::gen::weightedOneOf<int>(
                             {{1, rc::gen::just(0)}, {4, rc::gen::inRange(1, children + 1)}})),
            rc::gen::set(&TreeSpec::topology, rc::gen::arbitrary<bool>()),
            rc::gen::set(&TreeSpec::leaves, rc::gen::just(p.first)),
            rc::gen::set(&TreeSpec::children, rc::gen::just(p.second)));
      });
}

RC_GTEST_PROP(CompositePropertyTest, TreesAreAllOrNothingInOneDomainWithinCapacity, ()) {
  const auto node_specs = *VectorOf(1, 7, GenNode());
  const auto trees = *VectorOf(1, 4, GenTree(0));
  Check(node_specs, trees, *rc::gen::inRange<uint64_t>(1, 1000));
}

// The case the property found before a composite kept its domain: t0 (rack topology, minGroupCount
// 1) committed with t0-g0's first pods in rack 2; its later cycle for the pending rest placed
// another t0-g0 pod in rack 0.
RC_GTEST_PROP(CompositePropertyTest, TreeRunningAgainStaysInItsRack, ()) {
  const std::vector<NodeSpec> nodes = {{1370, 1, 2}, {500, 1, 0}, {878, 2, 2}};
  const std::vector<LeafSpec> one = {{1, 1, 100}};
  const TreeSpec nested{2, false, {{1, 1, 100}, {1, 1, 100}, {1, 1, 100}}, {}};
  const std::vector<TreeSpec> trees = {
      {1, true, {{4, 1, 100}}, {nested}},
      {1, false, {{1, 1, 100}, {1, 1, 273}}, {}},
  };
  Check(nodes, trees, 1);
}

}  // namespace
}  // namespace corral
