// The cross-cycle topology counts (plugins/incremental) against a fresh computation every cycle:
// random clusters that change between cycles must give identical PreFilter / PreFilterExtensions /
// Filter / PreScore / Score / NormalizeScore results.

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/inter_pod_affinity/test_util.h"

namespace corral::plugins::inter_pod_affinity {
namespace {

using testing::PodBuilder;
using testing::TestWorld;
using testutil::Cluster;
using testutil::Kind;

class World {
 public:
  explicit World(uint32_t seed) : rng_(seed), cluster() {}

  int Rand(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  TestWorld& w() { return cluster.w(); }

  void RelabelNode(api::Node& n) {
    n.meta.labels = api::LabelSet();
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    if (Rand(10) != 0) n.meta.labels.Set(w().S("zone"), w().S("z" + std::to_string(Rand(3))));
    if (Rand(3) != 0) n.meta.labels.Set(w().S("region"), w().S("r" + std::to_string(Rand(2))));
  }

  void AddNode() {
    api::Node& n = w().Node("node-" + std::to_string(next_node_++)).Obj();
    RelabelNode(n);
    w().node_infos.emplace_back(&n);
    nodes.push_back(&w().node_infos.back());
  }

  static constexpr const char* kNamespaces[] = {"subteam1.team1", "subteam2.team1",
                                                "subteam1.team2", "default"};

  // A pod of one of a few shapes (existing or incoming), so that signatures repeat.
  const framework::PodInfo& Pod(bool incoming) {
    auto b = w().Pod(std::string(incoming ? "in-" : "e-") + std::to_string(next_pod_++));
    static const char* kApps[] = {"a", "b", "c"};
    b.Label("app", kApps[Rand(3)]);
    if (Rand(2) == 0) b.Label("tier", "x");
    b.Namespace(kNamespaces[Rand(4)]);
    const int shape = Rand(incoming ? 9 : 12);
    switch (shape) {
      case 0:
        b.AffinityIn(Kind::kRequiredAntiAffinity, "app", "kubernetes.io/hostname", {"a"});
        break;
      case 1:
        b.AffinityIn(Kind::kRequiredAffinity, "app", "zone", {"b"});
        break;
      case 2:
        b.AffinityIn(Kind::kPreferredAffinity, "app", "zone", {"a"}, 5)
            .AffinityIn(Kind::kPreferredAntiAffinity, "tier", "kubernetes.io/hostname", {"x"}, 3);
        break;
      case 3: {
        api::PodAffinityTerm t;
        t.label_selector = w().Sel().Exists("app").Obj();
        t.topology_key = w().S("region");
        t.namespace_selector = api::LabelSelector{};  // all namespaces
        b.AffinityTerm(Kind::kRequiredAntiAffinity, t);
        break;
      }
      case 4: {
        api::PodAffinityTerm t;
        t.label_selector = w().Sel().In("app", {"a", "c"}).Obj();
        t.topology_key = w().S("zone");
        t.namespace_selector = w().Sel().In("team", {"team1"}).Obj();
        b.AffinityTerm(Kind::kPreferredAffinity, t, 7);
        break;
      }
      case 5: {
        api::PodAffinityTerm t;
        t.label_selector = w().Sel().Label("app", "a").Obj();
        t.topology_key = w().S("zone");
        t.match_label_keys = {w().S("tier")};
        b.AffinityTerm(Kind::kRequiredAffinity, t)
            .AffinityExists(Kind::kRequiredAffinity, "app", "region");
        break;
      }
      case 6:
        b.AffinityIn(Kind::kRequiredAffinity, "app", "kubernetes.io/hostname", {"c"})
            .AffinityIn(Kind::kPreferredAntiAffinity, "app", "region", {"b"}, 2);
        break;
      case 7: {
        // Required terms that read namespace labels (cached under NamespaceWatch's epoch).
        api::PodAffinityTerm t;
        t.label_selector = w().Sel().In("app", {"a", "b"}).Obj();
        t.topology_key = w().S("zone");
        t.namespace_selector = w().Sel().In("team", {"team2"}).Obj();
        b.AffinityTerm(Rand(2) == 0 ? Kind::kRequiredAffinity : Kind::kRequiredAntiAffinity, t);
        break;
      }
      default:
        break;  // no terms
    }
    return w().Info(b.Obj());
  }

  std::mt19937 rng_;
  Cluster cluster;
  std::vector<framework::NodeInfo*> nodes;

 private:
  int next_node_ = 0;
  int next_pod_ = 0;
};

std::string Describe(const framework::Status& s) {
  return std::string(framework::CodeName(s.code())) + ":" + s.Message();
}

TEST(InterPodAffinityIncrementalTest, MatchesFreshComputationUnderChurn) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    World world(seed);
    world.cluster.AddTeamNamespaces();
    for (int i = 0; i < 24; ++i) world.AddNode();
    auto& h = world.cluster.handle();
    for (int i = 0; i < 40; ++i) {
      world.nodes[static_cast<size_t>(world.Rand(24))]->AddPod(&world.Pod(false));
    }
    h.SetNodes(world.nodes);

    InterPodAffinityArgs args;
    auto inc = InterPodAffinity::New(&args, h).value();
    auto fresh = InterPodAffinity::New(&args, h).value();
    auto& p_inc = dynamic_cast<InterPodAffinity&>(*inc);
    auto& p_fresh = dynamic_cast<InterPodAffinity&>(*fresh);
    p_inc.SetIncrementalForTesting(true, /*direct_scan_limit=*/0);  // always through the caches
    p_fresh.SetIncrementalForTesting(false);

    for (int step = 0; step < 150; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const framework::PodInfo& pod = world.Pod(true);
      framework::CycleState s_inc, s_fresh;
      framework::PreFilterResult r;
      const auto& snap = h.snapshot();
      framework::Status a = p_inc.PreFilter(s_inc, 0, pod, snap, &r);
      framework::Status b = p_fresh.PreFilter(s_fresh, 0, pod, snap, &r);
      ASSERT_EQ(Describe(a), Describe(b));
      if (a.ok()) {
        if (world.Rand(3) == 0) {
          const framework::PodInfo& extra = world.Pod(false);
          const framework::NodeInfo& on =
              *world.nodes[static_cast<size_t>(world.Rand(static_cast<int>(world.nodes.size())))];
          const bool add = world.Rand(2) == 0;
          auto* ext_inc = p_inc.PreFilterExtensions();
          auto* ext_fresh = p_fresh.PreFilterExtensions();
          ASSERT_TRUE((add ? ext_inc->AddPod(s_inc, pod, extra, on)
                           : ext_inc->RemovePod(s_inc, pod, extra, on))
                          .ok());
          ASSERT_TRUE((add ? ext_fresh->AddPod(s_fresh, pod, extra, on)
                           : ext_fresh->RemovePod(s_fresh, pod, extra, on))
                          .ok());
        }
        for (const auto* n : snap.nodes()) {
          ASSERT_EQ(Describe(p_inc.Filter(s_inc, 0, pod, *n)),
                    Describe(p_fresh.Filter(s_fresh, 0, pod, *n)))
              << world.w().in.Str(n->name());
        }
      }
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
      }

      // Churn (the snapshot's affinity lists follow through SetNodes).
      const size_t n_nodes = world.nodes.size();
      auto* node = world.nodes[static_cast<size_t>(world.Rand(static_cast<int>(n_nodes)))];
      switch (world.Rand(9)) {
        case 0:
        case 1:
        case 2:
          node->AddPod(world.Rand(2) == 0 ? &pod : &world.Pod(false));
          break;
        case 3:
          if (!node->pods().empty()) {
            node->RemovePod(node->pods()[static_cast<size_t>(
                world.Rand(static_cast<int>(node->pods().size())))]);
          }
          break;
        case 4:
          world.RelabelNode(const_cast<api::Node&>(*node->node()));
          node->SetNode(node->node());
          break;
        case 5:
          world.AddNode();
          break;
        case 6:
          if (n_nodes > 4)
            world.nodes.erase(world.nodes.begin() + world.Rand(static_cast<int>(n_nodes)));
          break;
        case 7: {
          // A namespace's labels change while no node does.
          api::Namespace* ns = world.cluster.MutableNamespace(World::kNamespaces[world.Rand(3)]);
          ns->meta.labels = api::LabelSet();
          static const char* kTeams[] = {"team1", "team2", ""};
          if (const char* team = kTeams[world.Rand(3)]; *team != '\0')
            ns->meta.labels.Set(world.w().S("team"), world.w().S(team));
          break;
        }
        default:
          break;
      }
      h.SetNodes(world.nodes);
    }
  }
}

}  // namespace
}  // namespace corral::plugins::inter_pod_affinity
