// Property tests of the accurate replica estimate (scheduler/estimate.h) on random members and
// work items (RapidCheck):
//   (1) the estimate is never above what the member's scheduler places when the copies are then
//       submitted to it, and equal to it (the member has no pending or nominated pods and has not
//       scheduled before, so a copy of it decides exactly as it does);
//   (2) estimating changes nothing: the member then places the copies exactly as a twin that was
//       never asked, and a second estimate gives the same answer;
//   (3) a gang of the copies fits exactly when every copy is placed; with a topology key, only
//       within one domain (GangFitsTest).

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/plugins/registry.h"
#include "corral/scheduler/estimate.h"

#include "test/testing/builders.h"

namespace corral {
namespace {

using testing::PodBuilder;

struct NodeSpec {
  int cpu_milli;
  int max_pods;
  int gpus;
  int zone;
  bool tainted;
};
struct BoundSpec {
  int node;  // index modulo the node count
  int cpu_milli;
  int gpus;
};
struct WorkSpec {
  int cpu_milli;
  int gpus;
  bool host_port;
  int zone_selector;  // -1 = none
  bool tolerates;
  bool anti_affinity;  // required anti-affinity to its own copies by hostname
  bool spread;         // DoNotSchedule zone spread (maxSkew 1) over its own copies
  int max;
};

rc::Gen<NodeSpec> GenNode() {
  return rc::gen::build<NodeSpec>(
      rc::gen::set(&NodeSpec::cpu_milli, rc::gen::inRange(500, 8001)),
      rc::gen::set(&NodeSpec::max_pods, rc::gen::inRange(1, 9)),
      rc::gen::set(&NodeSpec::gpus, rc::gen::weightedOneOf<int>(
                                        {{2, rc::gen::just(0)}, {1, rc::gen::inRange(1, 5)}})),
      rc::gen::set(&NodeSpec::zone, rc::gen::inRange(0, 3)),
      rc::gen::set(&NodeSpec::tainted, rc::gen::weightedOneOf<bool>(
                                           {{1, rc::gen::just(true)}, {4, rc::gen::just(false)}})));
}

rc::Gen<BoundSpec> GenBound() {
  return rc::gen::build<BoundSpec>(rc::gen::set(&BoundSpec::node, rc::gen::inRange(0, 100)),
                                   rc::gen::set(&BoundSpec::cpu_milli, rc::gen::inRange(0, 3001)),
                                   rc::gen::set(&BoundSpec::gpus, rc::gen::inRange(0, 3)));
}

rc::Gen<WorkSpec> GenWork() {
  auto rarely = [] {
    return rc::gen::weightedOneOf<bool>({{1, rc::gen::just(true)}, {3, rc::gen::just(false)}});
  };
  return rc::gen::build<WorkSpec>(
      rc::gen::set(&WorkSpec::cpu_milli, rc::gen::inRange(0, 3001)),
      rc::gen::set(&WorkSpec::gpus, rc::gen::weightedOneOf<int>(
                                        {{2, rc::gen::just(0)}, {1, rc::gen::inRange(1, 3)}})),
      rc::gen::set(&WorkSpec::host_port, rarely()),
      rc::gen::set(
          &WorkSpec::zone_selector,
          rc::gen::weightedOneOf<int>({{3, rc::gen::just(-1)}, {1, rc::gen::inRange(0, 3)}})),
      rc::gen::set(&WorkSpec::tolerates, rc::gen::arbitrary<bool>()),
      rc::gen::set(&WorkSpec::anti_affinity, rarely()), rc::gen::set(&WorkSpec::spread, rarely()),
      rc::gen::set(&WorkSpec::max, rc::gen::inRange(1, 16)));
}

// A member: nodes and bound pods, and the work item's pod template.
struct Member {
  testing::TestWorld w;
  api::ObjectSet objects;
  api::Pod work;

  Member(const std::vector<NodeSpec>& ns, const std::vector<BoundSpec>& bs, const WorkSpec& ws) {
    for (size_t i = 0; i < ns.size(); ++i) {
      std::string gpus = std::to_string(ns[i].gpus);
      auto n = w.Node("node-" + std::to_string(i))
                   .Capacity({{"cpu", std::to_string(ns[i].cpu_milli) + "m"},
                              {"memory", "16Gi"},
                              {"pods", std::to_string(ns[i].max_pods)},
                              {"nvidia.com/gpu", gpus}})
                   .Label("topology.kubernetes.io/zone", "zone-" + std::to_string(ns[i].zone));
      if (ns[i].tainted) n.Taint("dedicated", "special", api::TaintEffect::kNoSchedule);
      objects.nodes.push_back(n.Obj());
    }
    for (size_t i = 0; i < bs.size(); ++i) {
      auto p = w.Pod("bound-" + std::to_string(i))
                   .Req({{"cpu", std::to_string(bs[i].cpu_milli) + "m"},
                         {"nvidia.com/gpu", std::to_string(bs[i].gpus)}})
                   .NodeName("node-" + std::to_string(bs[i].node % ns.size()));
      objects.pods.push_back(p.Obj());
    }
    auto p = w.Pod("work")
                 .Label("app", "work")
                 .Req({{"cpu", std::to_string(ws.cpu_milli) + "m"},
                       {"nvidia.com/gpu", std::to_string(ws.gpus)}});
    if (ws.host_port) p.HostPort(8080);
    if (ws.zone_selector >= 0) {
      p.NodeSelector("topology.kubernetes.io/zone", "zone-" + std::to_string(ws.zone_selector));
    }
    if (ws.tolerates) {
      p.Toleration("dedicated", "special", api::TolerationOp::kEqual,
                   api::TaintEffect::kNoSchedule);
    }
    if (ws.anti_affinity) {
      p.AffinityIn(PodBuilder::AffinityKind::kRequiredAntiAffinity, "app", "kubernetes.io/hostname",
                   {"work"});
    }
    if (ws.spread) {
      p.SpreadConstraint(1, "topology.kubernetes.io/zone", api::WhenUnsatisfiable::kDoNotSchedule,
                         w.Sel().In("app", {"work"}).Obj());
    }
    work = p.Obj();
  }
};

struct Placements : scheduler::SchedulerObserver {
  std::vector<Symbol> nodes;
  void OnScheduled(const api::Pod&, Symbol node, std::string_view) override {
    nodes.push_back(node);
  }
};

std::unique_ptr<scheduler::Scheduler> NewMember(Member& m, const Clock& clock,
                                                const scheduler::Scheduler::Options& options,
                                                const framework::Registry& registry) {
  auto s = scheduler::Scheduler::New(m.w.in, clock, options, registry);
  if (!s.ok()) RC_FAIL(s.error().message);
  (*s)->SetClusterObjects(&m.objects);
  for (const api::Node& n : m.objects.nodes) (*s)->AddNode(&n);
  for (const api::Pod& p : m.objects.pods) (*s)->AddPod(&p);
  return std::move(s).value();
}

// Submits `count` copies of the work item and returns the nodes they were placed on, in order.
std::vector<Symbol> Submit(Member& m, scheduler::Scheduler& s, int count,
                           std::vector<std::unique_ptr<api::Pod>>& owned) {
  Placements placements;
  s.set_observer(&placements);
  for (int i = 0; i < count; ++i) {
    owned.push_back(std::make_unique<api::Pod>(m.work));
    owned.back()->meta.name = m.w.S("copy-" + std::to_string(owned.size()));
    s.AddPod(owned.back().get());
  }
  s.RunUntilIdle();
  s.set_observer(nullptr);
  return placements.nodes;
}

RC_GTEST_PROP(EstimatePropertyTest, AccurateEstimateIsWhatTheMemberPlacesAndChangesNothing, ()) {
  const auto nodes =
      *rc::gen::resize(10, rc::gen::nonEmpty(rc::gen::container<std::vector<NodeSpec>>(GenNode())));
  const auto bound = *rc::gen::resize(12, rc::gen::container<std::vector<BoundSpec>>(GenBound()));
  const auto work = *GenWork();
  const auto seed = *rc::gen::inRange<uint64_t>(1, 1000);
  Member m(nodes, bound, work);
  RC_CLASSIFY(scheduler::IndependentReplicas(m.work), "independent");
  RC_CLASSIFY(work.anti_affinity || work.spread || work.host_port, "interacting copies");

  ManualClock clock;
  scheduler::Scheduler::Options options;
  options.seed = seed;
  const framework::Registry registry = plugins::NewInTreeRegistry();
  auto member = NewMember(m, clock, options, registry);
  auto twin = NewMember(m, clock, options, registry);
  const scheduler::MemberSource source{&m.w.in, &m.objects, &options, &registry};

  auto estimate = scheduler::EstimateReplicas(*member, source, m.work, work.max);
  RC_ASSERT(estimate.ok());
  RC_ASSERT(*estimate >= 0 && *estimate <= work.max);
  auto again = scheduler::EstimateReplicas(*member, source, m.work, work.max);
  RC_ASSERT(again.ok() && *again == *estimate);
  const scheduler::PodSetRequest gang[] = {{&m.work, work.max}};
  auto fits = scheduler::GangFits(*member, source, gang);
  RC_ASSERT(fits.ok());

  std::vector<std::unique_ptr<api::Pod>> owned;
  const std::vector<Symbol> placed = Submit(m, *member, work.max, owned);
  const std::vector<Symbol> placed_by_twin = Submit(m, *twin, work.max, owned);
  RC_ASSERT(placed == placed_by_twin);
  RC_ASSERT(*estimate <= static_cast<int>(placed.size()));
  RC_ASSERT(*estimate == static_cast<int>(placed.size()));
  RC_ASSERT(*fits == (static_cast<int>(placed.size()) == work.max));
  RC_CLASSIFY(!placed.empty() && static_cast<int>(placed.size()) < work.max, "some placed");
}

// A gang with a topology key fits only when one domain holds every pod: zone-a has two nodes with
// 4 free GPUs, zone-b one node with 8. Two 4-GPU pods fit in either zone; three fit in the cluster
// (4 + 4 + 8 free) but in no single zone.
TEST(GangFitsTest, TopologyKeyKeepsTheGangInOneDomain) {
  testing::TestWorld w;
  api::ObjectSet objects;
  auto node = [&](const char* name, const char* zone) {
    objects.nodes.push_back(w.Node(name)
                                .Capacity({{"cpu", "32"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}})
                                .Label("topology.kubernetes.io/zone", zone)
                                .Obj());
  };
  node("a1", "zone-a");
  node("a2", "zone-a");
  node("b1", "zone-b");
  for (const char* n : {"a1", "a2"}) {
    objects.pods.push_back(
        w.Pod(std::string("busy-") + n).Req({{"nvidia.com/gpu", "4"}}).NodeName(n).Obj());
  }
  const api::Pod gpu4 = w.Pod("worker").Req({{"nvidia.com/gpu", "4"}}).Obj();
  ManualClock clock;
  scheduler::Scheduler::Options options;
  const framework::Registry registry = plugins::NewInTreeRegistry();
  auto s = scheduler::Scheduler::New(w.in, clock, options, registry);
  ASSERT_TRUE(s.ok());
  (*s)->SetClusterObjects(&objects);
  for (const api::Node& n : objects.nodes) (*s)->AddNode(&n);
  for (const api::Pod& p : objects.pods) (*s)->AddPod(&p);
  const scheduler::MemberSource source{&w.in, &objects, &options, &registry};
  const Symbol zone = w.S("topology.kubernetes.io/zone");
  auto fits = [&](int32_t count, Symbol key) {
    const scheduler::PodSetRequest gang[] = {{&gpu4, count}};
    auto r = scheduler::GangFits(**s, source, gang, key);
    EXPECT_TRUE(r.ok());
    return r.ok() && *r;
  };
  EXPECT_TRUE(fits(2, zone));
  EXPECT_TRUE(fits(3, Symbol()));
  EXPECT_FALSE(fits(3, zone));
  EXPECT_FALSE(fits(5, Symbol()));
  // The same with copies that interact (host ports): placed on a copy of the member per domain.
  api::Pod ported = gpu4;
  ported.containers[0].ports.push_back({Symbol(), 8080, 8080, api::Protocol::kTCP, Symbol()});
  const scheduler::PodSetRequest two[] = {{&ported, 2}};
  auto r = scheduler::GangFits(**s, source, two, zone);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r);  // zone-a: one per node
  const scheduler::PodSetRequest three[] = {{&ported, 3}};
  r = scheduler::GangFits(**s, source, three, zone);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
}

}  // namespace
}  // namespace corral
