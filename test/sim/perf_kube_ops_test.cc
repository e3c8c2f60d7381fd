// kube's scheduler_perf ops and inputs beyond the basics: createNamespaces with a namespace
// template (its labels are what NamespaceSelector terms match), gated pods counting as attempted at
// an Attempted barrier, createPodGroups, feature gates Corral does not know, and strict,
// case-insensitive template decoding. Configs are parsed as if they lived next to the copies of
// kube's configs under examples/scheduler_perf/kube, so their template paths are kube's.

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/app/perf.h"
#include "corral/sim/engine.h"
#include "corral/sim/input/go_template.h"
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

PerfResult RunInline(std::string_view cfg, Interner& in, const std::string& dir = "affinity") {
  Diagnostics diags;
  auto c =
      PerfConfig::Parse(cfg, "examples/scheduler_perf/kube/" + dir + "/inline.yaml", in, diags);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (!c.ok()) return {};
  return RunPerfWorkload(*c, c->All()[0], in, Fixed());
}

// Four nodes each hold a pod with required anti-affinity to "color: green" pods of namespaces
// labelled team=devops. A fifth such pod fits nowhere when its namespace carries the label from
// namespaceTemplatePath, and anywhere when the namespace is unlabelled (the selector then matches
// no namespace, so no pod conflicts).
constexpr std::string_view kNamespaceSelector = R"(
- name: NS
  defaultPodTemplatePath: ../templates/pod-anti-affinity-ns-selector.yaml
  workloadTemplate:
  - opcode: createNodes
    count: 4
  - opcode: createNamespaces
    prefix: ns
    count: 1
    NAMESPACE_TEMPLATE
  - opcode: createPods
    count: 4
    namespace: ns-0
  - opcode: startCollectingMetrics
    namespaces: [ns-0]
  - opcode: createPods
    count: 1
    namespace: ns-0
    skipWaitToCompletion: true
  - opcode: barrier
    stageRequirement: Attempted
  - opcode: stopCollectingMetrics
  workloads:
  - name: w
)";

std::string WithTemplate(bool labelled) {
  std::string cfg(kNamespaceSelector);
  const std::string line =
      labelled ? "namespaceTemplatePath: ../templates/namespace-with-labels.yaml" : "";
  cfg.replace(cfg.find("NAMESPACE_TEMPLATE"), std::string_view("NAMESPACE_TEMPLATE").size(), line);
  return cfg;
}

TEST(PerfKubeOpsTest, NamespaceTemplateLabelsReachNamespaceSelectors) {
  Interner in = api::NewInterner();
  PerfResult labelled = RunInline(WithTemplate(true), in);
  ASSERT_NE(labelled.status, PerfResult::Status::kError) << labelled.message;
  EXPECT_EQ(labelled.measured_pods, 1);
  EXPECT_EQ(labelled.measured_scheduled, 0);
  Interner in2 = api::NewInterner();
  PerfResult plain = RunInline(WithTemplate(false), in2);
  ASSERT_NE(plain.status, PerfResult::Status::kError) << plain.message;
  EXPECT_EQ(plain.measured_scheduled, 1);
}

TEST(PerfKubeOpsTest, NamespaceTemplateMustBeANamespace) {
  Interner in = api::NewInterner();
  std::string cfg = WithTemplate(true);
  cfg.replace(cfg.find("namespace-with-labels"), std::string_view("namespace-with-labels").size(),
              "light-pod");
  PerfResult r = RunInline(cfg, in);
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message, HasSubstr("is a \"Pod\", want a Namespace"));
}

// kube's SchedulingWhileGated shape: gated pods never get a scheduling attempt, yet the API server
// gives them a PodScheduled condition, so the Attempted barrier passes.
TEST(PerfKubeOpsTest, GatedPodsCountAsAttemptedAtBarrier) {
  Interner in = api::NewInterner();
  PerfResult r = RunInline(R"(
- name: Gated
  defaultPodTemplatePath: ../templates/light-pod.yaml
  workloadTemplate:
  - opcode: createNodes
    count: 1
    nodeTemplatePath: ../templates/node-with-name.yaml
  - opcode: createPods
    count: 3
    podTemplatePath: ../templates/gated-pod.yaml
    skipWaitToCompletion: true
  - opcode: barrier
    stageRequirement: Attempted
  - opcode: createPods
    count: 2
    collectMetrics: true
  workloads:
  - name: w
)",
                           in);
  ASSERT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  EXPECT_EQ(r.measured_pods, 2);
  EXPECT_EQ(r.measured_scheduled, 2);
}

TEST(PerfKubeOpsTest, CreatePodGroupsMakesGangsOfKubesTemplates) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto c = PerfConfig::Load(
      "examples/scheduler_perf/kube/podgroup/gangscheduling/"
      "performance-config.yaml",
      in, diags);
  ASSERT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  auto refs = c->Select({.test_case = "GangScheduling", .workload = "10Nodes_3Gangs"});
  ASSERT_TRUE(refs.ok());
  Diagnostics d2;
  auto spec = c->Compile((*refs)[0], in, d2);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_EQ(spec->objects.pod_groups.size(), 3U);
  EXPECT_EQ(in.Str(spec->objects.pod_groups[2].meta.name), "gang-2");
  EXPECT_EQ(in.Str(spec->objects.pod_groups[2].meta.namespace_), "gang-ns-0");
  PerfResult r = RunPerfWorkload(*c, (*refs)[0], in, Fixed());
  ASSERT_EQ(r.status, PerfResult::Status::kNoThreshold) << r.message;
  EXPECT_EQ(r.measured_scheduled, 9);
}

TEST(PerfKubeOpsTest, CreatePodGroupsWantsAPodGroupTemplate) {
  Interner in = api::NewInterner();
  PerfResult r = RunInline(R"(
- name: G
  workloadTemplate:
  - opcode: createPodGroups
    count: 1
    namespace: g
    templatePath: ../templates/light-pod.yaml
  workloads:
  - name: w
)",
                           in);
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message, HasSubstr("want a PodGroup"));
}

// A templateParams value `$name` names a workload parameter: one the workload does not set is an
// error at the value (kube's op fails the same way), never the text "$name" rendered into the
// template; `$name|default` falls back to its default.
TEST(PerfKubeOpsTest, TemplateParamsNameSetParameters) {
  constexpr std::string_view kConfig = R"(
- name: P
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: createPods
    count: 2
    podTemplatePath: ../templates/light-pod.yaml
    templateParams:
      size: PARAM
    collectMetrics: true
  workloads:
  - name: w
    params:
      set: 3
)";
  struct Case {
    std::string param;
    PerfResult::Status status;
  };
  const Case cases[] = {
      {"$set", PerfResult::Status::kNoThreshold},
      {"$unset|4", PerfResult::Status::kNoThreshold},
      {"$unset", PerfResult::Status::kError},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.param);
    std::string cfg(kConfig);
    cfg.replace(cfg.find("PARAM"), 5, c.param);
    Interner in = api::NewInterner();
    PerfResult r = RunInline(cfg, in);
    EXPECT_EQ(r.status, c.status) << r.message;
    if (c.status == PerfResult::Status::kError) {
      EXPECT_THAT(r.message, HasSubstr("inline.yaml:10: "));
      EXPECT_THAT(r.message, HasSubstr("templateParams.size: parameter \"unset\" is not set by "
                                       "workload \"w\""));
    }
  }
}

std::string WithGate(std::string_view gate) {
  return fmt::format(R"(
- name: Gates
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: createPods
    count: 1
    collectMetrics: true
  workloads:
  - name: w
    featureGates:
      {}
)",
                     gate);
}

TEST(PerfKubeOpsTest, FeatureGatesAreHonouredOrRefusedNeverDropped) {
  struct Case {
    std::string gate;
    PerfResult::Status status;
    std::string text;  // in the message or a note
  };
  const Case cases[] = {
      {"SchedulerAsyncAPICalls: true", PerfResult::Status::kNoThreshold, "makes no API calls"},
      {"SchedulerAsyncAPICalls: false", PerfResult::Status::kNoThreshold, "makes no API calls"},
      // GA and locked to true in kube v1.37 (pkg/features); true runs with kube's mock registry.
      {"NodeDeclaredFeatures: false", PerfResult::Status::kError,
       "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true"},
      {"NodeDeclaredFeatures: true", PerfResult::Status::kNoThreshold, "0 mock features"},
      // kube v1.35-v1.36's gate, folded into GenericWorkload in v1.37.
      {"GangScheduling: true", PerfResult::Status::kNoThreshold, "folded into GenericWorkload"},
      {"GangScheduling: false", PerfResult::Status::kSkipped, "GangScheduling=false"},
      {"SchedulerQueueingHints: false", PerfResult::Status::kError, "locked to true"},
      {"NoSuchGate: true", PerfResult::Status::kSkipped, "NoSuchGate=true is not modelled"},
      {"SchedulerAsyncPreemption: false", PerfResult::Status::kNoThreshold, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.gate);
    Interner in = api::NewInterner();
    PerfResult r = RunInline(WithGate(c.gate), in);
    EXPECT_EQ(r.status, c.status) << r.message;
    std::string all = r.message;
    for (const auto& n : r.notes) all += "\n" + n;
    EXPECT_THAT(all, HasSubstr(c.text));
  }
}

TEST(PerfKubeOpsTest, TemplatesDecodeStrictlyWithCaseInsensitiveFieldNames) {
  Interner in = api::NewInterner();
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: i
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: DoNotSchedule
    NodeAffinityPolicy: Ignore
    NodeTaintsPolicy: Honor
    labelSelector:
      matchLabels:
        foo: bar
)";
  auto obj = perf_detail::LoadRendered(std::string(kPod), "pod.yaml", in);
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  ASSERT_EQ(obj->objects.pods.size(), 1U);
  const auto& c = obj->objects.pods[0].topology_spread_constraints.at(0);
  EXPECT_EQ(c.node_affinity_policy, api::NodeInclusionPolicy::kIgnore);
  EXPECT_EQ(c.node_taints_policy, api::NodeInclusionPolicy::kHonor);

  std::string bogus(kPod);
  bogus.replace(bogus.find("NodeTaintsPolicy"), std::string_view("NodeTaintsPolicy").size(),
                "nodeTaintPolicy");
  auto bad = perf_detail::LoadRendered(bogus, "pod.yaml", in);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("unknown field \"nodeTaintPolicy\""));
}

// kube's workload_preemption podgroup.yaml: `{{if .priority}}` renders the template parameter or
// its default, `{{if and .disruptionMode (eq .disruptionMode "All")}}` picks the disruption mode,
// and the rendered spec.priority (no class: kube's test apiserver has no Priority admission) is
// kept aside.
TEST(PerfKubeOpsTest, WorkloadPreemptionPodGroupTemplate) {
  constexpr std::string_view kTemplate = R"(apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: gang-{{.Index}}
spec:
  priority: {{if .priority}}{{AddInt 0 .priority}}{{else}}10000{{end}}
  disruptionMode:
  {{- if and .disruptionMode (eq .disruptionMode "All")}}
    all: {}
  {{- else}}
    single: {}
  {{- end}}
  schedulingPolicy:
    gang:
      minCount: {{.podsPerGroup}}
)";
  auto t = GoTemplate::Parse(kTemplate);
  ASSERT_TRUE(t.ok()) << t.error().message;
  Interner in = api::NewInterner();
  struct Case {
    TemplateData data;
    int32_t priority;
    api::DisruptionMode mode;
  };
  const Case cases[] = {
      {{{"Index", int64_t{0}}, {"podsPerGroup", int64_t{2}}, {"priority", int64_t{9999999}}},
       9999999,
       api::DisruptionMode::kSingle},
      {{{"Index", int64_t{1}}, {"podsPerGroup", int64_t{2}}}, 10000, api::DisruptionMode::kSingle},
      {{{"Index", int64_t{2}},
        {"podsPerGroup", int64_t{2}},
        {"disruptionMode", std::string("All")}},
       10000,
       api::DisruptionMode::kAll},
  };
  for (const Case& c : cases) {
    auto text = t->Execute(c.data);
    ASSERT_TRUE(text.ok()) << text.error().message;
    auto obj = perf_detail::LoadRendered(*text, "podgroup.yaml", in);
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    ASSERT_EQ(obj->objects.pod_groups.size(), 1U);
    EXPECT_EQ(obj->priority, c.priority);
    EXPECT_EQ(obj->objects.pod_groups[0].disruption_mode, c.mode);
    EXPECT_EQ(obj->objects.pod_groups[0].policy.min_count, 2);
  }
}

}  // namespace
}  // namespace corral::sim

namespace corral::sim {
namespace {

std::string ReadExample(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// kube's listattributes templates (dra/templates/resourceslice-list-attributes-devices.yaml
// d1a2be3d and resourceclaimtemplate.yaml 958ef682) render with template variables, `range` over
// `Int` and `JSON`: the slice holds a block of devices without the shared value before the ones
// with it, and the claim template asks for numRequests devices that share the attribute's value.
TEST(PerfKubeOpsTest, ListAttributeTemplatesRenderKubesObjects) {
  Interner in = api::NewInterner();
  auto slice_t =
      GoTemplate::Parse(ReadExample("examples/scheduler_perf/kube/dra/templates/"
                                    "resourceslice-list-attributes-devices.yaml"));
  ASSERT_TRUE(slice_t.ok()) << slice_t.error().message;
  auto text = slice_t->Execute({{"Index", int64_t{3}},
                                {"Count", int64_t{4}},
                                {"numDevices", int64_t{4}},
                                {"numNonMatchingDevices", int64_t{2}},
                                {"numListValues", int64_t{2}}});
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto slice = perf_detail::LoadRendered(*text, "slice.yaml", in);
  ASSERT_TRUE(slice.ok()) << slice.error().message;
  ASSERT_NE(slice->objects.resources, nullptr);
  ASSERT_EQ(slice->objects.resources->resource_slices.size(), 1U);
  const auto& s = slice->objects.resources->resource_slices[0];
  EXPECT_EQ(in.Str(s.node_name), "scheduler-perf-dra-3");
  ASSERT_EQ(s.devices.size(), 4U);
  auto values = [&](size_t d) {
    std::vector<std::string> out;
    for (const auto& a : s.devices[d].attributes) {
      if (a.id != "match") continue;
      for (const auto& v : a.value.list) out.emplace_back(v.string_value);
    }
    return out;
  };
  EXPECT_EQ(in.Str(s.devices[1].name), "device-1");
  EXPECT_THAT(values(1), ::testing::ElementsAre("device-1-value-0", "device-1-value-1"));
  EXPECT_THAT(values(2),
              ::testing::ElementsAre("shared-value", "device-2-value-0", "device-2-value-1"));

  auto claim_t = GoTemplate::Parse(
      ReadExample("examples/scheduler_perf/kube/dra/templates/resourceclaimtemplate.yaml"));
  ASSERT_TRUE(claim_t.ok()) << claim_t.error().message;
  TemplateList constraints;
  constraints.items.push_back(std::make_shared<const TemplateMap>(
      TemplateMap{{{"matchAttribute", std::string("dra.example.com/match")}}}));
  auto claim_text = claim_t->Execute(
      {{"Index", int64_t{0}},
       {"Count", int64_t{1}},
       {"numRequests", int64_t{3}},
       {"constraints", std::make_shared<const TemplateList>(std::move(constraints))}});
  ASSERT_TRUE(claim_text.ok()) << claim_text.error().message;
  auto claim = perf_detail::LoadRendered(*claim_text, "claim.yaml", in);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  ASSERT_EQ(claim->objects.resources->resource_claim_templates.size(), 1U);
  const auto& spec = claim->objects.resources->resource_claim_templates[0].spec;
  ASSERT_EQ(spec.requests.size(), 3U);
  EXPECT_EQ(in.Str(spec.requests[2].name), "req-2");
  ASSERT_EQ(spec.constraints.size(), 1U);
  EXPECT_EQ(in.Str(spec.constraints[0].match_attribute), "dra.example.com/match");
  // Without parameters: kube's one request, no constraint.
  auto plain = claim_t->Execute({{"Index", int64_t{0}}, {"Count", int64_t{1}}});
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  auto plain_claim = perf_detail::LoadRendered(*plain, "claim.yaml", in);
  ASSERT_TRUE(plain_claim.ok()) << plain_claim.error().message;
  const auto& plain_spec = plain_claim->objects.resources->resource_claim_templates[0].spec;
  EXPECT_EQ(plain_spec.requests.size(), 1U);
  EXPECT_TRUE(plain_spec.constraints.empty());
}

// kube's churnOp: in Create mode `number` bounds the ticks; in Recreate mode it is the ring size,
// and a ring of none (kube's `count % 0`) is a positioned error, never a default.
constexpr std::string_view kChurn = R"(
- name: Churn
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: churn
    mode: MODE
    NUMBER
    intervalMilliseconds: 1000
    templatePaths:
    - ../templates/churn/node-default.yaml
  - opcode: sleep
    duration: 5500ms
  workloads:
  - name: w
)";

struct LineLog final : TextEventLog {
  void Line(std::string_view line) override { lines += std::string(line) + "\n"; }
  std::string lines;
};

std::string Churn(std::string_view mode, std::string_view number) {
  std::string cfg(kChurn);
  cfg.replace(cfg.find("MODE"), 4, mode);
  cfg.replace(cfg.find("NUMBER"), 6, number);
  return cfg;
}

TEST(PerfKubeOpsTest, ChurnCreateStopsAfterNumberTicks) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto c = PerfConfig::Parse(Churn("create", "number: 2"),
                             "examples/scheduler_perf/kube/misc/inline.yaml", in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  LineLog log;
  PerfRunOptions o = Fixed();
  o.log = &log;
  PerfResult r = RunPerfWorkload(*c, c->All()[0], in, o);
  EXPECT_EQ(r.message, "");
  EXPECT_THAT(log.lines, HasSubstr("00:00:01.000 node-add node-churn-0"));
  EXPECT_THAT(log.lines, HasSubstr("00:00:02.000 node-add node-churn-1"));
  EXPECT_THAT(log.lines, ::testing::Not(HasSubstr("node-churn-2")));
}

TEST(PerfKubeOpsTest, ChurnRecreateWantsARing) {
  Interner in = api::NewInterner();
  PerfResult r = RunInline(Churn("recreate", ""), in, "misc");
  EXPECT_EQ(r.status, PerfResult::Status::kError);
  EXPECT_THAT(r.message, HasSubstr("number: churn mode recreate needs number > 0"));
}

}  // namespace
}  // namespace corral::sim
