#include "corral/config/scheduler_config.h"

#include <gtest/gtest.h>

#include "corral/api/well_known.h"
#include "corral/plugins/node_affinity/node_affinity.h"
#include "corral/plugins/node_resources/args.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"
#include "corral/plugins/volume_binding/volume_binding.h"

namespace corral::config {
namespace {

struct Parsed {
  Result<framework::SchedulerConfig> cfg;
  Diagnostics diags;
};

Parsed Parse(std::string_view text) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto cfg = ParseSchedulerConfig(text, "sched.yaml", in, framework::FeatureGates(), diags);
  return {std::move(cfg), std::move(diags)};
}

std::vector<std::string> Errors(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& i : d.items()) out.push_back(i.ToString());
  return out;
}

TEST(SchedulerConfigTest, EmptyConfigGetsKubeDefaults) {
  auto p = Parse("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
  ASSERT_TRUE(p.cfg.ok()) << p.cfg.error().message;
  const auto& c = *p.cfg;
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 1);
  EXPECT_EQ(c.pod_max_backoff_seconds, 10);
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "default-scheduler");
  EXPECT_EQ(c.profiles[0].plugins.multi_point.enabled.front().name, "SchedulingGates");
}

TEST(SchedulerConfigTest, ProfilesPluginsAndArgs) {
  auto p = Parse(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packer
  plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
      enabled: [{name: NodeResourcesFit, weight: 5}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 2}, {name: memory}]
)");
  ASSERT_TRUE(p.cfg.ok()) << p.cfg.error().message;
  const auto& c = *p.cfg;
  EXPECT_EQ(c.percentage_of_nodes_to_score, 50);
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[1].scheduler_name, "bin-packer");
  EXPECT_EQ(c.profiles[1].plugins.score.enabled,
            (std::vector<framework::PluginEntry>{{"NodeResourcesFit", 5}}));
  ASSERT_TRUE(c.profiles[1].plugin_args.contains("NodeResourcesFit"));
  const auto* fit = dynamic_cast<const plugins::NodeResourcesFitArgs*>(
      c.profiles[1].plugin_args.at("NodeResourcesFit").get());
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoring_strategy->type, "MostAllocated");
  // Weight 0 is defaulted to 1 (kube SetDefaults_NodeResourcesFitArgs).
  EXPECT_EQ(fit->scoring_strategy->resources,
            (std::vector<plugins::ResourceSpec>{{"cpu", 2}, {"memory", 1}}));
}

TEST(SchedulerConfigTest, ReportsEveryProblemWithLineAndPath) {
  auto p = Parse(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 0
podInitialBackoffSeconds: 5
podMaxBackoffSeconds: 2
profiles:
- schedulerName: a
  percentageOfNodesToScore: 101
- schedulerName: a
  plugins:
    filter:
      enabled: [{name: EBSLimits}]
  pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 200}
  - name: InterPodAffinity
- plugins: {scor: {}}
)");
  ASSERT_FALSE(p.cfg.ok());
  EXPECT_EQ(
      Errors(p.diags),
      (std::vector<std::string>{
          "sched.yaml:3: parallelism: Invalid value: 0: should be an integer value greater than "
          "zero",
          "sched.yaml:8: profiles[0].percentageOfNodesToScore: Invalid value: 101: not in valid "
          "range [0-100]",
          "sched.yaml:12: profiles[1].plugins.filter.enabled[0]: Invalid value: \"EBSLimits\": was "
          "invalid in "
          "version \"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version "
          "\"kubescheduler.config.k8s.io/v1\")",
          "sched.yaml:15: profiles[1].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: "
          "200: not in "
          "valid range [0, 100]",
          "sched.yaml:16: profiles[1].pluginConfig[1]: Duplicate value: \"InterPodAffinity\"",
          "sched.yaml:17: profiles[2].plugins.scor: unknown field \"scor\" (did you mean "
          "\"score\"?)",
          "sched.yaml:5: podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to "
          "PodInitialBackoffSeconds",
          "sched.yaml:9: profiles[1].schedulerName: Duplicate value: \"a\"",
          "sched.yaml:17: profiles[2].schedulerName: Required value",
      }));
}

TEST(SchedulerConfigTest, SpreadAndNodeAffinityArgsDecodeLikeTheirApiTypes) {
  auto p = Parse(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: pool, operator: In, values: [batch]}]
)");
  ASSERT_TRUE(p.cfg.ok()) << p.cfg.error().message;
  const auto& args = p.cfg->profiles[0].plugin_args;
  const auto* pts =
      dynamic_cast<const plugins::PodTopologySpreadArgs*>(args.at("PodTopologySpread").get());
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(pts->defaulting_type, "List");
  ASSERT_EQ(pts->default_constraints.size(), 1u);
  EXPECT_EQ(pts->default_constraints[0].max_skew, 1);
  const auto* na = dynamic_cast<const plugins::NodeAffinityArgs*>(args.at("NodeAffinity").get());
  ASSERT_NE(na, nullptr);
  ASSERT_TRUE(na->added_affinity.has_value());
  EXPECT_EQ(na->added_affinity->required->node_selector_terms.size(), 1u);

  auto bad = Parse(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: System
      defaultConstraints:
      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}
)");
  ASSERT_FALSE(bad.cfg.ok());
  EXPECT_NE(bad.cfg.error().message.find("profiles[0].pluginConfig[0].args."), std::string::npos)
      << bad.cfg.error().message;
}

TEST(SchedulerConfigTest, VolumeBindingArgsDecodeShape) {
  auto p = Parse(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 300
      shape:
      - {utilization: 0, score: 0}
      - {utilization: 100, score: 10}
)");
  ASSERT_TRUE(p.cfg.ok()) << p.cfg.error().message;
  const auto* vb = dynamic_cast<const plugins::VolumeBindingArgs*>(
      p.cfg->profiles[0].plugin_args.at("VolumeBinding").get());
  ASSERT_NE(vb, nullptr);
  EXPECT_EQ(vb->bind_timeout_seconds, 300);
  ASSERT_EQ(vb->shape.size(), 2u);
  EXPECT_EQ(vb->shape[1].utilization, 100);
  EXPECT_EQ(vb->shape[1].score, 10);

  auto bad = Parse(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: VolumeBinding
    args:
      shape:
      - {utilization: 50, score: 3}
      - {utilization: 40, score: 3}
)");
  ASSERT_FALSE(bad.cfg.ok());
  EXPECT_NE(bad.cfg.error().message.find("profiles[0].pluginConfig[0].args.shape[1].utilization: "
                                         "Invalid value: 40: values must be sorted in increasing "
                                         "order"),
            std::string::npos)
      << bad.cfg.error().message;
}

TEST(SchedulerConfigTest, RejectsWrongKindAndExtenders) {
  auto p = Parse(
      "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"
      "extenders: [{urlPrefix: http://x}]\n");
  ASSERT_FALSE(p.cfg.ok());
  auto errs = Errors(p.diags);
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[0], "sched.yaml:3: extenders: scheduler extenders are not supported by Corral");
  EXPECT_EQ(errs[1],
            "sched.yaml:1: apiVersion: unsupported apiVersion "
            "\"kubescheduler.config.k8s.io/v1beta3\" (want "
            "\"kubescheduler.config.k8s.io/v1\")");
}

}  // namespace
}  // namespace corral::config

namespace corral::config {
namespace {

// kube-scheduler decodes its configuration strictly (cmd/kube-scheduler/app/options/configfile.go
// uses a codec factory with serializer.EnableStrict): an unknown field anywhere is an error, in
// pluginConfig args too, and a misspelled plugin name in `disabled` is one as well. Each case is
// one typo and the one error it must produce.
TEST(SchedulerConfigTest, TyposAreErrorsWithASuggestion) {
  struct Case {
    std::string name, yaml, want;
  };
  const std::string head =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
  const std::vector<Case> cases = {
      {"top level", head + "percentageOfNodesToScor: 10\n",
       "sched.yaml:3: percentageOfNodesToScor: unknown field \"percentageOfNodesToScor\" (did "
       "you mean \"percentageOfNodesToScore\"?)"},
      {"profile", head + "profiles:\n- schedulerName: a\n  plugin: {}\n",
       "sched.yaml:5: profiles[0].plugin: unknown field \"plugin\" (did you mean \"plugins\"?)"},
      {"disabled plugin name",
       head + "profiles:\n- plugins:\n    score:\n      disabled: [{name: ImageLocalty}]\n",
       "sched.yaml:6: profiles[0].plugins.score.disabled[0].name: Invalid value: \"ImageLocalty\": "
       "plugin does not exist; did you mean \"ImageLocality\"?"},
      {"fit args",
       head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
              "      scoringStrategy: {typ: MostAllocated}\n",
       "sched.yaml:7: profiles[0].pluginConfig[0].args.scoringStrategy.typ: unknown field \"typ\" "
       "(did you mean \"type\"?)"},
      {"preemption args",
       head + "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n"
              "      minCandidateNodesPercent: 5\n",
       "sched.yaml:7: profiles[0].pluginConfig[0].args.minCandidateNodesPercent: unknown field "
       "\"minCandidateNodesPercent\" (did you mean \"minCandidateNodesPercentage\"?)"},
      {"spread args",
       head + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n"
              "      defaultingTyp: List\n",
       "sched.yaml:7: profiles[0].pluginConfig[0].args.defaultingTyp: unknown field "
       "\"defaultingTyp\" (did you mean \"defaultingType\"?)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = Parse(c.yaml);
    EXPECT_FALSE(p.cfg.ok());
    EXPECT_EQ(Errors(p.diags), std::vector<std::string>{c.want});
  }
}

}  // namespace
}  // namespace corral::config
