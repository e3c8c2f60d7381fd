// NumFeasibleNodesToFind, the filter pass's stopping rule. The cases are kube's
// TestNumFeasibleNodesToFind (pkg/scheduler/schedule_one_test.go) with their expected values; the
// profile's percentage, when set, wins over the global one (the caller passes the one in effect).

#include "corral/scheduler/filter_pass.h"

#include <gtest/gtest.h>

namespace corral::scheduler {
namespace {

TEST(FilterPassTest, NumFeasibleNodesToFind) {
  struct Case {
    const char* name;
    std::optional<int32_t> global, profile;
    int32_t num_nodes, want;
  };
  const Case cases[] = {
      {"not set percentageOfNodesToScore and nodes number not more than 50", {}, {}, 10, 10},
      {"set profile percentageOfNodesToScore and nodes number not more than 50", {}, 40, 10, 10},
      {"not set percentageOfNodesToScore and nodes number more than 50", {}, {}, 1000, 420},
      {"set profile percentageOfNodesToScore and nodes number more than 50", {}, 40, 1000, 400},
      {"set global and profile percentageOfNodesToScore and nodes number more than 50", 100, 40,
       1000, 400},
      {"set global percentageOfNodesToScore and nodes number more than 50", 40, {}, 1000, 400},
      {"not set profile percentageOfNodesToScore and nodes number more than 50*125",
       {},
       {},
       6000,
       300},
      {"set profile percentageOfNodesToScore and nodes number more than 50*125",
       {},
       40,
       6000,
       2400},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::optional<int32_t> in_effect = c.profile.has_value() ? c.profile : c.global;
    EXPECT_EQ(NumFeasibleNodesToFind(in_effect, c.num_nodes), c.want);
  }
}

}  // namespace
}  // namespace corral::scheduler
