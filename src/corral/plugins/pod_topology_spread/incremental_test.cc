// The cross-cycle domain counts (plugins/incremental) against a fresh computation every cycle:
// random clusters that change between cycles (pods placed and removed, node labels and taints
// changed, nodes added and removed) must give identical PreFilter / Filter / PreScore / Score /
// NormalizeScore results. Score's hostname counts come from a per-node memo that PreScore keeps
// current for the nodes it is given; nodes outside that list are counted afresh.

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/pod_topology_spread/test_util.h"

namespace corral::plugins::pod_topology_spread {
namespace {

using testing::PodBuilder;
using testing::TestWorld;

constexpr auto kDNS = api::WhenUnsatisfiable::kDoNotSchedule;
constexpr auto kSA = api::WhenUnsatisfiable::kScheduleAnyway;

class World {
 public:
  explicit World(uint32_t seed) : rng_(seed) {}

  TestWorld w;
  testing::FakeHandle h{w};
  std::vector<framework::NodeInfo*> nodes;

  int Rand(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void RelabelNode(api::Node& n) {
    n.meta.labels = api::LabelSet();
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    if (Rand(10) != 0) n.meta.labels.Set(w.S("zone"), w.S("z" + std::to_string(Rand(3))));
    n.meta.labels.Set(w.S("rack"), w.S("r" + std::to_string(Rand(5))));
    if (Rand(2) == 0) n.meta.labels.Set(w.S("disk"), w.S("ssd"));
    n.taints.clear();
    if (Rand(6) == 0)
      n.taints.push_back({w.S("dedicated"), Symbol(), api::TaintEffect::kNoSchedule, std::nullopt});
  }

  void AddNode() {
    api::Node& n = w.Node("node-" + std::to_string(next_node_++)).Obj();
    RelabelNode(n);
    w.node_infos.emplace_back(&n);
    nodes.push_back(&w.node_infos.back());
  }

  const framework::PodInfo& ExistingPod() {
    auto b = w.Pod("e-" + std::to_string(next_pod_++));
    static const char* kApps[] = {"a", "b", "c"};
    b.Label("app", kApps[Rand(3)]);
    if (Rand(2) == 0) b.Label("tier", Rand(2) == 0 ? "x" : "y");
    if (Rand(5) == 0) b.Namespace("ns1");
    if (Rand(10) == 0) b.Terminating();
    return w.Info(b.Obj());
  }

  // One of a few incoming shapes, so that signatures repeat (cache hits) and differ (evictions).
  const framework::PodInfo& IncomingPod() {
    auto b = w.Pod("in-" + std::to_string(next_pod_++));
    const int shape = Rand(7);
    b.Label("app", shape % 2 == 0 ? "a" : "b");
    auto sel = [&](std::string_view app) { return w.Sel().Label("app", app).Obj(); };
    switch (shape) {
      case 0:
        b.SpreadConstraint(1, "zone", kDNS, sel("a"))
            .SpreadConstraint(2, "kubernetes.io/hostname", kDNS, sel("a"));
        break;
      case 1:
        b.SpreadConstraint(1, "zone", kSA, sel("b"))
            .SpreadConstraint(1, "kubernetes.io/hostname", kSA, sel("b"));
        break;
      case 2:
        b.NodeSelector("disk", "ssd").SpreadConstraint(1, "rack", kDNS, sel("a"), 4);
        break;
      case 3:
        b.SpreadConstraint(1, "zone", kDNS, sel("b"), std::nullopt,
                           api::NodeInclusionPolicy::kIgnore, api::NodeInclusionPolicy::kHonor)
            .SpreadConstraint(3, "rack", kSA, w.Sel().Exists("tier").Obj());
        break;
      case 4:
        b.Label("tier", "x")
            .SpreadConstraint(1, "zone", kSA, sel("a"), std::nullopt, std::nullopt, std::nullopt,
                              {"tier"});
        break;
      case 5:
        b.Namespace("ns1").SpreadConstraint(1, "zone", kDNS, w.Sel().Obj());
        break;
      default:
        break;  // no constraints: the System defaults via the service below
    }
    return w.Info(b.Obj());
  }

 private:
  std::mt19937 rng_;
  int next_node_ = 0;
  int next_pod_ = 0;
};

std::string Describe(const framework::Status& s) {
  return std::string(framework::CodeName(s.code())) + ":" + s.Message();
}

TEST(PodTopologySpreadIncrementalTest, MatchesFreshComputationUnderChurn) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    World world(seed);
    for (int i = 0; i < 24; ++i) world.AddNode();
    world.h.SetNodes(world.nodes);
    api::SelectorOwner svc;
    svc.kind = api::SelectorOwnerKind::kService;
    svc.meta.namespace_ = api::wk::kDefaultNamespace;
    svc.selector = world.w.Sel().Label("app", "b").Obj();
    world.h.AddSelectorOwner(&svc);

    PodTopologySpreadArgs args;  // System defaulting
    auto inc = PodTopologySpread::New(&args, world.h).value();
    auto fresh = PodTopologySpread::New(&args, world.h).value();
    auto& p_inc = dynamic_cast<PodTopologySpread&>(*inc);
    auto& p_fresh = dynamic_cast<PodTopologySpread&>(*fresh);
    p_fresh.SetIncrementalForTesting(false);

    for (int step = 0; step < 150; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const framework::PodInfo& pod = world.IncomingPod();
      framework::CycleState s_inc, s_fresh;
      framework::PreFilterResult r;
      const auto& snap = world.h.snapshot();
      framework::Status a = p_inc.PreFilter(s_inc, 0, pod, snap, &r);
      framework::Status b = p_fresh.PreFilter(s_fresh, 0, pod, snap, &r);
      ASSERT_EQ(Describe(a), Describe(b));
      if (a.ok()) {
        // A nominated pod added to both states (PreFilterExtensions) must keep them equal too.
        if (world.Rand(3) == 0 && !world.nodes.empty()) {
          const framework::PodInfo& extra = world.ExistingPod();
          const framework::NodeInfo& on =
              *world.nodes[static_cast<size_t>(world.Rand(static_cast<int>(world.nodes.size())))];
          ASSERT_TRUE(p_inc.PreFilterExtensions()->AddPod(s_inc, pod, extra, on).ok());
          ASSERT_TRUE(p_fresh.PreFilterExtensions()->AddPod(s_fresh, pod, extra, on).ok());
        }
        for (const auto* n : snap.nodes()) {
          ASSERT_EQ(Describe(p_inc.Filter(s_inc, 0, pod, *n)),
                    Describe(p_fresh.Filter(s_fresh, 0, pod, *n)))
              << world.w.in.Str(n->name());
        }
      }
      // A random subset of nodes as the feasible ones.
      std::vector<const framework::NodeInfo*> feasible;
      for (const auto* n : snap.nodes()) {
        if (world.Rand(3) != 0) feasible.push_back(n);
      }
      a = p_inc.PreScore(s_inc, 0, pod, feasible);
      b = p_fresh.PreScore(s_fresh, 0, pod, feasible);
      ASSERT_EQ(Describe(a), Describe(b));
      if (a.ok()) {
        std::vector<framework::NodeScore> sa, sb;
        for (const auto* n : feasible) {
          int64_t x = 0, y = 0;
          ASSERT_TRUE(p_inc.Score(s_inc, 0, pod, *n, &x).ok());
          ASSERT_TRUE(p_fresh.Score(s_fresh, 0, pod, *n, &y).ok());
          ASSERT_EQ(x, y);
          sa.push_back({n->name(), x});
          sb.push_back({n->name(), y});
        }
        ASSERT_TRUE(p_inc.NormalizeScore(s_inc, 0, pod, sa).ok());
        ASSERT_TRUE(p_fresh.NormalizeScore(s_fresh, 0, pod, sb).ok());
        for (size_t i = 0; i < sa.size(); ++i) ASSERT_EQ(sa[i].score, sb[i].score);
        // Nodes PreScore was not given (as a cross-node rescore may score): the hostname count
        // memo has no current entry for them and must count afresh.
        for (const auto* n : snap.nodes()) {
          int64_t x = 0, y = 0;
          ASSERT_TRUE(p_inc.Score(s_inc, 0, pod, *n, &x).ok());
          ASSERT_TRUE(p_fresh.Score(s_fresh, 0, pod, *n, &y).ok());
          ASSERT_EQ(x, y) << world.w.in.Str(n->name());
        }
      }

      // Churn.
      switch (world.Rand(8)) {
        case 0:
        case 1:
        case 2: {  // place a pod (the incoming one or another)
          auto* n =
              world.nodes[static_cast<size_t>(world.Rand(static_cast<int>(world.nodes.size())))];
          n->AddPod(world.Rand(2) == 0 ? &pod : &world.ExistingPod());
          break;
        }
        case 3: {  // remove a pod
          auto* n =
              world.nodes[static_cast<size_t>(world.Rand(static_cast<int>(world.nodes.size())))];
          if (!n->pods().empty())
            n->RemovePod(
                n->pods()[static_cast<size_t>(world.Rand(static_cast<int>(n->pods().size())))]);
          break;
        }
        case 4: {  // relabel / retaint a node
          auto* n =
              world.nodes[static_cast<size_t>(world.Rand(static_cast<int>(world.nodes.size())))];
          world.RelabelNode(const_cast<api::Node&>(*n->node()));
          n->SetNode(n->node());
          break;
        }
        case 5:  // add a node
          world.AddNode();
          world.h.SetNodes(world.nodes);
          break;
        case 6:  // remove a node
          if (world.nodes.size() > 4) {
            world.nodes.erase(world.nodes.begin() +
                              world.Rand(static_cast<int>(world.nodes.size())));
            world.h.SetNodes(world.nodes);
          }
          break;
        default:  // nothing: a pure cache hit
          break;
      }
    }
  }
}

}  // namespace
}  // namespace corral::plugins::pod_topology_spread
