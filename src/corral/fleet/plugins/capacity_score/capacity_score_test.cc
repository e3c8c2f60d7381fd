#include "corral/fleet/plugins/capacity_score/capacity_score.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// Corral's rows (the KEP defines no formula): kube's LeastAllocated over the cluster's summary,
// free × 100 / allocatable per requested resource, averaged with integer division.
TEST(CapacityScoreTest, LeastAllocatedOverTheSummary) {
  Interner in = api::NewInterner();
  const Symbol gpu = in.Intern("nvidia.com/gpu");
  using api::Quantity;
  struct Row {
    std::string name;
    api::ResourceList allocatable, allocated, allocating, request;
    int64_t want;
  };
  const Row rows[] = {
      {"cpu only: (10000 - 2000 - 1000 - 1000) * 100 / 10000",
       {{api::wk::kCpu, Quantity::FromMilli(10000)}},
       {{api::wk::kCpu, Quantity::FromMilli(2000)}},
       {{api::wk::kCpu, Quantity::FromMilli(1000)}},
       {{api::wk::kCpu, Quantity::FromMilli(1000)}},
       60},
      {"cpu 60 and gpu (16 - 8 - 4) * 100 / 16 = 25: (60 + 25) / 2",
       {{api::wk::kCpu, Quantity::FromMilli(10000)}, {gpu, Quantity::FromInt(16)}},
       {{api::wk::kCpu, Quantity::FromMilli(2000)}, {gpu, Quantity::FromInt(8)}},
       {{api::wk::kCpu, Quantity::FromMilli(1000)}},
       {{api::wk::kCpu, Quantity::FromMilli(1000)}, {gpu, Quantity::FromInt(4)}},
       42},
      {"over-committed resource scores 0",
       {{api::wk::kCpu, Quantity::FromMilli(1000)}},
       {{api::wk::kCpu, Quantity::FromMilli(900)}},
       {},
       {{api::wk::kCpu, Quantity::FromMilli(200)}},
       0},
      {"a resource the cluster lacks is not counted",
       {{api::wk::kCpu, Quantity::FromMilli(1000)}},
       {},
       {},
       {{api::wk::kCpu, Quantity::FromMilli(500)}, {gpu, Quantity::FromInt(1)}},
       50},
      {"nothing requested scores 0", {{api::wk::kCpu, Quantity::FromMilli(1000)}}, {}, {}, {}, 0},
  };
  for (const Row& row : rows) {
    api::Cluster c;
    c.resource_summary = api::ResourceSummary{row.allocatable, row.allocated, row.allocating, {}};
    api::FleetWork work;
    work.replica_requirements.emplace();
    work.replica_requirements->resource_request = row.request;
    EXPECT_EQ(CapacityScore().Score(work, c), row.want) << row.name;
  }
  // No summary: 0; NormalizeScore keeps the raw scores.
  api::FleetWork work;
  work.replica_requirements.emplace();
  work.replica_requirements->resource_request = {{api::wk::kCpu, Quantity::FromMilli(1)}};
  EXPECT_EQ(CapacityScore().Score(work, api::Cluster{}), 0);
  std::vector<int64_t> scores = {60, 42, 0};
  CapacityScore().NormalizeScore(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{60, 42, 0}));
}

}  // namespace
}  // namespace corral::fleet
