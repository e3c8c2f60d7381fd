#pragma once
// Test helpers for PodTopologySpread: compact node/pod specs in the shape of kube's test tables,
// and a cluster built from them in a TestWorld + FakeHandle.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/types.h"
#include "corral/framework/cycle_state.h"
#include "corral/plugins/pod_topology_spread/internal.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins::pod_topology_spread::testutil {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct NodeSpec {
  std::string name;
  Labels labels;  // exactly these (no implicit hostname label)
  bool unschedulable_taint =
      false;  // kube tests' `taints`: node.kubernetes.io/unschedulable:NoSchedule
};

struct PodSpec {
  std::string name;
  std::string node;
  Labels labels;
  std::string ns = "default";
  bool terminating = false;
};

using PodFn = std::function<void(testing::TestWorld&, testing::PodBuilder&)>;

// A cluster of NodeInfos (in the given order) holding the existing pods, registered as the
// FakeHandle's snapshot, plus the incoming pod.
class Cluster {
 public:
  Cluster() : handle_(w_) {}

  testing::TestWorld& w() { return w_; }
  testing::FakeHandle& handle() { return handle_; }

  void Build(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods) {
    std::vector<framework::NodeInfo*> infos;
    std::map<std::string, framework::NodeInfo*> by_name;
    for (const auto& n : nodes) {
      api::Node& node = w_.Node(n.name).Obj();
      node.meta.labels = api::LabelSet();
      for (const auto& [k, v] : n.labels) node.meta.labels.Set(w_.S(k), w_.S(v));
      if (n.unschedulable_taint) {
        node.taints.push_back({api::wk::kUnschedulableTaintKey, Symbol(),
                               api::TaintEffect::kNoSchedule, std::nullopt});
      }
      w_.node_infos.emplace_back(&node);
      infos.push_back(&w_.node_infos.back());
      by_name[n.name] = infos.back();
    }
    for (const auto& p : pods) {
      auto b = w_.Pod(p.name).Namespace(p.ns).NodeName(p.node);
      for (const auto& [k, v] : p.labels) b.Label(k, v);
      if (p.terminating) b.Terminating();
      auto it = by_name.find(p.node);
      if (it != by_name.end()) it->second->AddPod(&w_.Info(b.Obj()));
    }
    handle_.SetNodes(infos);
  }

  framework::PodInfo& Incoming(const PodFn& fn) {
    auto b = w_.Pod("p");
    fn(w_, b);
    return w_.Info(b.Obj());
  }

  const framework::NodeInfo& Node(const std::string& name) {
    return *handle_.snapshot().Get(w_.S(name));
  }

  std::unique_ptr<PodTopologySpread> Plugin(const PodTopologySpreadArgs& args) {
    auto made = PodTopologySpread::New(&args, handle_);
    EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error().message);
    if (!made.ok()) return nullptr;
    return std::unique_ptr<PodTopologySpread>(dynamic_cast<PodTopologySpread*>(made->release()));
  }

  static PodTopologySpreadArgs ListArgs() {
    PodTopologySpreadArgs a;
    a.defaulting_type = std::string(PodTopologySpreadArgs::kListDefaulting);
    return a;
  }

 private:
  testing::TestWorld w_;
  testing::FakeHandle handle_;
};

}  // namespace corral::plugins::pod_topology_spread::testutil
