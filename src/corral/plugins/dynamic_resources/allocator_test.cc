// kube's structured allocator cases (staging/src/k8s.io/dynamic-resource-allocation/structured/
// internal/allocatortesting/allocator_testing.go, TestAllocator), translated: the same classes,
// slices, claims, allocated devices and node, with kube's expected results or error text. Objects
// are written as manifests and go through the loader, so they are validated as Corral loads them.
// Differences, each noted at its case: the loader gives claims the namespace "default" (kube's
// test claims have none, so messages read "default/claim-0" where kube's read "claim-0"), and two
// slices may not share a name in one input (kube's tests reuse "slice-1" across pools), and
// sub-request names must be DNS labels (kube's "subReq-0" is "subreq-0" here).

#include "corral/plugins/dynamic_resources/allocator.h"

#include <memory>
#include <string>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/api/resource/types.h"
#include "corral/api/well_known.h"
#include "corral/loader/loader.h"
#include "corral/plugins/dynamic_resources/test_util.h"

namespace corral::plugins::dra {
namespace {

namespace res = api::resource;
using dra_test::DriverClass;

// ---- manifests (kube's object generators) ----

// A device: name plus YAML lines for attributes/capacity (already indented by 4).
struct Dev {
  std::string name;
  std::string body;  // extra fields, each line starting with 4 spaces
};
Dev D(std::string name, std::string body = "") {
  return {std::move(name), std::move(body)};
}

// `where` is "node-1" (nodeName), "all" (allNodes), "region=region-1" or "planet=earth" (a label
// selector) or "field=node-1" (matchFields metadata.name).
std::string Slice(std::string_view name, std::string_view where, std::string_view pool,
                  std::string_view driver, const std::vector<Dev>& devices, int64_t count = 1,
                  int64_t generation = 1) {
  std::string node;
  if (where == "all") {
    node = "  allNodes: true\n";
  } else if (where.starts_with("field=")) {
    node = fmt::format(
        "  nodeSelector:\n    nodeSelectorTerms:\n    - matchFields:\n      - {{key: "
        "metadata.name, operator: In, values: [{}]}}\n",
        where.substr(6));
  } else if (size_t eq = where.find('='); eq != std::string_view::npos) {
    node = fmt::format(
        "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n      - {{key: {}, "
        "operator: In, values: [{}]}}\n",
        where.substr(0, eq), where.substr(eq + 1));
  } else {
    node = fmt::format("  nodeName: {}\n", where);
  }
  std::string devs;
  for (const Dev& d : devices) devs += fmt::format("  - name: {}\n{}", d.name, d.body);
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {}}}
spec:
  driver: {}
  pool: {{name: {}, generation: {}, resourceSliceCount: {}}}
{}  devices:{}
{})",
                     name, driver, pool, generation, count, node, devices.empty() ? " []" : "",
                     devs);
}

// A device consuming counters from `set` ("name=qty,..."); with `from_counters` its capacity is the
// counters it consumes (kube's fromCounters).
Dev CD(std::string name, const std::vector<std::pair<std::string, std::string>>& sets,
       bool from_counters = true) {
  std::string body = "    consumesCounters:\n";
  std::string caps;
  for (const auto& [set, counters] : sets) {
    body += fmt::format("    - counterSet: {}\n      counters: {{", set);
    std::string_view rest = counters;
    bool first = true;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view kv = rest.substr(0, comma);
      size_t eq = kv.find('=');
      body += fmt::format("{}{}: {{value: {}}}", first ? "" : ", ", kv.substr(0, eq),
                          kv.substr(eq + 1));
      if (from_counters) {
        caps += fmt::format("{}{}: {{value: {}}}", caps.empty() ? "" : ", ", kv.substr(0, eq),
                            kv.substr(eq + 1));
      }
      first = false;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    body += "}\n";
  }
  if (!caps.empty()) body += fmt::format("    capacity: {{{}}}\n", caps);
  return {std::move(name), body};
}

// A slice holding only counter sets ("set:name=qty,...;set2:...").
std::string CounterSlice(std::string_view name, std::string_view pool, int64_t count,
                         const std::vector<std::pair<std::string, std::string>>& sets) {
  std::string out = fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {}}}
spec:
  driver: driver-a
  nodeName: node-1
  pool: {{name: {}, generation: 1, resourceSliceCount: {}}}
  sharedCounters:
)",
                                name, pool, count);
  for (const auto& [set, counters] : sets) {
    out += fmt::format("  - name: {}\n    counters: {{", set);
    std::string_view rest = counters;
    bool first = true;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view kv = rest.substr(0, comma);
      size_t eq = kv.find('=');
      out += fmt::format("{}{}: {{value: {}}}", first ? "" : ", ", kv.substr(0, eq),
                         kv.substr(eq + 1));
      first = false;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    out += "}\n";
  }
  return out;
}

std::string OneDevice(std::string_view name, std::string_view where, std::string_view pool,
                      std::string_view driver) {
  return Slice(name, where, pool, driver, {D("device-1")});
}

// A request: "exactly" body lines (indented by 8) or a firstAvailable list.
std::string Req(std::string_view name, std::string_view cls, int64_t count,
                std::string_view extra = "") {
  return fmt::format(
      "    - name: {}\n      exactly:\n        deviceClassName: {}\n        count: {}\n{}", name,
      cls, count, extra);
}
std::string AllReq(std::string_view name, std::string_view cls, std::string_view extra = "") {
  return fmt::format(
      "    - name: {}\n      exactly:\n        deviceClassName: {}\n        allocationMode: "
      "All\n{}",
      name, cls, extra);
}
std::string Selector(std::string_view expr) {
  return fmt::format("        selectors:\n        - cel: {{expression: '{}'}}\n", expr);
}

std::string Claim(std::string_view name, const std::vector<std::string>& requests,
                  std::string_view constraints = "") {
  std::string reqs;
  for (const auto& r : requests) reqs += r;
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: {}}}
spec:
  devices:
    requests:
{}{})",
                     name, reqs, constraints);
}

constexpr std::string_view kNode1 = R"(---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {region: region-1, planet: earth}}
status: {capacity: {pods: "110"}}
)";
constexpr std::string_view kNode2 = R"(---
apiVersion: v1
kind: Node
metadata: {name: node-2, labels: {region: region-2, planet: earth}}
status: {capacity: {pods: "110"}}
)";

struct Case {
  std::string name;  // kube's test case name
  std::vector<std::string> objects;
  std::vector<std::string> allocated;  // "driver/pool/device"
  std::string node = "node-1";
  // One line per claim ("" when the outcome is not kAllocated):
  //   "<request> <driver>/<pool>/<device>[ admin], ... | <node selector>"
  std::vector<std::string> want;
  Allocator::Outcome outcome = Allocator::Outcome::kAllocated;
  std::string want_error = "";
};

std::string Describe(const Interner& in, const res::AllocationResult& r) {
  std::string out = dra_test::DescribeDevices(in, r) + " |";
  if (!r.node_selector.has_value()) return out + " all nodes";
  for (const auto& t : r.node_selector->node_selector_terms) {
    for (const auto& e : t.match_expressions) {
      out += fmt::format(" {} In {}", in.Str(e.key), in.Str(e.values[0]));
    }
    for (const auto& e : t.match_fields) {
      out += fmt::format(" field {} In {}", in.Str(e.key), in.Str(e.values[0]));
    }
  }
  return out;
}

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  Interner in = api::NewInterner();
  std::string yaml = std::string(kNode1) + std::string(kNode2);
  for (const auto& o : c.objects) yaml += o;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
  ASSERT_TRUE(r.ok());
  static const res::ResourceObjects kEmpty;
  const res::ResourceObjects& objs = r.objects.resources ? *r.objects.resources : kEmpty;
  dra_test::FakeDraManager dra(objs, dra_test::ParseDeviceIds(in, c.allocated));
  Allocator alloc(dra, in);
  const api::Node* node = nullptr;
  for (const auto& n : r.objects.nodes) {
    if (in.Str(n.meta.name) == c.node) node = &n;
  }
  ASSERT_NE(node, nullptr);
  std::vector<const res::ResourceClaim*> claims;
  for (const auto& cl : objs.resource_claims) claims.push_back(&cl);
  std::vector<res::AllocationResult> results;
  std::string err;
  Allocator::Outcome got = alloc.Allocate(*node, claims, &results, &err);
  EXPECT_EQ(got, c.outcome) << err;
  EXPECT_EQ(err, c.want_error);
  std::vector<std::string> lines;
  for (const auto& res : results) lines.push_back(Describe(in, res));
  if (got == Allocator::Outcome::kAllocated) {
    EXPECT_EQ(lines, c.want);
  }

  // The same allocation from a PoolIndex shared by allocators of earlier cycles (DynamicResources
  // keeps one while the slices stay the same), after that index served every other node.
  auto index = std::make_shared<const PoolIndex>(dra, in);
  ASSERT_TRUE(index->Matches(dra));
  for (const auto& n : r.objects.nodes) {
    if (&n == node) continue;
    std::vector<res::AllocationResult> other;
    std::string other_err;
    Allocator(dra, in, Allocator::Features{}, index).Allocate(n, claims, &other, &other_err);
  }
  Allocator shared(dra, in, Allocator::Features{}, index);
  std::vector<res::AllocationResult> again;
  std::string again_err;
  EXPECT_EQ(shared.Allocate(*node, claims, &again, &again_err), got);
  EXPECT_EQ(again_err, err);
  std::vector<std::string> again_lines;
  for (const auto& res : again) again_lines.push_back(Describe(in, res));
  EXPECT_EQ(again_lines, lines);
}

constexpr std::string_view kLocal1 = " | field metadata.name In node-1";
std::string L(std::string s) {
  return s + std::string(kLocal1);
}

const std::string kMem1Gi = "    capacity: {memory: {value: 1Gi}}\n";
const std::string kMem2Gi = "    capacity: {memory: {value: 2Gi}}\n";
const std::string kSmall =
    Selector(R"(device.capacity["driver-a"].memory.compareTo(quantity("1Gi")) >= 0)");
const std::string kLarge =
    Selector(R"(device.capacity["driver-a"].memory.compareTo(quantity("2Gi")) >= 0)");
const std::string kAdmin = "        adminAccess: true\n";

std::string Attrs(std::string_view body) {
  return fmt::format("    attributes: {{{}}}\n", body);
}
std::string Constraint(std::string_view attr, std::string_view requests = "") {
  if (requests.empty()) return fmt::format("    - matchAttribute: {}\n", attr);
  return fmt::format("    - {{matchAttribute: {}, requests: [{}]}}\n", attr, requests);
}
std::string Constraints(const std::vector<std::string>& cs) {
  std::string out = "    constraints:\n";
  for (const auto& c : cs) out += c;
  return out;
}

std::vector<Case> Cases() {
  using O = Allocator::Outcome;
  const std::string classA = DriverClass("class-a", "driver-a");
  const std::string classB = DriverClass("class-b", "driver-b");
  return {
      {"simple",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1")}},
      {"other-node",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-b"),
        OneDevice("slice-2", "node-2", "pool-2", "driver-a")},
       {},
       "node-2",
       {"req-0 driver-a/pool-2/device-1 | field metadata.name In node-2"}},
      {"small-and-large",
       {Claim("claim-0", {Req("req-0", "class-a", 1, kSmall), Req("req-1", "class-a", 1, kLarge)}),
        classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", kMem1Gi), D("device-2", kMem2Gi)})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-1 driver-a/pool-1/device-2")}},
      {"small-and-large-backtrack-requests",
       {Claim("claim-0", {Req("req-0", "class-a", 1, kSmall), Req("req-1", "class-a", 1, kLarge)}),
        classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-2", kMem2Gi), D("device-1", kMem1Gi)})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-1 driver-a/pool-1/device-2")}},
      {"small-and-large-backtrack-claims",
       {Claim("claim-0", {Req("req-0", "class-a", 1, kSmall)}),
        Claim("claim-1", {Req("req-1", "class-a", 1, kLarge)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-2", kMem2Gi), D("device-1", kMem1Gi)})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1"), L("req-1 driver-a/pool-1/device-2")}},
      {"devices-split-across-different-slices",
       {Claim("claim-0", {Req("req-0", "class-a", 2)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a"),
        OneDevice("slice-2", "node-1", "pool-2", "driver-a")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-0 driver-a/pool-2/device-1")}},
      // kube names both slices "slice-1-obsolete"; an input holds one object per name.
      {"obsolete-slice",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        Slice("slice-1-obsolete", "node-1", "pool-1", "driver-a", {D("device-1")}, 2, 1),
        Slice("slice-1-obsolete-b", "node-1", "pool-1", "driver-a", {D("device-2")}, 2, 2)},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"duplicate-slice",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1")}, 2),
        Slice("slice-1-2", "node-1", "pool-1", "driver-a", {D("device-1")}, 2)},
       {},
       "node-1",
       {},
       O::kFailedOnNode,
       "invalid resource pools were encountered"},
      {"no-slices",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"not-enough-suitable-devices",
       {Claim("claim-0", {Req("req-0", "class-a", 1), Req("req-1", "class-a", 1)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"no-classes",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}),
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {},
       O::kError,
       "claim default/claim-0, request req-0: could not retrieve device class class-a: "
       "deviceclass.resource.k8s.io \"class-a\" not found"},
      {"unknown-class",
       {Claim("claim-0", {Req("req-0", "unknown-class", 1)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {},
       O::kError,
       "claim default/claim-0, request req-0: could not retrieve device class unknown-class: "
       "deviceclass.resource.k8s.io \"unknown-class\" not found"},
      {"all-devices-single",
       {Claim("claim-0", {AllReq("req-0", "class-a")}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1")}},
      // kube names both slices "slice-1".
      {"all-devices-many",
       {Claim("claim-0", {AllReq("req-0", "class-a")}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a"),
        OneDevice("slice-1b", "node-1", "pool-2", "driver-a")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-0 driver-a/pool-2/device-1")}},
      {"all-devices-of-the-incomplete-pool",
       {Claim("claim-0", {AllReq("req-0", "class-a")}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1")}, 2)},
       {},
       "node-1",
       {},
       O::kError,
       "claim default/claim-0, request req-0: asks for all devices, but resource pool "
       "driver-a/pool-1 is currently being updated"},
      {"all-devices-plus-another",
       {Claim("claim-0", {AllReq("req-0", "class-a")}),
        Claim("claim-1", {Req("req-0", "class-b", 1)}), classA, classB,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a"),
        OneDevice("slice-1b", "node-1", "pool-1", "driver-b")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1"), L("req-0 driver-b/pool-1/device-1")}},
      {"all-devices-many-plus-another",
       {Claim("claim-0", {AllReq("req-0", "class-a")}),
        Claim("claim-1", {Req("req-0", "class-b", 1)}), classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")}),
        OneDevice("slice-1b", "node-1", "pool-1", "driver-b")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-0 driver-a/pool-1/device-2"),
        L("req-0 driver-b/pool-1/device-1")}},
      // One device, two claims both trying to allocate it (claim-1 first in kube; claims are
      // allocated in input order).
      {"all-devices-no-solution",
       {Claim("claim-1", {Req("req-0", "class-a", 1)}),
        Claim("claim-0", {AllReq("req-0", "class-a")}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"all-devices-no-solution-reversed",
       {Claim("claim-0", {AllReq("req-0", "class-a")}),
        Claim("claim-1", {Req("req-0", "class-a", 1)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"all-devices-slice-without-devices",
       {Claim("claim-0", {AllReq("req-0", "class-a")}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {})},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"all-devices-no-slices",
       {Claim("claim-0", {AllReq("req-0", "class-a")}), classA},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"all-devices-some-allocated",
       {Claim("claim-0", {AllReq("req-0", "class-a")}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")})},
       {"driver-a/pool-1/device-1"},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"all-devices-some-allocated-admin-access",
       {Claim("claim-0", {AllReq("req-0", "class-a", kAdmin)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")})},
       {"driver-a/pool-1/device-1"},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1 admin, req-0 driver-a/pool-1/device-2 admin")}},
      {"all-devices-some-allocating-admin-access",
       {Claim("claim-0", {Req("req-0", "class-a", 1, kAdmin), AllReq("req-1", "class-a", kAdmin)}),
        classA, Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")})},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"count-devices-some-allocated-admin-access",
       {Claim("claim-0", {Req("req-0", "class-a", 2, kAdmin)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")})},
       {"driver-a/pool-1/device-1"},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1 admin, req-0 driver-a/pool-1/device-2 admin")}},
      {"separate-claims-share-device-admin-access",
       {Claim("claim-0", {Req("req-0", "class-a", 1, kAdmin)}),
        Claim("claim-1", {Req("req-0", "class-a", 1, kAdmin)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1 admin"), L("req-0 driver-a/pool-1/device-1 admin")}},
      {"admin-access-claims-device-allocating-for-non-admin-access",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}),
        Claim("claim-1", {Req("req-0", "class-a", 1, kAdmin)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1"), L("req-0 driver-a/pool-1/device-1 admin")}},
      {"admin-access-enabled",
       {Claim("claim-0", {Req("req-0", "class-a", 1, kAdmin)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {"driver-a/pool-1/device-1", "driver-a/pool-1/device-2"},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1 admin")}},
      {"all-devices-slice-without-devices-prioritized-list",
       {Claim("claim-0",
              {"    - name: req-0\n      firstAvailable:\n"
               "      - {name: subreq-0, deviceClassName: class-a, allocationMode: All}\n"
               "      - {name: subreq-1, deviceClassName: class-b, count: 1}\n"}),
        classA, classB, Slice("slice-1", "node-1", "pool-1", "driver-a", {}),
        OneDevice("slice-2", "node-1", "pool-2", "driver-b")},
       {},
       "node-1",
       {L("req-0/subreq-1 driver-b/pool-2/device-1")}},
      {"all-devices-no-slices-prioritized-list",
       {Claim("claim-0",
              {"    - name: req-0\n      firstAvailable:\n"
               "      - {name: subreq-0, deviceClassName: class-a, allocationMode: All}\n"
               "      - {name: subreq-1, deviceClassName: class-b, count: 1}\n"}),
        classA, classB, OneDevice("slice-2", "node-1", "pool-2", "driver-b")},
       {},
       "node-1",
       {L("req-0/subreq-1 driver-b/pool-2/device-1")}},
      {"all-devices-some-allocated-prioritized-list",
       {Claim("claim-0",
              {"    - name: req-0\n      firstAvailable:\n"
               "      - {name: subreq-0, deviceClassName: class-a, allocationMode: All}\n"
               "      - {name: subreq-1, deviceClassName: class-b, count: 1}\n"}),
        classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")}),
        OneDevice("slice-2", "node-1", "pool-2", "driver-b")},
       {"driver-a/pool-1/device-1"},
       "node-1",
       {L("req-0/subreq-1 driver-b/pool-2/device-1")}},
      {"network-attached-device",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        OneDevice("slice-1", "region=region-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {"req-0 driver-a/pool-1/device-1 | region In region-1"}},
      {"unsuccessful-allocation-network-attached-device",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        OneDevice("slice-1", "region=region-1", "pool-1", "driver-a")},
       {},
       "node-2",
       {},
       O::kUnsatisfiable},
      // kube names the four slices "slice-1".
      {"many-network-attached-devices",
       {Claim("claim-0", {Req("req-0", "class-a", 4)}), classA,
        OneDevice("slice-1", "region=region-1", "pool-1", "driver-a"),
        OneDevice("slice-1b", "all", "pool-2", "driver-a"),
        OneDevice("slice-1c", "planet=earth", "pool-3", "driver-a"),
        OneDevice("slice-1d", "field=node-1", "pool-4", "driver-a")},
       {},
       "node-1",
       {"req-0 driver-a/pool-1/device-1, req-0 driver-a/pool-2/device-1, req-0 "
        "driver-a/pool-3/device-1, req-0 driver-a/pool-4/device-1 | region In region-1 planet In "
        "earth field metadata.name In node-1"}},
      {"local-and-network-attached-devices",
       {Claim("claim-0", {Req("req-0", "class-a", 2)}), classA,
        OneDevice("slice-1", "region=region-1", "pool-1", "driver-a"),
        OneDevice("slice-1b", "node-1", "pool-2", "driver-a")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-0 driver-a/pool-2/device-1")}},
      // kube allocates the same claim object twice (both "claim-0"); Corral loads "claim-0b".
      {"several-different-drivers",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}),
        Claim("claim-0b", {Req("req-0", "class-b", 1)}), classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a", {D("device-1"), D("device-2")}),
        OneDevice("slice-1b", "node-1", "pool-1", "driver-b")},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1"), L("req-0 driver-b/pool-1/device-1")}},
      {"already-allocated-devices",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {"driver-a/pool-1/device-1", "driver-a/pool-1/device-2"},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"with-constraint",
       {Claim("claim-0", {Req("req-0", "class-a", 1), Req("req-1", "class-a", 1)},
              Constraints({Constraint("driver-a/numa"), Constraint("driver-a/driverVersion"),
                           Constraint("driver-a/stringAttribute"),
                           Constraint("driver-a/boolAttribute")})),
        classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", Attrs("driverVersion: {version: 1.0.0}, numa: {int: 1}, "
                                   "stringAttribute: {string: stringAttributeValue}, "
                                   "boolAttribute: {bool: true}")),
               D("device-2", Attrs("driverVersion: {version: 1.0.0}, numa: {int: 1}, "
                                   "stringAttribute: {string: stringAttributeValue}, "
                                   "boolAttribute: {bool: true}"))})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-1 driver-a/pool-1/device-2")}},
      {"with-constraint-non-existent-attribute",
       {Claim("claim-0", {Req("req-0", "class-a", 1)},
              Constraints({Constraint("driver-a/nonExistentAttribute")})),
        classA, OneDevice("slice-1", "node-1", "pool-1", "driver-a")},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"with-constraint-not-matching-int-attribute",
       {Claim("claim-0", {Req("req-0", "class-a", 2)}, Constraints({Constraint("driver-a/numa")})),
        classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", Attrs("numa: {int: 1}")), D("device-2", Attrs("numa: {int: 2}"))})},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"with-constraint-not-matching-int-attribute-all-devices",
       {Claim("claim-0", {AllReq("req-0", "class-a")}, Constraints({Constraint("driver-a/numa")})),
        classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", Attrs("numa: {int: 1}")), D("device-2", Attrs("numa: {int: 2}"))})},
       {},
       "node-1",
       {},
       O::kError,
       "claim default/claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because "
       "a claim constraint would not be satisfied"},
      {"with-constraint-not-matching-string-attribute",
       {Claim("claim-0", {Req("req-0", "class-a", 2)},
              Constraints({Constraint("driver-a/stringAttribute")})),
        classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", Attrs("stringAttribute: {string: stringAttributeValue}")),
               D("device-2", Attrs("stringAttribute: {string: stringAttributeValue2}"))})},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"with-constraint-not-matching-bool-attribute",
       {Claim("claim-0", {Req("req-0", "class-a", 2)},
              Constraints({Constraint("driver-a/boolAttribute")})),
        classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", Attrs("boolAttribute: {bool: true}")),
               D("device-2", Attrs("boolAttribute: {bool: false}"))})},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"with-constraint-not-matching-version-attribute",
       {Claim("claim-0", {Req("req-0", "class-a", 2)},
              Constraints({Constraint("driver-a/driverVersion")})),
        classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", Attrs("driverVersion: {version: 1.0.0}")),
               D("device-2", Attrs("driverVersion: {version: 2.0.0}"))})},
       {},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"with-constraint-for-request",
       {Claim("claim-0", {Req("req-0", "class-a", 1), Req("req-1", "class-a", 1)},
              Constraints({Constraint("driver-a/driverVersion", "req-0")})),
        classA, classB,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {D("device-1", Attrs("driverVersion: {version: 1.0.0}")),
               D("device-2", Attrs("driverVersion: {version: 2.0.0}"))})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-1 driver-a/pool-1/device-2")}},
      {"with-constraint-for-request-retry",
       {Claim("claim-0", {Req("req-0", "class-a", 1), Req("req-1", "class-a", 1)},
              Constraints({Constraint("driver-a/driverVersion", "req-0"),
                           Constraint("driver-a/stringAttribute")})),
        classA, classB,
        Slice(
            "slice-1", "node-1", "pool-1", "driver-a",
            {D("device-1", Attrs("driverVersion: {version: 1.0.0}, stringAttribute: {string: a}")),
             D("device-2", Attrs("driverVersion: {version: 2.0.0}, stringAttribute: {string: b}")),
             D("device-3",
               Attrs("driverVersion: {version: 3.0.0}, stringAttribute: {string: b}"))})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-2, req-1 driver-a/pool-1/device-3")}},
      {"partitionable-devices-single-device",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1", {{"counter-set-1", "memory=4Gi"}}, false)}, 2),
        CounterSlice("slice-2", "pool-1", 2, {{"counter-set-1", "memory=8Gi"}})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1")}},
      {"partitionable-devices-prioritized-list",
       {Claim(
            "claim-0",
            {Req("req-0", "class-a", 1),
             "    - name: req-1\n      firstAvailable:\n"
             "      - name: subreq-0\n        deviceClassName: class-a\n" +
                 Selector(R"(device.capacity["driver-a"].memory.compareTo(quantity("6Gi")) >= 0)") +
                 "      - name: subreq-1\n        deviceClassName: class-a\n" +
                 Selector(
                     R"(device.capacity["driver-a"].memory.compareTo(quantity("4Gi")) >= 0)")}),
        classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1", {{"counter-set-1", "memory=4Gi"}}),
               CD("device-2", {{"counter-set-1", "memory=6Gi"}}),
               CD("device-3", {{"counter-set-1", "memory=4Gi"}})},
              2),
        CounterSlice("slice-2", "pool-1", 2, {{"counter-set-1", "memory=8Gi"}})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-1/subreq-1 driver-a/pool-1/device-3")}},
      {"partitionable-devices-multiple-devices",
       {Claim("claim-0", {Req("req-0", "class-a", 1), Req("req-1", "class-a", 1)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1", {{"counter-set-1", "memory=4Gi"}}),
               CD("device-2", {{"counter-set-1", "memory=6Gi"}}),
               CD("device-3", {{"counter-set-1", "memory=4Gi"}})},
              2),
        CounterSlice("slice-2", "pool-1", 2, {{"counter-set-1", "memory=8Gi"}})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-1 driver-a/pool-1/device-3")}},
      {"partitionable-devices-multiple-capacity-pools",
       {Claim(
            "claim-0",
            {Req("req-0", "class-a", 1),
             "    - name: req-1\n      firstAvailable:\n"
             "      - name: subreq-0\n        deviceClassName: class-a\n" +
                 Selector(R"(device.capacity["driver-a"].memory.compareTo(quantity("6Gi")) >= 0)") +
                 "      - name: subreq-1\n        deviceClassName: class-a\n" +
                 Selector(
                     R"(device.capacity["driver-a"].memory.compareTo(quantity("4Gi")) >= 0)")}),
        classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1", {{"counter-set-1", "memory=4Gi"}, {"counter-set-2", "cpus=4"}}),
               CD("device-2", {{"counter-set-1", "memory=6Gi"}, {"counter-set-2", "cpus=6"}}),
               CD("device-3", {{"counter-set-1", "memory=4Gi"}, {"counter-set-2", "cpus=4"}})},
              2),
        CounterSlice("slice-2", "pool-1", 2,
                     {{"counter-set-1", "memory=18Gi"}, {"counter-set-2", "cpus=8"}})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-1, req-1/subreq-1 driver-a/pool-1/device-3")}},
      {"partitionable-devices-multiple-counters",
       {Claim("claim-0", {Req("req-0", "class-a", 1), Req("req-1", "class-a", 1)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1",
                  {{"counter-set-1", "memory=4Gi,cpus=6"}, {"counter-set-2", "cpus=4,memory=2Gi"}},
                  false),
               CD("device-2",
                  {{"counter-set-1", "memory=6Gi,cpus=4"}, {"counter-set-2", "cpus=6,memory=6Gi"}},
                  false),
               CD("device-3",
                  {{"counter-set-1", "memory=4Gi,cpus=4"}, {"counter-set-2", "cpus=4,memory=4Gi"}},
                  false)},
              2),
        CounterSlice(
            "slice-2", "pool-1", 2,
            {{"counter-set-1", "cpus=8,memory=18Gi"}, {"counter-set-2", "cpus=12,memory=18Gi"}})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-2, req-1 driver-a/pool-1/device-3")}},
      {"partitionable-devices-multiple-pools",
       {Claim("claim-0", {Req("req-0", "class-a", 1), Req("req-1", "class-a", 1)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1", {{"counter-set-1", "cpus=6,memory=4Gi"}}, false),
               CD("device-2", {{"counter-set-1", "cpus=4,memory=6Gi"}}, false),
               CD("device-3", {{"counter-set-1", "cpus=4,memory=4Gi"}}, false)},
              2),
        CounterSlice("slice-2", "pool-1", 2, {{"counter-set-1", "cpus=8,memory=18Gi"}}),
        Slice("slice-3", "node-1", "pool-2", "driver-a",
              {CD("device-1", {{"counter-set-1", "cpus=6,memory=4Gi"}}, false),
               CD("device-2", {{"counter-set-1", "cpus=1,memory=7Gi"}}, false),
               CD("device-3", {{"counter-set-1", "cpus=1,memory=7Gi"}}, false)},
              2),
        CounterSlice("slice-4", "pool-2", 2, {{"counter-set-1", "cpus=8,memory=18Gi"}})},
       {"driver-a/pool-1/device-2", "driver-a/pool-1/device-3", "driver-a/pool-2/device-1"},
       "node-1",
       {L("req-0 driver-a/pool-2/device-2, req-1 driver-a/pool-2/device-3")}},
      {"partitionable-devices-unused-counters-in-counter-set",
       {Claim("claim-0", {Req("req-0", "class-a", 2)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1", {{"counter-set-1", "memory=5Gi"}}, false),
               CD("device-2", {{"counter-set-1", "memory=4Gi"}}, false),
               CD("device-3", {{"counter-set-1", "memory=4Gi"}}, false)},
              2),
        CounterSlice("slice-2", "pool-1", 2, {{"counter-set-1", "memory=8Gi,unused=1Gi"}})},
       {},
       "node-1",
       {L("req-0 driver-a/pool-1/device-2, req-0 driver-a/pool-1/device-3")}},
      {"partitionable-devices-no-capacity-available",
       {Claim("claim-0", {Req("req-0", "class-a", 1)}), classA,
        Slice("slice-1", "node-1", "pool-1", "driver-a",
              {CD("device-1", {{"counter-set-1", "memory=4Gi"}}),
               CD("device-2", {{"counter-set-1", "memory=16Gi"}})}),
        CounterSlice("slice-2", "pool-1", 1, {{"counter-set-1", "memory=18Gi"}})},
       {"driver-a/pool-1/device-2"},
       "node-1",
       {},
       O::kUnsatisfiable},
      {"too-many-devices-single-request",
       {Claim("claim-0", {Req("req-0", "class-a", 500)}), classA},
       {},
       "node-1",
       {},
       O::kError,
       "claim default/claim-0: number of requested devices 500 exceeds the claim limit of 32"},
  };
}

TEST(AllocatorTest, KubeAllocatorCases) {
  for (const Case& c : Cases()) RunCase(c);
}

}  // namespace
}  // namespace corral::plugins::dra
