// List-typed device attributes (DRAListTypeAttributes): the matchAttribute set semantics of
// list_attributes.h, alone and through the allocator. The allocator cases are kube's
// "list-attributes-*" cases of staging/src/k8s.io/dynamic-resource-allocation/structured/
// internal/allocatortesting/allocator_testing.go (TestAllocator), with kube's expected results.
// Objects go through the loader, so they are validated as Corral loads them. kube's
// "distinctAttribute" cases are not translated: Corral's loader refuses distinctAttribute
// constraints (docs/deviations.md), and its "empty-or-unknown-type" cases are loader errors here
// (loader_list_attributes_test.cc: a list must not be empty).

#include "corral/plugins/dynamic_resources/list_attributes.h"

#include <string>
#include <vector>

#include <absl/container/flat_hash_set.h>
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
using Kind = cel::AttributeValue::Kind;

cel::AttributeValue Str(std::string_view s) {
  return {.kind = Kind::kString, .string_value = s};
}
cel::AttributeValue StrList(std::vector<std::string_view> v) {
  cel::AttributeValue out{.kind = Kind::kString};
  for (std::string_view s : v) out.list.push_back(Str(s));
  return out;
}
cel::AttributeValue IntList(std::vector<int64_t> v) {
  cel::AttributeValue out{.kind = Kind::kInt};
  for (int64_t i : v) out.list.push_back({.kind = Kind::kInt, .int_value = i});
  return out;
}

std::vector<std::string> Strings(const AttributeIntersection& s) {
  std::vector<std::string> out;
  for (const auto* v : s.values()) out.emplace_back(v->string_value);
  return out;
}

TEST(AttributeIntersectionTest, ShrinksToTheCommonValues) {
  cel::AttributeValue a = StrList({"v1", "v2", "v3"}), b = StrList({"v2", "v3", "v4"});
  cel::AttributeValue c = StrList({"v3", "v1"}), d = StrList({"v9"});
  AttributeIntersection s;
  s.Reset(a);
  EXPECT_EQ(Strings(s), (std::vector<std::string>{"v1", "v2", "v3"}));
  EXPECT_TRUE(s.Intersect(b));
  EXPECT_EQ(Strings(s), (std::vector<std::string>{"v2", "v3"}));
  EXPECT_TRUE(s.Intersect(c));
  EXPECT_EQ(Strings(s), (std::vector<std::string>{"v3"}));
  EXPECT_FALSE(s.Intersect(d));  // no common value: the set stays as it was
  EXPECT_EQ(Strings(s), (std::vector<std::string>{"v3"}));
}

TEST(AttributeIntersectionTest, ScalarsAreSetsOfOneAndTypesNeverMix) {
  cel::AttributeValue one = Str("v1"), list = StrList({"v1", "v2"}), ints = IntList({1});
  AttributeIntersection s;
  s.Reset(one);
  EXPECT_TRUE(s.Intersect(list));
  EXPECT_FALSE(s.Intersect(ints));
  s.Reset(ints);
  EXPECT_FALSE(s.Intersect(one));
  EXPECT_TRUE(s.Intersect(IntList({3, 1})));
}

TEST(AttributeIntersectionTest, DuplicateValuesCountOnce) {
  cel::AttributeValue a = StrList({"v1", "v1", "v2"});
  AttributeIntersection s;
  s.Reset(a);
  EXPECT_EQ(Strings(s), (std::vector<std::string>{"v1", "v2"}));
}

// ---- kube's allocator cases ----

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

// kube's sliceWithDevices(slice1, node1, pool1, driverA, ...): each device's attributes map is
// given as YAML flow text.
std::string Slice(const std::vector<std::string>& attributes) {
  std::string devs;
  for (size_t i = 0; i < attributes.size(); ++i) {
    devs += fmt::format("  - name: device-{}\n    attributes: {{{}}}\n", i + 1, attributes[i]);
  }
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: slice-1}}
spec:
  driver: driver-a
  nodeName: node-1
  pool: {{name: pool-1, generation: 1, resourceSliceCount: 1}}
  devices:
{})",
                     devs);
}

// kube's claimWithRequests(claim0, [{MatchAttribute: attr}], request(req0, classA, n), ...).
std::string Claim(std::string_view attr, const std::vector<int>& counts) {
  std::string reqs;
  for (size_t i = 0; i < counts.size(); ++i) {
    reqs +=
        fmt::format("    - name: req-{}\n      exactly: {{deviceClassName: class-a, count: {}}}\n",
                    i, counts[i]);
  }
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: claim-0}}
spec:
  devices:
    requests:
{}    constraints:
    - matchAttribute: {}
)",
                     reqs, attr);
}

struct Case {
  std::string name;  // kube's test case name
  bool list_type_attributes = true;
  std::vector<std::string> devices;  // attributes of device-1, device-2, ...
  std::string claim;
  std::vector<std::string> want;  // allocated devices of claim-0; empty: unsatisfiable
};

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  Interner in = api::NewInterner();
  std::string yaml = std::string(kObjects) + Slice(c.devices) + c.claim;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.objects.resources != nullptr);
  const res::ResourceObjects& objs = *r.objects.resources;
  dra_test::FakeDraManager dra(objs, {});
  Allocator alloc(dra, in, Allocator::Features{.list_type_attributes = c.list_type_attributes});
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  std::vector<const res::ResourceClaim*> claims{&objs.resource_claims[0]};
  std::vector<res::AllocationResult> results;
  std::string err;
  Allocator::Outcome got = alloc.Allocate(r.objects.nodes[0], claims, &results, &err);
  EXPECT_EQ(err, "");
  if (c.want.empty()) {
    EXPECT_EQ(got, Allocator::Outcome::kUnsatisfiable);
    return;
  }
  ASSERT_EQ(got, Allocator::Outcome::kAllocated);
  std::vector<std::string> devices;
  for (const auto& d : results[0].devices) {
    devices.push_back(fmt::format("{} {}", in.Str(d.request), in.Str(d.device)));
  }
  EXPECT_EQ(devices, c.want);
}

TEST(ListAttributesAllocatorTest, KubeMatchAttributeCases) {
  const std::string str = "driver-a/stringAttribute";
  const Case cases[] = {
      {"list-attributes-match-constaint-scalar-string-values",
       true,
       {"stringAttribute: {string: value1}", "stringAttribute: {string: value1}"},
       Claim(str, {2}),
       {"req-0 device-1", "req-0 device-2"}},
      {"list-attributes-match-constaint-list-of-string-values-with-common-elements",
       true,
       {"stringAttribute: {strings: [value1, value2, value3]}",
        "stringAttribute: {strings: [value2, value3, value4]}"},
       Claim(str, {2}),
       {"req-0 device-1", "req-0 device-2"}},
      {"list-attributes-match-constaint-list-of-string-values-with-partially-common-elements",
       true,
       {"stringAttribute: {strings: [value1, value2]}",
        "stringAttribute: {strings: [value2, value3]}",
        "stringAttribute: {strings: [value3, value1]}"},
       Claim(str, {3}),
       {}},
      // kube's case has two requests named req-0 (one device each); request names must be unique
      // in Corral's loader as in kube's API validation, so the second is req-1.
      {"list-attributes-match-constaint-list-of-string-values-without-common-elements",
       true,
       {"stringAttribute: {strings: [value1, value2]}",
        "stringAttribute: {strings: [value3, value4]}"},
       Claim(str, {1, 1}),
       {}},
      {"list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-"
       "elements",
       true,
       {"stringAttribute: {string: value1}", "stringAttribute: {strings: [value1, value2]}"},
       Claim(str, {2}),
       {"req-0 device-1", "req-0 device-2"}},
      {"list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-"
       "common-elements",
       true,
       {"stringAttribute: {string: value1}", "stringAttribute: {strings: [value1, value2]}",
        "stringAttribute: {strings: [value2, value3]}"},
       Claim(str, {3}),
       {}},
      {"list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-"
       "elements",
       true,
       {"stringAttribute: {string: value1}", "stringAttribute: {strings: [value2, value3]}"},
       Claim(str, {2}),
       {}},
      {"list-attributes-match-constaint-list-of-int-values-with-common-elements",
       true,
       {"numa: {ints: [0, 1, 2]}", "numa: {ints: [1, 2, 3]}"},
       Claim("driver-a/numa", {2}),
       {"req-0 device-1", "req-0 device-2"}},
      {"list-attributes-match-constaint-list-of-bool-values-with-common-elements",
       true,
       {"boolAttribute: {bools: [true, false]}", "boolAttribute: {bools: [true]}"},
       Claim("driver-a/boolAttribute", {2}),
       {"req-0 device-1", "req-0 device-2"}},
      {"list-attributes-match-constaint-list-of-version-values-with-common-elements",
       true,
       {"driverVersion: {versions: [1.0.0, 1.1.0, 2.0.0]}",
        "driverVersion: {versions: [1.1.0, 2.0.0, 2.1.0]}"},
       Claim("driver-a/driverVersion", {2}),
       {"req-0 device-1", "req-0 device-2"}},
      {"list-attributes-disabled-match-constraint-with-lists",
       false,
       {"stringAttribute: {strings: [value1, value2, value3]}",
        "stringAttribute: {strings: [value2, value3, value4]}"},
       Claim(str, {2}),
       {}},
      // Not kube's: the same devices, the gate off, one device: kube's scalar constraint takes any
      // first device, whatever its value.
      {"list-attributes-disabled-match-constraint-one-device",
       false,
       {"stringAttribute: {strings: [value1, value2, value3]}"},
       Claim(str, {1}),
       {"req-0 device-1"}},
  };
  for (const Case& c : cases) RunCase(c);
}

// The search of kube's scheduler_perf listattributes workload in small: a block of devices that
// share no value with the later ones comes first, so the constraint's first device must be
// backtracked over until the search reaches the devices that hold the shared value.
TEST(ListAttributesAllocatorTest, BacktracksPastNonMatchingDevices) {
  Case c{"non-matching-prefix",
         true,
         {"match: {strings: [d1-a, d1-b]}", "match: {strings: [d2-a]}",
          "match: {strings: [shared, d3-a]}", "match: {strings: [shared, d4-a]}"},
         Claim("driver-a/match", {2}),
         {"req-0 device-3", "req-0 device-4"}};
  RunCase(c);
}

// kube's matchAttributeConstraint.remove lowers the device count and leaves the intersection as
// it was: after device-2 narrowed {a, b} to {a} and was backtracked, device-3 ({b}) is tested
// against {a} and fails, so kube finds no allocation although device-1, 3 and 4 share b.
// Corral keeps kube's result.
TEST(ListAttributesAllocatorTest, KeepsKubesNarrowedSetWhenBacktracking) {
  Case c{"narrowed-set",
         true,
         {"m: {strings: [a, b]}", "m: {strings: [a]}", "m: {strings: [b]}", "m: {strings: [b]}"},
         Claim("driver-a/m", {3}),
         {}};
  RunCase(c);
}

}  // namespace
}  // namespace corral::plugins::dra
