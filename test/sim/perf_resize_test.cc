// In-place pod resize in the simulator: scheduler_perf's updateAny with subresources [resize],
// the node agent deferring and actuating resizes, and the scheduler's preemption for a deferred
// resize (InPlacePodVerticalScalingSchedulerPreemption). The runs read the event log.

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/app/simulate.h"
#include "corral/sim/perf.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using ::testing::HasSubstr;

class Lines : public TextEventLog {
 public:
  void Line(std::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
  // The lines of `kind` (the word after the time stamp).
  std::vector<std::string> Of(std::string_view kind) const {
    std::vector<std::string> out;
    const std::string key = " " + std::string(kind) + " ";
    for (const auto& l : lines) {
      if (l.find(key) != std::string::npos) out.push_back(l);
    }
    return out;
  }
};

struct ResizeRun {
  std::string error;  // compile or run failure
  Lines log;
  RunResult result;
};

ResizeRun RunConfig(std::string_view text, std::string_view workload, Interner& in,
                    const std::string& path = "examples/scheduler_perf/resize/inline.yaml") {
  ResizeRun out;
  Diagnostics diags;
  auto c = PerfConfig::Parse(text, path, in, diags);
  if (!c.ok()) {
    out.error = c.error().message;
    return out;
  }
  for (const auto& ref : c->All()) {
    if (ref.name.find(workload) == std::string::npos) continue;
    auto spec = c->Compile(ref, in, diags);
    if (!spec.ok()) {
      out.error = spec.error().message;
      return out;
    }
    spec->cost = CostModel{CostModel::Mode::kFixed, 1'000'000};
    app::RunRequest req;
    req.log = &out.log;
    auto run = app::RunSimulation(*spec, in, diags, req);
    if (!run.ok()) {
      out.error = run.error().message;
      return out;
    }
    out.error = run->result.failure;
    out.result = std::move(run->result);
    return out;
  }
  out.error = "no such workload";
  return out;
}

std::string ReadExample() {
  return corral::testing::ReadFile("examples/scheduler_perf/resize/performance-config.yaml");
}

// examples/scheduler_perf/resize: one 4-cpu node, four 900m victims (priority 100) and a 200m
// pod of priority 1000 resized to 3000m. The agent defers it (3600m + 3000m > 4000m); the
// scheduler preempts three victims on that node (kube's reprieve keeps one: 900m + 3000m fits);
// the agent then actuates the resize.
TEST(PerfResizeTest, DeferredResizeEvictsLowerPriorityVictimsThenIsActuated) {
  Interner in = api::NewInterner();
  ResizeRun r = RunConfig(ReadExample(), "DeferredResize/Preemption", in);
  ASSERT_EQ(r.error, "");
  const auto resize = r.log.Of("resize");
  ASSERT_EQ(resize.size(), 2U) << ::testing::PrintToString(r.log.lines);
  EXPECT_THAT(resize[0], HasSubstr("resize-0/pod-preemptor-0 deferred: Node didn't have enough "
                                   "resource: cpu, requested: 3000, used: 3600, capacity: 4000"));
  EXPECT_THAT(resize[1], HasSubstr("resize-0/pod-preemptor-0 actuated"));
  const auto preempt = r.log.Of("preempt");
  EXPECT_EQ(preempt.size(), 3U) << ::testing::PrintToString(r.log.lines);
  for (const auto& p : preempt)
    EXPECT_THAT(p, HasSubstr("by resize-0/pod-preemptor-0 node=node-0"));
  EXPECT_EQ(r.result.pods_preempted, 3);
}

// Without the gate the scheduler leaves the deferred resize alone: no victim, still deferred.
TEST(PerfResizeTest, GateOffLeavesTheResizeDeferred) {
  Interner in = api::NewInterner();
  ResizeRun r = RunConfig(ReadExample(), "DeferredResize/GateOff", in);
  ASSERT_EQ(r.error, "");
  const auto resize = r.log.Of("resize");
  ASSERT_EQ(resize.size(), 1U) << ::testing::PrintToString(r.log.lines);
  EXPECT_THAT(resize[0], HasSubstr("deferred"));
  EXPECT_TRUE(r.log.Of("preempt").empty());
  EXPECT_EQ(r.result.pods_preempted, 0);
}

// kube's DeferredResizePreemptionInPlace/5Nodes: 20 victims of 900m spread 4 per 4-cpu node, a
// 200m preemptor bound to each node and resized to 3000m. Each resize is deferred, three victims
// of its node are preempted, then it is actuated; no victim of another node is touched.
TEST(PerfResizeTest, KubeInPlaceWorkloadPreemptsThreeVictimsPerNode) {
  Interner in = api::NewInterner();
  const std::string path = "examples/scheduler_perf/kube/resize_preemption/performance-config.yaml";
  ResizeRun r = RunConfig(corral::testing::ReadFile(path), "DeferredResizePreemptionInPlace/5Nodes",
                          in, path);
  ASSERT_EQ(r.error, "");
  int deferred = 0, actuated = 0;
  for (const auto& l : r.log.Of("resize")) {
    deferred += l.find(" deferred: ") != std::string::npos ? 1 : 0;
    actuated += l.find(" actuated") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(deferred, 5);
  EXPECT_EQ(actuated, 5);
  EXPECT_EQ(r.result.pods_preempted, 15);
  for (int i = 0; i < 5; ++i) {
    const std::string by = fmt::format("by resize-inplace-0/pod-preemptor-{} node=node-{} ", i, i);
    int n = 0;
    for (const auto& l : r.log.Of("preempt")) n += l.find(by) != std::string::npos ? 1 : 0;
    EXPECT_EQ(n, 3) << by;
  }
}

constexpr std::string_view kOnePod = R"(
- name: T
  featureGates:
    InPlacePodVerticalScalingSchedulerPreemption: true
  workloadTemplate:
  - opcode: createNodes
    count: 1
    nodeTemplatePath: templates/node.yaml
  - opcode: createNamespaces
    prefix: resize
    count: 1
  - opcode: createPods
    count: 1
    podTemplatePath: templates/pod-preemptor-initial.yaml
    namespace: resize-0
  - opcode: updateAny
    count: 1
    templatePath: RESIZE
    namespace: resize-0
    subresources: [resize]
  workloads:
  - name: w
)";

std::string WithResize(std::string_view path) {
  std::string cfg(kOnePod);
  cfg.replace(cfg.find("RESIZE"), 6, path);
  return cfg;
}

// A resize that fits is actuated at once.
TEST(PerfResizeTest, ResizeThatFitsIsActuatedAtOnce) {
  Interner in = api::NewInterner();
  ResizeRun r = RunConfig(WithResize("templates/pod-preemptor-resize.yaml"), "w", in);
  ASSERT_EQ(r.error, "");
  const auto resize = r.log.Of("resize");
  ASSERT_EQ(resize.size(), 1U);
  EXPECT_THAT(resize[0], HasSubstr("actuated"));
}

// Anything but containers' resources in a pods/resize body is refused with its position; a
// container's image, which kube's own resize templates carry and kube ignores, is not.
TEST(PerfResizeTest, NonResizeFieldIsAPositionedError) {
  Interner in = api::NewInterner();
  ResizeRun r = RunConfig(WithResize("../../../test/sim/testdata/resize-with-ports.yaml"), "w", in);
  EXPECT_THAT(r.error, HasSubstr("resize-with-ports.yaml:8: spec.containers[0].ports: not a "
                                 "resize"));
  // The image passes; the resize then meets kube's QoS rule (its requests without limits).
  Interner in2 = api::NewInterner();
  ResizeRun with_image =
      RunConfig(WithResize("../../../test/sim/testdata/resize-with-image.yaml"), "w", in2);
  EXPECT_THAT(with_image.error, HasSubstr("Pod QOS Class may not change"));
}

// A QoS class change is kube's validation error.
TEST(PerfResizeTest, QosChangeIsRefused) {
  Interner in = api::NewInterner();
  ResizeRun r = RunConfig(WithResize("../../../test/sim/testdata/resize-burstable.yaml"), "w", in);
  EXPECT_THAT(r.error, HasSubstr("Pod QOS Class may not change as a result of resizing"));
}

// A pod the namespace does not hold fails the run as kube's update does.
TEST(PerfResizeTest, MissingPodFailsTheRun) {
  Interner in = api::NewInterner();
  ResizeRun r =
      RunConfig(WithResize("../../../test/sim/testdata/resize-missing-pod.yaml"), "w", in);
  EXPECT_THAT(r.error, HasSubstr("pods \"no-such-pod\" not found"));
}

}  // namespace
}  // namespace corral::sim
