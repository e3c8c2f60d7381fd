// kube's PlacementBinPacking placement scorer (default MostAllocated, cpu + memory weight 1),
// checked against the cases of kube's placement_bin_packing_test.go that apply to the
// default strategy.

#include "corral/scheduler/placement_score.h"

#include <gtest/gtest.h>

namespace corral::scheduler {
namespace {

TEST(PlacementBinPackingScoreTest, MeanOfPerResourceUtilizationOverTheDomain) {
  // Two 5000m / 5000 nodes; members 1000m/0 and 2000m/2000: cpu 30, memory 20 → 25.
  EXPECT_EQ(PlacementBinPackingScore({.requested_milli_cpu = 3000,
                                      .allocatable_milli_cpu = 10000,
                                      .requested_memory = 2000,
                                      .allocatable_memory = 10000}),
            25);
  // The same with a pre-existing 1000m pod in the domain: cpu 40, memory 20 → 30.
  EXPECT_EQ(PlacementBinPackingScore({.requested_milli_cpu = 4000,
                                      .allocatable_milli_cpu = 10000,
                                      .requested_memory = 2000,
                                      .allocatable_memory = 10000}),
            30);
  // Nodes of 100m/100, 200m/200, 300m/300; members 100m/0 and 200m/60: cpu 50, memory 10 → 30.
  EXPECT_EQ(PlacementBinPackingScore({.requested_milli_cpu = 300,
                                      .allocatable_milli_cpu = 600,
                                      .requested_memory = 60,
                                      .allocatable_memory = 600}),
            30);
}

TEST(PlacementBinPackingScoreTest, IntegerArithmeticClampAndSkippedResources) {
  // Per-resource scores truncate before the mean: cpu 1/3 → 33, memory 2/3 → 66; (33 + 66) / 2
  // = 49.
  EXPECT_EQ(PlacementBinPackingScore({.requested_milli_cpu = 1,
                                      .allocatable_milli_cpu = 3,
                                      .requested_memory = 2,
                                      .allocatable_memory = 3}),
            49);
  // Requests above capacity (non-zero defaults) count as full.
  EXPECT_EQ(PlacementMostRequestedScore(5000, 4000), 100);
  // A resource without capacity is skipped, not scored 0.
  EXPECT_EQ(PlacementBinPackingScore({.requested_milli_cpu = 500, .allocatable_milli_cpu = 1000}),
            50);
  EXPECT_EQ(PlacementBinPackingScore({}), 0);
}

}  // namespace
}  // namespace corral::scheduler
