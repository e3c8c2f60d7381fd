#include "corral/plugins/node_resources/fit.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/node_resources/test_util.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;
using testutil::MakeNode;
using testutil::MakePod;
using testutil::Reqs;

constexpr Code kOk = Code::kSuccess;
constexpr Code kU = Code::kUnschedulable;
constexpr Code kUU = Code::kUnschedulableAndUnresolvable;

std::unique_ptr<NodeResourcesFit> NewFit(testing::FakeHandle& h,
                                         const NodeResourcesFitArgs& args = {}) {
  auto p = NodeResourcesFit::New(&args, h);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return std::unique_ptr<NodeResourcesFit>(dynamic_cast<NodeResourcesFit*>(p->release()));
}

std::vector<std::string> Reasons(const framework::Status& st) {
  return {st.reasons().begin(), st.reasons().end()};
}

// ---- Filter (kube's TestEnoughRequests) ---------------------------------------------------------

struct FilterCase {
  std::string name;
  std::vector<Reqs> containers;
  std::vector<Reqs> inits = {};
  Reqs overhead = {};
  Reqs pod_level = {};  // pod-level requests (PodLevelResources)
  Reqs existing = {};   // requests of the one pod already on the node
  std::vector<std::string> ignored = {};
  std::vector<std::string> ignored_groups = {};
  Code want_code = kOk;
  std::vector<std::string> want_reasons = {};
  const char* skip = nullptr;  // a known gap outside this plugin
};

constexpr const char* kA = "example.com/aaa";
constexpr const char* kB = "example.com/bbb";
constexpr const char* kK8sA = "kubernetes.io/something";
constexpr const char* kK8sB = "subdomain.kubernetes.io/something";
constexpr const char* kHugeA = "hugepages-2Mi";
constexpr const char* kDra = "extended.resource.dra.io/something";

std::string Insufficient(const std::string& r) {
  return "Insufficient " + r;
}

class FitFilterTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(FitFilterTest, MatchesKube) {
  const FilterCase& c = GetParam();
  if (c.skip != nullptr) GTEST_SKIP() << c.skip;
  testing::TestWorld w;
  testing::FakeHandle h(w);
  // kube: makeAllocatableResources(10, 20, 32, 5, 20, 5).
  api::Node& node = MakeNode(w, "n",
                             {{"cpu", "10m"},
                              {"memory", "20"},
                              {"pods", "32"},
                              {kA, "5"},
                              {"ephemeral-storage", "20"},
                              {kHugeA, "5"}});
  api::Pod& existing = MakePod(w, "existing", {c.existing});
  framework::NodeInfo& ni = w.NodeWith(node, {&existing});
  h.SetNodes({&ni});

  api::Pod& pod = MakePod(w, "pod", c.containers, c.inits, c.overhead);
  if (!c.pod_level.empty())
    pod.resources = api::ResourceRequirements{testutil::List(w, c.pod_level), {}};
  framework::PodInfo& info = w.Info(pod);

  NodeResourcesFitArgs args;
  args.ignored_resources = c.ignored;
  args.ignored_resource_groups = c.ignored_groups;
  auto fit = NewFit(h, args);
  framework::CycleState state;
  ASSERT_TRUE(fit->PreFilter(state, 0, info, h.snapshot(), nullptr).ok());
  framework::Status st = fit->Filter(state, 0, info, ni);
  EXPECT_EQ(st.code(), c.want_code) << st.Message();
  EXPECT_EQ(Reasons(st), c.want_reasons);
}

// Node: cpu 10m, memory 20, pods 32, example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5.
INSTANTIATE_TEST_SUITE_P(
    EnoughRequests, FitFilterTest,
    ::testing::Values(
        FilterCase{.name = "no_resources_requested_always_fits",
                   .containers = {},
                   .existing = {{"cpu", "10m"}, {"memory", "20"}}},
        // cpu: 1 > 10 - 10; memory: 1 > 20 - 20. Neither exceeds allocatable alone: Unschedulable.
        FilterCase{.name = "too_many_resources_fails",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "10m"}, {"memory", "20"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient cpu", "Insufficient memory"}},
        // request = max(1, 3) = 3m > 10 - 8.
        FilterCase{.name = "too_many_resources_fails_due_to_init_container_cpu",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "3m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "8m"}, {"memory", "19"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient cpu"}},
        FilterCase{.name = "too_many_resources_fails_due_to_highest_init_container_cpu",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "3m"}, {"memory", "1"}}, {{"cpu", "2m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "8m"}, {"memory", "19"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient cpu"}},
        FilterCase{.name = "too_many_resources_fails_due_to_init_container_memory",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "1m"}, {"memory", "3"}}},
                   .existing = {{"cpu", "9m"}, {"memory", "19"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient memory"}},
        FilterCase{.name = "too_many_resources_fails_due_to_highest_init_container_memory",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "1m"}, {"memory", "3"}}, {{"cpu", "1m"}, {"memory", "2"}}},
                   .existing = {{"cpu", "9m"}, {"memory", "19"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient memory"}},
        FilterCase{.name = "init_container_fits_because_its_the_max_not_sum",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "9m"}, {"memory", "19"}}},
        FilterCase{.name = "multiple_init_containers_fit_because_its_the_max_not_sum",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}}, {{"cpu", "1m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "9m"}, {"memory", "19"}}},
        FilterCase{.name = "both_resources_fit",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "5m"}, {"memory", "5"}}},
        FilterCase{.name = "one_resource_memory_fits",
                   .containers = {{{"cpu", "2m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "9m"}, {"memory", "5"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient cpu"}},
        FilterCase{.name = "one_resource_cpu_fits",
                   .containers = {{{"cpu", "1m"}, {"memory", "2"}}},
                   .existing = {{"cpu", "5m"}, {"memory", "19"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient memory"}},
        // cpu: 5 <= 10 - 5.
        FilterCase{.name = "equal_edge_case",
                   .containers = {{{"cpu", "5m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "5m"}, {"memory", "19"}}},
        FilterCase{.name = "equal_edge_case_for_init_container",
                   .containers = {{{"cpu", "4m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "5m"}, {"memory", "1"}}},
                   .existing = {{"cpu", "5m"}, {"memory", "19"}}},
        FilterCase{.name = "extended_resource_fits", .containers = {{{kA, "1"}}}},
        FilterCase{.name = "extended_resource_fits_for_init_container",
                   .containers = {{}},
                   .inits = {{{kA, "1"}}}},
        // 10 > allocatable 5: preemption cannot help.
        FilterCase{.name = "extended_resource_capacity_enforced",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "10"}}},
                   .existing = {{"cpu", "0"}, {"memory", "0"}, {kA, "0"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kA)}},
        FilterCase{.name = "extended_resource_capacity_enforced_for_init_container",
                   .containers = {{}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "10"}}},
                   .existing = {{"cpu", "0"}, {"memory", "0"}, {kA, "0"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kA)}},
        // 1 > 5 - 5 but 1 <= 5: preemption may help.
        FilterCase{.name = "extended_resource_allocatable_enforced",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "1"}}},
                   .existing = {{kA, "5"}},
                   .want_code = kU,
                   .want_reasons = {Insufficient(kA)}},
        FilterCase{.name = "extended_resource_allocatable_enforced_for_init_container",
                   .containers = {{}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "1"}}},
                   .existing = {{kA, "5"}},
                   .want_code = kU,
                   .want_reasons = {Insufficient(kA)}},
        // 3 + 3 = 6 > 5.
        FilterCase{.name = "extended_resource_allocatable_enforced_for_multiple_containers",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "3"}},
                                  {{"cpu", "1m"}, {"memory", "1"}, {kA, "3"}}},
                   .existing = {{kA, "2"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kA)}},
        // max(3, 3) = 3 <= 5 - 2.
        FilterCase{.name = "extended_resource_allocatable_admits_multiple_init_containers",
                   .containers = {{}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "3"}},
                             {{"cpu", "1m"}, {"memory", "1"}, {kA, "3"}}},
                   .existing = {{kA, "2"}}},
        FilterCase{.name = "extended_resource_allocatable_enforced_for_multiple_init_containers",
                   .containers = {{}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "6"}},
                             {{"cpu", "1m"}, {"memory", "1"}, {kA, "3"}}},
                   .existing = {{kA, "2"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kA)}},
        FilterCase{.name = "extended_resource_allocatable_enforced_for_unknown_resource",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kB, "1"}}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kB)}},
        FilterCase{
            .name =
                "extended_resource_allocatable_enforced_for_unknown_resource_for_init_container",
            .containers = {{}},
            .inits = {{{"cpu", "1m"}, {"memory", "1"}, {kB, "1"}}},
            .want_code = kUU,
            .want_reasons = {Insufficient(kB)}},
        FilterCase{.name = "kubernetes_io_resource_capacity_enforced",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kK8sA, "10"}}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kK8sA)}},
        FilterCase{.name = "kubernetes_io_resource_capacity_enforced_for_init_container",
                   .containers = {{}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}, {kK8sB, "10"}}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kK8sB)}},
        FilterCase{.name = "hugepages_resource_capacity_enforced",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kHugeA, "10"}}},
                   .existing = {{kHugeA, "0"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kHugeA)}},
        FilterCase{.name = "hugepages_resource_capacity_enforced_for_init_container",
                   .containers = {{}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}, {kHugeA, "10"}}},
                   .existing = {{kHugeA, "0"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kHugeA)}},
        FilterCase{.name = "hugepages_resource_allocatable_enforced_for_multiple_containers",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kHugeA, "3"}},
                                  {{"cpu", "1m"}, {"memory", "1"}, {kHugeA, "3"}}},
                   .existing = {{kHugeA, "2"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kHugeA)}},
        FilterCase{.name = "skip_checking_ignored_extended_resource",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kB, "1"}}},
                   .ignored = {kB}},
        // cpu 1 + 3 = 4 <= 10 - 5; memory 1 + 13 = 14 <= 20 - 5.
        FilterCase{.name = "resources_plus_pod_overhead_fits",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .overhead = {{"cpu", "3m"}, {"memory", "13"}},
                   .existing = {{"cpu", "5m"}, {"memory", "5"}}},
        // memory 1 + 15 = 16 > 20 - 5.
        FilterCase{.name = "requests_plus_overhead_does_not_fit_for_memory",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .overhead = {{"cpu", "1m"}, {"memory", "15"}},
                   .existing = {{"cpu", "5m"}, {"memory", "5"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient memory"}},
        // Groups apply to extended resources only: kubernetes.io/something is still checked.
        FilterCase{.name = "skip_checking_ignored_extended_resource_via_resource_groups",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kB, "1"}, {kK8sA, "1"}}},
                   .ignored_groups = {"example.com"},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kK8sA)}},
        // A zero request is never checked, even on an overcommitted node (6 > 5).
        FilterCase{.name = "skip_checking_extended_resource_request_with_quantity_zero",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kA, "0"}}},
                   .existing = {{kA, "6"}}},
        // cpu and memory are not requested, so the overcommitted node (20m > 10m) still fits.
        FilterCase{.name = "skip_checking_resource_request_with_quantity_zero",
                   .containers = {{{kA, "1"}}},
                   .existing = {{"cpu", "20m"}, {"memory", "30"}, {kA, "1"}}},
        FilterCase{.name = "both_pod_level_and_container_level_resources_fit",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .pod_level = {{"cpu", "1m"}, {"memory", "2"}},
                   .existing = {{"cpu", "5m"}, {"memory", "5"}}},
        // Pod-level cpu 7m replaces the containers' 1m: 7 > 10 - 5.
        FilterCase{.name = "pod_level_cpu_resource_not_fit",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .pod_level = {{"cpu", "7m"}, {"memory", "2"}},
                   .existing = {{"cpu", "5m"}, {"memory", "5"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient cpu"}},
        FilterCase{.name = "pod_level_memory_resource_not_fit",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .pod_level = {{"cpu", "3m"}, {"memory", "2"}},
                   .existing = {{"cpu", "5m"}, {"memory", "19"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient memory"}},
        FilterCase{.name = "pod_level_hugepages_resource_fit",
                   .containers = {},
                   .pod_level = {{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "5"}}},
        FilterCase{.name = "both_pod_level_and_container_level_hugepages_resource_fit",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kHugeA, "3"}}},
                   .pod_level = {{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "5"}}},
        // Pod-level hugepages 10 > allocatable 5.
        FilterCase{.name = "pod_level_hugepages_resource_not_fit",
                   .containers = {},
                   .pod_level = {{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "10"}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kHugeA)}},
        FilterCase{.name = "one_pod_level_cpu_resource_fits_and_all_init_and_non_init_containers_"
                           "resources_fit",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .inits = {{{"cpu", "1m"}, {"memory", "1"}}},
                   .pod_level = {{"cpu", "3m"}, {"memory", "2"}},
                   .existing = {{"cpu", "5m"}, {"memory", "19"}},
                   .want_code = kU,
                   .want_reasons = {"Insufficient memory"}},
        // No DeviceClass exists in Corral, so a DRA-style name is an ordinary extended resource
        // (kube's "extended resource backed by DRA not enabled" and "NOT backed by DRA" cases).
        FilterCase{.name = "extended_resource_not_backed_by_dra",
                   .containers = {{{"cpu", "1m"}, {"memory", "1"}, {kDra, "1"}}},
                   .want_code = kUU,
                   .want_reasons = {Insufficient(kDra)}},
        // All failing reasons, cpu/memory/ephemeral-storage first, then scalars by name.
        FilterCase{.name = "all_reasons_in_order",
                   .containers = {{{"cpu", "11m"},
                                   {"memory", "1"},
                                   {"ephemeral-storage", "1"},
                                   {kB, "1"},
                                   {kA, "1"}}},
                   .existing = {{"memory", "20"}, {"ephemeral-storage", "20"}, {kA, "5"}},
                   .want_code = kUU,
                   .want_reasons = {"Insufficient cpu", "Insufficient memory",
                                    "Insufficient ephemeral-storage", Insufficient(kA),
                                    Insufficient(kB)}}),
    [](const ::testing::TestParamInfo<FilterCase>& i) { return i.param.name; });

TEST(FitTest, FilterWithoutPreFilterIsAnError) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  api::Node& node = MakeNode(w, "n", {});
  framework::NodeInfo& ni = w.NodeWith(node);
  framework::PodInfo& pod = w.Info(w.Pod("p").Obj());
  auto fit = NewFit(h);
  framework::CycleState state;
  framework::Status st = fit->Filter(state, 0, pod, ni);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(),
            R"(error reading "PreFilterNodeResourcesFit" from cycleState: not found)");
}

// kube's TestNotEnoughRequests: the node allows 1 pod and already has one.
TEST(FitTest, TooManyPods) {
  struct Case {
    std::string name;
    std::vector<Reqs> containers;
    std::vector<Reqs> inits;
    Reqs existing;
  };
  const Case cases[] = {
      {"even_without_specified_resources", {}, {}, {{"cpu", "10m"}, {"memory", "20"}}},
      {"even_if_both_resources_fit",
       {{{"cpu", "1m"}, {"memory", "1"}}},
       {},
       {{"cpu", "5m"}, {"memory", "5"}}},
      {"even_for_equal_edge_case",
       {{{"cpu", "5m"}, {"memory", "1"}}},
       {},
       {{"cpu", "5m"}, {"memory", "19"}}},
      {"even_for_equal_edge_case_due_to_init_container",
       {{{"cpu", "5m"}, {"memory", "1"}}},
       {{{"cpu", "5m"}, {"memory", "1"}}},
       {{"cpu", "5m"}, {"memory", "19"}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::FakeHandle h(w);
    api::Node& node = MakeNode(w, "n", {{"cpu", "10m"}, {"memory", "20"}, {"pods", "1"}});
    api::Pod& existing = MakePod(w, "existing", {c.existing});
    framework::NodeInfo& ni = w.NodeWith(node, {&existing});
    framework::PodInfo& pod = w.Info(MakePod(w, "pod", c.containers, c.inits));
    auto fit = NewFit(h);
    framework::CycleState state;
    ASSERT_TRUE(fit->PreFilter(state, 0, pod, h.snapshot(), nullptr).ok());
    framework::Status st = fit->Filter(state, 0, pod, ni);
    EXPECT_EQ(st.code(), kU);
    EXPECT_EQ(Reasons(st), std::vector<std::string>{"Too many pods"});
  }
}

// kube's TestStorageRequests (node: ephemeral-storage 20).
TEST(FitTest, StorageRequests) {
  struct Case {
    std::string name;
    std::vector<Reqs> containers;
    std::vector<Reqs> inits;
    Reqs existing;
    Code want_code;
    std::vector<std::string> want_reasons;
  };
  const Case cases[] = {
      {"empty_storage_requested_and_pod_fits",
       {{{"cpu", "1m"}, {"memory", "1"}}},
       {},
       {{"cpu", "2m"}, {"memory", "10"}},
       kOk,
       {}},
      // 25 > allocatable 20.
      {"ephemeral_storage_request_exceeds_allocatable",
       {{{"ephemeral-storage", "25"}}},
       {},
       {{"cpu", "2m"}, {"memory", "2"}},
       kUU,
       {"Insufficient ephemeral-storage"}},
      {"ephemeral_local_storage_is_sufficient",
       {{{"ephemeral-storage", "5"}}},
       {},
       {{"cpu", "2m"}, {"memory", "2"}, {"ephemeral-storage", "10"}},
       kOk,
       {}},
      {"pod_fits", {{{"ephemeral-storage", "10"}}}, {}, {{"cpu", "2m"}, {"memory", "2"}}, kOk, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::FakeHandle h(w);
    api::Node& node = MakeNode(w, "n",
                               {{"cpu", "10m"},
                                {"memory", "20"},
                                {"pods", "32"},
                                {kA, "5"},
                                {"ephemeral-storage", "20"},
                                {kHugeA, "5"}});
    api::Pod& existing = MakePod(w, "existing", {c.existing});
    framework::NodeInfo& ni = w.NodeWith(node, {&existing});
    framework::PodInfo& pod = w.Info(MakePod(w, "pod", c.containers, c.inits));
    auto fit = NewFit(h);
    framework::CycleState state;
    ASSERT_TRUE(fit->PreFilter(state, 0, pod, h.snapshot(), nullptr).ok());
    framework::Status st = fit->Filter(state, 0, pod, ni);
    EXPECT_EQ(st.code(), c.want_code);
    EXPECT_EQ(Reasons(st), c.want_reasons);
  }
}

// kube's TestRestartableInitContainers, SidecarContainers on (locked on in v1.37). Node: cpu 2m,
// 1 pod.
TEST(FitTest, RestartableInitContainers) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  api::Node& node = MakeNode(w, "n", {{"cpu", "2m"}, {"pods", "1"}});
  framework::NodeInfo& ni = w.NodeWith(node);
  auto fit = NewFit(h);

  api::Pod& plain = w.Pod("plain").Req({}).Obj();
  api::Pod& sidecar = w.Pod("sidecar").Req({}).InitReq({}, /*sidecar=*/true).Obj();
  // cpu: 1m + sidecar 1m = 2m <= 2m.
  api::Pod& fits = w.Pod("fits").Req({{"cpu", "1m"}}).InitReq({{"cpu", "1m"}}, true).Obj();
  // cpu: 1m + sidecar 2m = 3m > allocatable 2m.
  api::Pod& too_big = w.Pod("too-big").Req({{"cpu", "1m"}}).InitReq({{"cpu", "2m"}}, true).Obj();
  for (const api::Pod* p : {&plain, &sidecar, &fits}) {
    framework::PodInfo& info = w.Info(*p);
    framework::CycleState state;
    ASSERT_TRUE(fit->PreFilter(state, 0, info, h.snapshot(), nullptr).ok());
    EXPECT_TRUE(fit->Filter(state, 0, info, ni).ok());
  }
  framework::PodInfo& info = w.Info(too_big);
  framework::CycleState state;
  ASSERT_TRUE(fit->PreFilter(state, 0, info, h.snapshot(), nullptr).ok());
  framework::Status st = fit->Filter(state, 0, info, ni);
  EXPECT_EQ(st.code(), kUU);
  EXPECT_EQ(Reasons(st), std::vector<std::string>{"Insufficient cpu"});
}

TEST(FitTest, CloneKeepsFilterState) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  api::Node& node = MakeNode(w, "n", {{"cpu", "1"}});
  framework::NodeInfo& ni = w.NodeWith(node);
  framework::PodInfo& pod = w.Info(MakePod(w, "p", {{{"cpu", "2"}, {kA, "1"}}}));
  auto fit = NewFit(h);
  framework::CycleState state;
  ASSERT_TRUE(fit->PreFilter(state, 0, pod, h.snapshot(), nullptr).ok());
  framework::CycleState clone = state.Clone();
  framework::Status st = fit->Filter(clone, 0, pod, ni);
  EXPECT_EQ(Reasons(st), (std::vector<std::string>{"Insufficient cpu", Insufficient(kA)}));
}

// ---- Score (kube's TestFitScore) ----------------------------------------------------------------

TEST(FitTest, ScoreStrategies) {
  struct Case {
    std::string name;
    Reqs pod;
    std::string type;
    std::vector<UtilizationShapePoint> shape;
    std::vector<int64_t> want;
  };
  // node1: 4000 cpu / 10000 memory, running 2000 / 4000; node2: 6000 / 10000, running 1000 / 2000.
  const Case cases[] = {
      // Shape {0: 10, 100: 0} scaled x10 -> {0: 100, 100: 0}.
      // node1: cpu (2000+3000)/4000 -> 100*5000/4000 = 125% > 100% -> f(100) = 0; memory 9000/10000
      //        = 90% -> 100 - 100*90/100 = 10; only scores > 0 count: round(10*1 / 1) = 10.
      // node2: cpu 4000/6000 = 66% -> 34; memory 7000/10000 = 70% -> 30; round((34 + 30) / 2) = 32.
      {"requested_to_capacity_ratio_case1",
       {{"cpu", "3000"}, {"memory", "5000"}},
       std::string(kRequestedToCapacityRatio),
       {{0, 10}, {100, 0}},
       {10, 32}},
      // Shape {0: 0, 100: 10} -> {0: 0, 100: 100}. node1: cpu f(100) = 100, memory 90: round(190/2)
      // = 95.
      // node2: 66 and 70: round(136/2) = 68.
      {"requested_to_capacity_ratio_case2",
       {{"cpu", "3000"}, {"memory", "5000"}},
       std::string(kRequestedToCapacityRatio),
       {{0, 0}, {100, 10}},
       {95, 68}},
      // node1: cpu 3000*100/4000 = 75, memory 6000*100/10000 = 60: (75+60)/2 = 67.
      // node2: cpu 2000*100/6000 = 33, memory 4000*100/10000 = 40: (33+40)/2 = 36.
      {"most_allocated",
       {{"cpu", "1000"}, {"memory", "2000"}},
       std::string(kMostAllocated),
       {},
       {67, 36}},
      // node1: (4000-3000)*100/4000 = 25, (10000-6000)*100/10000 = 40: 32.
      // node2: (6000-2000)*100/6000 = 66, (10000-4000)*100/10000 = 60: 63.
      {"least_allocated",
       {{"cpu", "1000"}, {"memory", "2000"}},
       std::string(kLeastAllocated),
       {},
       {32, 63}},
  };
  for (const Case& c : cases) {
    for (bool run_pre_score : {true, false}) {
      SCOPED_TRACE(c.name + (run_pre_score ? "" : "_without_prescore"));
      testing::TestWorld w;
      testing::FakeHandle h(w);
      api::Node& n1 = MakeNode(w, "node1", {{"cpu", "4000"}, {"memory", "10000"}});
      api::Node& n2 = MakeNode(w, "node2", {{"cpu", "6000"}, {"memory", "10000"}});
      api::Pod& e1 = MakePod(w, "e1", {{{"cpu", "2000"}, {"memory", "4000"}}});
      api::Pod& e2 = MakePod(w, "e2", {{{"cpu", "1000"}, {"memory", "2000"}}});
      h.SetNodes({&w.NodeWith(n1, {&e1}), &w.NodeWith(n2, {&e2})});
      NodeResourcesFitArgs args;
      args.scoring_strategy->type = c.type;
      if (!c.shape.empty()) args.scoring_strategy->requested_to_capacity_ratio = {c.shape};
      auto fit = NewFit(h, args);
      framework::PodInfo& pod = w.Info(MakePod(w, "pod", {c.pod}));
      EXPECT_EQ(testutil::ScoreAll(*fit, h, pod, run_pre_score), c.want);
    }
  }
}

// kube: "MostAllocated/LeastAllocated with sidecar container". A restartable init container's
// request adds to the pod's for as long as it runs.
TEST(FitTest, ScoreCountsSidecarRequests) {
  for (const auto& [type, want] : {std::pair{kMostAllocated, std::vector<int64_t>{67, 45}},
                                   std::pair{kLeastAllocated, std::vector<int64_t>{32, 55}}}) {
    SCOPED_TRACE(std::string(type));
    testing::TestWorld w;
    testing::FakeHandle h(w);
    api::Node& n1 = MakeNode(w, "node1", {{"cpu", "4000"}, {"memory", "10000"}});
    api::Node& n2 = MakeNode(w, "node2", {{"cpu", "4000"}, {"memory", "10000"}});
    api::Pod& e1 = w.Pod("e1")
                       .Req({{"cpu", "1000"}, {"memory", "2000"}})
                       .InitReq({{"cpu", "1000"}, {"memory", "2000"}}, /*sidecar=*/true)
                       .Obj();
    api::Pod& e2 = w.Pod("e2").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj();
    h.SetNodes({&w.NodeWith(n1, {&e1}), &w.NodeWith(n2, {&e2})});
    NodeResourcesFitArgs args;
    args.scoring_strategy->type = std::string(type);
    auto fit = NewFit(h, args);
    framework::PodInfo& pod = w.Info(w.Pod("pod").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj());
    // Most, node1: cpu 3000/4000 = 75, memory 6000/10000 = 60 -> 67; node2: 50, 40 -> 45.
    // Least, node1: 25, 40 -> 32; node2: 50, 60 -> 55.
    EXPECT_EQ(testutil::ScoreAll(*fit, h, pod, true), want);
  }
}

// ---- args through the factory -------------------------------------------------------------------

TEST(FitTest, NewValidatesArgs) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  NodeResourcesFitArgs args;
  args.scoring_strategy->resources = {{"memory", -1}, {"cpu", 1}};
  auto p = NodeResourcesFit::New(&args, h);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message,
            "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not "
            "in valid "
            "range (0, 100]");

  NodeResourcesFitArgs no_strategy;
  no_strategy.scoring_strategy.reset();
  p = NodeResourcesFit::New(&no_strategy, h);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "scoring strategy not specified");

  NodeResourcesFitArgs rtcr_without_shape;
  rtcr_without_shape.scoring_strategy->type = std::string(kRequestedToCapacityRatio);
  EXPECT_FALSE(NodeResourcesFit::New(&rtcr_without_shape, h).ok());

  const NodeResourcesBalancedAllocationArgs foreign;
  p = NodeResourcesFit::New(&foreign, h);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message,
            "want args to be of type NodeResourcesFitArgs, got another plugin's args");

  EXPECT_TRUE(NodeResourcesFit::New(nullptr, h).ok());
}

TEST(FitTest, ScoreWithoutResourcesIsAnError) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  api::Node& n = MakeNode(w, "node1", {{"cpu", "4000"}, {"memory", "10000"}});
  h.SetNodes({&w.NodeWith(n)});
  NodeResourcesFitArgs args;
  args.scoring_strategy->resources.clear();  // not defaulted: kube's "Resources not set" case
  auto fit = NewFit(h, args);
  framework::PodInfo& pod = w.Info(MakePod(w, "pod", {{{"cpu", "1000"}}}));
  EXPECT_EQ(testutil::ScoreAll(*fit, h, pod, true, Code::kError), std::vector<int64_t>{0});
}

// ---- events and queueing hints (kube's TestEventsToRegister, Test_isSchedulableAfter*) ----------

TEST(FitTest, EventsToRegister) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto events = NewFit(h)->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  // kube: Pod/Delete|UpdatePodScaleDown (an in-place resize); Corral's pod Update is a resize.
  EXPECT_EQ(events[0].resource, framework::EventResource::kPod);
  EXPECT_EQ(static_cast<int>(events[0].action),
            static_cast<int>(framework::ActionType::kDelete) |
                static_cast<int>(framework::ActionType::kUpdate));
  EXPECT_EQ(events[1].resource, framework::EventResource::kNode);
  EXPECT_EQ(static_cast<int>(events[1].action),
            static_cast<int>(framework::ActionType::kAdd) |
                static_cast<int>(framework::ActionType::kUpdate));
}

TEST(FitTest, PodDeletedHint) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto fit = NewFit(h);
  framework::PodInfo& pod = w.Info(w.Pod("pod1").Req({{"cpu", "1"}}).Obj());
  framework::PodInfo& bound = w.Info(w.Pod("pod2").Req({{"cpu", "1"}}).NodeName("fake").Obj());
  framework::PodInfo& pending = w.Info(w.Pod("pod3").Obj());
  api::Pod& nominated_pod = w.Pod("pod4").Obj();
  nominated_pod.nominated_node_name = w.S("fake");
  framework::PodInfo& nominated = w.Info(nominated_pod);
  const framework::ClusterEvent del{framework::EventResource::kPod, framework::ActionType::kDelete};
  // "queue-on-other-pod-deleted"
  EXPECT_EQ(fit->Hint(pod, del, bound.pod), QueueingHint::kQueue);
  // "skip-queue-on-unscheduled-pod-deleted"
  EXPECT_EQ(fit->Hint(pod, del, pending.pod), QueueingHint::kQueueSkip);
  // A nominated pod reserved room on its node.
  EXPECT_EQ(fit->Hint(pod, del, nominated.pod), QueueingHint::kQueue);
  // The scheduler reports deletions of cached pods as AssignedPod/Delete.
  const framework::ClusterEvent assigned_del{framework::EventResource::kAssignedPod,
                                             framework::ActionType::kDelete};
  EXPECT_EQ(fit->Hint(pod, assigned_del, bound.pod), QueueingHint::kQueue);
}

TEST(FitTest, NodeChangeHint) {
  struct Case {
    std::string name;
    Reqs pod;
    std::optional<Reqs> old_node;
    Reqs new_node;
    QueueingHint want;
  };
  const Case cases[] = {
      {"skip_queue_on_node_add_without_sufficient_resources",
       {{"memory", "2"}},
       std::nullopt,
       {{"memory", "1"}},
       QueueingHint::kQueueSkip},
      // kube's case runs with DRAExtendedResource off and skips. The gate is locked on in v1.37,
      // and then isFit leaves a scalar the node does not advertise to DynamicResources (no class
      // mapping is known there), so the added node may help: Queue.
      {"skip_queue_on_node_add_without_required_resource_type",
       {{kA, "1"}},
       std::nullopt,
       {{kB, "1"}},
       QueueingHint::kQueue},
      {"queue_on_node_add_with_sufficient_resources",
       {{"memory", "2"}, {kA, "1"}},
       std::nullopt,
       {{"memory", "4"}, {kA, "2"}},
       QueueingHint::kQueue},
      {"skip_queue_on_node_unrelated_changes",
       {{"memory", "2"}, {kA, "1"}},
       Reqs{{"memory", "2"}, {kA, "2"}},
       {{"memory", "2"}, {kA, "1"}, {kB, "2"}},
       QueueingHint::kQueueSkip},
      {"queue_on_pod_requested_resources_increase",
       {{"memory", "2"}, {kA, "1"}},
       Reqs{{"memory", "2"}, {kA, "1"}},
       {{"memory", "2"}, {kA, "2"}},
       QueueingHint::kQueue},
      {"skip_queue_on_node_changes_from_suitable_to_unsuitable",
       {{"memory", "2"}, {kA, "1"}},
       Reqs{{"memory", "4"}, {kA, "2"}},
       {{"memory", "1"}, {kA, "2"}},
       QueueingHint::kQueueSkip},
      {"queue_on_node_changes_from_unsuitable_to_suitable",
       {{"memory", "2"}, {kA, "1"}},
       Reqs{{"memory", "1"}, {kA, "2"}},
       {{"memory", "4"}, {kA, "2"}},
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::FakeHandle h(w);
    auto fit = NewFit(h);
    framework::PodInfo& pod = w.Info(MakePod(w, "pod", {c.pod}));
    const api::Node& new_node = MakeNode(w, "new", c.new_node);
    const api::Node* old_node = c.old_node ? &MakeNode(w, "old", *c.old_node) : nullptr;
    EXPECT_EQ(fit->NodeChangeHint(pod, old_node, new_node), c.want);
    if (old_node == nullptr) {
      const framework::ClusterEvent add{framework::EventResource::kNode,
                                        framework::ActionType::kAdd};
      EXPECT_EQ(fit->Hint(pod, add, &new_node), c.want);
    }
  }
}

// kube's case as kube runs it, with DRAExtendedResource off (emulated v1.36, where the gate is
// beta): isFit then needs the node to advertise every scalar the pod requests, so a node without
// the pod's resource type cannot help.
TEST(FitTest, NodeChangeHintWithDRAExtendedResourceOff) {
  testing::TestWorld w;
  w.gates = framework::FeatureGates(framework::KubeVersion{1, 36});
  ASSERT_TRUE(w.gates.Set("DRAExtendedResource", false).ok());
  testing::FakeHandle h(w);
  auto fit = NewFit(h);
  framework::PodInfo& pod = w.Info(MakePod(w, "pod", {{{kA, "1"}}}));
  const api::Node& new_node = MakeNode(w, "new", {{kB, "1"}});
  EXPECT_EQ(fit->NodeChangeHint(pod, nullptr, new_node), QueueingHint::kQueueSkip);
  const api::Node& with_a = MakeNode(w, "with-a", {{kA, "1"}});
  EXPECT_EQ(fit->NodeChangeHint(pod, nullptr, with_a), QueueingHint::kQueue);
}

// ---- Sign ---------------------------------------------------------------------------------------

TEST(FitTest, SignEncodesThePodRequest) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto fit = NewFit(h);
  framework::PodInfo& pod = w.Info(w.Pod("p")
                                       .Req({{"cpu", "500m"}, {"memory", "1000"}, {kB, "1"}})
                                       .Req({{"cpu", "1500m"}, {"memory", "3000"}, {kA, "2"}})
                                       .Obj());
  std::vector<framework::SignFragment> fragments;
  ASSERT_TRUE(fit->Sign(pod, &fragments).ok());
  ASSERT_EQ(fragments.size(), 1u);
  EXPECT_EQ(fragments[0].key, "v1.Pod.Spec.ContainerRequestsAndOverheads()");
  EXPECT_EQ(fragments[0].value,
            R"({"MilliCPU":2000,"Memory":4000,"EphemeralStorage":0,"AllowedPodNumber":0,)"
            R"("ScalarResources":{"example.com/aaa":2,"example.com/bbb":1}})");

  framework::PodInfo& best_effort = w.Info(w.Pod("be").Req({}).Obj());
  fragments.clear();
  ASSERT_TRUE(fit->Sign(best_effort, &fragments).ok());
  EXPECT_EQ(
      fragments[0].value,
      R"({"MilliCPU":0,"Memory":0,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":null})");
}

}  // namespace
}  // namespace corral::plugins
