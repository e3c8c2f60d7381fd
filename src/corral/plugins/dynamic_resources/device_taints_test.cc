// Device taints and tolerations (DRADeviceTaints) in the structured allocator: kube's cases from
// allocator_testing.go (staging/src/k8s.io/dynamic-resource-allocation/structured/internal/
// allocatortesting; TestAllocator, the "tainted-*" cases, with kube's taints and tolerations:
// taintNoSchedule {taint-key=taint-value:NoSchedule}, taintNoExecute
// {taint-key=taint-value-2:NoExecute}, tolerationNoSchedule {Exists taint-key:NoSchedule},
// tolerationNoExecute {taint-key Equal taint-value-2:NoExecute}), with the expected results kube
// gives them; the "-disabled" variants run with DRADeviceTaints off. DeviceTaintRule cases follow
// kube's ResourceSlice tracker (resourceslice/tracker, applyPatches): a rule's taint is added to
// every device its driver, pool and device select. Objects go through the loader, so the
// manifests are validated as Corral loads them. Sub-request names are DNS labels here
// ("subreq-0" for kube's "subReq-0").

#include "corral/plugins/dynamic_resources/device_taints.h"

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
using dra_test::DriverClass;

constexpr std::string_view kNode = R"(---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {region: region-1}}
status: {capacity: {pods: "110"}}
)";

// A device with taints, each "key=value:Effect" or "key:Effect".
std::string Dev(std::string_view name, const std::vector<std::string>& taints = {}) {
  std::string out = fmt::format("  - name: {}\n", name);
  if (taints.empty()) return out;
  out += "    taints:\n";
  for (const auto& t : taints) {
    size_t colon = t.rfind(':');
    std::string kv = t.substr(0, colon);
    size_t eq = kv.find('=');
    out += fmt::format("    - {{key: {}, {}effect: {}}}\n", kv.substr(0, eq),
                       eq == std::string::npos ? "" : fmt::format("value: {}, ", kv.substr(eq + 1)),
                       t.substr(colon + 1));
  }
  return out;
}

std::string Slice(std::string_view name, std::string_view pool, std::string_view driver,
                  const std::vector<std::string>& devices) {
  std::string devs;
  for (const auto& d : devices) devs += d;
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {}}}
spec:
  driver: {}
  nodeName: node-1
  pool: {{name: {}, generation: 1, resourceSliceCount: 1}}
  devices:
{})",
                     name, driver, pool, devs);
}

// kube's tolerations.
const std::string kTolNoSchedule = "{operator: Exists, key: taint-key, effect: NoSchedule}";
const std::string kTolNoExecute =
    "{operator: Equal, key: taint-key, value: taint-value-2, effect: NoExecute}";
const std::string kTaintNoSchedule = "taint-key=taint-value:NoSchedule";
const std::string kTaintNoExecute = "taint-key=taint-value-2:NoExecute";

std::string Tolerations(const std::vector<std::string>& ts, int indent) {
  if (ts.empty()) return "";
  std::string pad(static_cast<size_t>(indent), ' ');
  std::string out = pad + "tolerations:\n";
  for (const auto& t : ts) out += fmt::format("{}- {}\n", pad, t);
  return out;
}

// A claim with one exact request "req-0" of class-a.
std::string Claim(const std::vector<std::string>& tolerations = {}, std::string_view extra = "") {
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: claim-0}}
spec:
  devices:
    requests:
    - name: req-0
      exactly:
        deviceClassName: class-a
{}{})",
                     extra, Tolerations(tolerations, 8));
}

std::string Rule(std::string_view name, std::string_view selector, std::string_view taint) {
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {{name: {}}}
spec:
  deviceSelector: {}
  taint: {}
)",
                     name, selector, taint);
}

struct Case {
  std::string name;  // kube's test case name (or what the case shows)
  std::vector<std::string> objects;
  std::vector<std::string> allocated;  // "driver/pool/device"
  Allocator::Features features;
  // "<request> <driver>/<pool>/<device>[ admin], ..." for the one claim; empty: no allocation.
  std::string want;
};

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  Interner in = api::NewInterner();
  std::string yaml(kNode);
  for (const auto& o : c.objects) yaml += o;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
  ASSERT_TRUE(r.ok());
  ASSERT_NE(r.objects.resources, nullptr);
  const res::ResourceObjects& objs = *r.objects.resources;
  dra_test::FakeDraManager dra(objs, dra_test::ParseDeviceIds(in, c.allocated));
  Allocator alloc(dra, in, c.features);
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
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(dra_test::DescribeDevices(in, results[0]), c.want);
}

std::vector<Case> KubeCases() {
  const std::string class_a = DriverClass("class-a", "driver-a");
  const std::string class_b = DriverClass("class-b", "driver-b");
  const std::string two_devices =
      Slice("slice-1", "pool-1", "driver-a",
            {Dev("device-1", {kTaintNoSchedule}), Dev("device-2", {kTaintNoExecute})});
  const std::string one_device_two_taints = Slice(
      "slice-1", "pool-1", "driver-a", {Dev("device-1", {kTaintNoSchedule, kTaintNoExecute})});
  const std::string one_tainted =
      Slice("slice-1", "pool-1", "driver-a", {Dev("device-1", {kTaintNoSchedule})});
  const std::string prioritized = R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: claim-0}
spec:
  devices:
    requests:
    - name: req-0
      firstAvailable:
      - {name: subreq-0, deviceClassName: class-b, count: 1}
      - {name: subreq-1, deviceClassName: class-a, count: 1}
)";
  const std::string admin = Claim({}, "        adminAccess: true\n");
  const std::string all = R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: claim-0}
spec:
  devices:
    requests:
    - name: req-0
      exactly: {deviceClassName: class-a, allocationMode: All}
)";
  const Allocator::Features off{.device_taints = false, .device_taint_rules = false};
  return {
      {"tainted-two-devices", {class_a, two_devices, Claim()}, {}, {}, ""},
      {"tainted-one-device-two-taints", {class_a, one_device_two_taints, Claim()}, {}, {}, ""},
      // Only the second device's taint is tolerated.
      {"tainted-two-devices-tolerated",
       {class_a, two_devices, Claim({kTolNoExecute})},
       {},
       {},
       "req-0 driver-a/pool-1/device-2"},
      {"tainted-one-device-two-taints-both-tolerated",
       {class_a, one_device_two_taints, Claim({kTolNoSchedule, kTolNoExecute})},
       {},
       {},
       "req-0 driver-a/pool-1/device-1"},
      {"tainted-prioritized-list", {class_a, class_b, one_tainted, prioritized}, {}, {}, ""},
      {"tainted-prioritized-list-disabled",
       {class_a, class_b, one_tainted, prioritized},
       {},
       off,
       "req-0/subreq-1 driver-a/pool-1/device-1"},
      {"tainted-admin-access",
       {class_a, one_tainted, admin},
       {"driver-a/pool-1/device-1", "driver-a/pool-1/device-2"},
       {},
       ""},
      {"tainted-admin-access-disabled",
       {class_a, one_tainted, admin},
       {"driver-a/pool-1/device-1", "driver-a/pool-1/device-2"},
       off,
       "req-0 driver-a/pool-1/device-1 admin"},
      {"tainted-all-devices-single", {class_a, one_tainted, all}, {}, {}, ""},
      {"tainted-all-devices-single-disabled",
       {class_a, one_tainted, all},
       {},
       off,
       "req-0 driver-a/pool-1/device-1"},
  };
}

TEST(DeviceTaintsTest, KubeAllocatorCases) {
  for (const Case& c : KubeCases()) RunCase(c);
}

TEST(DeviceTaintsTest, EffectNoneDoesNotPreventAllocation) {
  // kube taintPreventsAllocation: only NoSchedule and NoExecute prevent allocation.
  RunCase({"taint-none",
           {DriverClass("class-a", "driver-a"),
            Slice("slice-1", "pool-1", "driver-a", {Dev("device-1", {"taint-key:None"})}), Claim()},
           {},
           {},
           "req-0 driver-a/pool-1/device-1"});
}

TEST(DeviceTaintsTest, DeviceTaintRules) {
  const std::string class_a = DriverClass("class-a", "driver-a");
  const std::string slices = Slice("slice-1", "pool-1", "driver-a", {Dev("device-1")}) +
                             Slice("slice-2", "pool-2", "driver-a", {Dev("device-1")});
  const std::string no_schedule = "{key: example.com/taint, value: tainted, effect: NoSchedule}";
  const std::string tolerate = "{key: example.com/taint, operator: Exists}";
  const Allocator::Features no_rules{.device_taints = true, .device_taint_rules = false};
  const std::vector<Case> cases = {
      // An empty selector taints every device (kube's scheduler_perf devicetaintrule.yaml).
      {"rule-all-devices", {class_a, slices, Rule("all", "", no_schedule), Claim()}, {}, {}, ""},
      {"rule-all-devices-tolerated",
       {class_a, slices, Rule("all", "", no_schedule), Claim({tolerate})},
       {},
       {},
       "req-0 driver-a/pool-1/device-1"},
      {"rule-all-devices-rules-disabled",
       {class_a, slices, Rule("all", "", no_schedule), Claim()},
       {},
       no_rules,
       "req-0 driver-a/pool-1/device-1"},
      // Driver and pool select pool-1 only: pool-2's device is allocated.
      {"rule-by-pool",
       {class_a, slices, Rule("p1", "{driver: driver-a, pool: pool-1}", no_schedule), Claim()},
       {},
       {},
       "req-0 driver-a/pool-2/device-1"},
      {"rule-other-driver",
       {class_a, slices, Rule("b", "{driver: driver-b}", no_schedule), Claim()},
       {},
       {},
       "req-0 driver-a/pool-1/device-1"},
      {"rule-by-device",
       {class_a, Slice("slice-1", "pool-1", "driver-a", {Dev("device-1"), Dev("device-2")}),
        Rule("d1", "{device: device-1}", no_schedule), Claim()},
       {},
       {},
       "req-0 driver-a/pool-1/device-2"},
      {"rule-effect-none",
       {class_a, slices, Rule("all", "", "{key: example.com/taint, effect: None}"), Claim()},
       {},
       {},
       "req-0 driver-a/pool-1/device-1"},
  };
  for (const Case& c : cases) RunCase(c);
}

// kube resourceclaim.ToleratesTaint: effect, key, then the operator.
TEST(DeviceTaintsTest, ToleratesTaint) {
  Interner in = api::NewInterner();
  const Symbol k = in.Intern("k"), other = in.Intern("other"), v = in.Intern("v");
  using E = res::DeviceTaintEffect;
  using Op = res::DeviceTolerationOperator;
  const res::DeviceTaint taint{k, v, E::kNoSchedule};
  struct T {
    res::DeviceToleration tol;
    bool want;
  };
  const T cases[] = {
      {{k, Op::kEqual, v, std::nullopt}, true},
      {{k, Op::kEqual, Symbol(), std::nullopt}, false},
      {{k, Op::kExists, Symbol(), std::nullopt}, true},
      {{Symbol(), Op::kExists, Symbol(), std::nullopt}, true},
      {{other, Op::kExists, Symbol(), std::nullopt}, false},
      {{k, Op::kExists, Symbol(), E::kNoSchedule}, true},
      {{k, Op::kExists, Symbol(), E::kNoExecute}, false},
      // An empty key with Equal matches every key with that value.
      {{Symbol(), Op::kEqual, v, std::nullopt}, true},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(ToleratesTaint(cases[i].tol, taint), cases[i].want) << i;
  }
}

}  // namespace
}  // namespace corral::plugins::dra
