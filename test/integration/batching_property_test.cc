// Opportunistic batching (KEP-5598) equivalence on random clusters and pod streams (RapidCheck),
// with percentageOfNodesToScore 100 and a fixed seed:
//   (1) the placements with OpportunisticBatching on are identical to batching off;
//   (2) every placement of the batching run passes every filter at the moment it is made (replayed
//       with Scheduler::Evaluate on a second scheduler that receives the placed pods one by
//       one, bound).
// Pod streams are runs of a few templates so that consecutive pods share signatures:
//   one-pod-per-node   templates that fill a node (host port, or most of its cpu)
//   multi-pod-per-node small templates (rescoring of the last chosen node)
//   (both with kube's signing rule and scheduler_perf's no-topology configuration)
//   beyond kube        the stock profile (system default topology spread; CorralBatchingExtensions
//                      signs pods no Service selects), with a Service selecting one template's
//                      pods, preferred node affinity and PreferNoSchedule taints
//                      (normalizing scores)
//   preferred affinity  beyond kube (CorralBatchingRescoreHook): preferred pod affinity /
//                       anti-affinity to the template's own pods by zone or hostname, one or
//                       several pods per node
//   ScheduleAnyway      beyond kube: ScheduleAnyway topology spread of the template's own pods by
//                       zone or hostname (and sometimes preferred pod affinity too)
//   (beyond-kube cases run twice with batching: incremental PreScore on and off; both must
//   equal off)

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral {
namespace {

struct NodeSpec {
  int cpu_milli;
  int mem_mi;
  int max_pods;
  int zone;
  bool soft_taint;
  bool image;
};
struct Template {
  int cpu_milli;
  int mem_mi;
  int host_port;       // 0 = none
  int zone_selector;   // -1 = none
  int preferred_zone;  // -1 = none
  bool tolerates;
  bool selected_by_service;
  bool image;
  int pod_affinity;  // 0 none; preferred, own app: 1 affinity by zone, 2 anti-affinity by hostname,
                     // 3 by zone
  int spread;  // 0 none; ScheduleAnyway, own app: 1 by zone (maxSkew 1), 2 by hostname (maxSkew 2)
};

rc::Gen<NodeSpec> GenNode() {
  return rc::gen::build<NodeSpec>(
      rc::gen::set(&NodeSpec::cpu_milli, rc::gen::inRange(1000, 8001)),
      rc::gen::set(&NodeSpec::mem_mi, rc::gen::inRange(1024, 16385)),
      rc::gen::set(&NodeSpec::max_pods, rc::gen::inRange(1, 30)),
      rc::gen::set(&NodeSpec::zone, rc::gen::inRange(0, 3)),
      rc::gen::set(
          &NodeSpec::soft_taint,
          rc::gen::weightedOneOf<bool>({{1, rc::gen::just(true)}, {3, rc::gen::just(false)}})),
      rc::gen::set(&NodeSpec::image, rc::gen::arbitrary<bool>()));
}

enum class Mode { kOnePerNode, kMultiPerNode, kBeyondKube, kPreferredAffinity, kScheduleAnyway };

rc::Gen<Template> GenTemplate(Mode mode) {
  const bool cross = mode == Mode::kPreferredAffinity || mode == Mode::kScheduleAnyway;
  auto cpu = mode == Mode::kOnePerNode ? rc::gen::inRange(900, 4001) : rc::gen::inRange(0, 400);
  auto port =
      mode == Mode::kOnePerNode
          ? rc::gen::weightedOneOf<int>({{1, rc::gen::just(0)}, {2, rc::gen::inRange(80, 82)}})
      : cross ? rc::gen::weightedOneOf<int>({{3, rc::gen::just(0)}, {1, rc::gen::inRange(80, 82)}})
              : rc::gen::just(0);
  auto affinity =
      mode == Mode::kPreferredAffinity
          ? rc::gen::weightedOneOf<int>({{1, rc::gen::just(0)}, {3, rc::gen::inRange(1, 4)}})
      : mode == Mode::kScheduleAnyway
          ? rc::gen::weightedOneOf<int>({{3, rc::gen::just(0)}, {1, rc::gen::inRange(1, 4)}})
          : rc::gen::just(0);
  auto spread =
      mode == Mode::kScheduleAnyway
          ? rc::gen::weightedOneOf<int>({{1, rc::gen::just(0)}, {3, rc::gen::inRange(1, 3)}})
          : rc::gen::just(0);
  auto pref =
      mode == Mode::kBeyondKube
          ? rc::gen::weightedOneOf<int>({{2, rc::gen::just(-1)}, {1, rc::gen::inRange(0, 3)}})
          : rc::gen::just(-1);
  auto svc = mode == Mode::kBeyondKube ? rc::gen::arbitrary<bool>() : rc::gen::just(false);
  return rc::gen::build<Template>(
      rc::gen::set(&Template::cpu_milli, cpu),
      rc::gen::set(&Template::mem_mi, rc::gen::inRange(0, 1025)),
      rc::gen::set(&Template::host_port, port),
      rc::gen::set(
          &Template::zone_selector,
          rc::gen::weightedOneOf<int>({{4, rc::gen::just(-1)}, {1, rc::gen::inRange(0, 3)}})),
      rc::gen::set(&Template::preferred_zone, pref),
      rc::gen::set(&Template::tolerates, rc::gen::arbitrary<bool>()),
      rc::gen::set(&Template::selected_by_service, svc),
      rc::gen::set(&Template::image, rc::gen::arbitrary<bool>()),
      rc::gen::set(&Template::pod_affinity, affinity), rc::gen::set(&Template::spread, spread));
}

struct World {
  Interner in = api::NewInterner();
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  api::ObjectSet objects;

  World(const std::vector<NodeSpec>& ns, const std::vector<Template>& ts,
        const std::vector<int>& stream) {
    Symbol zone_key = api::wk::kZoneLabel;
    Symbol taint_key = in.Intern("soft");
    Symbol image = in.Intern("registry.k8s.io/big:1");
    nodes.resize(ns.size());
    for (size_t i = 0; i < ns.size(); ++i) {
      api::Node& n = nodes[i];
      n.meta.name = in.Intern("node-" + std::to_string(i));
      n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
      n.meta.labels.Set(zone_key, in.Intern("zone-" + std::to_string(ns[i].zone)));
      n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(ns[i].cpu_milli)},
                    {api::wk::kMemory, api::Quantity::FromInt(int64_t{ns[i].mem_mi} << 20)},
                    {api::wk::kPods, api::Quantity::FromInt(ns[i].max_pods)}};
      std::sort(n.capacity.begin(), n.capacity.end(),
                [](auto& a, auto& b) { return a.first < b.first; });
      n.allocatable = n.capacity;
      if (ns[i].soft_taint)
        n.taints.push_back(
            {taint_key, Symbol(), api::TaintEffect::kPreferNoSchedule, std::nullopt});
      if (ns[i].image) n.images.push_back({{image}, 800LL << 20});
    }
    api::SelectorOwner svc;
    svc.kind = api::SelectorOwnerKind::kService;
    svc.meta.name = in.Intern("svc");
    svc.meta.namespace_ = api::wk::kDefaultNamespace;
    svc.selector.emplace().match_labels.Set(in.Intern("svc"), in.Intern("yes"));
    objects.selector_owners.push_back(std::move(svc));
    pods.resize(stream.size());
    for (size_t i = 0; i < stream.size(); ++i) {
      const size_t ti = static_cast<size_t>(stream[i]) % ts.size();
      const Template& t = ts[ti];
      api::Pod& p = pods[i];
      p.meta.name = in.Intern("pod-" + std::to_string(i));
      p.meta.namespace_ = api::wk::kDefaultNamespace;
      p.scheduler_name = api::wk::kDefaultScheduler;
      p.meta.labels.Set(in.Intern("svc"), in.Intern(t.selected_by_service ? "yes" : "no"));
      const Symbol app_key = in.Intern("app");
      const Symbol app = in.Intern("a" + std::to_string(ti));
      p.meta.labels.Set(app_key, app);
      api::LabelSelector own;
      own.match_labels.Set(app_key, app);
      if (t.pod_affinity != 0) {
        api::WeightedPodAffinityTerm term;
        term.weight = t.pod_affinity == 1 ? 30 : 20;
        term.pod_affinity_term.label_selector = own;
        term.pod_affinity_term.topology_key =
            t.pod_affinity == 2 ? api::wk::kHostnameLabel : zone_key;
        api::Affinity& a = p.affinity.has_value() ? *p.affinity : p.affinity.emplace();
        auto& pa = t.pod_affinity == 1 ? a.pod_affinity : a.pod_anti_affinity;
        (pa.has_value() ? *pa : pa.emplace()).preferred.push_back(std::move(term));
      }
      if (t.spread != 0) {
        api::TopologySpreadConstraint c;
        c.max_skew = t.spread;
        c.topology_key = t.spread == 1 ? zone_key : api::wk::kHostnameLabel;
        c.when_unsatisfiable = api::WhenUnsatisfiable::kScheduleAnyway;
        c.label_selector = own;
        p.topology_spread_constraints.push_back(std::move(c));
      }
      api::Container c;
      c.name = in.Intern("c");
      if (t.image) c.image = image;
      if (t.cpu_milli > 0)
        c.resources.requests.push_back({api::wk::kCpu, api::Quantity::FromMilli(t.cpu_milli)});
      if (t.mem_mi > 0)
        c.resources.requests.push_back(
            {api::wk::kMemory, api::Quantity::FromInt(int64_t{t.mem_mi} << 20)});
      std::sort(c.resources.requests.begin(), c.resources.requests.end(),
                [](auto& a, auto& b) { return a.first < b.first; });
      if (t.host_port > 0)
        c.ports.push_back({Symbol(), 8080, t.host_port, api::Protocol::kTCP, Symbol()});
      p.containers.push_back(std::move(c));
      if (t.zone_selector >= 0)
        p.node_selector.Set(zone_key, in.Intern("zone-" + std::to_string(t.zone_selector)));
      if (t.preferred_zone >= 0) {
        api::PreferredSchedulingTerm term;
        term.weight = 10;
        api::NodeSelectorRequirement req;
        req.key = zone_key;
        req.op = api::NodeSelectorOp::kIn;
        req.values = {in.Intern("zone-" + std::to_string(t.preferred_zone))};
        term.preference.match_expressions.push_back(std::move(req));
        api::Affinity& a = p.affinity.has_value() ? *p.affinity : p.affinity.emplace();
        (a.node_affinity.has_value() ? *a.node_affinity : a.node_affinity.emplace())
            .preferred.push_back(std::move(term));
      }
      if (t.tolerates)
        p.tolerations.push_back({taint_key, api::TolerationOp::kExists, Symbol(),
                                 api::TaintEffect::kPreferNoSchedule, std::nullopt});
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

std::unique_ptr<scheduler::Scheduler> NewScheduler(World& w, const Clock& clock, bool batching,
                                                   bool ext, bool incremental = true) {
  scheduler::Scheduler::Options opts;
  opts.seed = 7;
  opts.config.percentage_of_nodes_to_score = 100;
  if (!batching) RC_ASSERT(opts.gates.Set("OpportunisticBatching", false).ok());
  if (!incremental) RC_ASSERT(opts.gates.Set("CorralIncrementalPreScore", false).ok());
  if (!ext) {
    // kube's rule, with scheduler_perf's batching configuration (scheduler-config-no-topology.yaml:
    // PodTopologySpread defaultingType List, no default constraints).
    RC_ASSERT(opts.gates.Set("CorralBatchingExtensions", false).ok());
    framework::ProfileConfig profile;
    auto args = std::make_shared<plugins::PodTopologySpreadArgs>();
    args->defaulting_type = std::string(plugins::PodTopologySpreadArgs::kListDefaulting);
    profile.plugin_args["PodTopologySpread"] = args;
    opts.config.profiles.push_back(std::move(profile));
  }
  auto registry = plugins::NewInTreeRegistry();
  auto s = scheduler::Scheduler::New(w.in, clock, std::move(opts), registry);
  if (!s.ok()) RC_FAIL(s.error().message);
  (*s)->SetClusterObjects(&w.objects);
  return std::move(s).value();
}

struct RunResult {
  std::vector<std::pair<const api::Pod*, Symbol>> placements;
  int64_t batched = 0;
  double hook_rescores = 0;  // cross-node rescores (batches whose pods have cross-node scores)
  int64_t incremental = 0;   // cross-node rescores with incremental PreScore
};

RunResult Run(World& w, bool batching, bool ext, bool incremental = true) {
  ManualClock clock;
  auto s = NewScheduler(w, clock, batching, ext, incremental);
  Recorder rec;
  s->set_observer(&rec);
  for (auto& n : w.nodes) s->AddNode(&n);
  for (auto& p : w.pods) s->AddPod(&p);
  s->RunUntilIdle();
  RunResult r{rec.placements, s->stats().batched, 0, 0};
  if (const auto* b = s->batch("default-scheduler"); b != nullptr) {
    if (b->hook_rescored_nodes() > 0) r.hook_rescores = 1;
    r.incremental = b->incremental_prescores();
  }
  return r;
}

void CheckEquivalence(Mode mode) {
  const auto nodes =
      *rc::gen::resize(20, rc::gen::nonEmpty(rc::gen::container<std::vector<NodeSpec>>(GenNode())));
  const auto templates = *rc::gen::container<std::vector<Template>>(3, GenTemplate(mode));
  // Runs of the same template.
  const auto runs =
      *rc::gen::resize(8, rc::gen::container<std::vector<std::pair<int, int>>>(
                              rc::gen::pair(rc::gen::inRange(0, 3), rc::gen::inRange(1, 25))));
  std::vector<int> stream;
  for (auto [t, n] : runs) stream.insert(stream.end(), static_cast<size_t>(n), t);
  World w(nodes, templates, stream);
  const bool cross = mode == Mode::kPreferredAffinity || mode == Mode::kScheduleAnyway;
  const bool ext = mode == Mode::kBeyondKube || cross;
  RunResult on = Run(w, true, ext);
  RunResult off = Run(w, false, ext);
  RC_ASSERT(on.placements == off.placements);
  RC_TAG(on.batched > 0 ? "batched" : "not batched");
  if (cross) {
    RC_TAG(on.hook_rescores > 0 ? "rescore hook used" : "rescore hook unused");
    RC_TAG(on.incremental > 0 ? "incremental PreScore used" : "no incremental PreScore");
    RunResult full_prescore = Run(w, true, ext, /*incremental=*/false);
    RC_ASSERT(full_prescore.placements == off.placements);
  }

  ManualClock clock;
  auto checker = NewScheduler(w, clock, false, ext);
  for (auto& n : w.nodes) checker->AddNode(&n);
  std::vector<api::Pod> bound;
  bound.reserve(on.placements.size());
  for (auto [pod, node] : on.placements) {
    RC_ASSERT(checker->Evaluate(*pod, node).ok());
    bound.push_back(*pod);
    bound.back().node_name = node;
    checker->AddPod(&bound.back());
  }
}

RC_GTEST_PROP(BatchingPropertyTest, OnePodPerNodeSamePlacementsAsBatchingOff, ()) {
  CheckEquivalence(Mode::kOnePerNode);
}
RC_GTEST_PROP(BatchingPropertyTest, MultiPodPerNodeRescoringSamePlacementsAsBatchingOff, ()) {
  CheckEquivalence(Mode::kMultiPerNode);
}
RC_GTEST_PROP(BatchingPropertyTest, BeyondKubeStockProfileSamePlacementsAsBatchingOff, ()) {
  CheckEquivalence(Mode::kBeyondKube);
}
RC_GTEST_PROP(BatchingPropertyTest, BeyondKubePreferredPodAffinitySamePlacementsAsBatchingOff, ()) {
  CheckEquivalence(Mode::kPreferredAffinity);
}
RC_GTEST_PROP(BatchingPropertyTest, BeyondKubeScheduleAnywaySpreadSamePlacementsAsBatchingOff, ()) {
  CheckEquivalence(Mode::kScheduleAnyway);
}

}  // namespace
}  // namespace corral
