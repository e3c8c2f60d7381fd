#pragma once
// Test helpers for InterPodAffinity: a cluster of nodes and existing pods (built with the TestWorld
// pod builders) in a FakeHandle, plus the namespaces kube's tests use.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/types.h"
#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/inter_pod_affinity/internal.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins::inter_pod_affinity::testutil {

using Labels = std::vector<std::pair<std::string, std::string>>;
using Kind = testing::PodBuilder::AffinityKind;
using PodFn = std::function<void(testing::TestWorld&, testing::PodBuilder&)>;

struct NodeSpec {
  std::string name;
  Labels labels;  // exactly these
};

class Cluster {
 public:
  Cluster() : handle_(w_) {}

  testing::TestWorld& w() { return w_; }
  testing::FakeHandle& handle() { return handle_; }

  // kube's scoring_test `namespaces`: subteam{1,2}.team{1,2} labelled team=team{1,2}.
  void AddTeamNamespaces() {
    for (const char* team : {"team1", "team2"}) {
      for (const char* sub : {"subteam1", "subteam2"}) {
        namespaces_.emplace_back();
        api::Namespace& ns = namespaces_.back();
        ns.meta.name = w_.S(std::string(sub) + "." + team);
        ns.meta.labels.Set(w_.S("team"), w_.S(team));
        handle_.AddNamespace(&ns);
      }
    }
  }
  // A namespace added above, for relabelling it between cycles (null when absent).
  api::Namespace* MutableNamespace(std::string_view name) {
    for (auto& ns : namespaces_) {
      if (w_.in.Str(ns.meta.name) == name) return &ns;
    }
    return nullptr;
  }
  void AddNamespace(std::string_view name) {
    namespaces_.emplace_back();
    namespaces_.back().meta.name = w_.S(name);
    handle_.AddNamespace(&namespaces_.back());
  }

  // Existing pods: each fn builds one pod, which must name its node (NodeName).
  void Build(const std::vector<NodeSpec>& nodes, const std::vector<PodFn>& pods) {
    std::vector<framework::NodeInfo*> infos;
    std::map<Symbol, framework::NodeInfo*> by_name;
    for (const auto& n : nodes) {
      api::Node& node = w_.Node(n.name).Obj();
      node.meta.labels = api::LabelSet();
      for (const auto& [k, v] : n.labels) node.meta.labels.Set(w_.S(k), w_.S(v));
      w_.node_infos.emplace_back(&node);
      infos.push_back(&w_.node_infos.back());
      by_name[node.meta.name] = infos.back();
    }
    int i = 0;
    for (const auto& fn : pods) {
      auto b = w_.Pod("existing-" + std::to_string(i++));
      fn(w_, b);
      auto it = by_name.find(b.Obj().node_name);
      if (it != by_name.end()) it->second->AddPod(&w_.Info(b.Obj()));
    }
    handle_.SetNodes(infos);
  }

  framework::PodInfo& Incoming(const PodFn& fn) {
    auto b = w_.Pod("incoming");
    fn(w_, b);
    return w_.Info(b.Obj());
  }

  const framework::NodeInfo& Node(std::string_view name) {
    return *handle_.snapshot().Get(w_.S(name));
  }

  std::unique_ptr<InterPodAffinity> Plugin(const InterPodAffinityArgs& args = {}) {
    auto made = InterPodAffinity::New(&args, handle_);
    EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error().message);
    if (!made.ok()) return nullptr;
    return std::unique_ptr<InterPodAffinity>(dynamic_cast<InterPodAffinity*>(made->release()));
  }

 private:
  testing::TestWorld w_;
  testing::FakeHandle handle_;
  std::deque<api::Namespace> namespaces_;
};

}  // namespace corral::plugins::inter_pod_affinity::testutil
