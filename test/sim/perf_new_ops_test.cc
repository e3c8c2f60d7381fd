// kube's scheduler_perf createPods modes and ops added for the configs read last: steadyState
// (pods deleted once bound and replaced, for a duration), signatureBatchSize (consecutive pods
// share a "signature" label), nominatedNodeName (pods nominated and ungated when the collection
// starts), and the ops Corral refuses with a reason (updateAny, the DRA binding condition ops).
// Field checks follow kube's createPodsOp.isValid (test/integration/scheduler_perf/operations.go).
// Configs are parsed as if they lived next to the copies of kube's configs under kube/ examples.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/app/perf.h"
#include "corral/sim/input/perf_config_internal.h"
#include "corral/sim/perf.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using app::PerfRunOptions;
using app::RunPerfWorkload;
using ::testing::HasSubstr;

PerfRunOptions Fixed() {
  PerfRunOptions o;
  o.cost = CostModel{CostModel::Mode::kFixed, 1'000'000};
  return o;
}

struct Compiled {
  std::optional<PerfConfig> config;
  Result<SimSpec> spec = Error::Invalid("not compiled");
};

Compiled CompileInline(std::string_view cfg, Interner& in, const std::string& dir = "misc") {
  Compiled out;
  Diagnostics diags;
  auto c =
      PerfConfig::Parse(cfg, "examples/scheduler_perf/kube/" + dir + "/inline.yaml", in, diags);
  if (!c.ok()) {
    out.spec = c.error();
    return out;
  }
  out.config.emplace(std::move(c).value());
  Diagnostics d2;
  out.spec = out.config->Compile(out.config->All()[0], in, d2);
  return out;
}

PerfResult RunInline(std::string_view cfg, Interner& in, const std::string& dir = "misc") {
  Diagnostics diags;
  auto c =
      PerfConfig::Parse(cfg, "examples/scheduler_perf/kube/" + dir + "/inline.yaml", in, diags);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (!c.ok()) return {};
  return RunPerfWorkload(*c, c->All()[0], in, Fixed());
}

// kube's podTemplateWithParams.GetPodTemplate: signature-label-<index / batchSize>.
TEST(PerfNewOpsTest, SignatureLabelValueIsIndexOverBatch) {
  struct Case {
    int64_t index, batch;
    std::string want;
  };
  const Case cases[] = {
      {0, 1, "signature-label-0"},        {7, 1, "signature-label-7"},
      {9, 10, "signature-label-0"},       {10, 10, "signature-label-1"},
      {19999, 5000, "signature-label-3"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(perf_detail::SignatureLabelValue(c.index, c.batch), c.want)
        << c.index << "/" << c.batch;
  }
}

std::string BatchConfig(std::string_view batch_line, std::string_view params) {
  return fmt::format(R"(
- name: Batch
  defaultPodTemplatePath: ../templates/pod-hostport-80.yaml
  workloadTemplate:
  - opcode: createNodes
    count: 4
    nodeTemplatePath: ../templates/node-default.yaml
  - opcode: createPods
    count: 4
    {}
    collectMetrics: true
  workloads:
  - name: w
    params:
      {}
)",
                     batch_line, params);
}

// The pods' labels as the engine renders them (index, count).
std::vector<std::string> SignatureLabels(const SimSpec& spec, Interner& in, int64_t count) {
  std::vector<std::string> out;
  const PodTemplate& t = spec.pod_templates.back();
  for (int64_t i = 0; i < count; ++i) {
    const api::Pod* p = &t.pod;
    if (t.render) {
      auto r = t.render(i, count);
      EXPECT_TRUE(r.ok());
      if (!r.ok()) return out;
      p = *r;
    }
    const Symbol* v = p->meta.labels.Find(in.Intern("signature"));
    out.push_back(v == nullptr ? "-" : std::string(in.Str(*v)));
  }
  return out;
}

TEST(PerfNewOpsTest, SignatureBatchSizeLabelsConsecutivePods) {
  struct Case {
    std::string line, params;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"signatureBatchSize: 2",
       "{}",
       {"signature-label-0", "signature-label-0", "signature-label-1", "signature-label-1"}},
      {"signatureBatchSizeParam: $b",
       "{b: 3}",
       {"signature-label-0", "signature-label-0", "signature-label-0", "signature-label-1"}},
      // kube's patchParams: 0 means 1, every pod its own signature.
      {"signatureBatchSize: 0",
       "{}",
       {"signature-label-0", "signature-label-1", "signature-label-2", "signature-label-3"}},
      // Not given: the template's pods are left as they are.
      {"", "{}", {"-", "-", "-", "-"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    Interner in = api::NewInterner();
    Compiled k = CompileInline(BatchConfig(c.line, c.params), in);
    ASSERT_TRUE(k.spec.ok()) << k.spec.error().message;
    EXPECT_EQ(SignatureLabels(*k.spec, in, 4), c.want);
  }
}

TEST(PerfNewOpsTest, SignatureBatchSizeFieldsAreChecked) {
  struct Case {
    std::string line, params, want;
  };
  const Case cases[] = {
      {"signatureBatchSize: -1", "{}", "signatureBatchSize"},
      {"signatureBatchSizeParam: $nope", "{}", "parameter \"nope\" is not set"},
      {"signatureBatchSizeParam: $b", "{b: x}", "is a string; want an integer"},
      {"signatureBatchSizeParam: b", "{b: 1}", "want a parameter reference"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    Interner in = api::NewInterner();
    Compiled k = CompileInline(BatchConfig(c.line, c.params), in);
    ASSERT_FALSE(k.spec.ok());
    EXPECT_THAT(k.spec.error().message, HasSubstr(c.want));
    EXPECT_THAT(k.spec.error().message, HasSubstr("inline.yaml:"));  // positioned
  }
}

// Ten hostPort pods on four nodes: one pod per node. With the batch size the pods schedule as
// without it (the label changes which pods may share a batch, never where a pod fits).
TEST(PerfNewOpsTest, SignatureBatchSizeRunsTheBatchingShape) {
  Interner in = api::NewInterner();
  PerfResult r = RunInline(BatchConfig("signatureBatchSizeParam: $b", "{b: 2}"), in);
  ASSERT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  EXPECT_EQ(r.measured_pods, 4);
  EXPECT_EQ(r.measured_scheduled, 4);
}

std::string SteadyConfig(std::string_view fields, std::string_view params = "{}") {
  return fmt::format(R"(
- name: Steady
  defaultPodTemplatePath: ../templates/pod-saturation.yaml
  workloadTemplate:
  - opcode: createNodes
    count: 2
    nodeTemplatePath: ../templates/node-default.yaml
  - opcode: createPods
    count: 3
    {}
  workloads:
  - name: w
    params:
      {}
)",
                     fields, params);
}

// kube's createPodsSteadily: 3 pods of 3 CPUs on two 4-CPU nodes. Two fit; each is deleted once
// bound and a new pod takes its place, so pods keep getting scheduled for the whole duration,
// far more than the 3 created at first.
TEST(PerfNewOpsTest, SteadyStateReplacesBoundPodsForTheDuration) {
  Interner in = api::NewInterner();
  PerfResult r = RunInline(SteadyConfig(R"(steadyState: true
    duration: 1s
    collectMetrics: true)"),
                           in);
  ASSERT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  // With a fixed cost of 1 ms per attempt about 1,000 pods are scheduled in the second.
  EXPECT_GT(r.measured_scheduled, 900);
  EXPECT_LE(r.measured_scheduled, 1010);
  EXPECT_GE(r.measured_pods, r.measured_scheduled);
}

TEST(PerfNewOpsTest, SteadyStateTakesItsModeAndDurationFromParams) {
  Interner in = api::NewInterner();
  Compiled k = CompileInline(SteadyConfig(R"(steadyStateParam: $steady
    durationParam: $d
    collectMetrics: true)",
                                          "{steady: true, d: 2s}"),
                             in);
  ASSERT_TRUE(k.spec.ok()) << k.spec.error().message;
  const Workload& wk = k.spec->workloads.back();
  EXPECT_EQ(wk.steady_ns, 2'000'000'000);
  EXPECT_FALSE(wk.recreate_on_evict);
  Interner in2 = api::NewInterner();
  Compiled off = CompileInline(SteadyConfig(R"(steadyStateParam: $steady
    collectMetrics: true)",
                                            "{steady: false}"),
                               in2);
  ASSERT_TRUE(off.spec.ok()) << off.spec.error().message;
  EXPECT_EQ(off.spec->workloads.back().steady_ns, 0);
}

// kube's createPodsOp.isValid messages, positioned at the op.
TEST(PerfNewOpsTest, SteadyStateFieldsAreChecked) {
  struct Case {
    std::string fields, params, want;
  };
  const Case cases[] = {
      {"steadyState: true", "{}",
       "when creating pods in a steady state, the test duration must be > 0"},
      {"steadyState: true\n    duration: 0s", "{}", "the test duration must be > 0"},
      {"steadyState: true\n    duration: 1s\n    skipWaitToCompletion: true", "{}",
       "skipWaitToCompletion and steadyState cannot be true at the same time"},
      {"collectMetrics: true\n    skipWaitToCompletion: true", "{}",
       "collectMetrics and skipWaitToCompletion cannot be true at the same time"},
      {"steadyStateParam: $s\n    duration: 1s", "{s: 3}", "is not a boolean"},
      {"steadyStateParam: $missing\n    duration: 1s", "{}", "is not set by workload"},
      {"steadyState: true\n    duration: soon", "{}", "invalid duration \"soon\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fields);
    Interner in = api::NewInterner();
    Compiled k = CompileInline(SteadyConfig(c.fields, c.params), in);
    ASSERT_FALSE(k.spec.ok());
    EXPECT_THAT(k.spec.error().message, HasSubstr(c.want));
    EXPECT_THAT(k.spec.error().message, HasSubstr("inline.yaml:"));
  }
}

// kube's sanity check: a steady state in which no pod got scheduled is an error.
TEST(PerfNewOpsTest, SteadyStateWithNothingScheduledFails) {
  Interner in = api::NewInterner();
  std::string cfg = SteadyConfig(R"(steadyState: true
    duration: 1s
    collectMetrics: true)");
  cfg.replace(cfg.find("count: 2"), 8, "count: 0");
  PerfResult r = RunInline(cfg, in);
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message, HasSubstr("no pod at all got scheduled"));
}

TEST(PerfNewOpsTest, OpsCorralCannotRunAreRefusedWithTheReason) {
  struct Case {
    std::string op, status_text;
    PerfResult::Status status;
  };
  const Case cases[] = {
      {"- opcode: updateAny\n    templatePath: ../templates/light-pod.yaml\n    namespace: nsa",
       "updateAny: object 0 has no metadata.name", PerfResult::Status::kError},
      {"- opcode: updateAny\n    templatePath: ../templates/light-pod.yaml", "namespace not set",
       PerfResult::Status::kError},
      {"- opcode: updateAny\n    templatePath: ../templates/light-pod.yaml\n    subresources: "
       "[resize]",
       "namespace not set", PerfResult::Status::kError},
      {"- opcode: updateAny\n    templatePath: ../templates/light-pod.yaml\n    namespace: nsa\n   "
       " "
       "subresources: [resize]",
       "light-pod.yaml:4: metadata.generateName: not a resize", PerfResult::Status::kError},
      {"- opcode: updateAny\n    templatePath: ../templates/light-pod.yaml\n    subresources: "
       "[status]",
       "subresource \"status\"", PerfResult::Status::kSkipped},
      {"- opcode: updateAny\n    templatePath: ../templates/node-with-name.yaml\n    "
       "subresources: [resize]",
       "only a Pod has it", PerfResult::Status::kError},
      {"- opcode: updateAny\n    namespace: n", "templatePath", PerfResult::Status::kError},
      {"- opcode: updateAny\n    templatePath: x.yaml\n    updatePerSecond: -1", "updatePerSecond",
       PerfResult::Status::kError},
      {"- opcode: updateAny\n    templatePath: x.yaml\n    bogus: 1", "bogus",
       PerfResult::Status::kError},
      // kube's isValid of the DRA binding-condition ops.
      {"- opcode: updateDeviceConditions", "namespace must be set", PerfResult::Status::kError},
      {"- opcode: updateDeviceConditions\n    namespace: test", "conditions must be set",
       PerfResult::Status::kError},
      {"- opcode: updateDeviceConditions\n    namespace: test\n    ConditionTypeParam: $t",
       "ConditionTypeParam must be set together with ConditionStatusParam",
       PerfResult::Status::kError},
      {"- opcode: checkPodScheduled", "namespace must be set", PerfResult::Status::kError},
      {"- opcode: createPods\n    count: 1\n    nominatedNodeName: blocked\n    "
       "skipWaitToCompletion: true",
       "nominatedNodeName and skipWaitToCompletion cannot be used together",
       PerfResult::Status::kError},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    Interner in = api::NewInterner();
    PerfResult r = RunInline(fmt::format(R"(
- name: Ops
  workloadTemplate:
  - opcode: createNodes
    count: 1
  {}
  workloads:
  - name: w
)",
                                         c.op),
                             in);
    EXPECT_EQ(r.status, c.status) << r.message;
    EXPECT_THAT(r.message, HasSubstr(c.status_text));
  }
}

// updateAny of Pods (kube's Update of each rendered pod): EventHandlingPodUpdate's first half,
// small. The pods NodeUnschedulable rejected are scheduled once a toleration is added.
TEST(PerfNewOpsTest, PodUpdateMakesRejectedPodsSchedulable) {
  Interner in = api::NewInterner();
  PerfResult r = RunInline(R"(
- name: PodUpdate
  workloadTemplate:
  - opcode: startCollectingMetrics
    namespaces: [nodeunschedulable]
  - opcode: createNodes
    count: 1
    nodeTemplatePath: templates/podupdate-node-unschedulable.yaml
  - opcode: createPods
    count: 4
    podTemplatePath: templates/podupdate-pod-nodeunschedulable.yaml
    skipWaitToCompletion: true
    namespace: nodeunschedulable
  - opcode: barrier
    stageRequirement: Attempted
  - opcode: updateAny
    count: 4
    templatePath: templates/podupdate-pod-nodeunschedulable-update.yaml
    updatePerSecond: 100
    namespace: nodeunschedulable
  - opcode: barrier
  - opcode: stopCollectingMetrics
  workloads:
  - name: w
)",
                           in, "event_handling");
  EXPECT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  EXPECT_EQ(r.measured_pods, 4);
  EXPECT_EQ(r.measured_scheduled, 4);
}

// A pod update kube's API server forbids fails the workload with kube's message at the line of
// the changed field in the template (kube's TestValidatePodUpdate has the field rules).
TEST(PerfNewOpsTest, ForbiddenPodUpdateIsAPositionedError) {
  struct Case {
    std::string name, update, want;
  };
  const Case cases[] = {
      // The blockers are pending (no node): an update may not set spec.nodeName.
      {"nodeName", "templates/podupdate-pod-blocker-update.yaml",
       "templates/podupdate-pod-blocker-update.yaml:13: spec: Forbidden: pod updates may not "
       "change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
       "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
       "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "
       "negative) (spec.nodeName differs from pod blocker/pod-blocker-0)"},
      // Resources change only through pods/resize.
      {"resources", "templates/podupdate-pod-blocker-scale-down.yaml",
       "templates/podupdate-pod-blocker-scale-down.yaml:6: spec: Forbidden: pod updates may not "
       "change fields other than"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Interner in = api::NewInterner();
    PerfResult r = RunInline(fmt::format(R"(
- name: PodUpdate
  workloadTemplate:
  - opcode: createPods
    count: 2
    podTemplatePath: templates/podupdate-pod-blocker.yaml
    skipWaitToCompletion: true
    namespace: blocker
  - opcode: updateAny
    count: 2
    templatePath: {}
    namespace: blocker
  workloads:
  - name: w
)",
                                         c.update),
                             in, "event_handling");
    EXPECT_EQ(r.status, PerfResult::Status::kError);
    EXPECT_THAT(r.message, HasSubstr(c.want));
  }
}

TEST(PerfNewOpsTest, ProfileOpsAreNotedNotDropped) {
  Interner in = api::NewInterner();
  PerfResult r = RunInline(R"(
- name: Profile
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: startCollectingProfile
    type: CPU
    filePath: cpu.prof
  - opcode: createPods
    count: 1
    collectMetrics: true
  - opcode: stopCollectingProfile
    type: CPU
  workloads:
  - name: w
)",
                           in);
  ASSERT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  std::string notes;
  for (const auto& n : r.notes) notes += n + "\n";
  EXPECT_THAT(notes, HasSubstr("startCollectingProfile"));
}

// A createAny template the loader refuses is reported at its position (it used to stop the process
// on a CHECK): here a DeviceClass whose extendedResourceName is not an extended resource name.
TEST(PerfNewOpsTest, CreateAnyReportsATemplateTheLoaderRefuses) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto c =
      PerfConfig::Parse(R"(
- name: Ext
  workloadTemplate:
  - opcode: createAny
    templatePath: ../../../../../test/sim/testdata/perf-refused-deviceclass.yaml
  workloads:
  - name: w
)",
                        "examples/scheduler_perf/kube/dra/extendedresource/inline.yaml", in, diags);
  ASSERT_TRUE(c.ok());
  PerfResult r = RunPerfWorkload(*c, c->All()[0], in, Fixed());
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message, HasSubstr("perf-refused-deviceclass.yaml:7: spec.extendedResourceName"));
}

// kube's updateAny of Nodes (EventHandlingNodeUpdate): nodes created unschedulable are replaced
// by schedulable ones at updatePerSecond, and the pods the NodeUnschedulable plugin rejected get
// scheduled after the Node/Update event. Without the update they stay pending.
std::string NodeUpdateConfig(std::string_view update_ops) {
  return fmt::format(R"(
- name: NodeUpdate
  workloadTemplate:
  - opcode: startCollectingMetrics
    name: unsched
    namespaces: [nodeunschedulable]
  - opcode: createNodes
    count: 2
    nodeTemplatePath: templates/nodeupdate-node-unschedulable.yaml
  - opcode: createPods
    count: 4
    podTemplatePath: templates/nodeupdate-pod-nodeunschedulable.yaml
    skipWaitToCompletion: true
    namespace: nodeunschedulable
  - opcode: barrier
    stageRequirement: Attempted
  {}
  workloads:
  - name: w
)",
                     update_ops);
}

TEST(PerfNewOpsTest, UpdateAnyReplacesNodesAndWakesThePodsTheyBlocked) {
  Interner in = api::NewInterner();
  PerfResult updated = RunInline(NodeUpdateConfig(R"(- opcode: updateAny
    count: 2
    templatePath: templates/nodeupdate-node-unschedulable-update.yaml
    updatePerSecond: 100
  - opcode: barrier
  - opcode: stopCollectingMetrics)"),
                                 in, "event_handling");
  ASSERT_NE(updated.status, PerfResult::Status::kError) << updated.message;
  ASSERT_NE(updated.status, PerfResult::Status::kSkipped) << updated.message;
  EXPECT_EQ(updated.measured_pods, 4);
  EXPECT_EQ(updated.measured_scheduled, 4);

  Interner in2 = api::NewInterner();
  PerfResult not_updated =
      RunInline(NodeUpdateConfig("- opcode: stopCollectingMetrics"), in2, "event_handling");
  ASSERT_NE(not_updated.status, PerfResult::Status::kError) << not_updated.message;
  EXPECT_EQ(not_updated.measured_pods, 4);
  EXPECT_EQ(not_updated.measured_scheduled, 0);
}

TEST(PerfNewOpsTest, UpdateAnyOfNodesChecksNameAndScope) {
  struct Case {
    std::string op, want;
  };
  const Case cases[] = {
      // The template names node-unschedulable-{{.Index}}: index 2 does not exist.
      {"- opcode: updateAny\n    count: 3\n    templatePath: "
       "templates/nodeupdate-node-unschedulable-update.yaml",
       "nodes \"node-unschedulable-2\" not found"},
      {"- opcode: updateAny\n    count: 1\n    namespace: ns1\n    templatePath: "
       "templates/nodeupdate-node-unschedulable-update.yaml",
       "has scope \"root\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    Interner in = api::NewInterner();
    PerfResult r = RunInline(NodeUpdateConfig(c.op), in, "event_handling");
    EXPECT_EQ(r.status, PerfResult::Status::kError);
    EXPECT_THAT(r.message, HasSubstr(c.want));
  }
}

// kube's runCreatePodsOp with nominatedNodeName (executor.go at 3214fbfc): the pods are created
// gated, their status.nominatedNodeName patched, and their scheduling gates cleared when the
// collection starts; Corral's pods carry the nomination and no gates.
TEST(PerfNewOpsTest, NominatedNodeNamePodsAreNominatedAndUngated) {
  Interner in = api::NewInterner();
  Compiled c = CompileInline(R"(
- name: NNN
  defaultPodTemplatePath: templates/gated-pod-default.yaml
  workloadTemplate:
  - opcode: createNodes
    count: 2
  - opcode: createPods
    count: 3
    nominatedNodeName: scheduler-perf-blocked
    collectMetrics: true
  workloads:
  - name: w
)",
                             in, "nnn_hint_fallback");
  ASSERT_TRUE(c.spec.ok()) << c.spec.error().message;
  ASSERT_EQ(c.spec->pod_templates.size(), 1U);
  const api::Pod& pod = c.spec->pod_templates[0].pod;
  EXPECT_EQ(in.Str(pod.nominated_node_name), "scheduler-perf-blocked");
  EXPECT_TRUE(pod.scheduling_gates.empty());
}

// The nnn_hint_fallback shape: the nominated node is tainted, so every pod misses it and lands on
// another node (none stays pending, none is bound to the blocked node).
TEST(PerfNewOpsTest, NominatedNodeMissFallsBackToTheOtherNodes) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto cfg = PerfConfig::Load(
      "examples/scheduler_perf/kube/nnn_hint_fallback/performance-config.yaml", in, diags);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  auto refs = cfg->Select({"NNNMiss", "500Nodes", ""});
  ASSERT_TRUE(refs.ok()) << refs.error().message;
  ASSERT_EQ(refs->size(), 1U);
  PerfResult r = RunPerfWorkload(*cfg, (*refs)[0], in, Fixed());
  EXPECT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  EXPECT_EQ(r.measured_pods, 499);
  EXPECT_EQ(r.measured_scheduled, 499);
}

}  // namespace
}  // namespace corral::sim
