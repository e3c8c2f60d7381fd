#include "corral/pipeline/fit_error.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

// kube's TestFitError_Error shape: counts first, parts sorted bytewise.
TEST(FitErrorTest, HistogramSortedBytewiseForAnyNoun) {
  const std::map<std::string, int> counts = {{"Insufficient cpu", 2}, {"node(s) were tainted", 10}};
  std::string msg = NoneAvailable(12, "nodes");
  AppendReasonHistogram(counts, msg);
  EXPECT_EQ(msg, "0/12 nodes are available: 10 node(s) were tainted, 2 Insufficient cpu.");
  std::string fleet = NoneAvailable(3, "clusters");
  AppendReasonHistogram(std::map<std::string, int>{{"cluster(s) were full", 3}}, fleet);
  EXPECT_EQ(fleet, "0/3 clusters are available: 3 cluster(s) were full.");
  std::string empty = NoneAvailable(0, "nodes");
  AppendReasonHistogram(std::map<std::string, int>{}, empty);
  EXPECT_EQ(empty, "0/0 nodes are available:");
}

}  // namespace
}  // namespace corral::pipeline
