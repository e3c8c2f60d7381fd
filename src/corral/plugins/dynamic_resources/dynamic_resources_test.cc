// kube's DynamicResources plugin cases (pkg/scheduler/framework/plugins/dynamicresources/
// dynamicresources_test.go, TestPlugin), translated to structured parameters as kube v1.37 has
// them: the same pod ("my-pod", uid "1234"), claim ("my-pod-my-resource"), class
// ("my-resource-class"), driver ("some-driver") and node ("worker"), each extension point run in
// kube's order with kube's expected status and claim changes. Objects go through the loader.

#include "corral/plugins/dynamic_resources/dynamic_resources.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/api/resource/types.h"
#include "corral/loader/loader.h"
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

constexpr std::string_view kWorker = R"(---
apiVersion: v1
kind: Node
metadata: {name: worker, labels: {kubernetes.io/hostname: worker}}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
)";
constexpr std::string_view kOtherNode = R"(---
apiVersion: v1
kind: Node
metadata: {name: worker-2, labels: {kubernetes.io/hostname: worker-2}}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
)";

constexpr std::string_view kClass = R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: my-resource-class}
spec:
  selectors:
  - cel: {expression: 'device.driver == "some-driver"'}
)";
constexpr std::string_view kBrokenClass = R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: my-resource-class}
spec:
  selectors:
  - cel: {expression: 'device.attributes["some-driver"]["no-such-attribute"] == 1'}
)";

// The pod: by claim name, or by template (with or without a status naming its claim).
std::string Pod(std::string_view claim_source, std::string_view status = "") {
  return fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: my-pod, uid: "1234"}}
spec:
  containers: [{{name: c, image: i}}]
  resourceClaims:
  - {{name: my-resource, {}}}
{})",
                     claim_source, status);
}
const std::string kPodWithClaimName = Pod("resourceClaimName: my-pod-my-resource");

// The claim "my-pod-my-resource" with one request "req-1" of my-resource-class; `meta` and
// `status` are extra YAML.
std::string Claim(std::string_view meta = "", std::string_view status = "") {
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: my-pod-my-resource{}}}
spec:
  devices:
    requests:
    - name: req-1
      exactly: {{deviceClassName: my-resource-class}}
{})",
                     meta, status);
}
std::string Allocated(std::string_view node, std::string_view reserved = "") {
  return fmt::format(R"(status:
  allocation:
    devices:
      results: [{{request: req-1, driver: some-driver, pool: worker, device: instance-1}}]
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{{key: metadata.name, operator: In, values: [{}]}}]
{})",
                     node, reserved);
}
const std::string kReservedForPod =
    "  reservedFor: [{resource: pods, name: my-pod, uid: \"1234\"}]\n";

// What each extension point returned, as "<code>: <message>" (empty: not reached).
struct Want {
  std::string preenqueue = "Success";
  std::string prefilter = "Success";
  std::string filter = "";  // on the first node
  std::string postfilter = "";
  std::string reserve = "";
  std::string prebind = "";
  // The claim's status after the run: "allocated=<bool> reservedFor=<names>", or "deleted".
  std::string claim_after = "";
};

struct Case {
  std::string name;  // kube's case name
  std::vector<std::string> objects;
  Want want;
  bool unreserve_after_prebind = false;  // kube's unreserveAfterBindFailure
};

std::string ClaimState(const Interner& in, const res::ResourceClaim* c) {
  if (c == nullptr) return "deleted";
  std::string names;
  for (const auto& r : c->reserved_for)
    names += (names.empty() ? "" : ",") + std::string(in.Str(r.name));
  return fmt::format("allocated={} reservedFor=[{}]", c->allocation.has_value(), names);
}

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  testing::TestWorld w;
  std::string yaml;
  for (const auto& o : c.objects) yaml += o;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", w.in);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items()[0].path << ": " << r.diagnostics.items()[0].message;
  w.in.Intern("pods");
  DraHandle h(w);
  h.store.set_pods_resource(w.in.Intern("pods"));
  h.store.Reset(r.objects.resources.get());
  auto plugin = DynamicResources::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  auto& dra = dynamic_cast<DynamicResources&>(**plugin);
  const api::Pod* pod = nullptr;
  for (const auto& p : r.objects.pods) pod = &p;
  ASSERT_NE(pod, nullptr);
  const framework::PodInfo& info = w.Info(*pod);
  Want got;
  got.preenqueue = ShowStatus(dra.PreEnqueue(info));
  auto claim_after = [&] {
    return ClaimState(w.in,
                      h.store.GetClaim(pod->meta.namespace_, w.in.Intern("my-pod-my-resource")));
  };
  auto finish = [&] {
    if (!c.want.claim_after.empty()) got.claim_after = claim_after();
    EXPECT_EQ(got.preenqueue, c.want.preenqueue);
    EXPECT_EQ(got.prefilter, c.want.prefilter);
    EXPECT_EQ(got.filter, c.want.filter);
    EXPECT_EQ(got.postfilter, c.want.postfilter);
    EXPECT_EQ(got.reserve, c.want.reserve);
    EXPECT_EQ(got.prebind, c.want.prebind);
    EXPECT_EQ(got.claim_after, c.want.claim_after);
  };
  if (got.preenqueue != "Success") return finish();
  framework::CycleState state;
  framework::PreFilterResult pre;
  framework::Status ps = dra.PreFilter(state, 0, info, h.snapshot(), &pre);
  got.prefilter = ShowStatus(ps);
  framework::NodeToStatus statuses;
  if (ps.IsSkip()) return finish();
  if (ps.ok()) {
    std::vector<framework::NodeInfo> nodes;
    for (const auto& n : r.objects.nodes) nodes.emplace_back(&n);
    framework::Status fs = dra.Filter(state, 0, info, nodes[0]);
    got.filter = ShowStatus(fs);
    if (fs.ok()) {
      Symbol node = nodes[0].name();
      got.reserve = ShowStatus(dra.Reserve(state, info, node));
      if (got.reserve == "Success") {
        got.prebind = ShowStatus(dra.PreBind(state, info, node));
        if (c.unreserve_after_prebind) dra.Unreserve(state, info, node);
      }
      return finish();
    }
  }
  framework::PostFilterResult pf;
  got.postfilter = ShowStatus(dra.PostFilter(state, info, statuses, &pf));
  finish();
}

std::vector<Case> Cases() {
  const std::string worker(kWorker), cls(kClass), slice(kWorkerSlice);
  std::string full_reserved = "  reservedFor:\n";
  for (int i = 0; i < 256; ++i) {
    full_reserved += fmt::format("  - {{resource: pods, name: other-{}, uid: \"u{}\"}}\n", i, i);
  }
  return {
      {"empty",
       {worker, R"(---
apiVersion: v1
kind: Pod
metadata: {name: my-pod, uid: "1234"}
spec: {containers: [{name: c, image: i}]}
)"},
       {.prefilter = "Skip"}},
      {"claim-reference",
       {worker, kPodWithClaimName, cls, slice, Claim("", Allocated("worker", kReservedForPod))},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim_after = "allocated=true reservedFor=[my-pod]"}},
      {"claim-template",
       {worker, Pod("resourceClaimTemplateName: my-resource-template"), cls, slice, R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: my-resource-template}
spec:
  spec:
    devices:
      requests:
      - name: req-1
        exactly: {deviceClassName: my-resource-class}
)"},
       {.filter = "Success", .reserve = "Success", .prebind = "Success"}},
      {"missing-claim",
       {worker, kPodWithClaimName},
       {.preenqueue = "UnschedulableAndUnresolvable: resourceclaim.resource.k8s.io "
                      "\"my-pod-my-resource\" not found"}},
      {"deleted-claim",
       {worker, kPodWithClaimName, cls, Claim(", deletionTimestamp: \"2026-11-26T00:00:00Z\"")},
       {.preenqueue = "UnschedulableAndUnresolvable: resourceclaim \"my-pod-my-resource\" is "
                      "being deleted"}},
      {"wrong-claim",
       {worker,
        Pod("resourceClaimTemplateName: my-resource-template",
            "status:\n  resourceClaimStatuses: [{name: my-resource, resourceClaimName: "
            "my-pod-my-resource}]\n"),
        cls, Claim()},
       {.preenqueue = "UnschedulableAndUnresolvable: ResourceClaim default/my-pod-my-resource was "
                      "not created for pod default/my-pod (pod is not owner)"}},
      {"no-resources",
       {worker, kPodWithClaimName, cls, Claim()},
       {.filter = "UnschedulableAndUnresolvable: cannot allocate all claims",
        .postfilter = "Unschedulable: still not schedulable",
        .claim_after = "allocated=false reservedFor=[]"}},
      {"with-resources",
       {worker, kPodWithClaimName, cls, slice, Claim()},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim_after = "allocated=true reservedFor=[my-pod]"}},
      {"missing-class",
       {worker, kPodWithClaimName, Claim()},
       {.prefilter = "UnschedulableAndUnresolvable: request req-1: device class "
                     "my-resource-class does not exist",
        .postfilter = "Unschedulable: no new claims to deallocate"}},
      {"class-parameters-CEL-runtime-error",
       {worker, kPodWithClaimName, std::string(kBrokenClass), slice, Claim()},
       {.filter = "Error: class my-resource-class: selector #0: CEL runtime error: no such key: "
                  "no-such-attribute",
        .postfilter = "Unschedulable: still not schedulable"}},
      {"wrong-topology",
       {worker, kPodWithClaimName, cls, slice, Claim("", Allocated("other-node"))},
       {.filter = "UnschedulableAndUnresolvable: resourceclaim not available on the node",
        .postfilter = "Unschedulable: deallocation of ResourceClaim completed",
        .claim_after = "allocated=false reservedFor=[]"}},
      {"good-topology",
       {worker, kPodWithClaimName, cls, slice, Claim("", Allocated("worker"))},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim_after = "allocated=true reservedFor=[my-pod]"}},
      {"bind-failure",
       {worker, kPodWithClaimName, cls, slice, Claim("", Allocated("worker"))},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim_after = "allocated=true reservedFor=[]"},
       true},
      {"reserved-okay",
       {worker, kPodWithClaimName, cls, slice, Claim("", Allocated("worker", kReservedForPod))},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim_after = "allocated=true reservedFor=[my-pod]"}},
      // Corral case (kube's CanBeReserved): reservedFor is full.
      {"in-use",
       {worker, kPodWithClaimName, cls, slice, Claim("", Allocated("worker", full_reserved))},
       {.prefilter = "UnschedulableAndUnresolvable: resourceclaim in use",
        .postfilter = "Unschedulable: no new claims to deallocate"}},
  };
}

TEST(DynamicResourcesTest, KubePluginCases) {
  for (const Case& c : Cases()) RunCase(c);
}

// Reserve makes the allocation in flight: another pod sharing the claim waits at PreFilter, and
// the device is not allocated twice (kube's inFlightAllocations). PreBind writes it; deleting the
// pod releases the claim (resourceclaim controller).
TEST(DynamicResourcesTest, InFlightAllocationAndRelease) {
  testing::TestWorld w;
  std::string yaml = std::string(kWorker) + kPodWithClaimName + std::string(kClass) +
                     std::string(kWorkerSlice) + Claim();
  yaml += R"(---
apiVersion: v1
kind: Pod
metadata: {name: other-pod, uid: "5678"}
spec:
  containers: [{name: c, image: i}]
  resourceClaims: [{name: my-resource, resourceClaimName: my-pod-my-resource}]
)";
  loader::LoadResult r = loader::LoadString(yaml, "inflight.yaml", w.in);
  ASSERT_TRUE(r.ok());
  DraHandle h(w);
  h.store.set_pods_resource(w.in.Intern("pods"));
  h.store.Reset(r.objects.resources.get());
  auto plugin = DynamicResources::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  auto& dra = dynamic_cast<DynamicResources&>(**plugin);
  const framework::PodInfo& a = w.Info(r.objects.pods[0]);
  const framework::PodInfo& b = w.Info(r.objects.pods[1]);
  framework::NodeInfo node(&r.objects.nodes[0]);
  framework::CycleState sa;
  framework::PreFilterResult pre;
  ASSERT_TRUE(dra.PreFilter(sa, 0, a, h.snapshot(), &pre).ok());
  ASSERT_TRUE(dra.Filter(sa, 0, a, node).ok());
  ASSERT_TRUE(dra.Reserve(sa, a, node.name()).ok());
  framework::CycleState sb;
  EXPECT_EQ(ShowStatus(dra.PreFilter(sb, 0, b, h.snapshot(), &pre)),
            "UnschedulableAndUnresolvable: resource claim default/my-pod-my-resource is in the "
            "process of being allocated");
  EXPECT_EQ(h.store.AllocatedDevices().size(), 1u);
  ASSERT_TRUE(dra.PreBind(sa, a, node.name()).ok());
  const res::ResourceClaim* claim =
      h.store.GetClaim(r.objects.pods[0].meta.namespace_, w.in.Intern("my-pod-my-resource"));
  ASSERT_NE(claim, nullptr);
  EXPECT_EQ(ClaimState(w.in, claim), "allocated=true reservedFor=[my-pod]");
  // The bound pod's claim change requeues the other pod (kube isSchedulableAfterClaimChange).
  EXPECT_EQ(dra.Hint(b, {framework::EventResource::kAssignedPod, framework::ActionType::kAdd},
                     &r.objects.pods[0]),
            framework::QueueingHint::kQueue);
  // Now the claim is allocated: the other pod shares it.
  framework::CycleState sb2;
  ASSERT_TRUE(dra.PreFilter(sb2, 0, b, h.snapshot(), &pre).ok());
  ASSERT_TRUE(dra.Filter(sb2, 0, b, node).ok());
  // Deleting the first pod drops it from reservedFor; the claim stays allocated for nobody until
  // the second pod binds, and a claim no pod uses is deallocated.
  EXPECT_TRUE(h.store.ReleasePod(r.objects.pods[0]));
  EXPECT_EQ(ClaimState(w.in, claim), "allocated=false reservedFor=[]");
  EXPECT_TRUE(h.store.AllocatedDevices().empty());
}

TEST(DynamicResourcesTest, PodsWithClaimsAreUnsignable) {
  testing::TestWorld w;
  DraHandle h(w);
  auto plugin = DynamicResources::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  auto& dra = dynamic_cast<DynamicResources&>(**plugin);
  auto& plain = w.Pod("plain").Obj();
  auto& claims = w.Pod("claims").Obj();
  claims.resource_claims.push_back({.name = w.S("gpu"), .resource_claim_name = w.S("gpu-claim")});
  std::vector<framework::SignFragment> f;
  EXPECT_TRUE(dra.Sign(w.Info(plain), &f).ok());
  EXPECT_EQ(dra.Sign(w.Info(claims), &f).code(), Code::kUnschedulable);
  framework::PluginArgs* foreign = nullptr;
  EXPECT_TRUE(DynamicResources::New(foreign, h).ok());
}

}  // namespace
}  // namespace corral::plugins
