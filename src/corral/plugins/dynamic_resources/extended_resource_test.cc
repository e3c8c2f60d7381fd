// Extended resources backed by DRA: kube's DynamicResources cases for them
// (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, TestPlugin, the
// "extended-resource-*" and "implicit-extended-resource-*" cases) with kube's objects: pod "my-pod"
// (uid "1234"), class "my-resource-class" backing example.com/gpu, driver "some-driver", node
// "worker". Each extension point runs in kube's order; the claim kube's PreBind creates is read
// back from the store. Plus the request layout of kube's createRequestsAndMappings for init and
// sidecar containers, and the class resolver's tie-break.

#include "corral/plugins/dynamic_resources/extended_resource.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/loader/loader.h"
#include "corral/plugins/dynamic_resources/dynamic_resources.h"
#include "corral/plugins/dynamic_resources/test_util.h"
#include "corral/plugins/node_resources/fit.h"
#include "corral/state/dra_store.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

namespace res = api::resource;
using dra_test::DraHandle;
using dra_test::ShowStatus;

// kube's workerNode (no capacity), workerNodeWithExtendedResource (example.com/gpu: 1) and
// workerNodeWithExtendedResourceZeroAllocatable (example.com/gpu: 0).
std::string Node(std::string_view capacity) {
  return fmt::format(R"(---
apiVersion: v1
kind: Node
metadata: {{name: worker, labels: {{kubernetes.io/hostname: worker}}}}
status: {{capacity: {{pods: "110"{}}}}}
)",
                     capacity);
}
// kube's deviceClass (no extended resource name) and deviceClassWithExtendResourceName(2).
std::string Class(std::string_view name, std::string_view extended) {
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {}}}
spec: {{{}}}
)",
                     name,
                     extended.empty() ? "" : fmt::format("extendedResourceName: {}", extended));
}
// kube's workerNodeSlice (instance-1) and largeWorkerNodeSlice (instance-1..4).
std::string Slice(int devices) {
  std::string y = R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: worker-some-driver}
spec:
  driver: some-driver
  nodeName: worker
  pool: {name: worker, generation: 1, resourceSliceCount: 1}
  devices:
)";
  for (int i = 1; i <= devices; ++i) y += fmt::format("  - name: instance-{}\n", i);
  return y;
}
// A pod "my-pod" whose containers request (and limit) the given "name: qty" lists, one each.
std::string Pod(std::vector<std::string> containers, std::string_view init = "") {
  std::string y = R"(---
apiVersion: v1
kind: Pod
metadata: {name: my-pod, uid: "1234"}
spec:
)";
  if (!init.empty()) y += fmt::format("  initContainers:\n{}", init);
  y += "  containers:\n";
  for (size_t i = 0; i < containers.size(); ++i) {
    y += fmt::format(
        "  - {{name: c{}, image: i, resources: {{requests: {{{}}}, limits: {{{}}}}}}}\n", i,
        containers[i], containers[i]);
  }
  return y;
}

const std::string kClass = Class("my-resource-class", "example.com/gpu");

struct Want {
  std::string prefilter = "Success";
  std::string filter = "";
  std::string postfilter = "";
  std::string reserve = "";
  std::string prebind = "";
  // The claim PreBind created: "<request> <class> x<count>, ... | <request> <device>, ...", or
  // "none".
  std::string claim = "none";
};

struct Case {
  std::string name;  // kube's case name
  std::vector<std::string> objects;
  Want want;
};

std::string DescribeClaim(const Interner& in, const res::ResourceClaim* c) {
  if (c == nullptr) return "none";
  std::string out;
  for (const auto& r : c->spec.requests) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {} x{}", in.Str(r.name), in.Str(r.exactly->device_class_name),
                       r.exactly->count);
  }
  out += " |";
  if (c->allocation.has_value()) {
    for (const auto& d : c->allocation->devices) {
      out += fmt::format(" {} {}", in.Str(d.request), in.Str(d.device));
    }
  }
  for (const auto& r : c->reserved_for) out += fmt::format(" reservedFor={}", in.Str(r.name));
  return out;
}

// `gates`, when given, replace the world's (v1.37 defaults).
void RunCase(const Case& c, const framework::FeatureGates* gates = nullptr) {
  SCOPED_TRACE(c.name);
  testing::TestWorld w;
  if (gates != nullptr) w.gates = *gates;
  std::string yaml;
  for (const auto& o : c.objects) yaml += o;
  loader::LoadResult r = loader::LoadString(yaml, c.name + ".yaml", w.in);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items()[0].path << ": " << r.diagnostics.items()[0].message;
  DraHandle h(w);
  h.store.set_pods_resource(w.in.Intern("pods"));
  h.store.set_interner(&w.in);
  h.store.Reset(r.objects.resources.get());
  auto plugin = DynamicResources::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  auto& dra = dynamic_cast<DynamicResources&>(**plugin);
  ASSERT_EQ(r.objects.pods.size(), 1u);
  const api::Pod& pod = r.objects.pods[0];
  const framework::PodInfo& info = w.Info(pod);
  Want got;
  auto finish = [&] {
    got.claim = DescribeClaim(w.in, h.store.ExtendedResourceClaimOf(pod));
    EXPECT_EQ(got.prefilter, c.want.prefilter);
    EXPECT_EQ(got.filter, c.want.filter);
    EXPECT_EQ(got.postfilter, c.want.postfilter);
    EXPECT_EQ(got.reserve, c.want.reserve);
    EXPECT_EQ(got.prebind, c.want.prebind);
    EXPECT_EQ(got.claim, c.want.claim);
  };
  framework::CycleState state;
  framework::PreFilterResult pre;
  framework::Status ps = dra.PreFilter(state, 0, info, h.snapshot(), &pre);
  got.prefilter = ShowStatus(ps);
  if (ps.IsSkip()) return finish();
  framework::NodeInfo node(&r.objects.nodes[0]);
  framework::Status fs = dra.Filter(state, 0, info, node);
  got.filter = ShowStatus(fs);
  if (fs.ok()) {
    got.reserve = ShowStatus(dra.Reserve(state, info, node.name()));
    if (got.reserve == "Success") got.prebind = ShowStatus(dra.PreBind(state, info, node.name()));
    return finish();
  }
  framework::NodeToStatus statuses;
  framework::PostFilterResult pf;
  got.postfilter = ShowStatus(dra.PostFilter(state, info, statuses, &pf));
  finish();
}

TEST(DynamicResourcesExtendedResourceTest, KubeCases) {
  const std::string no_capacity = Node("");
  const std::string gpu_node = Node(", example.com/gpu: \"1\"");
  const std::string zero_gpu_node = Node(", example.com/gpu: \"0\"");
  const std::vector<Case> cases = {
      // The node's device plugin provides the resource: nothing for DRA to allocate.
      {"extended-resource-name-with-node-resource",
       {gpu_node, kClass, Pod({"example.com/gpu: 1"})},
       {.filter = "Success", .reserve = "Success", .prebind = "Success"}},
      {"extended-resource-one-device-plugin-one-dra",
       {gpu_node, kClass, Class("my-resource-class2", "example.com/gpu2"), Slice(1),
        Pod({"example.com/gpu: 1, example.com/gpu2: 1"})},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim = "container-0-request-1 my-resource-class2 x1 | container-0-request-1 instance-1 "
                 "reservedFor=my-pod"}},
      {"extended-resource-name-with-zero-allocatable",
       {zero_gpu_node, kClass, Slice(1), Pod({"example.com/gpu: 1"})},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim = "container-0-request-0 my-resource-class x1 | container-0-request-0 instance-1 "
                 "reservedFor=my-pod"}},
      // A class without an extended resource name backs only its implicit name.
      {"non-DRA-extended-resource-name-with-zero-allocatable",
       {zero_gpu_node, Class("my-resource-class", ""), Slice(1), Pod({"example.com/gpu: 1"})},
       {.prefilter = "Skip"}},
      {"extended-resource-name-no-resource",
       {no_capacity, kClass, Pod({"example.com/gpu: 1"})},
       {.filter = "UnschedulableAndUnresolvable: cannot allocate all claims",
        .postfilter = "Unschedulable: still not schedulable"}},
      {"extended-resource-name-with-resources",
       {no_capacity, kClass, Slice(1), Pod({"example.com/gpu: 1"})},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim = "container-0-request-0 my-resource-class x1 | container-0-request-0 instance-1 "
                 "reservedFor=my-pod"}},
      {"implicit-extended-resource-name-with-resources",
       {no_capacity, kClass, Slice(4),
        Pod({"deviceclass.resource.kubernetes.io/my-resource-class: 1, example.com/gpu: 2"})},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim = "container-0-request-0 my-resource-class x1, container-0-request-1 "
                 "my-resource-class x2 | container-0-request-0 instance-1 container-0-request-1 "
                 "instance-2 container-0-request-1 instance-3 reservedFor=my-pod"}},
      {"implicit-extended-resource-name-two-containers-with-resources",
       {no_capacity, kClass, Slice(4),
        Pod({"deviceclass.resource.kubernetes.io/my-resource-class: 1", "example.com/gpu: 2"})},
       {.filter = "Success",
        .reserve = "Success",
        .prebind = "Success",
        .claim = "container-0-request-0 my-resource-class x1, container-1-request-0 "
                 "my-resource-class x2 | container-0-request-0 instance-1 container-1-request-0 "
                 "instance-2 container-1-request-0 instance-3 reservedFor=my-pod"}},
      // filterExtendedResources: a DRA-named request neither advertised nor backed.
      {"unbacked-extended-resource",
       {no_capacity, kClass, Slice(1), Pod({"example.com/gpu: 1, example.com/fpga: 1"})},
       {.filter = "UnschedulableAndUnresolvable: cannot fit resource",
        .postfilter = "Unschedulable: still not schedulable"}},
  };
  for (const Case& c : cases) RunCase(c);
}

// DRAExtendedResource off (kube v1.36 emulated, where the gate is beta and may be off): kube's
// preFilterExtendedResources returns nothing, so no class backs a resource and a pod without claims
// is skipped; the node's allocatable alone decides, in NodeResourcesFit.
TEST(DynamicResourcesExtendedResourceTest, GateOffNoClassBacksAResource) {
  framework::FeatureGates gates(framework::KubeVersion{1, 36});
  ASSERT_TRUE(gates.Set("DRAExtendedResource", false).ok());
  const std::string no_capacity = Node("");
  const std::string zero_gpu_node = Node(", example.com/gpu: \"0\"");
  const std::vector<Case> cases = {
      {"extended-resource-name-with-zero-allocatable",
       {zero_gpu_node, kClass, Slice(1), Pod({"example.com/gpu: 1"})},
       {.prefilter = "Skip"}},
      {"extended-resource-name-with-resources",
       {no_capacity, kClass, Slice(1), Pod({"example.com/gpu: 1"})},
       {.prefilter = "Skip"}},
      {"implicit-extended-resource-name-with-resources",
       {no_capacity, kClass, Slice(4),
        Pod({"deviceclass.resource.kubernetes.io/my-resource-class: 1, example.com/gpu: 2"})},
       {.prefilter = "Skip"}},
  };
  for (const Case& c : cases) RunCase(c, &gates);
}

// kube's createRequestsAndMappings: a non-sidecar init container reuses the devices of later
// long-lived containers and asks only for the rest; of several such requests only the largest is
// kept; sidecars are long-lived. Requests are sorted by name.
TEST(DynamicResourcesExtendedResourceTest, InitAndSidecarContainerRequests) {
  testing::TestWorld w;
  const std::string init = R"(  - name: i0
    image: i
    resources: {requests: {example.com/gpu: 3}, limits: {example.com/gpu: 3}}
  - name: i1
    image: i
    resources: {requests: {example.com/gpu: 2}, limits: {example.com/gpu: 2}}
  - name: s2
    image: i
    restartPolicy: Always
    resources: {requests: {example.com/gpu: 1}, limits: {example.com/gpu: 1}}
)";
  loader::LoadResult r = loader::LoadString(
      Node("") + kClass + Slice(4) + Pod({"example.com/gpu: 1"}, init), "init.yaml", w.in);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items()[0].message;
  DraHandle h(w);
  h.store.set_interner(&w.in);
  h.store.Reset(r.objects.resources.get());
  const api::Pod& pod = r.objects.pods[0];
  dra::PodExtendedResources ext;
  std::string error;
  ASSERT_TRUE(dra::CollectPodExtendedResources(w.Info(pod), h.store, w.in, &ext, &error));
  ASSERT_EQ(error, "");
  std::optional<res::ResourceClaim> claim;
  std::string reason;
  ASSERT_TRUE(
      dra::BuildNodeExtendedResourceClaim(ext, pod, framework::Resource(), w.in, &claim, &reason));
  ASSERT_TRUE(claim.has_value());
  std::vector<std::string> got;
  for (const auto& q : claim->spec.requests) {
    got.push_back(fmt::format("{} x{}", w.in.Str(q.name), q.exactly->count));
  }
  // i0 needs 3: reuses s2 (1) and c0 (1), asks for 1 more; i1 needs 2: reuses both, asks for
  // none. Long-lived: s2 (index 2) and c0 (index 3).
  EXPECT_EQ(got, (std::vector<std::string>{"container-0-request-0 x1", "container-2-request-0 x1",
                                           "container-3-request-0 x1"}));

  // The halves DynamicResources uses to build the claim once per set of needed resources give
  // the same claim.
  uint64_t mask = 0;
  ASSERT_TRUE(dra::NeededExtendedResources(ext, framework::Resource(), &mask, &reason));
  EXPECT_EQ(mask, 1u);
  const res::ResourceClaim masked = dra::MakeExtendedResourceClaim(ext, pod, mask, w.in);
  EXPECT_EQ(masked.meta.name, claim->meta.name);
  EXPECT_EQ(masked.meta.namespace_, claim->meta.namespace_);
  ASSERT_EQ(masked.meta.owner_references.size(), 1u);
  EXPECT_EQ(masked.meta.owner_references[0].uid, pod.meta.uid);
  EXPECT_EQ(masked.meta.annotations, claim->meta.annotations);
  std::vector<std::string> masked_got;
  for (const auto& q : masked.spec.requests) {
    masked_got.push_back(fmt::format("{} x{}", w.in.Str(q.name), q.exactly->count));
  }
  EXPECT_EQ(masked_got, got);
}

// KEP-5004: of two classes with the same extended resource name, the one created later backs it;
// at the same time, the name sorted first.
TEST(DynamicResourcesExtendedResourceTest, ClassResolverTieBreak) {
  testing::TestWorld w;
  auto cls = [](std::string_view name, std::string_view created) {
    return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {}, creationTimestamp: "{}"}}
spec: {{extendedResourceName: example.com/gpu}}
)",
                       name, created);
  };
  loader::LoadResult r =
      loader::LoadString(cls("b", "2026-01-01T00:00:00Z") + cls("a", "2026-01-01T00:00:00Z") +
                             cls("old", "2025-01-01T00:00:00Z"),
                         "classes.yaml", w.in);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items()[0].message;
  state::DraStore store;
  store.set_interner(&w.in);
  store.Reset(r.objects.resources.get());
  const res::DeviceClass* c = store.DeviceClassForResource(w.in.Intern("example.com/gpu"));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(w.in.Str(c->meta.name), "a");
  const res::DeviceClass* implicit =
      store.DeviceClassForResource(w.in.Intern("deviceclass.resource.kubernetes.io/old"));
  ASSERT_NE(implicit, nullptr);
  EXPECT_EQ(w.in.Str(implicit->meta.name), "old");
}

}  // namespace
}  // namespace corral::plugins

namespace corral::plugins {
namespace {

// NodeResourcesFit with a DRA-backed extended resource (kube's fitsRequest and
// calculateResourceAllocatableRequest with DRAExtendedResource on): Filter leaves the resource to
// DynamicResources on a node that does not advertise it, checks it as usual on one that does, and
// Score counts the class's devices on the node (4, one of them allocated) as allocatable.
TEST(NodeResourcesFitDraExtendedResourceTest, FilterAndScore) {
  testing::TestWorld w;
  loader::LoadResult r =
      loader::LoadString(Node("") + kClass + Slice(4) + Pod({"example.com/gpu: 1"}) +
                             Class("unrelated", "example.com/other"),
                         "fit.yaml", w.in);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items()[0].message;
  DraHandle h(w);
  h.store.set_pods_resource(w.in.Intern("pods"));
  h.store.set_interner(&w.in);
  h.store.Reset(r.objects.resources.get());
  NodeResourcesFitArgs args;
  args.scoring_strategy->resources = {{"example.com/gpu", 1}};
  auto plugin = NodeResourcesFit::New(&args, h);
  ASSERT_TRUE(plugin.ok());
  auto& fit = dynamic_cast<NodeResourcesFit&>(**plugin);
  const framework::PodInfo& info = w.Info(r.objects.pods[0]);
  framework::NodeInfo dra_node(&r.objects.nodes[0]);

  framework::CycleState state;
  framework::PreFilterResult pre;
  ASSERT_TRUE(fit.PreFilter(state, 0, info, h.snapshot(), &pre).ok());
  EXPECT_EQ(ShowStatus(fit.Filter(state, 0, info, dra_node)), "Success");

  // A node that advertises none of it (allocatable 0) by its device plugin is still left to DRA;
  // one that advertises too few fails as usual.
  api::Node plugin_node = r.objects.nodes[0];
  plugin_node.allocatable.push_back({w.in.Intern("example.com/gpu"), api::Quantity::FromInt(0)});
  std::sort(plugin_node.allocatable.begin(), plugin_node.allocatable.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  framework::NodeInfo zero(&plugin_node);
  EXPECT_EQ(ShowStatus(fit.Filter(state, 0, info, zero)),
            "UnschedulableAndUnresolvable: Insufficient example.com/gpu");

  // Scoring: one of the node's four devices is allocated; the pod asks for one more.
  const res::ResourceClaim held;
  h.store.SignalClaimPendingAllocation(
      held, res::AllocationResult{{{w.in.Intern("x"), w.in.Intern("some-driver"),
                                    w.in.Intern("worker"), w.in.Intern("instance-3"), false}},
                                  std::nullopt});
  ASSERT_TRUE(fit.PreScore(state, 0, info, {}).ok());
  int64_t score = -1;
  ASSERT_TRUE(fit.Score(state, 0, info, dra_node, &score).ok());
  EXPECT_EQ(score, (4 - 2) * 100 / 4);  // LeastAllocated: (allocatable - requested) / allocatable

  framework::Status sign = fit.Sign(info, nullptr);
  EXPECT_EQ(ShowStatus(sign),
            "Unschedulable: signature disabled when dra extended resources enabled");
}

}  // namespace
}  // namespace corral::plugins
