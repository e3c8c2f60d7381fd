#pragma once
// Test helpers shared by the node-resources tests (kube's noderesources test_util.go counterparts).

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/framework/cycle_state.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/node_resources/args.h"
#include "corral/plugins/node_resources/fit.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins::testutil {

// Resource pairs that tables can hold (ResourcePairs is an initializer_list).
using Reqs = std::vector<std::pair<std::string, std::string>>;

inline api::ResourceList List(testing::TestWorld& w, const Reqs& reqs) {
  api::ResourceList out;
  for (const auto& [k, v] : reqs) out.emplace_back(w.S(k), w.Q(v));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// A pod already running on node `node` (an index), with one container per entry of `containers`
// (none: the pod requests nothing at all, not even the non-zero defaults).
struct Existing {
  size_t node = 0;
  std::vector<Reqs> containers;
};

// A pod with one container per entry of `containers` and one init container per entry of `inits`.
inline api::Pod& MakePod(testing::TestWorld& w, const std::string& name,
                         const std::vector<Reqs>& containers, const std::vector<Reqs>& inits = {},
                         const Reqs& overhead = {}) {
  api::Pod& p = w.Pod(name).Obj();
  for (const Reqs& r : containers) {
    api::Container c;
    c.name = w.S("c" + std::to_string(p.containers.size()));
    c.resources.requests = List(w, r);
    p.containers.push_back(std::move(c));
  }
  for (const Reqs& r : inits) {
    api::Container c;
    c.name = w.S("i" + std::to_string(p.init_containers.size()));
    c.resources.requests = List(w, r);
    p.init_containers.push_back(std::move(c));
  }
  p.overhead = List(w, overhead);
  return p;
}

// A node whose capacity and allocatable are `resources` plus kube's test default of 32
// pods (st.MakeNode).
inline api::Node& MakeNode(testing::TestWorld& w, const std::string& name, Reqs resources) {
  if (std::none_of(resources.begin(), resources.end(),
                   [](const auto& r) { return r.first == "pods"; })) {
    resources.emplace_back("pods", "32");
  }
  api::Node& n = w.Node(name).Obj();
  n.capacity = List(w, resources);
  n.allocatable = n.capacity;
  return n;
}

// Runs PreScore (optionally) and Score on every node of the handle's snapshot, in order.
inline std::vector<int64_t> ScoreAll(framework::Plugin& plugin, testing::FakeHandle& h,
                                     const framework::PodInfo& pod, bool run_pre_score,
                                     framework::Code want_code = framework::Code::kSuccess) {
  auto* pre = dynamic_cast<framework::PreScorePlugin*>(&plugin);
  auto* scorer = dynamic_cast<framework::ScorePlugin*>(&plugin);
  framework::CycleState state;
  const auto& nodes = h.snapshot().nodes();
  if (run_pre_score && pre != nullptr) {
    framework::Status st = pre->PreScore(state, 0, pod, nodes);
    EXPECT_TRUE(st.ok()) << st.Message();
  }
  std::vector<int64_t> scores;
  for (const framework::NodeInfo* n : nodes) {
    int64_t score = -1;
    framework::Status st = scorer->Score(state, 0, pod, *n, &score);
    EXPECT_EQ(st.code(), want_code) << st.Message();
    scores.push_back(score);
  }
  return scores;
}

// One row of kube's scoring-strategy tables: an incoming pod, nodes by allocatable, and pods
// on them.
struct ScoreCase {
  std::string name;
  std::vector<Reqs> pod;    // containers of the incoming pod
  std::vector<Reqs> nodes;  // allocatable of node1, node2, ...
  std::vector<Existing> existing = {};
  std::vector<ResourceSpec> resources = DefaultResourceSpecs();
  std::vector<int64_t> want;
};

inline std::vector<int64_t> RunScores(const ScoreCase& c, std::string_view type,
                                      const std::vector<UtilizationShapePoint>& shape = {}) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  std::vector<api::Node*> nodes;
  for (size_t i = 0; i < c.nodes.size(); ++i)
    nodes.push_back(&MakeNode(w, "node" + std::to_string(i + 1), c.nodes[i]));
  std::vector<framework::NodeInfo*> infos;
  for (size_t i = 0; i < nodes.size(); ++i) {
    framework::NodeInfo& ni = w.NodeWith(*nodes[i]);
    for (const Existing& e : c.existing) {
      if (e.node == i)
        ni.AddPod(&w.Info(MakePod(w, "e" + std::to_string(w.pods.size()), e.containers)));
    }
    infos.push_back(&ni);
  }
  h.SetNodes(infos);
  NodeResourcesFitArgs args;
  args.scoring_strategy->type = std::string(type);
  args.scoring_strategy->resources = c.resources;
  if (!shape.empty()) args.scoring_strategy->requested_to_capacity_ratio = {shape};
  auto plugin = NodeResourcesFit::New(&args, h);
  EXPECT_TRUE(plugin.ok());
  if (!plugin.ok()) return {};
  framework::PodInfo& pod = w.Info(MakePod(w, "pod", c.pod));
  return testutil::ScoreAll(**plugin, h, pod, /*run_pre_score=*/true);
}

}  // namespace corral::plugins::testutil
