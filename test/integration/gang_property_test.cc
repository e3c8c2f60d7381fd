// Property tests of gang scheduling on random clusters and gang mixes (RapidCheck), in both modes
// (workload cycle, Permit-only), driven as `corral schedule` drives the scheduler (virtual time
// advanced across Permit timeouts):
//   (1) no gang ends with bound members below its minCount (0 bound, or ≥ minCount);
//   (2) the bound members of a topology-constrained gang lie in one domain;
//   (3) no node is over-committed (cpu, memory, pod count);
//   (4) no partial reservation survives a failed cycle: every assumed member is waiting at Permit,
//       and with the workload cycle no member is assumed after any single scheduling step (a
//       committed group binds in the step that placed it, a failed one rolls back).
// Some members of each gang arrive late, after the first run, and join the running group.

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

namespace corral {
namespace {

struct NodeSpec {
  int cpu_milli;
  int max_pods;
  int rack;
};
struct GangSpec {
  int size;
  int min_count;  // 0 ⇒ basic
  int cpu_milli;
  bool topology;
  bool legacy;  // v1alpha1 workloadRef
  int late;     // members that arrive after the first run (they join a running group through its
                // cycle)
};

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    placements[&pod] = node;
  }
  std::map<const api::Pod*, Symbol> placements;
};

void Check(const std::vector<NodeSpec>& ns, const std::vector<GangSpec>& gs, bool cycle,
           uint64_t seed) {
  Interner in = api::NewInterner();
  const Symbol rack_key = in.Intern("topology.example.com/rack");
  std::vector<api::Node> nodes(ns.size());
  for (size_t i = 0; i < ns.size(); ++i) {
    api::Node& n = nodes[i];
    n.meta.name = in.Intern("node-" + std::to_string(i));
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    n.meta.labels.Set(rack_key, in.Intern("rack-" + std::to_string(ns[i].rack)));
    n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(ns[i].cpu_milli)},
                  {api::wk::kMemory, api::Quantity::FromInt(int64_t{8} << 30)},
                  {api::wk::kPods, api::Quantity::FromInt(ns[i].max_pods)}};
    std::sort(n.capacity.begin(), n.capacity.end(),
              [](auto& a, auto& b) { return a.first < b.first; });
    n.allocatable = n.capacity;
  }
  api::ObjectSet objects;
  size_t total = 0;
  for (const auto& g : gs) total += static_cast<size_t>(g.size + g.late);
  std::vector<api::Pod> pods(total);
  std::vector<std::pair<size_t, size_t>> gang_pods;  // [begin, end) per gang
  size_t k = 0;
  const Symbol ns_sym = api::wk::kDefaultNamespace;
  for (size_t gi = 0; gi < gs.size(); ++gi) {
    const GangSpec& g = gs[gi];
    const Symbol name = in.Intern("g" + std::to_string(gi));
    api::PodGroupSchedulingPolicy policy{
        g.min_count > 0 ? api::PodGroupPolicyKind::kGang : api::PodGroupPolicyKind::kBasic,
        g.min_count};
    if (g.legacy) {
      api::Workload w;
      w.meta.name = name;
      w.meta.namespace_ = ns_sym;
      w.generation = api::WorkloadApiGeneration::kV1Alpha1;
      w.pod_groups.push_back({in.Intern("workers"), policy});
      objects.workloads.push_back(w);
    } else {
      api::PodGroup pg;
      pg.meta.name = name;
      pg.meta.namespace_ = ns_sym;
      pg.policy = policy;
      if (g.topology) pg.topology_keys.push_back(rack_key);
      objects.pod_groups.push_back(pg);
    }
    gang_pods.emplace_back(k, k + static_cast<size_t>(g.size + g.late));
    for (int i = 0; i < g.size + g.late; ++i, ++k) {
      api::Pod& p = pods[k];
      p.meta.name = in.Intern("g" + std::to_string(gi) + "-" + std::to_string(i));
      p.meta.namespace_ = ns_sym;
      p.scheduler_name = api::wk::kDefaultScheduler;
      if (g.legacy) {
        p.workload_ref = api::WorkloadReference{name, in.Intern("workers"), Symbol()};
      } else {
        p.scheduling_group = api::PodSchedulingGroup{name};
      }
      api::Container c;
      c.name = in.Intern("c");
      c.resources.requests.push_back({api::wk::kCpu, api::Quantity::FromMilli(g.cpu_milli)});
      p.containers.push_back(std::move(c));
    }
  }
  // Interleave arrivals across gangs (round-robin), the adversarial order for Permit-only gangs.
  std::vector<api::Pod*> order, late;
  for (size_t round = 0; order.size() + late.size() < total; ++round) {
    for (size_t gi = 0; gi < gs.size(); ++gi) {
      const auto [b, e] = gang_pods[gi];
      if (b + round >= e) continue;
      (round < static_cast<size_t>(gs[gi].size) ? order : late).push_back(&pods[b + round]);
    }
  }

  ManualClock clock;
  scheduler::Scheduler::Options opts;
  opts.seed = seed;
  opts.workload_cycle = cycle;
  auto registry = plugins::NewInTreeRegistry();
  auto made = scheduler::Scheduler::New(in, clock, std::move(opts), registry);
  RC_ASSERT(made.ok());
  scheduler::Scheduler& s = **made;
  Recorder rec;
  s.set_observer(&rec);
  s.SetClusterObjects(&objects);
  for (auto& n : nodes) s.AddNode(&n);
  // (4), workload cycle: checked after every scheduling step.
  auto run_until_idle = [&] {
    while (s.ScheduleOne()) {
      if (!cycle) continue;
      for (const auto& g : s.workloads().groups()) RC_ASSERT(g->assumed.empty());
      RC_ASSERT(s.NumWaitingOnPermit() == 0u);
    }
  };
  auto drive = [&] {
    run_until_idle();
    for (int round = 0; round < 50; ++round) {
      auto d = s.NextTimerDeadline();
      if (!d) break;
      int64_t before = s.stats().scheduled;
      if (*d > clock.Now()) clock.Set(*d);
      s.FireTimers();
      run_until_idle();
      if (s.stats().scheduled == before) break;
    }
  };
  for (api::Pod* p : order) s.AddPod(p);
  drive();
  for (api::Pod* p : late) s.AddPod(p);
  drive();

  // (1) and (2).
  for (size_t gi = 0; gi < gs.size(); ++gi) {
    int bound = 0;
    std::set<Symbol> racks;
    for (size_t i = gang_pods[gi].first; i < gang_pods[gi].second; ++i) {
      auto it = rec.placements.find(&pods[i]);
      if (it == rec.placements.end()) continue;
      ++bound;
      size_t idx = static_cast<size_t>(std::stoi(std::string(in.Str(it->second)).substr(5)));
      racks.insert(nodes[idx].meta.labels.Find(rack_key) ? *nodes[idx].meta.labels.Find(rack_key)
                                                         : Symbol());
    }
    if (gs[gi].min_count > 0) RC_ASSERT(bound == 0 || bound >= gs[gi].min_count);
    if (gs[gi].topology && !gs[gi].legacy) RC_ASSERT(racks.size() <= 1u);
  }
  // (3).
  std::map<Symbol, int64_t> cpu;
  std::map<Symbol, int> count;
  for (const auto& [pod, node] : rec.placements) {
    cpu[node] += framework::ComputePodRequest(*pod, framework::FeatureGates()).milli_cpu;
    ++count[node];
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    RC_ASSERT(cpu[nodes[i].meta.name] <= ns[i].cpu_milli);
    RC_ASSERT(count[nodes[i].meta.name] <= ns[i].max_pods);
  }
  // (4).
  size_t waiting = 0;
  for (const auto& g : s.workloads().groups()) {
    for (const framework::PodInfo* p : g->assumed) {
      RC_ASSERT(s.IsWaitingOnPermit(p->pod));
      ++waiting;
    }
  }
  RC_ASSERT(waiting == s.NumWaitingOnPermit());
  if (cycle) RC_ASSERT(s.NumWaitingOnPermit() == 0u);
}

rc::Gen<NodeSpec> GenNode() {
  return rc::gen::build<NodeSpec>(rc::gen::set(&NodeSpec::cpu_milli, rc::gen::inRange(500, 4001)),
                                  rc::gen::set(&NodeSpec::max_pods, rc::gen::inRange(1, 8)),
                                  rc::gen::set(&NodeSpec::rack, rc::gen::inRange(0, 3)));
}

rc::Gen<GangSpec> GenGang() {
  return rc::gen::mapcat(rc::gen::inRange(1, 9), [](int size) {
    return rc::gen::build<GangSpec>(
        rc::gen::set(&GangSpec::size, rc::gen::just(size)),
        rc::gen::set(&GangSpec::min_count,
                     rc::gen::weightedOneOf<int>(
                         {{1, rc::gen::just(0)}, {4, rc::gen::inRange(1, size + 1)}})),
        rc::gen::set(&GangSpec::cpu_milli, rc::gen::inRange(100, 2001)),
        rc::gen::set(&GangSpec::topology, rc::gen::arbitrary<bool>()),
        rc::gen::set(&GangSpec::legacy, rc::gen::weightedOneOf<bool>(
                                            {{1, rc::gen::just(true)}, {3, rc::gen::just(false)}})),
        rc::gen::set(&GangSpec::late, rc::gen::weightedOneOf<int>(
                                          {{3, rc::gen::just(0)}, {1, rc::gen::inRange(1, 3)}})));
  });
}

// `lo`..`hi`-1 elements of `g`. Ranges are generated at RapidCheck's nominal size (100):
// gen::inRange scales its range with the size, which would otherwise shrink gangs and nodes to a
// fraction of their ranges (and hide the contention the properties are about).
template <typename T>
rc::Gen<std::vector<T>> VectorOf(int lo, int hi, rc::Gen<T> g) {
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange(lo, hi)), [g](int n) {
    return rc::gen::container<std::vector<T>>(static_cast<size_t>(n), rc::gen::resize(100, g));
  });
}

RC_GTEST_PROP(GangPropertyTest, WorkloadCycleKeepsGangsWholeInOneDomainWithinCapacity, ()) {
  const auto node_specs = *VectorOf(1, 7, GenNode());
  const auto gangs = *VectorOf(0, 11, GenGang());
  Check(node_specs, gangs, /*cycle=*/true, *rc::gen::inRange<uint64_t>(1, 1000));
}

RC_GTEST_PROP(GangPropertyTest, PermitOnlyModeNeverBindsAPartialGang, ()) {
  const auto node_specs = *VectorOf(1, 7, GenNode());
  auto gangs = *VectorOf(0, 11, GenGang());
  for (auto& g : gangs) g.topology = false;  // topology placement needs the workload cycle
  Check(node_specs, gangs, /*cycle=*/false, *rc::gen::inRange<uint64_t>(1, 1000));
}

}  // namespace
}  // namespace corral
