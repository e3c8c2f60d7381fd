// NodeContributions refreshed through the generation log (only the NodeInfos changed since the
// previous refresh are checked) against a from-scratch derivation over every node: random clusters
// of a cluster cache that change between refreshes (pods assumed and removed, nodes relabelled,
// added and removed, long stretches without a refresh, changes on another thread) must give the
// same aggregate and the same group summaries.

#include "corral/plugins/incremental/node_contributions.h"

#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "corral/framework/node_generation_log.h"
#include "corral/state/cluster_cache.h"

#include "test/testing/builders.h"

namespace corral::plugins::incremental {
namespace {

using testing::TestWorld;

constexpr int64_t kNone = -1;

class World {
 public:
  explicit World(uint32_t seed) : rng_(seed) {}

  TestWorld w;
  state::ClusterCache cache;
  std::vector<Symbol> node_names;
  std::vector<const framework::PodInfo*> placed;

  int Rand(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // A node object for `name` with a random zone (or none); re-adding a name relabels the node.
  void PutNode(const std::string& name) {
    auto b = w.Node(name);
    if (Rand(8) != 0) b.Label("zone", "z" + std::to_string(Rand(4)));
    cache.AddNode(&b.Obj());
  }
  void AddNode() {
    const std::string name = "node-" + std::to_string(next_node_++);
    PutNode(name);
    node_names.push_back(w.S(name));
  }
  void AddPod() {
    if (node_names.empty()) return;
    auto b = w.Pod("p-" + std::to_string(next_pod_++));
    if (Rand(2) == 0) b.Label("app", "a");
    const framework::PodInfo& info = w.Info(b.Obj());
    cache.AddPod(&info, node_names[static_cast<size_t>(Rand(static_cast<int>(node_names.size())))],
                 /*assumed=*/Rand(2) == 0);
    placed.push_back(&info);
  }
  void RemovePod() {
    if (placed.empty()) return;
    const size_t i = static_cast<size_t>(Rand(static_cast<int>(placed.size())));
    ASSERT_TRUE(cache.RemovePod(placed[i]));
    placed.erase(placed.begin() + static_cast<std::ptrdiff_t>(i));
  }
  void Mutate() {
    switch (Rand(12)) {
      case 0:
        AddNode();
        break;
      case 1:
        if (node_names.size() > 1) {
          const size_t i = static_cast<size_t>(Rand(static_cast<int>(node_names.size())));
          cache.RemoveNode(node_names[i]);
          node_names.erase(node_names.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      case 2:
        if (!node_names.empty()) {
          PutNode(std::string(w.in.Str(
              node_names[static_cast<size_t>(Rand(static_cast<int>(node_names.size())))])));
        }
        break;
      case 3:
      case 4:
      case 5:
        RemovePod();
        break;
      default:
        AddPod();
    }
  }

  // Group 0: pods labelled app=a per zone; group 1: every pod per node, keyed by its name.
  auto Derive() {
    return [this](const framework::NodeInfo& node, Contribution* out) {
      const Symbol* zone = node.labels().Find(w.S("zone"));
      if (zone == nullptr) return;
      int64_t a = 0;
      for (const framework::PodInfo* p : node.pods()) {
        const Symbol* app = p->pod->meta.labels.Find(w.S("app"));
        a += app != nullptr && *app == w.S("a") ? 1 : 0;
      }
      out->push_back({zone->id(), a});
      out->push_back(
          {(uint64_t{1} << 32) | node.name().id(), static_cast<int64_t>(node.pods().size())});
    };
  }

 private:
  std::mt19937 rng_;
  int next_node_ = 0;
  int next_pod_ = 0;
};

std::map<uint64_t, std::pair<int64_t, int32_t>> Sorted(const Aggregate& a) {
  std::map<uint64_t, std::pair<int64_t, int32_t>> out;
  for (const auto& [key, v] : a) out[key] = {v.count, v.refs};
  return out;
}

void ExpectSame(NodeContributions& journaled, World& world, int step) {
  const framework::Snapshot& snapshot = world.cache.snapshot();
  std::shared_ptr<const Aggregate> got = journaled.Refresh(snapshot.nodes(), world.Derive());
  NodeContributions fresh;
  fresh.set_check_every_node(true);
  fresh.EnableGroupSummaries();
  std::shared_ptr<const Aggregate> want = fresh.Refresh(snapshot.nodes(), world.Derive());
  ASSERT_EQ(Sorted(*got), Sorted(*want)) << "step " << step;
  for (uint32_t g = 0; g < 3; ++g) {
    EXPECT_EQ(journaled.GroupKeys(g), fresh.GroupKeys(g)) << "step " << step << " group " << g;
    EXPECT_EQ(journaled.GroupMinCount(g, kNone), fresh.GroupMinCount(g, kNone))
        << "step " << step << " group " << g;
  }
}

TEST(NodeContributionsJournalTest, MatchesAFreshDerivationUnderRandomChanges) {
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    SCOPED_TRACE(seed);
    World world(seed);
    for (int i = 0; i < 12; ++i) world.AddNode();
    NodeContributions journaled;
    journaled.EnableGroupSummaries();
    std::shared_ptr<const Aggregate> held;  // an earlier aggregate a caller still holds
    for (int step = 0; step < 300; ++step) {
      const int changes = world.Rand(4);
      for (int k = 0; k < changes; ++k) world.Mutate();
      ExpectSame(journaled, world, step);
      if (world.Rand(3) == 0) {
        held = journaled.Refresh(world.cache.snapshot().nodes(), world.Derive());
      }
    }
  }
}

TEST(NodeContributionsJournalTest, ALogThatNoLongerReachesBackChecksEveryNode) {
  World world(7);
  for (int i = 0; i < 4; ++i) world.AddNode();
  NodeContributions journaled;
  journaled.EnableGroupSummaries();
  ExpectSame(journaled, world, 0);
  // More changes than the log keeps (4096): the next refresh falls back to checking every node.
  for (int k = 0; k < 6000; ++k) {
    if (k % 2 == 0) {
      world.AddPod();
    } else {
      world.RemovePod();
    }
  }
  ExpectSame(journaled, world, 1);
}

TEST(NodeContributionsJournalTest, EnablingSummariesLateCountsWhatIsAlreadyAggregated) {
  World world(8);
  for (int i = 0; i < 6; ++i) world.AddNode();
  for (int i = 0; i < 20; ++i) world.AddPod();
  NodeContributions late;
  (void)late.Refresh(world.cache.snapshot().nodes(), world.Derive());
  late.EnableGroupSummaries();
  ExpectSame(late, world, 0);
}

TEST(NodeContributionsJournalTest, AChangeOnAnotherThreadChecksEveryNode) {
  World world(9);
  for (int i = 0; i < 5; ++i) world.AddNode();
  for (int i = 0; i < 10; ++i) world.AddPod();
  NodeContributions journaled;
  journaled.EnableGroupSummaries();
  ExpectSame(journaled, world, 0);
  // A pod placed by another thread: this thread's log misses that generation.
  std::thread other([&] { world.AddPod(); });
  other.join();
  world.AddPod();
  ExpectSame(journaled, world, 1);
}

TEST(NodeGenerationLogTest, NamesTheNodesThisThreadChanged) {
  World world(10);
  world.AddNode();
  world.AddNode();
  const uint64_t since = framework::LatestNodeGeneration();
  world.AddPod();
  world.AddPod();
  const uint64_t upto = framework::LatestNodeGeneration();
  std::vector<const framework::NodeInfo*> changed;
  ASSERT_TRUE(framework::NodesChangedOnThisThread(since, upto, &changed));
  ASSERT_EQ(changed.size(), 2u);
  for (const framework::NodeInfo* n : changed) {
    EXPECT_TRUE(n == world.cache.GetNode(world.node_names[0]) ||
                n == world.cache.GetNode(world.node_names[1]));
  }
  EXPECT_TRUE(framework::NodesChangedOnThisThread(upto, upto, &changed));
  EXPECT_TRUE(changed.empty());
  std::thread other([&] { world.AddPod(); });
  other.join();
  EXPECT_FALSE(
      framework::NodesChangedOnThisThread(upto, framework::LatestNodeGeneration(), &changed));
}

}  // namespace
}  // namespace corral::plugins::incremental
