#include "corral/plugins/scheduling_gates/scheduling_gates.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;

class SchedulingGatesTest : public ::testing::Test {
 protected:
  SchedulingGates& Plugin() {
    if (!plugin_) {
      auto made = SchedulingGates::New(nullptr, h_);
      EXPECT_TRUE(made.ok());
      plugin_ = std::move(*made);
    }
    return dynamic_cast<SchedulingGates&>(*plugin_);
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
  std::unique_ptr<framework::Plugin> plugin_;
};

// kube's TestPreEnqueue.
TEST_F(SchedulingGatesTest, PodWithoutGatesIsAdmitted) {
  auto& pod = w_.Info(w_.Pod("p").Obj());
  EXPECT_TRUE(Plugin().PreEnqueue(pod).ok());
}

TEST_F(SchedulingGatesTest, PodWithGatesWaitsListingThem) {
  auto& pod = w_.Info(w_.Pod("p").SchedulingGate("foo").SchedulingGate("bar").Obj());
  auto st = Plugin().PreEnqueue(pod);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "waiting for scheduling gates: [foo bar]");
}

TEST_F(SchedulingGatesTest, RegistersPodUpdates) {
  auto events = Plugin().EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].action, framework::ActionType::kUpdate);
}

// kube's Test_isSchedulableAfterUpdatePodSchedulingGatesEliminated.
TEST_F(SchedulingGatesTest, HintQueuesOnlyTheUpdatedPodItself) {
  auto& target = w_.Info(w_.Pod("p").SchedulingGate("foo").Obj());
  const api::Pod& same = w_.Pod("p").Obj();
  const api::Pod& other = w_.Pod("q").Obj();
  const framework::ClusterEvent ev{framework::EventResource::kPod, framework::ActionType::kUpdate};
  EXPECT_EQ(Plugin().Hint(target, ev, &same), QueueingHint::kQueue);
  EXPECT_EQ(Plugin().Hint(target, ev, &other), QueueingHint::kQueueSkip);
  // kube fires UpdatePodSchedulingGatesEliminated only when the last gate goes.
  auto& two = w_.Info(w_.Pod("r").SchedulingGate("foo").SchedulingGate("bar").Obj());
  const api::Pod& one_left = w_.Pod("r").SchedulingGate("bar").Obj();
  EXPECT_EQ(Plugin().Hint(two, ev, &one_left), QueueingHint::kQueueSkip);
}

TEST_F(SchedulingGatesTest, RejectsArgs) {
  framework::PluginArgs args;
  auto made = SchedulingGates::New(&args, h_);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message, "SchedulingGates takes no args");
}

}  // namespace
}  // namespace corral::plugins
