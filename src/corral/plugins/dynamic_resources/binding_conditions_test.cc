// Device binding conditions (binding_conditions.h) in the DynamicResources plugin: kube's
// TestPlugin cases about binding conditions (pkg/scheduler/framework/plugins/dynamicresources/
// dynamicresources_test.go: the "bound-claim-with-*", "prebind-fail-with-binding-timeout" and
// "multi-claims-binding-conditions-*" cases) with kube's objects and expected statuses, then
// Corral's own cases for what kube tests elsewhere: PreBind waiting until a driver reports the
// conditions, bindsToNode, the allocator's preference for devices without binding conditions, the
// gate turned off, the plugin args and the loader's checks.

#include "corral/plugins/dynamic_resources/binding_conditions.h"

#include <chrono>
#include <string>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/api/resource/types.h"
#include "corral/loader/loader.h"
#include "corral/plugins/dynamic_resources/allocator.h"
#include "corral/plugins/dynamic_resources/dynamic_resources.h"
#include "corral/plugins/dynamic_resources/test_util.h"
#include "corral/state/dra_store.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

namespace res = api::resource;
using dra_test::DraHandle;
using dra_test::kWorkerSlice;
using dra_test::ShowStatus;
using framework::Code;

// kube's test time: the plugin's clock reads this at the start of every case.
const TimePoint kNow = TimePoint{std::chrono::sys_days{std::chrono::year{2026} / 11 / 27}};

std::string Rfc3339(TimePoint t) {
  const auto secs = std::chrono::floor<std::chrono::seconds>(t);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", secs);
}

constexpr std::string_view kWorker = R"(---
apiVersion: v1
kind: Node
metadata: {name: worker, labels: {kubernetes.io/hostname: worker, fabric: "1"}}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
)";
constexpr std::string_view kClass = R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: my-resource-class}
spec: {}
)";
// kube's fabricSlice: instance-1 with bindsToNode, binding condition "condition" and failure
// condition "failed" (published for nodes by selector, as a fabric-attached device is).
std::string FabricSlice(std::string_view name, std::string_view driver, std::string_view pool,
                        std::string_view device) {
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {}}}
spec:
  driver: {}
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{{key: fabric, operator: In, values: ["1"]}}]
  pool: {{name: {}, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: {}
    bindsToNode: true
    bindingConditions: [condition]
    bindingFailureConditions: [failed]
)",
                     name, driver, pool, device);
}

std::string Pod(std::string_view claims) {
  return fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: my-pod, uid: "1234"}}
spec:
  containers: [{{name: c, image: i}}]
  resourceClaims:
{})",
                     claims);
}
const std::string kPodWithClaimName =
    Pod("  - {name: my-resource, resourceClaimName: my-pod-my-resource}\n");
const std::string kPodWithTwoClaimNames =
    Pod("  - {name: my-resource, resourceClaimName: my-pod-my-resource}\n"
        "  - {name: my-resource-2, resourceClaimName: my-pod-my-resource-2}\n");

// A claim with one request of my-resource-class, and its status YAML.
std::string Claim(std::string_view name, std::string_view request, std::string_view status = "") {
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: {}}}
spec:
  devices:
    requests:
    - name: {}
      exactly: {{deviceClassName: my-resource-class}}
{})",
                     name, request, status);
}

// kube's allocationResultWithBindingConditions (or ...2), optionally with an allocationTimestamp,
// and the device's status.devices entry: its conditions, "" for none, nullopt for no entry.
std::string BoundStatus(std::string_view driver, std::string_view device, std::string_view request,
                        std::optional<std::string_view> conditions,
                        std::optional<TimePoint> allocated_at = std::nullopt) {
  std::string s = fmt::format(R"(status:
  allocation:
    devices:
      results:
      - {{request: {}, driver: {}, pool: worker, device: {}, bindingConditions: [condition],
         bindingFailureConditions: [failed]}}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{{key: metadata.name, operator: In, values: [worker]}}]
)",
                              request, driver, device);
  if (allocated_at.has_value()) {
    s += fmt::format("    allocationTimestamp: \"{}\"\n", Rfc3339(*allocated_at));
  }
  if (conditions.has_value()) {
    s += fmt::format("  devices:\n  - {{driver: {}, pool: worker, device: {}{}}}\n", driver, device,
                     conditions->empty() ? "" : fmt::format(", conditions: {}", *conditions));
  }
  return s;
}
constexpr std::string_view kSucceeded =
    "[{type: condition, status: \"True\"}, {type: failed, status: \"False\"}]";
constexpr std::string_view kFailed =
    "[{type: condition, status: \"False\"}, {type: failed, status: \"True\", reason: Broken, "
    "message: no link}]";

// What each extension point returned ("" when not reached).
struct Want {
  std::string prefilter = "Success";
  std::string filter;
  std::string postfilter;
  std::string reserve;
  // PreBind at kNow, then at every 5 s poll while it returns Wait, joined by " | ".
  std::string prebind;
  // Each claim after the run: "<name> allocated=<bool> reservedFor=<names> devices=<n>".
  std::vector<std::string> claims_after;
};

struct Case {
  std::string name;
  std::vector<std::string> objects;
  Want want;
  std::vector<std::string> claim_names = {"my-pod-my-resource"};
  // A driver's condition written after this many PreBind polls (-1: none): "condition" True on
  // the pod's first claim's device.
  int attach_after_polls = -1;
  bool gate = true;  // DRADeviceBindingConditions
  int max_polls = 200;
};

std::string ClaimState(const Interner& in, Symbol name, const res::ResourceClaim* c) {
  if (c == nullptr) return fmt::format("{} deleted", in.Str(name));
  std::string names;
  for (const auto& r : c->reserved_for)
    names += (names.empty() ? "" : ",") + std::string(in.Str(r.name));
  return fmt::format("{} allocated={} reservedFor=[{}] devices={}", in.Str(name),
                     c->allocation.has_value(), names, c->devices.size());
}

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  testing::TestWorld w;
  if (!c.gate) {
    ASSERT_TRUE(w.gates.Set("DRADeviceBindingConditions", false).ok());
  }
  std::string yaml;
  for (const auto& o : c.objects) yaml += o;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", w.in);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items()[0].path << ": " << r.diagnostics.items()[0].message;
  DraHandle h(w);
  h.clock_.Set(kNow);
  h.store.set_pods_resource(w.in.Intern("pods"));
  h.store.Reset(r.objects.resources.get());
  auto plugin = DynamicResources::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  auto& dra = dynamic_cast<DynamicResources&>(**plugin);
  EXPECT_EQ(dra.PreBindPollInterval(), std::chrono::seconds(5));
  const api::Pod* pod = &r.objects.pods.back();
  const framework::PodInfo& info = w.Info(*pod);
  Want got;
  framework::CycleState state;
  framework::PreFilterResult pre;
  got.prefilter = ShowStatus(dra.PreFilter(state, 0, info, h.snapshot(), &pre));
  std::vector<framework::NodeInfo> nodes;
  for (const auto& n : r.objects.nodes) nodes.emplace_back(&n);
  if (got.prefilter == "Success") {
    framework::Status fs = dra.Filter(state, 0, info, nodes[0]);
    got.filter = ShowStatus(fs);
    if (fs.ok()) {
      const Symbol node = nodes[0].name();
      got.reserve = ShowStatus(dra.Reserve(state, info, node));
      for (int poll = 0; got.reserve == "Success" && poll < c.max_polls; ++poll) {
        if (poll == c.attach_after_polls) {
          const res::ResourceClaim* claim =
              h.store.GetClaim(pod->meta.namespace_, w.in.Intern(c.claim_names[0]));
          ASSERT_NE(claim, nullptr);
          ASSERT_TRUE(claim->allocation.has_value());
          const auto& d = claim->allocation->devices[0];
          res::AllocatedDeviceStatus s{d.driver, d.pool, d.device, {}};
          s.conditions.push_back({w.in.Intern("condition"), res::ConditionStatus::kTrue, "", ""});
          ASSERT_TRUE(h.store.UpdateDeviceStatus(claim->meta.namespace_, claim->meta.name, {s}));
        }
        framework::Status ps = dra.PreBind(state, info, node);
        got.prebind += (got.prebind.empty() ? "" : " | ") + ShowStatus(ps);
        if (ps.code() != Code::kWait) break;
        h.clock_.Advance(dra.PreBindPollInterval());
      }
    } else {
      framework::PostFilterResult pf;
      got.postfilter = ShowStatus(dra.PostFilter(state, info, {}, &pf));
    }
  }
  for (const auto& name : c.claim_names) {
    const Symbol n = w.in.Intern(name);
    got.claims_after.push_back(ClaimState(w.in, n, h.store.GetClaim(pod->meta.namespace_, n)));
  }
  EXPECT_EQ(got.prefilter, c.want.prefilter);
  EXPECT_EQ(got.filter, c.want.filter);
  EXPECT_EQ(got.postfilter, c.want.postfilter);
  EXPECT_EQ(got.reserve, c.want.reserve);
  EXPECT_EQ(got.prebind, c.want.prebind);
  EXPECT_EQ(got.claims_after, c.want.claims_after);
}

// `n` polls that keep waiting, then `last`.
std::string Polls(int n, std::string_view last) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "Wait: waiting for binding conditions | ";
  return out + std::string(last);
}

TEST(BindingConditionsTest, KubePluginCases) {
  const std::string worker(kWorker), cls(kClass), slice(kWorkerSlice);
  const std::string claim = "my-pod-my-resource";
  const std::vector<Case> cases = {
      // kube: "bound-claim-with-succeeded-binding-conditions".
      {"bound-claim-with-succeeded-binding-conditions",
       {worker, kPodWithClaimName, cls,
        Claim(claim, "req-1", BoundStatus("some-driver", "instance-1", "req-1", kSucceeded))},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[my-pod] devices=1"}}},
      // kube: "bound-claim-with-failed-binding".
      {"bound-claim-with-failed-binding",
       {worker, kPodWithClaimName, cls, slice,
        Claim(claim, "req-1", BoundStatus("some-driver", "instance-1", "req-1", kFailed))},
       {.filter = "UnschedulableAndUnresolvable: resourceclaim not available on the node",
        .postfilter = "Unschedulable: deallocation of ResourceClaim completed",
        .claims_after = {"my-pod-my-resource allocated=false reservedFor=[] devices=0"}}},
      // kube: "bound-claim-with-timed-out-binding" (allocated 10 minutes ago, no condition yet;
      // kube's clock has moved on by the time Filter runs, Corral's is fixed, hence the second).
      {"bound-claim-with-timed-out-binding",
       {worker, kPodWithClaimName, cls, slice,
        Claim(claim, "req-1",
              BoundStatus("some-driver", "instance-1", "req-1", "",
                          kNow - std::chrono::minutes(10) - std::chrono::seconds(1)))},
       {.filter = "UnschedulableAndUnresolvable: resourceclaim not available on the node",
        .postfilter = "Unschedulable: deallocation of ResourceClaim completed",
        .claims_after = {"my-pod-my-resource allocated=false reservedFor=[] devices=0"}}},
      // kube: "prebind-fail-with-binding-timeout": allocated 590 s ago with the 600 s timeout, so
      // PreBind waits and the claim times out 10 s later (strictly after: the poll at 15 s).
      {"prebind-fail-with-binding-timeout",
       {worker, kPodWithClaimName, cls,
        Claim(claim, "req-1",
              BoundStatus("some-driver", "instance-1", "req-1", "",
                          kNow - std::chrono::seconds(590)))},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = Polls(3, "Error: claim my-pod-my-resource binding timeout"),
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[my-pod] devices=1"}}},
      // kube: "bound-claim-with-mixed-binding-conditions": conditions the device does not list
      // do not count, and the claim has timed out.
      {"bound-claim-with-mixed-binding-conditions",
       {worker, kPodWithClaimName, cls, slice,
        Claim(claim, "req-1",
              BoundStatus("some-driver", "instance-1", "req-1",
                          "[{type: condition1, status: \"True\"}, {type: condition2, status: "
                          "\"False\"}]",
                          kNow - std::chrono::minutes(10) - std::chrono::seconds(1)))},
       {.filter = "UnschedulableAndUnresolvable: resourceclaim not available on the node",
        .postfilter = "Unschedulable: deallocation of ResourceClaim completed",
        .claims_after = {"my-pod-my-resource allocated=false reservedFor=[] devices=0"}}},
      // kube: "bound-claim-without-binding-conditions".
      {"bound-claim-without-binding-conditions",
       {worker, kPodWithClaimName, cls, Claim(claim, "req-1", R"(status:
  allocation:
    devices:
      results: [{request: req-1, driver: some-driver, pool: worker, device: instance-1}]
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [worker]}]
)")},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[my-pod] devices=0"}}},
      // kube: "multi-claims-binding-conditions-all-success".
      {"multi-claims-binding-conditions-all-success",
       {worker, kPodWithTwoClaimNames, cls,
        FabricSlice("fabric-1", "some-driver", "worker", "instance-1"),
        FabricSlice("fabric-2", "some-driver-2", "worker", "instance-2"),
        Claim(claim, "req-1", BoundStatus("some-driver", "instance-1", "req-1", kSucceeded)),
        Claim("my-pod-my-resource-2", "req-2",
              BoundStatus("some-driver-2", "instance-2", "req-2", kSucceeded))},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[my-pod] devices=1",
                         "my-pod-my-resource-2 allocated=true reservedFor=[my-pod] devices=1"}},
       {claim, "my-pod-my-resource-2"}},
      // kube: "multi-claims-binding-conditions-one-fail": only the failed claim is deallocated.
      {"multi-claims-binding-conditions-one-fail",
       {worker, kPodWithTwoClaimNames, cls,
        FabricSlice("fabric-1", "some-driver", "worker", "instance-1"),
        FabricSlice("fabric-2", "some-driver-2", "worker", "instance-2"),
        Claim(claim, "req-1", BoundStatus("some-driver", "instance-1", "req-1", kSucceeded)),
        Claim("my-pod-my-resource-2", "req-2",
              BoundStatus("some-driver-2", "instance-2", "req-2", kFailed))},
       {.filter = "UnschedulableAndUnresolvable: resourceclaim not available on the node",
        .postfilter = "Unschedulable: deallocation of ResourceClaim completed",
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[] devices=1",
                         "my-pod-my-resource-2 allocated=false reservedFor=[] devices=0"}},
       {claim, "my-pod-my-resource-2"}},
  };
  for (const Case& c : cases) RunCase(c);
}

TEST(BindingConditionsTest, PreBindWaitsForTheDriver) {
  const std::string worker(kWorker), cls(kClass);
  const std::string fabric = FabricSlice("fabric-1", "some-driver", "pool-1", "instance-1");
  const std::string claim = Claim("my-pod-my-resource", "req-1");
  const std::vector<Case> cases = {
      // Allocated now, PreBind waits; the driver reports "condition" True before the third poll
      // (at 10 s): bound then.
      {"attached-after-10s",
       {worker, kPodWithClaimName, cls, fabric, claim},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = Polls(2, "Success"),
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[my-pod] devices=1"}},
       {"my-pod-my-resource"},
       /*attach_after_polls=*/2},
      // No driver: the wait ends at the binding timeout, 600 s after it began (120 polls of 5 s),
      // with kube's "device binding timeout"; the claim stays allocated and reserved (Unreserve).
      {"never-attached",
       {worker, kPodWithClaimName, cls, fabric, claim},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = Polls(120, "Error: device binding timeout"),
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[my-pod] devices=0"}}},
      // DRADeviceBindingConditions off: the fields are ignored (kube's API server drops them), so
      // the device binds at once.
      {"gate-off",
       {worker, kPodWithClaimName, cls, fabric, claim},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claims_after = {"my-pod-my-resource allocated=true reservedFor=[my-pod] devices=0"}},
       {"my-pod-my-resource"},
       -1,
       /*gate=*/false},
  };
  for (const Case& c : cases) RunCase(c);
}

// The allocation result of the pod's claim on `worker` for `objects`.
res::AllocationResult AllocateOnWorker(testing::TestWorld& w, const std::vector<std::string>& objs,
                                       bool gate) {
  std::string yaml;
  for (const auto& o : objs) yaml += o;
  loader::LoadResult r = loader::LoadString(yaml, "alloc.yaml", w.in);
  EXPECT_TRUE(r.ok()) << r.diagnostics.items()[0].message;
  state::DraStore store;
  store.Reset(r.objects.resources.get());
  dra::Allocator a(store, w.in, dra::Allocator::Features{.device_binding = gate});
  const res::ResourceClaim* claim = &r.objects.resources->resource_claims[0];
  std::vector<res::AllocationResult> results;
  std::string err;
  EXPECT_EQ(a.Allocate(r.objects.nodes[0], std::span(&claim, 1), &results, &err),
            dra::Allocator::Outcome::kAllocated)
      << err;
  return results.empty() ? res::AllocationResult{} : results[0];
}

// kube's incubating allocator (pools_incubating.go): on a node, pools without binding conditions
// are tried before pools with them, whatever their names; bindsToNode pins the allocation to the
// node and the result carries the device's conditions.
TEST(BindingConditionsTest, AllocatorPrefersDevicesWithoutBindingConditions) {
  testing::TestWorld w;
  const std::vector<std::string> objs = {
      std::string(kWorker), std::string(kClass),
      // "a-fabric" sorts before "worker", but has binding conditions.
      FabricSlice("fabric-1", "some-driver", "a-fabric", "instance-1"), std::string(kWorkerSlice),
      Claim("my-pod-my-resource", "req-1")};
  res::AllocationResult got = AllocateOnWorker(w, objs, true);
  EXPECT_EQ(dra_test::DescribeDevices(w.in, got), "req-1 some-driver/worker/instance-1");
  EXPECT_TRUE(got.devices[0].binding_conditions.empty());
  // Off, the conditions are ignored and pool order decides.
  got = AllocateOnWorker(w, objs, false);
  EXPECT_EQ(dra_test::DescribeDevices(w.in, got), "req-1 some-driver/a-fabric/instance-1");
  EXPECT_TRUE(got.devices[0].binding_conditions.empty());
  ASSERT_TRUE(got.node_selector.has_value());
  EXPECT_TRUE(got.node_selector->node_selector_terms[0].match_fields.empty());  // the slice's
}

TEST(BindingConditionsTest, BindsToNodePinsTheAllocation) {
  testing::TestWorld w;
  res::AllocationResult got =
      AllocateOnWorker(w,
                       {std::string(kWorker), std::string(kClass),
                        FabricSlice("fabric-1", "some-driver", "a-fabric", "instance-1"),
                        Claim("my-pod-my-resource", "req-1")},
                       true);
  ASSERT_EQ(got.devices.size(), 1u);
  EXPECT_EQ(w.in.Str(got.devices[0].binding_conditions.at(0)), "condition");
  EXPECT_EQ(w.in.Str(got.devices[0].binding_failure_conditions.at(0)), "failed");
  ASSERT_TRUE(got.node_selector.has_value());
  const auto& term = got.node_selector->node_selector_terms.at(0);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_TRUE(term.match_expressions.empty());
  EXPECT_EQ(w.in.Str(term.match_fields[0].values.at(0)), "worker");
}

TEST(BindingConditionsTest, ReadinessAndTimeout) {
  testing::TestWorld w;
  loader::LoadResult r = loader::LoadString(
      Claim(
          "c", "req-1",
          BoundStatus("some-driver", "instance-1", "req-1", kFailed, kNow - std::chrono::hours(1))),
      "c.yaml", w.in);
  ASSERT_TRUE(r.ok());
  const res::ResourceClaim& c = r.objects.resources->resource_claims[0];
  std::string err;
  EXPECT_EQ(dra::ClaimBindingReadiness(c, w.in, &err), dra::BindingReadiness::kFailed);
  EXPECT_EQ(err, "claim c binding failed: reason=Broken, message=\"no link\"");
  EXPECT_TRUE(dra::HasBindingConditions(c));
  // allocationTimestamp + timeout must be strictly before now.
  EXPECT_FALSE(dra::ClaimBindingTimedOut(c, kNow, std::chrono::hours(1)));
  EXPECT_TRUE(dra::ClaimBindingTimedOut(c, kNow + std::chrono::seconds(1), std::chrono::hours(1)));
}

TEST(BindingConditionsTest, Args) {
  DynamicResourcesArgs a;
  EXPECT_TRUE(a.Validate("", true).ok());
  a.binding_timeout = std::chrono::milliseconds(500);
  EXPECT_EQ(a.Validate("args", true).error().message,
            "args.bindingTimeout: Invalid value: 500000000ns: must be at least 1s");
  a.binding_timeout = std::chrono::seconds(60);
  EXPECT_TRUE(a.Validate("", true).ok());
  EXPECT_EQ(a.Validate("", false).error().message,
            "bindingTimeout: Forbidden: requires feature gate DRADeviceBindingConditions");
  DynamicResourcesArgs f;
  f.has_filter_timeout = true;
  EXPECT_NE(f.Validate("", true).error().message.find("filterTimeout: not modelled by Corral"),
            std::string::npos);
}

TEST(BindingConditionsTest, LoaderChecksTheConditionLists) {
  testing::TestWorld w;
  loader::LoadResult r = loader::LoadString(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d
  nodeName: node-1
  pool: {name: p, resourceSliceCount: 1}
  devices:
  - name: x
    bindingConditions: [a, b, c, d, e]
    bindingFailureConditions: [f, f]
)",
                                            "s.yaml", w.in);
  ASSERT_FALSE(r.ok());
  std::vector<std::string> messages;
  for (const auto& d : r.diagnostics.items()) messages.push_back(d.path + ": " + d.message);
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "spec.devices[0].bindingConditions: Too many: 5: must have at most 4 items",
                "spec.devices[0].bindingFailureConditions[1]: Duplicate value: \"f\""}));
}

}  // namespace
}  // namespace corral::plugins
