// Property tests of the scheduling cycle on random clusters and pods (RapidCheck):
//   (1) no node is ever over-committed (cpu, memory, pod count, extended resources);
//   (2) every placement passes every enabled filter at the moment it is made (replayed on a second
//       scheduler that receives the placed pods one by one, bound);
//   (3) the same inputs and seed give identical placements.

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
  int mem_mi;
  int max_pods;
  int zone;
  bool tainted;
  int gpus;
};
struct PodSpec {
  int cpu_milli;
  int mem_mi;
  int gpus;
  int host_port;      // 0 = none
  int zone_selector;  // -1 = none
  bool tolerates;
  int priority;
};

rc::Gen<NodeSpec> GenNode() {
  return rc::gen::build<NodeSpec>(
      rc::gen::set(&NodeSpec::cpu_milli, rc::gen::inRange(500, 8001)),
      rc::gen::set(&NodeSpec::mem_mi, rc::gen::inRange(512, 16385)),
      rc::gen::set(&NodeSpec::max_pods, rc::gen::inRange(1, 12)),
      rc::gen::set(&NodeSpec::zone, rc::gen::inRange(0, 3)),
      rc::gen::set(&NodeSpec::tainted, rc::gen::weightedOneOf<bool>(
                                           {{1, rc::gen::just(true)}, {4, rc::gen::just(false)}})),
      rc::gen::set(&NodeSpec::gpus, rc::gen::inRange(0, 3)));
}

rc::Gen<PodSpec> GenPod() {
  return rc::gen::build<PodSpec>(
      rc::gen::set(&PodSpec::cpu_milli, rc::gen::inRange(0, 3001)),
      rc::gen::set(&PodSpec::mem_mi, rc::gen::inRange(0, 4097)),
      rc::gen::set(&PodSpec::gpus, rc::gen::weightedOneOf<int>(
                                       {{4, rc::gen::just(0)}, {1, rc::gen::inRange(1, 3)}})),
      rc::gen::set(
          &PodSpec::host_port,
          rc::gen::weightedOneOf<int>({{4, rc::gen::just(0)}, {1, rc::gen::inRange(80, 83)}})),
      rc::gen::set(
          &PodSpec::zone_selector,
          rc::gen::weightedOneOf<int>({{3, rc::gen::just(-1)}, {1, rc::gen::inRange(0, 3)}})),
      rc::gen::set(&PodSpec::tolerates, rc::gen::arbitrary<bool>()),
      rc::gen::set(&PodSpec::priority, rc::gen::inRange(0, 3)));
}

struct World {
  Interner in = api::NewInterner();
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  Symbol gpu, zone_key, taint_key, taint_value;

  World(const std::vector<NodeSpec>& ns, const std::vector<PodSpec>& ps) {
    gpu = in.Intern("nvidia.com/gpu");
    zone_key = api::wk::kZoneLabel;
    taint_key = in.Intern("dedicated");
    taint_value = in.Intern("special");
    nodes.resize(ns.size());
    for (size_t i = 0; i < ns.size(); ++i) {
      api::Node& n = nodes[i];
      n.meta.name = in.Intern("node-" + std::to_string(i));
      n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
      n.meta.labels.Set(zone_key, in.Intern("zone-" + std::to_string(ns[i].zone)));
      n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(ns[i].cpu_milli)},
                    {api::wk::kMemory, api::Quantity::FromInt(int64_t{ns[i].mem_mi} << 20)},
                    {api::wk::kPods, api::Quantity::FromInt(ns[i].max_pods)}};
      if (ns[i].gpus > 0) n.capacity.push_back({gpu, api::Quantity::FromInt(ns[i].gpus)});
      std::sort(n.capacity.begin(), n.capacity.end(),
                [](auto& a, auto& b) { return a.first < b.first; });
      n.allocatable = n.capacity;
      if (ns[i].tainted)
        n.taints.push_back({taint_key, taint_value, api::TaintEffect::kNoSchedule, std::nullopt});
    }
    pods.resize(ps.size());
    for (size_t i = 0; i < ps.size(); ++i) {
      api::Pod& p = pods[i];
      p.meta.name = in.Intern("pod-" + std::to_string(i));
      p.meta.namespace_ = api::wk::kDefaultNamespace;
      p.scheduler_name = api::wk::kDefaultScheduler;
      p.priority = ps[i].priority;
      api::Container c;
      c.name = in.Intern("c");
      if (ps[i].cpu_milli > 0)
        c.resources.requests.push_back({api::wk::kCpu, api::Quantity::FromMilli(ps[i].cpu_milli)});
      if (ps[i].mem_mi > 0)
        c.resources.requests.push_back(
            {api::wk::kMemory, api::Quantity::FromInt(int64_t{ps[i].mem_mi} << 20)});
      if (ps[i].gpus > 0) c.resources.requests.push_back({gpu, api::Quantity::FromInt(ps[i].gpus)});
      std::sort(c.resources.requests.begin(), c.resources.requests.end(),
                [](auto& a, auto& b) { return a.first < b.first; });
      if (ps[i].host_port > 0)
        c.ports.push_back({Symbol(), 8080, ps[i].host_port, api::Protocol::kTCP, Symbol()});
      p.containers.push_back(std::move(c));
      if (ps[i].zone_selector >= 0) {
        p.node_selector.Set(zone_key, in.Intern("zone-" + std::to_string(ps[i].zone_selector)));
      }
      if (ps[i].tolerates) {
        p.tolerations.push_back({taint_key, api::TolerationOp::kEqual, taint_value,
                                 api::TaintEffect::kNoSchedule, std::nullopt});
      }
    }
  }
};

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    placements.emplace_back(&pod, node);
  }
  std::vector<std::pair<const api::Pod*, Symbol>> placements;
};

std::unique_ptr<scheduler::Scheduler> NewScheduler(World& w, const Clock& clock, uint64_t seed) {
  scheduler::Scheduler::Options opts;
  opts.seed = seed;
  opts.config.percentage_of_nodes_to_score = 100;
  auto registry = plugins::NewInTreeRegistry();
  auto s = scheduler::Scheduler::New(w.in, clock, std::move(opts), registry);
  if (!s.ok()) RC_FAIL(s.error().message);
  return std::move(s).value();
}

std::vector<std::pair<const api::Pod*, Symbol>> Run(World& w, uint64_t seed) {
  ManualClock clock;
  auto s = NewScheduler(w, clock, seed);
  Recorder rec;
  s->set_observer(&rec);
  for (auto& n : w.nodes) s->AddNode(&n);
  for (auto& p : w.pods) s->AddPod(&p);
  s->RunUntilIdle();
  return rec.placements;
}

RC_GTEST_PROP(SchedulerPropertyTest, NoOvercommitPlacementsPassFiltersAndRunsAreDeterministic, ()) {
  const auto node_specs =
      *rc::gen::resize(12, rc::gen::nonEmpty(rc::gen::container<std::vector<NodeSpec>>(GenNode())));
  const auto pod_specs = *rc::gen::resize(40, rc::gen::container<std::vector<PodSpec>>(GenPod()));
  const auto seed = *rc::gen::inRange<uint64_t>(1, 1000);
  World w(node_specs, pod_specs);
  auto placements = Run(w, seed);

  // (1) No overcommit.
  std::map<Symbol, framework::Resource> used;
  std::map<Symbol, int> count;
  for (auto [pod, node] : placements) {
    framework::Resource r = framework::ComputePodRequest(*pod, framework::FeatureGates());
    used[node].Add(r);
    ++count[node];
  }
  for (const auto& n : w.nodes) {
    framework::Resource alloc = framework::Resource::FromList(n.allocatable);
    const framework::Resource& u = used[n.meta.name];
    RC_ASSERT(u.milli_cpu <= alloc.milli_cpu);
    RC_ASSERT(u.memory <= alloc.memory);
    RC_ASSERT(count[n.meta.name] <= alloc.allowed_pod_number);
    RC_ASSERT(u.Scalar(w.gpu) <= alloc.Scalar(w.gpu));
  }

  // (2) Every placement passes every filter at the moment it is made.
  ManualClock clock;
  auto checker = NewScheduler(w, clock, seed);
  for (auto& n : w.nodes) checker->AddNode(&n);
  std::vector<api::Pod> bound;
  bound.reserve(placements.size());
  for (auto [pod, node] : placements) {
    framework::Status st = checker->Evaluate(*pod, node);
    RC_ASSERT(st.ok());
    bound.push_back(*pod);
    bound.back().node_name = node;
    checker->AddPod(&bound.back());
  }

  // (3) Determinism.
  auto again = Run(w, seed);
  RC_ASSERT(again == placements);
}

}  // namespace
}  // namespace corral
