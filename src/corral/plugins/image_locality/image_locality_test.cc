#include "corral/plugins/image_locality/image_locality.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

constexpr int64_t kMb = 1024 * 1024;

// A node's images: (names, size).
using Images = std::vector<std::pair<std::vector<std::string>, int64_t>>;

struct Case {
  std::string name;
  std::vector<std::string> containers;
  std::vector<std::string> inits;
  std::vector<Images> nodes;
  std::vector<int64_t> want;
};

std::vector<int64_t> RunScores(const Case& c, bool run_pre_score) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  std::vector<framework::NodeInfo*> infos;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    api::Node& n = w.Node("node" + std::to_string(i + 1)).Obj();
    for (const auto& [names, size] : c.nodes[i]) {
      api::ContainerImage img;
      for (const std::string& name : names) img.names.push_back(w.S(name));
      img.size_bytes = size;
      n.images.push_back(std::move(img));
    }
    infos.push_back(&w.NodeWith(n));
  }
  h.SetNodes(infos);
  testing::PodBuilder b = w.Pod("pod");
  for (const std::string& image : c.inits) b.InitImage(image);
  for (const std::string& image : c.containers) b.Req({}, image);
  framework::PodInfo& pod = w.Info(b.Obj());
  auto plugin = ImageLocality::New(nullptr, h);
  EXPECT_TRUE(plugin.ok());
  auto* il = dynamic_cast<ImageLocality*>(plugin->get());
  framework::CycleState state;
  if (run_pre_score) {
    EXPECT_TRUE(il->PreScore(state, 0, pod, h.snapshot().nodes()).ok());
  }
  std::vector<int64_t> scores;
  for (const framework::NodeInfo* n : h.snapshot().nodes()) {
    int64_t score = -1;
    EXPECT_TRUE(il->Score(state, 0, pod, *n, &score).ok());
    scores.push_back(score);
  }
  return scores;
}

// kube's TestImageLocalityPriority. Each image's contribution is size * (nodes with it / all
// nodes); the sum is clamped to [23MB, 1000MB * containers] and scaled: 100 * (sum - 23MB) /
// (1000MB * n - 23MB).
TEST(ImageLocalityTest, MatchesKube) {
  const Images node403002000 = {{{"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40 * kMb},
                                {{"gcr.io/300:latest", "gcr.io/300:v1"}, 300 * kMb},
                                {{"gcr.io/2000:latest"}, 2000 * kMb}};
  const Images node25010 = {{{"gcr.io/250:latest"}, 250 * kMb},
                            {{"gcr.io/10:latest", "gcr.io/10:v1"}, 10 * kMb}};
  const Images node60040900 = {{{"gcr.io/600:latest"}, 600 * kMb},
                               {{"gcr.io/40:latest"}, 40 * kMb},
                               {{"gcr.io/900:latest"}, 900 * kMb}};
  const Images node300600900 = {{{"gcr.io/300:latest"}, 300 * kMb},
                                {{"gcr.io/600:latest"}, 600 * kMb},
                                {{"gcr.io/900:latest"}, 900 * kMb}};
  const Images node400030 = {{{"gcr.io/4000:latest"}, 4000 * kMb},
                             {{"gcr.io/30:latest"}, 30 * kMb}};
  const Images node203040 = {{{"gcr.io/20:latest"}, 20 * kMb},
                             {{"gcr.io/30:latest"}, 30 * kMb},
                             {{"gcr.io/40:latest"}, 40 * kMb}};
  const Images none = {};
  const Case cases[] = {
      // node1: 40MB * 1/2 = 20MB < 23MB -> 0.
      // node2: 250MB * 1/2 = 125MB: 100 * (125MB - 23MB) / (2000MB - 23MB) = 5.
      {"two_images_spread_on_two_nodes_prefer_the_larger_image_one",
       {"gcr.io/40", "gcr.io/250"},
       {},
       {node403002000, node25010},
       {0, 5}},
      // node1: (40MB + 300MB) * 1/2 = 170MB: 100 * (170 - 23) / (2000 - 23) = 7. node2: nothing
      // -> 0.
      {"two_images_on_one_node_prefer_this_node",
       {"gcr.io/40", "gcr.io/300"},
       {},
       {node403002000, node25010},
       {7, 0}},
      // node1: 4000MB * 1/2 = 2000MB >= 1000MB * 2 -> 100. node2: 10MB * 1/2 < 23MB -> 0.
      {"if_exceed_limit_use_limit",
       {"gcr.io/10", "gcr.io/4000"},
       {},
       {node400030, node25010},
       {100, 0}},
      // node1: 4000MB * 1/3 = 1333MB: 100 * (1333 - 23) / (2000 - 23) = 66. node2: 10MB/3 -> 0.
      // node3: 0.
      {"if_exceed_limit_use_limit_with_node_which_has_no_images_present",
       {"gcr.io/10", "gcr.io/4000"},
       {},
       {node400030, node25010, none},
       {66, 0, 0}},
      // 600 and 900 are on 2 of 3 nodes, 300 on 1 of 3.
      // node1: 600MB * 2/3 + 900MB * 2/3 = 1000MB: 100 * (1000 - 23) / (3000 - 23) = 32.
      // node2: 300MB * 1/3 + 1000MB = 1100MB: 100 * (1100 - 23) / (3000 - 23) = 36.
      {"pod_with_multiple_large_images_node2_is_preferred",
       {"gcr.io/300", "gcr.io/600", "gcr.io/900"},
       {},
       {node60040900, node300600900, none},
       {32, 36, 0}},
      // node1: 30MB * 2/2 + 40MB * 1/2 = 50MB: 100 * (50 - 23) / (2000 - 23) = 1.
      // node2: 30MB: 100 * (30 - 23) / (2000 - 23) = 0.
      {"pod_with_multiple_small_images",
       {"gcr.io/30", "gcr.io/40"},
       {},
       {node203040, node400030},
       {1, 0}},
      // Init containers count: node1: 300MB * 1/2 = 150MB: 100 * (150 - 23) / (2000 - 23) = 6.
      // node2: 30MB * 1/2 = 15MB < 23MB -> 0.
      {"include_init_containers",
       {"gcr.io/30"},
       {"gcr.io/300"},
       {node403002000, node203040},
       {6, 0}},
      // A tag or digest is kept as given: gcr.io/40:v1 matches node1's second name.
      // node1: 40MB * 1/2 + 300MB * 1/2 = 170MB -> 7.
      {"tagged_images_match_by_tag",
       {"gcr.io/40:v1", "gcr.io/300:v1"},
       {},
       {node403002000, node25010},
       {7, 0}},
  };
  for (const Case& c : cases) {
    for (bool run_pre_score : {true, false}) {
      SCOPED_TRACE(c.name + (run_pre_score ? "" : "_without_prescore"));
      EXPECT_EQ(RunScores(c, run_pre_score), c.want);
    }
  }
}

// kube's TestNormalizedImageName.
TEST(ImageLocalityTest, NormalizedImageName) {
  const std::string digest =
      "sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
  EXPECT_EQ(ImageLocality::NormalizedImageName("root"), "root:latest");
  EXPECT_EQ(ImageLocality::NormalizedImageName("gcr.io:5000/root"), "gcr.io:5000/root:latest");
  EXPECT_EQ(ImageLocality::NormalizedImageName("root:tag"), "root:tag");
  EXPECT_EQ(ImageLocality::NormalizedImageName("root@" + digest), "root@" + digest);
  EXPECT_EQ(ImageLocality::NormalizedImageName(""), ":latest");
}

TEST(ImageLocalityTest, CalculatePriority) {
  EXPECT_EQ(ImageLocality::CalculatePriority(0, 1), 0);
  EXPECT_EQ(ImageLocality::CalculatePriority(5000 * kMb, 1), 100);
  // 100 * (500MB - 23MB) / (1000MB - 23MB) = 48.
  EXPECT_EQ(ImageLocality::CalculatePriority(500 * kMb, 1), 48);
  // A pod without containers scores 0 everywhere.
  EXPECT_EQ(ImageLocality::CalculatePriority(0, 0), 0);
}

TEST(ImageLocalityTest, SignUsesSortedCanonicalNames) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto plugin = ImageLocality::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  framework::PodInfo& pod = w.Info(w.Pod("p")
                                       .InitImage("init")
                                       .Req({}, "gcr.io/b:v1")
                                       .Req({}, "gcr.io/a")
                                       .Req({}, "gcr.io/a")
                                       .Obj());
  std::vector<framework::SignFragment> fragments;
  ASSERT_TRUE(dynamic_cast<framework::SignPlugin*>(plugin->get())->Sign(pod, &fragments).ok());
  ASSERT_EQ(fragments.size(), 1u);
  EXPECT_EQ(fragments[0].key, "v1.Pod.Spec.CanonicalImageNames()");
  EXPECT_EQ(fragments[0].value,
            R"(["gcr.io/a:latest","gcr.io/a:latest","gcr.io/b:v1","init:latest"])");
}

TEST(ImageLocalityTest, RejectsArgs) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  struct SomeArgs : framework::PluginArgs {};
  const SomeArgs args;
  EXPECT_FALSE(ImageLocality::New(&args, h).ok());
}

}  // namespace
}  // namespace corral::plugins
