// Device compatibility groups (DRADeviceCompatibilityGroups): the intersection of compat_groups.h
// alone (kube's TestCompatibilityGroupSet, TestCompatibilityGroupIntersectionAdmits,
// TestCompatibilityGroupIntersectionRolling and TestCompatibilityGroupIntersectionNoGroupsStacking
// of staging/src/k8s.io/dynamic-resource-allocation/structured/internal/experimental/
// compatibility_groups_test.go) and through the allocator: kube's "compatibility-groups-*" cases
// of internal/allocatortesting/allocator_testing.go (TestAllocator), with kube's expected results,
// then cases of Corral's own for backtracking, several claims and the gate off. Objects go
// through the loader, so they are validated as Corral loads them.

#include "corral/plugins/dynamic_resources/compat_groups.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/api/resource/types.h"
#include "corral/api/well_known.h"
#include "corral/loader/loader.h"
#include "corral/plugins/dynamic_resources/allocator.h"
#include "corral/plugins/dynamic_resources/test_util.h"

namespace corral::plugins::dra {
namespace {

namespace res = api::resource;

// ---- the intersection alone ----

class GroupIntersectionTest : public ::testing::Test {
 protected:
  std::vector<Symbol> Set(std::vector<std::string_view> groups) {
    std::vector<Symbol> out;
    for (std::string_view g : groups) out.push_back(in_.Intern(g));
    return out;
  }
  GroupIntersection With(std::vector<std::string_view> groups) {
    GroupIntersection i;
    i.Add(Set(groups));
    return i;
  }
  Interner in_ = api::NewInterner();
};

// kube's TestCompatibilityGroupIntersectionAdmits.
TEST_F(GroupIntersectionTest, Admits) {
  struct Case {
    std::string name;
    bool empty_intersection;  // no member yet; otherwise `members` were added
    std::vector<std::string_view> members;
    std::vector<std::string_view> candidate;
    bool want;
  };
  const Case cases[] = {
      {"empty-intersection-admits-grouped", true, {}, {"mig"}, true},
      {"empty-intersection-admits-nil", true, {}, {}, true},
      {"no-group-members-admit-no-group-candidate (nil-vs-nil)", false, {}, {}, true},
      {"no-group-members-reject-grouped-candidate (nil-vs-set)", false, {}, {"mig"}, false},
      {"grouped-members-reject-no-group-candidate (set-vs-nil)", false, {"mig"}, {}, false},
      {"grouped-members-admit-overlapping-candidate (set-vs-set)", false, {"mig"}, {"mig"}, true},
      {"grouped-members-reject-disjoint-candidate", false, {"mig"}, {"vgpu"}, false},
      {"multi-group-candidate-overlaps", false, {"foo", "foobar"}, {"bar", "foobar"}, true},
      {"multi-group-candidate-disjoint", false, {"foo", "foobar"}, {"baz"}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    GroupIntersection i = c.empty_intersection ? GroupIntersection() : With(c.members);
    EXPECT_EQ(i.Admits(Set(c.candidate)), c.want);
  }
}

// kube's TestCompatibilityGroupIntersectionRolling (KEP example 4): the intersection narrows as
// devices join.
TEST_F(GroupIntersectionTest, Rolling) {
  GroupIntersection i;
  ASSERT_TRUE(i.Admits(Set({"foo", "foobar"})));
  i.Add(Set({"foo", "foobar"}));
  ASSERT_TRUE(i.Admits(Set({"bar", "foobar"})));
  i.Add(Set({"bar", "foobar"}));
  EXPECT_EQ(std::vector<Symbol>(i.groups().begin(), i.groups().end()), Set({"foobar"}));
  EXPECT_FALSE(i.Admits(Set({"baz"})));
  EXPECT_TRUE(i.Admits(Set({"qux", "foobar"})));
}

// kube's TestCompatibilityGroupIntersectionNoGroupsStacking: groupless devices stack, a grouped
// one is then refused.
TEST_F(GroupIntersectionTest, NoGroupsStacking) {
  GroupIntersection i;
  for (int n = 0; n < 3; ++n) {
    ASSERT_TRUE(i.Admits({})) << n;
    i.Add({});
  }
  EXPECT_TRUE(i.all_empty());
  EXPECT_FALSE(i.Admits(Set({"mig"})));
}

// kube's TestCompatibilityGroupSet: an absent list and an empty one both mean "no group".
TEST_F(GroupIntersectionTest, EmptyListIsNoGroup) {
  constexpr std::string_view kSlice = R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: driver-a
  nodeName: node-1
  pool: {name: pool-1, generation: 1, resourceSliceCount: 1}
  sharedCounters:
  - name: set
    counters: {c: {value: "2"}}
  devices:
  - name: unset
    consumesCounters:
    - {counterSet: set, counters: {c: {value: "1"}}}
  - name: empty
    consumesCounters:
    - {counterSet: set, counters: {c: {value: "1"}}, compatibilityGroups: []}
)";
  loader::LoadResult r = loader::LoadString(kSlice, "s.yaml", in_);
  ASSERT_TRUE(r.ok());
  const auto& devices = r.objects.resources->resource_slices[0].devices;
  EXPECT_TRUE(devices[0].consumes_counters[0].compatibility_groups.empty());
  EXPECT_TRUE(devices[1].consumes_counters[0].compatibility_groups.empty());
  GroupIntersection i;
  i.Add(devices[0].consumes_counters[0].compatibility_groups);
  EXPECT_TRUE(i.Admits(devices[1].consumes_counters[0].compatibility_groups));
}

// The loader's checks of the field (docs/deviations.md: kube's validation was not in the search
// index): DNS labels, no repeats, at most 8 per consumesCounters entry, each error at its line.
TEST(CompatibilityGroupsLoaderTest, ValidatesGroups) {
  auto load = [](std::string_view groups) {
    Interner in = api::NewInterner();
    std::string yaml = fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: s}}
spec:
  driver: driver-a
  nodeName: node-1
  pool: {{name: pool-1, generation: 1, resourceSliceCount: 1}}
  sharedCounters:
  - name: set
    counters: {{c: {{value: "2"}}}}
  devices:
  - name: d
    consumesCounters:
    - counterSet: set
      counters: {{c: {{value: "1"}}}}
      compatibilityGroups: {}
)",
                                   groups);
    const loader::LoadResult r = loader::LoadString(yaml, "s.yaml", in);
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics.items()) out.push_back(d.ToString());
    return out;
  };
  EXPECT_EQ(load("[mig, vgpu-12q]"), std::vector<std::string>{});
  EXPECT_EQ(load("[MIG]"),
            (std::vector<std::string>{
                "s.yaml:17: spec.devices[0].consumesCounters[0].compatibilityGroups[0]: Invalid "
                "value: \"MIG\": a lowercase RFC 1123 label must consist of lower case "
                "alphanumeric characters or '-', and must start and end with an alphanumeric "
                "character (e.g. 'my-name', or '123-abc')"}));
  EXPECT_EQ(load("[mig, mig]"),
            (std::vector<std::string>{"s.yaml:17: "
                                      "spec.devices[0].consumesCounters[0].compatibilityGroups[1]: "
                                      "Duplicate value: \"mig\""}));
  EXPECT_EQ(load("[a, b, c, d, e, f, g, h, i]"),
            (std::vector<std::string>{"s.yaml:17: "
                                      "spec.devices[0].consumesCounters[0].compatibilityGroups: "
                                      "Too many: 9: must have at most 8 items"}));
}

// The undo log of one allocation attempt: a rejected device changes nothing, and a rollback
// restores the state as it was at the mark.
TEST_F(GroupIntersectionTest, SearchRollsBack) {
  auto device = [&](std::vector<std::string_view> groups) {
    res::Device d;
    d.name = in_.Intern("d");
    d.consumes_counters.push_back({in_.Intern("set"), {}, Set(groups)});
    return d;
  };
  const Symbol driver = in_.Intern("driver-a"), pool = in_.Intern("pool-1");
  CompatBaseline baseline;
  CompatSearch s(baseline);
  const res::Device a = device({"x", "y"}), b = device({"y", "z"}), c = device({"x"});
  ASSERT_TRUE(s.Admit(driver, pool, a));
  const size_t mark = s.Mark();
  ASSERT_TRUE(s.Admit(driver, pool, b));  // narrows {x, y} to {y}
  EXPECT_FALSE(s.Admit(driver, pool, c));
  EXPECT_EQ(s.Mark(), mark + 1);  // the rejected device left nothing behind
  s.Rollback(mark);
  EXPECT_TRUE(s.Admit(driver, pool, c));  // {x, y} again
  s.Rollback(0);
  EXPECT_EQ(s.Mark(), 0u);
  EXPECT_TRUE(s.Admit(driver, pool, device({})));  // nothing placed: a groupless device joins
}

// ---- through the allocator ----

constexpr std::string_view kObjects = R"(---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {region: region-1}}
status: {capacity: {pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: class-a}
spec:
  selectors:
  - cel: {expression: 'device.driver == "driver-a"'}
)";

// kube's sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, ...) with one device per
// entry of `devices`: each is "<name>: <groups>" where <groups> is a YAML flow list, "-" for no
// compatibilityGroups field; every device consumes `per_device` of counter-set-1's capacity-0. And
// kube's sliceWithCounterSets(slice2, ...) holding counter-set-1 with `total` of capacity-0.
std::string Pool(const std::vector<std::pair<std::string, std::string>>& devices, int per_device,
                 int total) {
  std::string devs;
  for (const auto& [name, groups] : devices) {
    devs += fmt::format(
        "  - name: {}\n    consumesCounters:\n    - counterSet: counter-set-1\n"
        "      counters: {{capacity-0: {{value: \"{}\"}}}}\n",
        name, per_device);
    if (groups != "-") devs += fmt::format("      compatibilityGroups: {}\n", groups);
  }
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: slice-1}}
spec:
  driver: driver-a
  nodeName: node-1
  pool: {{name: pool-1, generation: 1, resourceSliceCount: 2}}
  devices:
{}---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: slice-2}}
spec:
  driver: driver-a
  nodeName: node-1
  pool: {{name: pool-1, generation: 1, resourceSliceCount: 2}}
  sharedCounters:
  - name: counter-set-1
    counters: {{capacity-0: {{value: "{}"}}}}
)",
                     devs, total);
}

// A claim with one request of one device per entry of `requests` (req-0, req-1, ...).
std::string Claim(std::string_view name, int requests) {
  std::string reqs;
  for (int i = 0; i < requests; ++i) {
    reqs += fmt::format(
        "    - name: req-{}\n      exactly: {{deviceClassName: class-a, count: 1}}\n", i);
  }
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: {}}}
spec:
  devices:
    requests:
{})",
                     name, reqs);
}

struct Case {
  std::string name;  // kube's test case name, or what Corral's own case shows
  bool gate = true;  // DRADeviceCompatibilityGroups
  std::string objects;
  std::vector<std::string> allocated;  // "driver/pool/device"
  // One line per claim, "<request> <device>, ..."; empty: no allocation exists.
  std::vector<std::string> want;
};

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  Interner in = api::NewInterner();
  std::string yaml = std::string(kObjects) + c.objects;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
  ASSERT_TRUE(r.ok());
  const res::ResourceObjects& objs = *r.objects.resources;
  dra_test::FakeDraManager dra(objs, dra_test::ParseDeviceIds(in, c.allocated));
  Allocator alloc(dra, in, Allocator::Features{.compatibility_groups = c.gate});
  std::vector<const res::ResourceClaim*> claims;
  for (const auto& cl : objs.resource_claims) claims.push_back(&cl);
  std::vector<res::AllocationResult> results;
  std::string err;
  Allocator::Outcome got = alloc.Allocate(r.objects.nodes[0], claims, &results, &err);
  EXPECT_EQ(err, "");
  if (c.want.empty()) {
    EXPECT_EQ(got, Allocator::Outcome::kUnsatisfiable);
    return;
  }
  ASSERT_EQ(got, Allocator::Outcome::kAllocated);
  std::vector<std::string> lines;
  for (const auto& res : results) {
    std::string line;
    for (const auto& d : res.devices) {
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", in.Str(d.request), in.Str(d.device));
    }
    lines.push_back(line);
  }
  EXPECT_EQ(lines, c.want);
}

TEST(CompatibilityGroupsAllocatorTest, KubeCases) {
  const Case cases[] = {
      // Two requests on one counter set, both devices in group mig.
      {"compatibility-groups-compatible",
       true,
       Pool({{"device-1", "[mig]"}, {"device-2", "[mig]"}}, 2, 4) + Claim("claim-0", 2),
       {},
       {"req-0 device-1, req-1 device-2"}},
      // The only pair is mig and vgpu: no combination holds.
      {"compatibility-groups-incompatible",
       true,
       Pool({{"device-1", "[mig]"}, {"device-2", "[vgpu]"}}, 2, 4) + Claim("claim-0", 2),
       {},
       {}},
      // device-1 (mig) is allocated; the remaining device is vgpu.
      {"compatibility-groups-incompatible-with-allocated-peer",
       true,
       Pool({{"device-1", "[mig]"}, {"device-2", "[vgpu]"}}, 1, 4) + Claim("claim-0", 1),
       {"driver-a/pool-1/device-1"},
       {}},
      // device-1 (mig) is allocated; device-2 shares mig.
      {"compatibility-groups-compatible-with-allocated-peer",
       true,
       Pool({{"device-1", "[mig]"}, {"device-2", "[mig]"}}, 1, 4) + Claim("claim-0", 1),
       {"driver-a/pool-1/device-1"},
       {"req-0 device-2"}},
      // The gate off: the grouped device is skipped, its groupless sibling allocated.
      {"compatibility-groups-disabled-skips-grouped-device",
       false,
       Pool({{"device-1", "[mig]"}, {"device-2", "-"}}, 2, 4) + Claim("claim-0", 1),
       {},
       {"req-0 device-2"}},
  };
  for (const Case& c : cases) RunCase(c);
}

TEST(CompatibilityGroupsAllocatorTest, CorralCases) {
  const Case cases[] = {
      // Not transitive: a and b share py, b and c share pz, a and c share nothing. A pair exists;
      // a triple does not (a and b narrow the intersection to {py}, which refuses c).
      {"non-transitive-pair",
       true,
       Pool({{"a", "[px, py]"}, {"b", "[py, pz]"}, {"c", "[pz]"}}, 1, 4) + Claim("claim-0", 2),
       {},
       {"req-0 a, req-1 b"}},
      {"non-transitive-no-triple",
       true,
       Pool({{"a", "[px, py]"}, {"b", "[py, pz]"}, {"c", "[pz]"}}, 1, 4) + Claim("claim-0", 3),
       {},
       {}},
      // Backtracking restores the intersection: a (px) is tried first, b (py) and c (py) fail
      // with it, and b+c is found once a is dropped.
      {"backtracking-drops-the-first-device",
       true,
       Pool({{"a", "[px]"}, {"b", "[py]"}, {"c", "[py]"}}, 1, 4) + Claim("claim-0", 2),
       {},
       {"req-0 b, req-1 c"}},
      // Groupless devices stack with each other only.
      {"groupless-devices-stack",
       true,
       Pool({{"a", "[mig]"}, {"b", "-"}, {"c", "-"}}, 1, 4) + Claim("claim-0", 2),
       {},
       {"req-0 b, req-1 c"}},
      // The check spans the claims of one pod: the second claim must fit the first's device.
      {"across-claims",
       true,
       Pool({{"a", "[mig]"}, {"b", "[vgpu]"}, {"c", "[mig]"}}, 1, 4) + Claim("claim-0", 1) +
           Claim("claim-1", 1),
       {},
       {"req-0 a", "req-0 c"}},
      // A groupless allocated device keeps grouped ones out of its counter set.
      {"groupless-allocated-peer",
       true,
       Pool({{"a", "-"}, {"b", "[mig]"}}, 1, 4) + Claim("claim-0", 1),
       {"driver-a/pool-1/a"},
       {}},
      // The gate off: a groupless device is skipped too when an allocated device on its counter
      // set names groups (kube's version-skew skip).
      {"disabled-skips-counter-set-of-grouped-allocated-peer",
       false,
       Pool({{"a", "[mig]"}, {"b", "-"}}, 1, 4) + Claim("claim-0", 1),
       {"driver-a/pool-1/a"},
       {}},
      // The gate off, no groups anywhere: counters alone decide.
      {"disabled-without-groups",
       false,
       Pool({{"a", "-"}, {"b", "-"}}, 1, 4) + Claim("claim-0", 2),
       {},
       {"req-0 a, req-1 b"}},
  };
  for (const Case& c : cases) RunCase(c);
}

// kube's scheduler_perf CompatibilityGroups workload in small: per node, a counter set slice and
// a device slice whose two devices share group mig; a claim for both fits, a second does not
// (counters), and a vgpu device on the same counter set would not be taken alongside.
TEST(CompatibilityGroupsAllocatorTest, PerfWorkloadShape) {
  Case c{"perf-shape",
         true,
         Pool({{"device-1", "[mig]"}, {"device-2", "[mig]"}, {"device-3", "[vgpu]"}}, 1, 3) +
             Claim("claim-0", 3),
         {},
         {}};
  RunCase(c);  // three devices fit the counters, but vgpu does not join mig
  c.name = "perf-shape-two";
  c.objects = Pool({{"device-1", "[mig]"}, {"device-2", "[mig]"}, {"device-3", "[vgpu]"}}, 1, 3) +
              Claim("claim-0", 2);
  c.want = {"req-0 device-1, req-1 device-2"};
  RunCase(c);
}

}  // namespace
}  // namespace corral::plugins::dra
