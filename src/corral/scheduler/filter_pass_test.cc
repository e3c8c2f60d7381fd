// NumFeasibleNodesToFind, the filter pass's stopping rule. The cases are kube's
// TestNumFeasibleNodesToFind (pkg/scheduler/schedule_one_test.go) with their expected values; the
// profile's percentage, when set, wins over the global one (the caller passes the one in effect).

#include "corral/scheduler/filter_pass.h"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/framework/snapshot.h"

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

// The candidates of a PreFilterResult are the named nodes in snapshot order, whether the set is
// looked up name by name (small) or found by a scan (large), also after the snapshot's order
// changes (the remembered positions are then stale).
TEST(FilterPassTest, RestrictToNamesKeepsSnapshotOrder) {
  Interner in;
  std::deque<api::Node> nodes;
  std::deque<framework::NodeInfo> infos;
  for (int i = 0; i < 100; ++i) {
    api::Node& n = nodes.emplace_back();
    n.meta.name = in.Intern("node-" + std::to_string(i));
    infos.emplace_back(&n);
  }
  framework::Snapshot snapshot;
  auto build = [&](const std::vector<int>& order) {
    framework::SnapshotBuilder b(snapshot);
    b.nodes().clear();
    b.by_name().clear();
    for (int i : order) {
      b.nodes().push_back(&infos[static_cast<size_t>(i)]);
      b.by_name()[infos[static_cast<size_t>(i)].name()] = &infos[static_cast<size_t>(i)];
    }
  };
  std::vector<int> order(100);
  for (int i = 0; i < 100; ++i) order[static_cast<size_t>(i)] = i;
  FilterPass pass;
  auto check = [&](const std::vector<int>& named) {
    absl::flat_hash_set<Symbol> names;
    for (int i : named) names.insert(in.Intern("node-" + std::to_string(i)));
    names.insert(in.Intern("not-a-node"));
    std::vector<const framework::NodeInfo*> want;
    for (const framework::NodeInfo* n : snapshot.nodes()) {
      if (names.contains(n->name())) want.push_back(n);
    }
    auto got = pass.RestrictToNames(names, snapshot);
    EXPECT_EQ(std::vector<const framework::NodeInfo*>(got.begin(), got.end()), want);
  };
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    build(order);
    check({42});
    check({97, 3, 50, 11});
    check({});
    std::vector<int> many;
    for (int i = 0; i < 60; i += 2) many.push_back(i);
    check(many);  // a scan
    std::reverse(order.begin(), order.end());
    order.erase(order.begin() + 7);  // a node leaves, the others move
  }
}

}  // namespace
}  // namespace corral::scheduler
