// The per-node hot paths (Filter, Score) must not allocate: 5,000 nodes x 10,000 pods. Allocations
// are counted by test/testing/alloc_counter.h.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/image_locality/image_locality.h"
#include "corral/plugins/node_resources/balanced_allocation.h"
#include "corral/plugins/node_resources/fit.h"
#include "corral/plugins/node_resources/test_util.h"

#include "test/testing/alloc_counter.h"

namespace corral::plugins {
namespace {

using testutil::MakeNode;
using testutil::MakePod;

using testing::Allocations;

class HotPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 64; ++i) {
      // Every other node is too small for the pod (one failing reason: cpu).
      api::Node& n = MakeNode(w_, "node" + std::to_string(i),
                              {{"cpu", i % 2 == 0 ? "8" : "1"},
                               {"memory", "32Gi"},
                               {"example.com/gpu", "4"},
                               {"ephemeral-storage", "100Gi"}});
      n.images.push_back({{w_.S("app:latest")}, 500 * 1024 * 1024});
      api::Pod& running =
          MakePod(w_, "r" + std::to_string(i), {{{"cpu", "500m"}, {"memory", "1Gi"}}});
      nodes_.push_back(&w_.NodeWith(n, {&running}));
    }
    h_.SetNodes(nodes_);
    pod_ = &w_.Info(w_.Pod("pod")
                        .Req({{"cpu", "2"}, {"memory", "2Gi"}, {"example.com/gpu", "1"}}, "app")
                        .Obj());
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
  std::vector<framework::NodeInfo*> nodes_;
  const framework::PodInfo* pod_ = nullptr;
};

TEST(AllocationCounterTest, CountsAllocations) {
  EXPECT_GT(Allocations([] { std::vector<int> v(10); }), 0u);
}

TEST_F(HotPathTest, FitFilterAndScoreDoNotAllocate) {
  for (std::string_view type : {kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio}) {
    NodeResourcesFitArgs args;
    args.scoring_strategy->type = std::string(type);
    args.scoring_strategy->resources.push_back({"example.com/gpu", 2});
    args.scoring_strategy->requested_to_capacity_ratio =
        RequestedToCapacityRatioParam{{{0, 0}, {100, 10}}};
    auto plugin = NodeResourcesFit::New(&args, h_);
    ASSERT_TRUE(plugin.ok());
    auto* fit = dynamic_cast<NodeResourcesFit*>(plugin->get());
    framework::CycleState state;
    ASSERT_TRUE(fit->PreFilter(state, 0, *pod_, h_.snapshot(), nullptr).ok());
    ASSERT_TRUE(fit->PreScore(state, 0, *pod_, h_.snapshot().nodes()).ok());
    int failed = 0;
    int64_t total = 0;
    EXPECT_EQ(Allocations([&] {
                for (const framework::NodeInfo* n : nodes_) {
                  failed += fit->Filter(state, 0, *pod_, *n).ok() ? 0 : 1;
                  int64_t score = 0;
                  (void)fit->Score(state, 0, *pod_, *n, &score);
                  total += score;
                }
              }),
              0u)
        << type;
    EXPECT_EQ(failed, 32);
    EXPECT_GT(total, 0);
  }
}

TEST_F(HotPathTest, BalancedAllocationAndImageLocalityScoreDoNotAllocate) {
  auto ba = NodeResourcesBalancedAllocation::New(nullptr, h_);
  auto il = ImageLocality::New(nullptr, h_);
  ASSERT_TRUE(ba.ok() && il.ok());
  auto* ba_score = dynamic_cast<framework::ScorePlugin*>(ba->get());
  auto* il_score = dynamic_cast<framework::ScorePlugin*>(il->get());
  framework::CycleState state;
  ASSERT_TRUE(dynamic_cast<framework::PreScorePlugin*>(ba->get())
                  ->PreScore(state, 0, *pod_, h_.snapshot().nodes())
                  .ok());
  ASSERT_TRUE(dynamic_cast<framework::PreScorePlugin*>(il->get())
                  ->PreScore(state, 1, *pod_, h_.snapshot().nodes())
                  .ok());
  int64_t total = 0;
  EXPECT_EQ(Allocations([&] {
              for (const framework::NodeInfo* n : nodes_) {
                int64_t score = 0;
                (void)ba_score->Score(state, 0, *pod_, *n, &score);
                total += score;
                (void)il_score->Score(state, 1, *pod_, *n, &score);
                total += score;
              }
            }),
            0u);
  EXPECT_GT(total, 0);
}

}  // namespace
}  // namespace corral::plugins
