// The keys of attribute values (attribute_keys.h): table cases for AttributeKeys and
// KeyIntersection, and properties that the keyed matchAttribute answers exactly as the value
// comparisons of list_attributes.h do, alone (KeyIntersection against AttributeIntersection over
// random sequences of values) and through the allocator (the same claims on the same random
// devices, with and without keys, allocate the same devices or fail alike).

#include "corral/plugins/dynamic_resources/attribute_keys.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/resource/types.h"
#include "corral/api/well_known.h"
#include "corral/loader/loader.h"
#include "corral/plugins/dynamic_resources/allocator.h"
#include "corral/plugins/dynamic_resources/list_attributes.h"
#include "corral/plugins/dynamic_resources/pool_index.h"
#include "corral/plugins/dynamic_resources/test_util.h"

namespace corral::plugins::dra {
namespace {

namespace res = api::resource;
using Kind = cel::AttributeValue::Kind;

constexpr std::string_view kHead = R"(---
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: class-a}
spec:
  selectors:
  - cel: {expression: 'device.driver == "driver-a"'}
)";

// One slice of node-1 whose devices have the attribute `m` given as YAML flow text ("" for a
// device without it).
std::string Slice(const std::vector<std::string>& attributes) {
  std::string devs;
  for (size_t i = 0; i < attributes.size(); ++i) {
    devs += fmt::format("  - name: device-{}\n    attributes: {{{}}}\n", i,
                        attributes[i].empty() ? "" : "m: " + attributes[i]);
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

// claim-0 with requests req-0, req-1, ... of `counts` devices and a matchAttribute on `m` over
// `constrained` (all requests when empty).
std::string Claim(const std::vector<int>& counts, const std::vector<int>& constrained) {
  std::string reqs;
  for (size_t i = 0; i < counts.size(); ++i) {
    reqs +=
        fmt::format("    - name: req-{}\n      exactly: {{deviceClassName: class-a, count: {}}}\n",
                    i, counts[i]);
  }
  std::string names;
  for (int r : constrained) names += fmt::format("{}req-{}", names.empty() ? "" : ", ", r);
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: claim-0}}
spec:
  devices:
    requests:
{}    constraints:
    - matchAttribute: driver-a/m
{})",
                     reqs, names.empty() ? "" : fmt::format("      requests: [{}]\n", names));
}

struct Loaded {
  Interner in = api::NewInterner();
  loader::LoadResult r;
};

// Loads `yaml`, failing the test (or the property) on a diagnostic.
void Load(const std::string& yaml, Loaded* out) {
  out->r = loader::LoadString(yaml, "keys.yaml", out->in);
  for (const auto& d : out->r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
}

// The allocation of claim-0 on node-1 with (`keyed`) or without attribute keys: "unsatisfiable",
// "error: ...", or the allocated devices.
std::string Allocate(const Loaded& l, bool keyed) {
  const res::ResourceObjects& objs = *l.r.objects.resources;
  dra_test::FakeDraManager dra(objs, {});
  auto index = std::make_shared<const PoolIndex>(dra, l.in, true, keyed);
  Allocator alloc(dra, l.in, Allocator::Features{.list_type_attributes = true}, index);
  std::vector<const res::ResourceClaim*> claims{&objs.resource_claims[0]};
  std::vector<res::AllocationResult> results;
  std::string err;
  switch (alloc.Allocate(l.r.objects.nodes[0], claims, &results, &err)) {
    case Allocator::Outcome::kUnsatisfiable:
      return "unsatisfiable";
    case Allocator::Outcome::kAllocated:
      break;
    default:
      return "error: " + err;
  }
  std::string out;
  for (const auto& d : results[0].devices) {
    out += fmt::format("{}={} ", l.in.Str(d.request), l.in.Str(d.device));
  }
  return out;
}

TEST(AttributeKeysTest, EqualValuesShareAKeyAndKindsNeverMix) {
  Loaded l;
  Load(std::string(kHead) +
           Slice({"{strings: [a, b, a]}", "{string: b}", "{ints: [1, 2]}", "{int: 2}",
                  "{versions: [1.0.0]}", "{strings: ['1.0.0']}"}) +
           Claim({1}, {}),
       &l);
  ASSERT_TRUE(l.r.ok());
  const auto& devices = l.r.objects.resources->resource_slices[0].devices;
  AttributeKeys keys(
      std::vector<const res::ResourceSlice*>{&l.r.objects.resources->resource_slices[0]});
  ASSERT_FALSE(keys.empty());
  std::vector<std::vector<uint32_t>> k;
  for (const res::Device& d : devices) {
    std::span<const uint32_t> s;
    ASSERT_TRUE(keys.Find(d.attributes[0].value, &s));
    k.emplace_back(s.begin(), s.end());
  }
  EXPECT_EQ(k[0].size(), 2u);                       // a and b, a once
  EXPECT_EQ(k[1], std::vector<uint32_t>{k[0][1]});  // b is the second key given
  EXPECT_EQ(k[3], std::vector<uint32_t>{k[2][1]});  // 2
  EXPECT_NE(k[4], k[5]);                            // a version is not a string
  for (uint32_t x : k[2]) EXPECT_TRUE(x != k[0][0] && x != k[0][1]);
  // A value that is not a device attribute of the slices has no keys.
  cel::AttributeValue other{.kind = Kind::kString, .string_value = "a"};
  std::span<const uint32_t> s;
  EXPECT_FALSE(keys.Find(other, &s));
}

TEST(AttributeKeysTest, NothingKeyedWithoutLists) {
  Loaded l;
  Load(std::string(kHead) + Slice({"{string: a}", "{int: 1}"}) + Claim({1}, {}), &l);
  ASSERT_TRUE(l.r.ok());
  AttributeKeys keys(
      std::vector<const res::ResourceSlice*>{&l.r.objects.resources->resource_slices[0]});
  EXPECT_TRUE(keys.empty());
}

TEST(KeyIntersectionTest, ShrinksToTheCommonKeysAndKeepsTheSetOnFailure) {
  KeyIntersection s;
  s.Reset(std::vector<uint32_t>{1, 3, 5, 7});
  EXPECT_TRUE(s.Intersect(std::vector<uint32_t>{0, 3, 4, 7, 9}));
  EXPECT_EQ(s.keys(), (std::vector<uint32_t>{3, 7}));
  EXPECT_FALSE(s.Intersect(std::vector<uint32_t>{1, 5, 8}));
  EXPECT_EQ(s.keys(), (std::vector<uint32_t>{3, 7}));
  EXPECT_FALSE(s.Intersect(std::vector<uint32_t>{}));
  EXPECT_TRUE(s.Intersect(std::vector<uint32_t>{7}));
  EXPECT_EQ(s.keys(), (std::vector<uint32_t>{7}));
}

// A random attribute value as YAML flow text: a scalar or a list of strings from a small
// alphabet (so that lists overlap), now and then ints, or "" (no attribute).
rc::Gen<std::string> GenAttribute() {
  return rc::gen::exec([] {
    const int shape = *rc::gen::inRange(0, 10);
    if (shape == 0) return std::string();
    if (shape == 1) return fmt::format("{{int: {}}}", *rc::gen::inRange(0, 3));
    if (shape == 2) {
      std::vector<int> v =
          *rc::gen::container<std::vector<int>>(*rc::gen::inRange(1, 4), rc::gen::inRange(0, 3));
      return fmt::format("{{ints: [{}]}}", fmt::join(v, ", "));
    }
    const std::vector<std::string> alphabet{"a", "b", "c", "d", "e"};
    if (shape == 3) return fmt::format("{{string: {}}}", *rc::gen::elementOf(alphabet));
    std::vector<std::string> v = *rc::gen::container<std::vector<std::string>>(
        *rc::gen::inRange(1, 5), rc::gen::elementOf(alphabet));
    return fmt::format("{{strings: [{}]}}", fmt::join(v, ", "));
  });
}

// KeyIntersection answers as AttributeIntersection over any sequence of values, and the sets stay
// equal: the keyed search takes and rejects the same devices.
RC_GTEST_PROP(AttributeKeysProperty, KeyIntersectionMatchesValueIntersection, ()) {
  const std::vector<std::string> attrs =
      *rc::gen::container<std::vector<std::string>>(*rc::gen::inRange(1, 9), GenAttribute());
  std::vector<std::string> present;
  for (const std::string& a : attrs) {
    if (!a.empty()) present.push_back(a);
  }
  RC_PRE(!present.empty());
  Loaded l;
  Load(std::string(kHead) + Slice(present) + Claim({1}, {}), &l);
  RC_ASSERT(l.r.ok());
  const res::ResourceSlice& slice = l.r.objects.resources->resource_slices[0];
  AttributeKeys keys(std::vector<const res::ResourceSlice*>{&slice});
  // A sequence of the devices' values: the first starts both sets, each further one is added.
  const std::vector<size_t> order = *rc::gen::container<std::vector<size_t>>(
      *rc::gen::inRange<size_t>(1, 12), rc::gen::inRange<size_t>(0, present.size()));
  AttributeIntersection values;
  KeyIntersection keyed;
  for (size_t i = 0; i < order.size(); ++i) {
    const cel::AttributeValue& v = slice.devices[order[i]].attributes[0].value;
    std::span<const uint32_t> k;
    // Keyed only when some device has a list.
    if (!keys.Find(v, &k)) {
      RC_ASSERT(keys.empty());
      return;
    }
    if (i == 0) {
      values.Reset(v);
      keyed.Reset(k);
    } else {
      RC_ASSERT(values.Intersect(v) == keyed.Intersect(k));
    }
    RC_ASSERT(values.values().size() == keyed.keys().size());
    for (const cel::AttributeValue* x : values.values()) {
      std::span<const uint32_t> xk;
      // Each value of the set is one of the devices' scalars: its key is in the keyed set.
      bool found = false;
      for (const res::Device& d : slice.devices) {
        const cel::AttributeValue& a = d.attributes[0].value;
        if (a.is_list()) {
          for (const cel::AttributeValue& e : a.list) {
            if (&e == x) {
              RC_ASSERT(keys.Find(a, &xk));
              found = true;
            }
          }
        } else if (&a == x) {
          RC_ASSERT(keys.Find(a, &xk));
          found = true;
        }
      }
      RC_ASSERT(found);
    }
  }
}

// The allocator with keys allocates what it allocates without them, on random devices and claims.
RC_GTEST_PROP(AttributeKeysProperty, KeyedAllocatorDecidesAsUnkeyed, ()) {
  std::vector<std::string> attrs =
      *rc::gen::container<std::vector<std::string>>(*rc::gen::inRange(1, 9), GenAttribute());
  // At least one list, so that the index keys the devices.
  attrs.push_back("{strings: [a, b]}");
  const std::vector<int> counts =
      *rc::gen::container<std::vector<int>>(*rc::gen::inRange(1, 4), rc::gen::inRange(1, 4));
  std::vector<int> constrained;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (*rc::gen::inRange(0, 3) == 0) constrained.push_back(static_cast<int>(i));
  }
  Loaded l;
  Load(std::string(kHead) + Slice(attrs) + Claim(counts, constrained), &l);
  RC_ASSERT(l.r.ok());
  RC_ASSERT(Allocate(l, true) == Allocate(l, false));
}

// kube's scheduler_perf listattributes shape in small, keyed and not: a block of devices that share
// nothing comes first, the shared value after.
TEST(AttributeKeysTest, ListAttributesShapeAllocatesAlike) {
  std::vector<std::string> attrs;
  for (int i = 0; i < 6; ++i) {
    std::string v = i >= 3 ? "shared" : "";
    for (int j = 0; j < 4; ++j) v += fmt::format("{}d{}-{}", v.empty() ? "" : ", ", i, j);
    attrs.push_back(fmt::format("{{strings: [{}]}}", v));
  }
  Loaded l;
  Load(std::string(kHead) + Slice(attrs) + Claim({1, 1, 1}, {}), &l);
  ASSERT_TRUE(l.r.ok());
  EXPECT_EQ(Allocate(l, true), "req-0=device-3 req-1=device-4 req-2=device-5 ");
  EXPECT_EQ(Allocate(l, false), Allocate(l, true));
}

}  // namespace
}  // namespace corral::plugins::dra
