// PoolIndex::PoolsFor and the allocator's memo of node-independent pool sets (allocator.h), on
// random clusters of nodes (labels from a small set) and slices (a node's own, allNodes, node
// selectors from a small set, per-device node selection, devices that bind to their node):
//   - PoolsFor(node) groups exactly the pools kube's gatherPools groups of the slices that apply
//     to the node (compared with GroupPools of the slices matched one by one);
//   - one Allocator asked for every node, in any order, answers every node as a fresh Allocator
//     with a fresh index does (outcome, devices and node selector), so neither the memo nor the
//     index's remembered class selections (PoolIndex::ClassSelections) change a decision.

#include "corral/plugins/dynamic_resources/pool_index.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/resource/types.h"
#include "corral/api/selectors.h"
#include "corral/api/well_known.h"
#include "corral/loader/loader.h"
#include "corral/plugins/dynamic_resources/allocator.h"
#include "corral/plugins/dynamic_resources/test_util.h"

namespace corral::plugins::dra {
namespace {

namespace res = api::resource;

// The node selectors slices and devices pick from.
const std::vector<std::string> kSelectors = {
    "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}",
    "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [b]}]}]}",
    "{nodeSelectorTerms: [{matchExpressions: [{key: gpu, operator: Exists}]}]}",
};

struct Cluster {
  std::string yaml;
  int nodes = 0;
};

// A random cluster: nodes node-0.., slices with devices of driver-a, class-a and claim-0 asking
// for `count` devices.
rc::Gen<Cluster> GenCluster() {
  return rc::gen::exec([] {
    Cluster c;
    c.nodes = *rc::gen::inRange(1, 5);
    for (int n = 0; n < c.nodes; ++n) {
      std::string labels;
      const int zone = *rc::gen::inRange(0, 3);
      if (zone > 0) labels += fmt::format("zone: {}", zone == 1 ? "a" : "b");
      if (*rc::gen::inRange(0, 2) == 0)
        labels += fmt::format("{}gpu: 'true'", labels.empty() ? "" : ", ");
      c.yaml += fmt::format(R"(---
apiVersion: v1
kind: Node
metadata: {{name: node-{}, labels: {{{}}}}}
status: {{capacity: {{pods: "110"}}}}
)",
                            n, labels);
    }
    c.yaml += R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: class-a}
spec:
  selectors:
  - cel: {expression: 'device.driver == "driver-a" && device.attributes["driver-a"].ok'}
)";
    const int slices = *rc::gen::inRange(1, 7);
    for (int s = 0; s < slices; ++s) {
      const int rule = *rc::gen::inRange(0, 7);
      std::string where;
      if (rule == 0) {
        where = fmt::format("nodeName: node-{}", *rc::gen::inRange(0, c.nodes));
      } else if (rule == 1) {
        where = "allNodes: true";
      } else if (rule == 2) {
        where = "perDeviceNodeSelection: true";
      } else {
        where = "nodeSelector: " + *rc::gen::elementOf(kSelectors);
      }
      // Pools of one slice, or of two (pool-p<s/2> when both slices of a pair pick it; their
      // devices' names may repeat, which makes the pool invalid), and now and then incomplete.
      const bool pair = *rc::gen::inRange(0, 3) == 0;
      const std::string pool = pair ? fmt::format("pool-p{}", s / 2) : fmt::format("pool-{}", s);
      const int count = pair ? 2 : *rc::gen::inRange(1, 5) == 1 ? 2 : 1;
      const bool repeat = pair && *rc::gen::inRange(0, 2) == 0;
      std::string devs;
      const int n = *rc::gen::inRange(1, 4);
      for (int d = 0; d < n; ++d) {
        devs += repeat ? fmt::format("  - name: dev-{}\n", d)
                       : fmt::format("  - name: dev-{}-{}\n", s, d);
        if (rule == 2) {
          const int dr = *rc::gen::inRange(0, 3);
          devs += dr == 0   ? fmt::format("    nodeName: node-{}\n", *rc::gen::inRange(0, c.nodes))
                  : dr == 1 ? std::string("    allNodes: true\n")
                            : "    nodeSelector: " + *rc::gen::elementOf(kSelectors) + "\n";
        }
        if (*rc::gen::inRange(0, 6) == 0) devs += "    bindsToNode: true\n";
        // The class accepts about three devices in four.
        devs += fmt::format("    attributes: {{ok: {{bool: {}}}}}\n",
                            *rc::gen::inRange(0, 4) == 0 ? "false" : "true");
      }
      c.yaml += fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: slice-{}}}
spec:
  driver: driver-a
  {}
  pool: {{name: {}, generation: 1, resourceSliceCount: {}}}
  devices:
{})",
                            s, where, pool, count, devs);
    }
    c.yaml += fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: claim-0}}
spec:
  devices:
    requests:
    - name: req-0
      exactly: {{deviceClassName: class-a, count: {}}}
)",
                          *rc::gen::inRange(1, 4));
    return c;
  });
}

// The reference: kube's gatherPools over the slices matched one by one (the allocator's way
// before PoolsFor).
bool SliceOnNode(const res::ResourceSlice& s, const api::Node& n, const Interner& in) {
  if (!s.node_name.empty()) return s.node_name == n.meta.name;
  if (s.all_nodes || s.per_device_node_selection) return true;
  return s.node_selector.has_value() &&
         api::MatchesNodeSelector(*s.node_selector, n.meta.labels, n.meta.name, in);
}

std::string Describe(std::span<const Pool> pools, const Interner& in) {
  std::string out;
  for (const Pool& p : pools) {
    out += fmt::format("{}/{} g{} {}{}:", in.Str(p.driver), in.Str(p.name), p.generation,
                       p.incomplete ? "incomplete " : "", p.invalid ? "invalid " : "");
    for (const auto* s : p.slices) out += fmt::format(" {}", in.Str(s->meta.name));
    out += "; ";
  }
  return out;
}

std::string Answer(const Allocator& a, const api::Node& node, const res::ResourceClaim& claim,
                   const Interner& in, bool reuse) {
  std::vector<const res::ResourceClaim*> claims{&claim};
  std::vector<res::AllocationResult> results;
  std::string err;
  const Allocator::Outcome got = a.Allocate(node, claims, &results, &err, reuse);
  std::string out = fmt::format("{} {}", static_cast<int>(got), err);
  if (got != Allocator::Outcome::kAllocated) return out;
  for (const auto& d : results[0].devices) out += fmt::format(" {}", in.Str(d.device));
  if (results[0].node_selector.has_value()) {
    for (const auto& t : results[0].node_selector->node_selector_terms) {
      for (const auto& r : t.match_fields) {
        out += fmt::format(" field {}", in.Str(r.key));
        for (Symbol v : r.values) out += fmt::format("={}", in.Str(v));
      }
      for (const auto& r : t.match_expressions) out += fmt::format(" expr {}", in.Str(r.key));
    }
  }
  return out;
}

RC_GTEST_PROP(PoolIndexProperty, PoolsForAndTheMemoDecideAsPerNodeGrouping, ()) {
  const Cluster c = *GenCluster();
  Interner in = api::NewInterner();
  loader::LoadResult r = loader::LoadString(c.yaml, "cluster.yaml", in);
  for (const auto& d : r.diagnostics.items()) RC_FAIL(d.path + ": " + d.message + "\n" + c.yaml);
  const res::ResourceObjects& objs = *r.objects.resources;
  dra_test::FakeDraManager dra(objs, {});
  auto index = std::make_shared<const PoolIndex>(dra, in);
  Allocator memo(dra, in, {}, index);
  // Every node in a random order, some twice.
  const std::vector<size_t> order = *rc::gen::container<std::vector<size_t>>(
      static_cast<size_t>(c.nodes) * 2, rc::gen::inRange<size_t>(0, c.nodes));
  for (size_t n : order) {
    const api::Node& node = r.objects.nodes[n];
    std::vector<const res::ResourceSlice*> own, shared;
    for (const res::ResourceSlice* s : dra.ResourceSlices()) {
      if (!SliceOnNode(*s, node, in)) continue;
      (s->node_name.empty() ? shared : own).push_back(s);
    }
    own.insert(own.end(), shared.begin(), shared.end());
    std::vector<Pool> want;
    GroupPools(own, in, &want);
    RC_ASSERT(Describe(index->PoolsFor(node, in)->pools, in) == Describe(want, in));
    Allocator fresh(dra, in, {}, std::make_shared<const PoolIndex>(dra, in));
    RC_ASSERT(Answer(memo, node, objs.resource_claims[0], in, true) ==
              Answer(fresh, node, objs.resource_claims[0], in, false));
  }
}

// Two nodes with the same labels share one pool set; a node with other labels, or with slices of
// its own, gets its own.
TEST(PoolIndexTest, NodesSelectingTheSameSharedSlicesShareAPoolSet) {
  const std::string yaml = R"(---
apiVersion: v1
kind: Node
metadata: {name: node-0, labels: {zone: a}}
status: {capacity: {pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {zone: a}}
status: {capacity: {pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2, labels: {zone: b}}
status: {capacity: {pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-3, labels: {zone: a}}
status: {capacity: {pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: slice-a1}
spec:
  driver: driver-a
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}
  pool: {name: pool-a1, generation: 1, resourceSliceCount: 1}
  devices: [{name: dev-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: slice-a2}
spec:
  driver: driver-a
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}
  pool: {name: pool-a2, generation: 1, resourceSliceCount: 1}
  devices: [{name: dev-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: slice-own}
spec:
  driver: driver-a
  nodeName: node-3
  pool: {name: pool-own, generation: 1, resourceSliceCount: 1}
  devices: [{name: dev-0}]
)";
  Interner in = api::NewInterner();
  loader::LoadResult r = loader::LoadString(yaml, "cluster.yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
  ASSERT_TRUE(r.ok());
  dra_test::FakeDraManager dra(*r.objects.resources, {});
  PoolIndex index(dra, in);
  const auto& nodes = r.objects.nodes;
  auto p0 = index.PoolsFor(nodes[0], in), p1 = index.PoolsFor(nodes[1], in);
  auto p2 = index.PoolsFor(nodes[2], in), p3 = index.PoolsFor(nodes[3], in);
  EXPECT_EQ(p0, p1);
  EXPECT_TRUE(p0->node_independent);
  EXPECT_EQ(Describe(p0->pools, in),
            "driver-a/pool-a1 g1 : slice-a1; driver-a/pool-a2 g1 : slice-a2; ");
  EXPECT_TRUE(p2->pools.empty());
  EXPECT_NE(p3, p0);
  EXPECT_FALSE(p3->node_independent);
  EXPECT_EQ(
      Describe(p3->pools, in),
      "driver-a/pool-a1 g1 : slice-a1; driver-a/pool-a2 g1 : slice-a2; driver-a/pool-own g1 : "
      "slice-own; ");
}

}  // namespace
}  // namespace corral::plugins::dra
