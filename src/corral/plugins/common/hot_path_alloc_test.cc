// The per-node hot paths (Filter, Score) of NodeName, NodeUnschedulable, TaintToleration, NodePorts
// and NodeAffinity must not allocate, on the success path or when they reject with their literal
// reasons. Allocations are counted by test/testing/alloc_counter.h.

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/node_affinity/node_affinity.h"
#include "corral/plugins/node_name/node_name.h"
#include "corral/plugins/node_ports/node_ports.h"
#include "corral/plugins/node_unschedulable/node_unschedulable.h"
#include "corral/plugins/taint_toleration/taint_toleration.h"

#include "test/testing/alloc_counter.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using api::NodeSelectorOp;
using api::TaintEffect;
using api::TolerationOp;

using testing::Allocations;

class HotPathAllocTest : public ::testing::Test {
 protected:
  std::unique_ptr<framework::Plugin> Make(Result<std::unique_ptr<framework::Plugin>> (*factory)(
                                              const framework::PluginArgs*, framework::Handle&),
                                          const framework::PluginArgs* args = nullptr) {
    auto made = factory(args, h_);
    EXPECT_TRUE(made.ok());
    return std::move(*made);
  }

  // A pod with tolerations, host ports, a node selector, required and preferred node affinity.
  api::Pod& BusyPod() {
    auto& pod =
        w_.Pod("busy")
            .Toleration("dedicated", "batch", TolerationOp::kEqual, TaintEffect::kNoSchedule)
            .Toleration("soft", "", TolerationOp::kExists, TaintEffect::kPreferNoSchedule)
            .HostPort(8080)
            .HostPort(53, api::Protocol::kUDP, "10.0.0.1")
            .NodeSelector("disk", "ssd")
            .Obj();
    api::NodeSelectorTerm t1;
    t1.match_expressions.push_back({w_.S("zone"), NodeSelectorOp::kIn, {w_.S("a"), w_.S("b")}});
    t1.match_expressions.push_back({w_.S("kernel"), NodeSelectorOp::kGt, {w_.S("5")}});
    t1.match_expressions.push_back({w_.S("gpu"), NodeSelectorOp::kNotIn, {w_.S("none")}});
    api::NodeSelectorTerm t2;
    t2.match_fields.push_back({w_.S("metadata.name"), NodeSelectorOp::kNotIn, {w_.S("other")}});
    t2.match_expressions.push_back({w_.S("zone"), NodeSelectorOp::kExists, {}});
    pod.affinity = api::Affinity{};
    pod.affinity->node_affinity = api::NodeAffinity{};
    pod.affinity->node_affinity->required = api::NodeSelector{{t1, t2}};
    pod.affinity->node_affinity->preferred = {{7, t1}, {3, t2}};
    return pod;
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
};

TEST_F(HotPathAllocTest, FilterAndScoreDoNotAllocate) {
  auto& pod = w_.Info(BusyPod());
  // Node `fits` passes every filter; node `rejects` fails each plugin.
  auto& other = w_.Pod("other").HostPort(9090).Obj();
  auto& fits = w_.NodeWith(w_.Node("fits")
                               .Label("zone", "a")
                               .Label("kernel", "6")
                               .Label("disk", "ssd")
                               .Taint("dedicated", "batch", TaintEffect::kNoSchedule)
                               .Taint("soft", "x", TaintEffect::kPreferNoSchedule)
                               .Taint("hard", "y", TaintEffect::kPreferNoSchedule)
                               .Obj(),
                           {&other});
  auto& taken = w_.Pod("taken").HostPort(8080).Obj();
  auto& rejects = w_.NodeWith(w_.Node("rejects")
                                  .Label("zone", "c")
                                  .Unschedulable()
                                  .Taint("gone", "", TaintEffect::kNoExecute)
                                  .Obj(),
                              {&taken});
  const std::vector<const framework::NodeInfo*> nodes = {&fits, &rejects};

  std::vector<std::unique_ptr<framework::Plugin>> plugins;
  plugins.push_back(Make(&NodeName::New));
  plugins.push_back(Make(&NodeUnschedulable::New));
  plugins.push_back(Make(&TaintToleration::New));
  plugins.push_back(Make(&NodePorts::New));
  NodeAffinityArgs args;
  args.added_affinity = api::NodeAffinity{};
  api::NodeSelectorTerm added;
  added.match_expressions.push_back({w_.S("zone"), NodeSelectorOp::kExists, {}});
  args.added_affinity->preferred = {{2, added}};
  plugins.push_back(Make(&NodeAffinity::New, &args));

  // Per-cycle work (may allocate).
  framework::CycleState state;
  for (size_t i = 0; i < plugins.size(); ++i) {
    if (auto* pf = dynamic_cast<framework::PreFilterPlugin*>(plugins[i].get())) {
      framework::PreFilterResult result;
      ASSERT_TRUE(pf->PreFilter(state, i, pod, h_.snapshot(), &result).ok()) << plugins[i]->Name();
    }
    if (auto* ps = dynamic_cast<framework::PreScorePlugin*>(plugins[i].get())) {
      ASSERT_TRUE(ps->PreScore(state, i, pod, nodes).ok()) << plugins[i]->Name();
    }
  }

  size_t passed = 0, rejected = 0;
  int64_t total = 0;
  const size_t allocations = Allocations([&] {
    for (int iter = 0; iter < 50; ++iter) {
      for (size_t i = 0; i < plugins.size(); ++i) {
        const auto* f = dynamic_cast<const framework::FilterPlugin*>(plugins[i].get());
        if (f != nullptr) {
          passed += f->Filter(state, i, pod, fits).ok() ? 1 : 0;
          rejected += f->Filter(state, i, pod, rejects).ok() ? 0 : 1;
        }
        const auto* s = dynamic_cast<const framework::ScorePlugin*>(plugins[i].get());
        if (s != nullptr) {
          int64_t score = 0;
          if (s->Score(state, i, pod, fits, &score).ok()) total += score;
        }
      }
    }
  });
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(passed, 50u * 5);
  // NodeName accepts both (the pod names no node); the other four reject `rejects`.
  EXPECT_EQ(rejected, 50u * 4);
  // TaintToleration: 1 untolerated PreferNoSchedule taint ("hard"); NodeAffinity: 7 + 3 + 2 = 12.
  EXPECT_EQ(total, 50 * (1 + 12));
}

}  // namespace
}  // namespace corral::plugins
