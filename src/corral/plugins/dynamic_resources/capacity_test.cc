// Consumable capacity (DRAConsumableCapacity) in the structured allocator: kube's cases from
// staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/  // prose-ok
// allocator_testing.go (TestAllocator, the "consumable-capacity-*" and "allow-multiple-
// allocations-*" cases) translated with kube's expected results, and the rounding rules of
// internal/incubating/consumable_capacity.go. kube's helpers: a device "withCapacityRequestPolicy
// Range" has the policy default 2, validRange {min 2, step 2, max 4}; "withCapacityRequestPolicy
// ValidValues(d, v, extra)" has default d and validValues [d, extra...]; a class "withAllowMultiple
// Allocations(x)" adds the selector device.allowMultipleAllocations == x. Claims get the namespace
// "default" and sub-request names are DNS labels ("subreq-1" for kube's "subReq-1").
// Cases kube runs with objects its API validation rejects (a requestPolicy on a device without
// allowMultipleAllocations) are loader errors in Corral and are tested as such at the end.

#include "corral/plugins/dynamic_resources/capacity.h"

#include <algorithm>
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

std::string Class(std::string_view name, std::string_view multi = "") {
  std::string sel = "device.driver == \"driver-a\"";
  if (!multi.empty()) sel += fmt::format(" && device.allowMultipleAllocations == {}", multi);
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {}}}
spec:
  selectors:
  - cel: {{expression: '{}'}}
)",
                     name, sel);
}

// A device; `body` holds its extra fields, each line indented by 4.
std::string Dev(std::string_view name, std::string_view body) {
  return fmt::format("  - name: {}\n{}", name, body);
}
constexpr std::string_view kMulti = "    allowMultipleAllocations: true\n";
// kube withCapacityRequestPolicyRange: default 2, validRange {min 2, step 2, max 4}.
std::string RangeCap(std::string_view name, std::string_view value) {
  return fmt::format(
      "      {}: {{value: \"{}\", requestPolicy: {{default: \"2\", validRange: {{min: \"2\", step: "
      "\"2\", max: \"4\"}}}}}}\n",
      name, value);
}
// kube withCapacityRequestPolicyValidValues(default, {name: value}, extra).
std::string ValuesCap(std::string_view name, std::string_view value, std::string_view def,
                      std::string_view extra = "") {
  return fmt::format(
      "      {}: {{value: \"{}\", requestPolicy: {{default: \"{}\", validValues: [\"{}\"{}]}}}}\n",
      name, value, def, def, extra.empty() ? "" : fmt::format(", \"{}\"", extra));
}
std::string PlainCap(std::string_view name, std::string_view value) {
  return fmt::format("      {}: {{value: \"{}\"}}\n", name, value);
}
std::string Caps(std::string_view entries) {
  return fmt::format("    capacity:\n{}", entries);
}

std::string Slice(std::string_view name, const std::vector<std::string>& devices,
                  std::string_view counters = "", int64_t count = 1) {
  std::string devs;
  for (const auto& d : devices) devs += d;
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {}}}
spec:
  driver: driver-a
  nodeName: node-1
  pool: {{name: pool-1, generation: 1, resourceSliceCount: {}}}
{}{})",
                     name, count, devs.empty() ? "" : "  devices:\n" + devs, counters);
}

// An exact request; `cap` is the capacity0 request ("" for none).
std::string Req(std::string_view name, std::string_view cap = "", std::string_view mode = "",
                std::string_view cls = "class-a") {
  std::string out =
      fmt::format("    - name: {}\n      exactly:\n        deviceClassName: {}\n", name, cls);
  if (mode == "All") out += "        allocationMode: All\n";
  if (!cap.empty())
    out += fmt::format("        capacity: {{requests: {{capacity0: \"{}\"}}}}\n", cap);
  return out;
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
metadata: {name: node-1, labels: {region: region-1}}
status: {capacity: {pods: "110"}}
)";

struct Case {
  std::string name;  // kube's test case name
  std::vector<std::string> objects;
  std::vector<std::string> allocated;                       // kube allocatedDevices: "device-1"
  std::vector<std::pair<std::string, std::string>> shared;  // allocatedCapacityDevices: device, c0
  // One line per claim: "<request> <device>[ {name=qty,...}], ..."; empty: unsatisfiable.
  std::vector<std::string> want;
  AllocatorFeatures features = {};
  std::string want_error = "";
  // kube's helper gives devices of capacity 2 the range policy with max 4, which kube's API
  // validation rejects (its unit tests skip validation): these devices are written with value 4
  // and set to 2 after loading.
  std::vector<std::string> value2 = {};
};

std::string Describe(const Interner& in, const res::AllocationResult& r) {
  std::string out;
  for (const auto& d : r.devices) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", in.Str(d.request), in.Str(d.device));
    if (!d.shared) continue;
    std::string caps;
    for (const auto& c : d.consumed_capacity) {
      caps += fmt::format("{}{}={}", caps.empty() ? "" : ",", c.id, c.value.String());
    }
    out += fmt::format(" {{{}}}", caps);
  }
  return out;
}

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  Interner in = api::NewInterner();
  std::string yaml(kNode1);
  for (const auto& o : c.objects) yaml += o;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
  ASSERT_TRUE(r.ok());
  res::ResourceObjects objs = *r.objects.resources;  // a copy the case may patch
  for (auto& s : objs.resource_slices) {
    for (auto& d : s.devices) {
      if (std::find(c.value2.begin(), c.value2.end(), in.Str(d.name)) == c.value2.end()) continue;
      for (auto& cap : d.capacity) cap.value = *api::Quantity::Parse("2");
    }
  }
  const Symbol driver = in.Intern("driver-a"), pool = in.Intern("pool-1");
  absl::flat_hash_set<framework::DeviceId> allocated;
  for (const auto& a : c.allocated) allocated.insert({driver, pool, in.Intern(a)});
  framework::SharedDeviceMap shared;
  for (const auto& [dev, qty] : c.shared) {
    auto& sh = shared[{driver, pool, in.Intern(dev)}];
    sh.shares = 1;
    sh.consumed.push_back({"driver-a", "capacity0", *api::Quantity::Parse(qty)});
  }
  dra_test::FakeDraManager dra(objs, std::move(allocated), std::move(shared));
  Allocator alloc(dra, in, c.features);
  std::vector<const res::ResourceClaim*> claims;
  for (const auto& cl : objs.resource_claims) claims.push_back(&cl);
  std::vector<res::AllocationResult> results;
  std::string err;
  Allocator::Outcome got = alloc.Allocate(r.objects.nodes[0], claims, &results, &err);
  EXPECT_EQ(err, c.want_error);
  if (!c.want_error.empty()) {
    EXPECT_EQ(got, Allocator::Outcome::kError);
    return;
  }
  if (c.want.empty()) {
    EXPECT_EQ(got, Allocator::Outcome::kUnsatisfiable);
    return;
  }
  ASSERT_EQ(got, Allocator::Outcome::kAllocated) << err;
  std::vector<std::string> lines;
  for (const auto& res : results) lines.push_back(Describe(in, res));
  EXPECT_EQ(lines, c.want);
}

std::string Counters(std::string_view sets) {
  return fmt::format("  sharedCounters:\n{}", sets);
}

std::vector<Case> Cases() {
  const std::string multi_true = Class("class-a", "true");
  const std::string multi_false = Class("class-a", "false");
  const std::string plain = Class("class-a");
  return {
      {"consumable-capacity-multi-allocatable-device-with-zero-request-policy",
       {multi_true,
        Slice("slice-1",
              {Dev("device-1", std::string(kMulti) + Caps(ValuesCap("capacity0", "1", "0")))}),
        Claim("claim-0", {Req("req-0")}), Claim("claim-1", {Req("req-0")})},
       {},
       {},
       {"req-0 device-1 {capacity0=0}", "req-0 device-1 {capacity0=0}"}},
      {"consumable-capacity-multi-allocatable-device-violates-zero-request-policy",
       {multi_true,
        Slice("slice-1",
              {Dev("device-1", std::string(kMulti) + Caps(ValuesCap("capacity0", "1", "0")))}),
        Claim("claim-0", {Req("req-0", "1")})},
       {},
       {},
       {}},
      // Both claims share the device; a request of 1 rounds up to the range's min 2.
      {"consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "1")}), Claim("claim-1", {Req("req-0", "1")})},
       {},
       {},
       {"req-0 device-1 {capacity0=2}", "req-0 device-1 {capacity0=2}"}},
      // 3 rounds up with the step: 2 + 2 = 4.
      {"consumable-capacity-multi-allocatable-device-with-range-policy-step",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "3")})},
       {},
       {},
       {"req-0 device-1 {capacity0=4}"}},
      {"consumable-capacity-multi-allocatable-device-with-valid-values-policy",
       {multi_true,
        Slice("slice-1",
              {Dev("device-1", std::string(kMulti) + Caps(ValuesCap("capacity0", "4", "1", "2")))}),
        Claim("claim-0", {Req("req-0", "2")})},
       {},
       {},
       {"req-0 device-1 {capacity0=2}"}},
      {"consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up",
       {multi_true,
        Slice("slice-1",
              {Dev("device-1", std::string(kMulti) + Caps(ValuesCap("capacity0", "3", "1", "3")))}),
        Claim("claim-0", {Req("req-0", "2")})},
       {},
       {},
       {"req-0 device-1 {capacity0=3}"}},
      {"consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "1")}), Claim("claim-1", {Req("req-0", "2")})},
       {},
       {},
       {},
       {},
       "",
       {"device-1"}},
      // 6 < 10 but above the policy's max 4.
      {"consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy",
       {multi_true,
        Slice("slice-1",
              {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "10")))}),
        Claim("claim-0", {Req("req-0", "6")})},
       {},
       {},
       {}},
      {"consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "2")})},
       {},
       {{"device-1", "2"}},
       {"req-0 device-1 {capacity0=2}"}},
      {"consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4"))),
                          Dev("device-2", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "2")})},
       {},
       {{"device-1", "2"}},
       {"req-0 device-2 {capacity0=2}"},
       {},
       "",
       {"device-1", "device-2"}},
      // The constraint rejects device-2 for req-1 after req-0 took it: backtracking moves both
      // requests of claim-0 to device-1 and claim-1 gets device-2.
      {"consumable-capacity-with-multi-allocatable-device-backtrack",
       {plain,
        Slice("slice-1",
              {Dev("device-2", std::string(kMulti) +
                                   "    attributes: {stringAttribute: {string: value1}}\n" +
                                   Caps(RangeCap("capacity0", "4"))),
               Dev("device-1", std::string(kMulti) +
                                   "    attributes: {stringAttribute: {string: value2}}\n" +
                                   Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "2"), Req("req-1", "2")},
              "    constraints:\n    - matchAttribute: driver-a/stringAttribute\n"),
        Claim("claim-1", {Req("req-0", "2")})},
       {},
       {},
       {"req-0 device-1 {capacity0=2}, req-1 device-1 {capacity0=2}",
        "req-0 device-2 {capacity0=2}"},
       {},
       "",
       {"device-2"}},
      // kube's third sub-request (no capacity) repeats the name subReq-1 and is left out: names
      // must be unique. The first (4) does not fit a device of 2.
      {"consumable-capacity-multi-allocatable-device-with-subrequest",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {"    - name: req-0\n      firstAvailable:\n"
                          "      - {name: subreq-0, deviceClassName: class-a, capacity: {requests: "
                          "{capacity0: \"4\"}}}\n"
                          "      - {name: subreq-1, deviceClassName: class-a, capacity: {requests: "
                          "{capacity0: \"2\"}}}\n"})},
       {},
       {},
       {"req-0/subreq-1 device-1 {capacity0=2}"},
       {},
       "",
       {"device-1"}},
      {"consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "2")})},
       {},
       {{"device-1", "2"}},
       {},
       {},
       "",
       {"device-1"}},
      // A device without the requested capacity is left out of "All".
      {"consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(PlainCap("capacity0", "2"))),
                          Dev("device-2", std::string(kMulti))}),
        Claim("claim-0", {Req("req-0", "2", "All")})},
       {},
       {},
       {"req-0 device-1 {capacity0=2}"}},
      {"consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-"
       "capacity",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(PlainCap("capacity0", "2"))),
                          Dev("device-2", std::string(kMulti) + Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "2", "All")})},
       {},
       {},
       {"req-0 device-1 {capacity0=2}"}},
      {"consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient",
       {plain,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(PlainCap("capacity0", "2"))),
                          Dev("device-2", std::string(kMulti) + Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "1"), Req("req-1", "1", "All")})},
       {},
       {},
       {"req-0 device-1 {capacity0=1}, req-1 device-1 {capacity0=1}, req-1 device-2 "
        "{capacity0=1}"}},
      {"consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient",
       {plain,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(PlainCap("capacity0", "2"))),
                          Dev("device-2", std::string(kMulti) + Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "1", "All")})},
       {},
       {{"device-1", "1"}},
       {"req-0 device-1 {capacity0=1}, req-0 device-2 {capacity0=1}"}},
      {"consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient",
       {plain,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(PlainCap("capacity0", "1"))),
                          Dev("device-2", std::string(kMulti) + Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "1"), Req("req-1", "1", "All")})},
       {},
       {},
       {}},
      {"consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient",
       {plain,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(PlainCap("capacity0", "1"))),
                          Dev("device-2", std::string(kMulti) + Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "1", "All")})},
       {},
       {{"device-1", "1"}},
       {"req-0 device-2 {capacity0=1}"}},
      // A device without allowMultipleAllocations is allocated whole (no share) for a request
      // with capacity.
      {"consumable-capacity-dedicated-device-with-consumable-capacity-request",
       {multi_false, Slice("slice-1", {Dev("device-1", Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "1")})},
       {},
       {},
       {"req-0 device-1"}},
      {"allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector",
       {multi_false,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "1")})},
       {},
       {},
       {}},
      {"allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated",
       {multi_true,
        Slice("slice-1", {Dev("device-1", std::string(kMulti) + Caps(RangeCap("capacity0", "4")))}),
        Claim("claim-0", {Req("req-0", "1")})},
       {"device-1"},
       {},
       {},
       {},
       "",
       {"device-1"}},
      // Shared devices consume counters once: device-1 takes 4Gi of 8Gi for req-0; for req-1 the
      // 6Gi device-2 exceeds the counters and device-1 has no memory left, so device-3 is taken.
      {"allow-multiple-allocations-with-partitionable-device",
       {multi_true,
        Slice("slice-1",
              {Dev("device-1",
                   std::string(kMulti) + Caps(PlainCap("memory", "4Gi")) +
                       "    consumesCounters:\n    - {counterSet: counter-set-1, counters: "
                       "{memory: {value: 4Gi}}}\n"),
               Dev("device-2",
                   std::string(kMulti) + Caps(PlainCap("memory", "6Gi")) +
                       "    consumesCounters:\n    - {counterSet: counter-set-1, counters: "
                       "{memory: {value: 6Gi}}}\n"),
               Dev("device-3",
                   std::string(kMulti) + Caps(PlainCap("memory", "4Gi")) +
                       "    consumesCounters:\n    - {counterSet: counter-set-1, counters: "
                       "{memory: {value: 4Gi}}}\n")},
              "", 2),
        Slice("slice-2", {},
              Counters("  - name: counter-set-1\n    counters: {memory: {value: 8Gi}}\n"), 2),
        Claim("claim-0",
              {Req("req-0"),
               "    - name: req-1\n      firstAvailable:\n"
               "      - name: subreq-0\n        deviceClassName: class-a\n        selectors:\n"
               "        - cel: {expression: 'device.capacity[\"driver-a\"].memory.compareTo("
               "quantity(\"6Gi\")) >= 0'}\n"
               "      - name: subreq-1\n        deviceClassName: class-a\n        selectors:\n"
               "        - cel: {expression: 'device.capacity[\"driver-a\"].memory.compareTo("
               "quantity(\"4Gi\")) >= 0'}\n"})},
       {},
       {},
       {"req-0 device-1 {memory=4Gi}, req-1/subreq-1 device-3 {memory=4Gi}"}},
      // Counter sets (capacity0 4, capacity1 8); devices consume (2,4), (4,4), (2,4), capacity1
      // with the range policy. req-0 shares device-1, req-2 cannot get 2 more of device-1 and
      // device-2 exceeds the counters, so device-3; req-1's first sub-request needs device-2,
      // the second shares device-1 again (its counters are not taken twice).
      {"consumable-capacity-with-partitionable-device-multiple-capacity-pools",
       {plain,
        Slice("slice-1",
              {Dev("device-1",
                   std::string(kMulti) +
                       Caps(PlainCap("capacity0", "2") + RangeCap("capacity1", "4")) +
                       "    consumesCounters:\n    - {counterSet: counter-set-1, counters: "
                       "{capacity0: {value: \"2\"}}}\n    - {counterSet: counter-set-2, counters: "
                       "{capacity1: {value: \"4\"}}}\n"),
               Dev("device-2",
                   std::string(kMulti) +
                       Caps(PlainCap("capacity0", "4") + RangeCap("capacity1", "4")) +
                       "    consumesCounters:\n    - {counterSet: counter-set-1, counters: "
                       "{capacity0: {value: \"4\"}}}\n    - {counterSet: counter-set-2, counters: "
                       "{capacity1: {value: \"4\"}}}\n"),
               Dev("device-3",
                   std::string(kMulti) +
                       Caps(PlainCap("capacity0", "2") + RangeCap("capacity1", "4")) +
                       "    consumesCounters:\n    - {counterSet: counter-set-1, counters: "
                       "{capacity0: {value: \"2\"}}}\n    - {counterSet: counter-set-2, counters: "
                       "{capacity1: {value: \"4\"}}}\n")},
              "", 2),
        Slice("slice-2", {},
              Counters("  - name: counter-set-1\n    counters: {capacity0: {value: \"4\"}}\n"
                       "  - name: counter-set-2\n    counters: {capacity1: {value: \"8\"}}\n"),
              2),
        Claim("claim-0",
              {Req("req-0", "1"), Req("req-2", "2"),
               "    - name: req-1\n      firstAvailable:\n"
               "      - name: subreq-0\n        deviceClassName: class-a\n        selectors:\n"
               "        - cel: {expression: 'device.capacity[\"driver-a\"].capacity0.compareTo("
               "quantity(\"4\")) >= 0'}\n        capacity: {requests: {capacity0: \"1\"}}\n"
               "      - name: subreq-1\n        deviceClassName: class-a\n        selectors:\n"
               "        - cel: {expression: 'device.capacity[\"driver-a\"].capacity0.compareTo("
               "quantity(\"2\")) >= 0'}\n        capacity: {requests: {capacity0: \"1\"}}\n"})},
       {},
       {},
       {"req-0 device-1 {capacity0=1,capacity1=2}, req-2 device-3 {capacity0=2,capacity1=2}, "
        "req-1/subreq-1 device-1 {capacity0=1,capacity1=2}"}},
      // kube's Allocate with the feature off (the incubating allocator's check).
      {"consumable-capacity-feature-disabled",
       {plain, Slice("slice-1", {Dev("device-1", Caps(PlainCap("capacity0", "1")))}),
        Claim("claim-0", {Req("req-0", "1")})},
       {},
       {},
       {},
       {.consumable_capacity = false},
       "claim default/claim-0, request req-0: has capacity requests, but the "
       "DRAConsumableCapacity feature is disabled"},
  };
}

TEST(CapacityTest, KubeAllocatorCases) {
  for (const Case& c : Cases()) RunCase(c);
}

// Rounding (kube's calculateConsumedCapacity and violatesPolicy).
TEST(CapacityTest, ConsumedQuantityRounding) {
  auto q = [](std::string_view s) { return *api::Quantity::Parse(s); };
  res::CapacityRequestPolicy range{
      .default_value = q("1Gi"),
      .valid_range = res::CapacityRequestPolicyRange{q("1Gi"), q("8Gi"), q("1Gi")}};
  const api::Quantity total = q("80Gi");
  const api::Quantity r1 = q("10Gi"), r2 = q("1500Mi"), r3 = q("100Mi");
  EXPECT_EQ(ConsumedQuantity(nullptr, total, nullptr), total);
  EXPECT_EQ(ConsumedQuantity(nullptr, total, &range), q("1Gi"));
  EXPECT_EQ(ConsumedQuantity(&r1, total, nullptr), r1);
  EXPECT_EQ(ConsumedQuantity(&r2, total, &range), q("2Gi"));                  // up to the next step
  EXPECT_EQ(ConsumedQuantity(&r3, total, &range), q("1Gi"));                  // up to min
  EXPECT_TRUE(ViolatesPolicy(ConsumedQuantity(&r1, total, &range), &range));  // above max
  EXPECT_FALSE(ViolatesPolicy(q("2Gi"), &range));
  res::CapacityRequestPolicy values{.default_value = q("1"),
                                    .valid_values = {q("1"), q("2"), q("4")}};
  const api::Quantity three = q("3"), five = q("5");
  EXPECT_EQ(ConsumedQuantity(&three, q("4"), &values), q("4"));
  EXPECT_EQ(ConsumedQuantity(&five, q("4"), &values), five);  // above every value: unchanged
  EXPECT_TRUE(ViolatesPolicy(five, &values));
  EXPECT_FALSE(ViolatesPolicy(q("1"), &values));
}

// kube's API validation of requestPolicy and allowMultipleAllocations, at kube's field paths.
TEST(CapacityTest, LoaderValidation) {
  struct V {
    std::string caps;
    bool multi;
    std::string want_path, want_message;
  };
  const std::vector<V> cases = {
      {"      c: {value: \"4\", requestPolicy: {default: \"2\"}}\n", false,
       "spec.devices[0].capacity[c].requestPolicy",
       "Forbidden: allowMultipleAllocations must be true"},
      {"      c: {value: \"4\", requestPolicy: {default: \"1\", validValues: [\"1\"], validRange: "
       "{min: \"1\"}}}\n",
       true, "spec.devices[0].capacity[c].requestPolicy",
       "Forbidden: exactly one policy can be specified, cannot specify \"validValues\" and "
       "\"validRange\" at the same time"},
      {"      c: {value: \"4\", requestPolicy: {validValues: [\"1\"]}}\n", true,
       "spec.devices[0].capacity[c].requestPolicy.default",
       "Required value: required when validValues is defined"},
      {"      c: {value: \"4\", requestPolicy: {default: \"3\", validValues: [\"1\", \"2\"]}}\n",
       true, "spec.devices[0].capacity[c].requestPolicy.validValues",
       "Invalid value: \"3\": default value is not valid according to the requestPolicy"},
      {"      c: {value: \"4\", requestPolicy: {default: \"2\", validValues: [\"2\", \"1\"]}}\n",
       true, "spec.devices[0].capacity[c].requestPolicy.validValues[1]",
       "Invalid value: \"1\": values must be sorted in ascending order"},
      {"      c: {value: \"4\", requestPolicy: {default: \"2\", validRange: {min: \"8\"}}}\n", true,
       "spec.devices[0].capacity[c].requestPolicy.validRange.min",
       "Invalid value: \"8\": min is larger than capacity value: 4"},
      {"      c: {value: \"8\", requestPolicy: {default: \"3\", validRange: {min: \"2\", step: "
       "\"2\"}}}\n",
       true, "spec.devices[0].capacity[c].requestPolicy.validRange.step",
       "Invalid value: \"3\": value is not a multiple of a given step (2) from (2)"},
  };
  for (const V& v : cases) {
    SCOPED_TRACE(v.want_path);
    Interner in = api::NewInterner();
    std::string yaml =
        Slice("slice-1", {Dev("device-1", std::string(v.multi ? kMulti : "") + Caps(v.caps))});
    loader::LoadResult r = loader::LoadString(yaml, "v.yaml", in);
    ASSERT_FALSE(r.ok());
    bool found = false;
    for (const auto& d : r.diagnostics.items()) {
      found |= d.path == v.want_path && d.message == v.want_message;
    }
    EXPECT_TRUE(found) << r.diagnostics.items()[0].path << ": " << r.diagnostics.items()[0].message;
  }
}

}  // namespace
}  // namespace corral::plugins::dra
