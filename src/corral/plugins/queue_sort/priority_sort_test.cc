#include "corral/plugins/queue_sort/priority_sort.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using std::chrono::seconds;

// Cases of kube's queuesort TestLess.
TEST(PrioritySortTest, LessOrdersByPriorityThenTimestamp) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto made = PrioritySort::New(nullptr, h);
  ASSERT_TRUE(made.ok());
  const auto& pl = dynamic_cast<const framework::QueueSortPlugin&>(**made);

  const int32_t low = 10, high = 100;
  const TimePoint t0{};
  const TimePoint t1 = t0 + seconds(1);
  struct Case {
    std::string name;
    int32_t p1, p2;
    TimePoint ts1, ts2;
    bool want;
  };
  const Case cases[] = {
      {"p1.priority less than p2.priority", low, high, t0, t0, false},
      {"p1.priority greater than p2.priority", high, low, t0, t0, true},
      {"equal priority. p1 is added to schedulingQ earlier than p2", high, high, t0, t1, true},
      {"equal priority. p2 is added to schedulingQ earlier than p1", high, high, t1, t0, false},
      {"equal priority and timestamp", high, high, t0, t0, false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto& a = w.Info(w.Pod("p1").Priority(tc.p1).Obj());
    auto& b = w.Info(w.Pod("p2").Priority(tc.p2).Obj());
    EXPECT_EQ(pl.Less({&a, tc.ts1}, {&b, tc.ts2}), tc.want);
  }
}

TEST(PrioritySortTest, RejectsArgs) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  framework::PluginArgs args;
  auto made = PrioritySort::New(&args, h);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message, "PrioritySort takes no args");
}

}  // namespace
}  // namespace corral::plugins
