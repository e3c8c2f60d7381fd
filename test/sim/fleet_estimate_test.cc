// The accurate estimator inside `corral simulate` (sim/fleet_estimate.h): on fragmented GPUs the
// general and the accurate estimator decide differently; a run that asks the accurate estimator at
// every attempt and ignores its answers decides exactly as one that never asks (the estimate is
// read-only); and, as a property over random fleets, every replica Karmada divides by the accurate
// estimates is placed by its member (accurate estimate ≤ placed).

#include <memory>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/sim/fleet_spec.h"
#include "corral/sim/report/fleet_output.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

testing::Ran RunFile(const std::string& path, const std::string& estimator, Interner& in) {
  Diagnostics diags;
  auto spec = LoadScenarioFile(path, in, diags, {.fleet_estimator = estimator});
  EXPECT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  if (!spec.ok()) return {};
  return testing::RunSpec(*spec, in);
}

int64_t PendingAtEnd(const RunResult& r, std::string_view cluster) {
  for (const ClusterResult& c : r.clusters) {
    if (c.name == cluster) return c.pods_pending_end;
  }
  return -1;
}

const FleetMemberResult* MemberResult(const FleetResult& f, std::string_view name) {
  for (const FleetMemberResult& m : f.members) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// examples/scenarios/fleet-gpu-fragmented.yaml: east-fragmented's 8 free GPUs are 2 per node, so
// no 4-GPU worker fits there. The general estimator sees 2 replicas in each summary and splits
// every Job 1 + 1 (the east workers never start, so no Job finishes); the accurate estimator sees 0
// and 2 and sends every Job whole to west-whole, where each finishes before the next arrives.
TEST(FleetEstimateTest, FragmentedGpusGeneralSplitsAccurateDoesNot) {
  Interner in1 = api::NewInterner();
  testing::Ran general = RunFile("examples/scenarios/fleet-gpu-fragmented.yaml", "general", in1);
  ASSERT_NE(general.out.result.fleet, nullptr);
  const FleetResult& g = *general.out.result.fleet;
  EXPECT_FALSE(g.accurate);
  EXPECT_EQ(g.items, 3);
  EXPECT_EQ(g.finished, 0);
  EXPECT_EQ(MemberResult(g, "east-fragmented")->replicas, 3);
  EXPECT_EQ(PendingAtEnd(general.out.result, "east-fragmented"), 3);

  Interner in2 = api::NewInterner();
  testing::Ran accurate = RunFile("examples/scenarios/fleet-gpu-fragmented.yaml", "accurate", in2);
  ASSERT_NE(accurate.out.result.fleet, nullptr);
  const FleetResult& a = *accurate.out.result.fleet;
  EXPECT_TRUE(a.accurate);
  EXPECT_EQ(a.items, 3);
  EXPECT_EQ(a.finished, 3);
  EXPECT_EQ(MemberResult(a, "east-fragmented")->copies, 0);
  EXPECT_EQ(MemberResult(a, "west-whole")->replicas, 6);
  EXPECT_EQ(PendingAtEnd(accurate.out.result, "east-fragmented"), 0);
  EXPECT_EQ(PendingAtEnd(accurate.out.result, "west-whole"), 0);
  EXPECT_GT(a.accurate_estimates.computed, 0);
}

// The estimate is read-only: asking it at every attempt and discarding the answers (kShadow)
// leaves every decision of the fleet and of every member, and so the whole event log, as it is
// without it.
void ExpectShadowDecidesAsGeneral(const std::string& path) {
  Interner in1 = api::NewInterner();
  testing::Ran plain = RunFile(path, "", in1);
  Interner in2 = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile(path, in2, diags);
  ASSERT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  ASSERT_NE(spec->fleet, nullptr);
  auto shadowed = std::make_shared<FleetSpec>(*spec->fleet);
  shadowed->estimator = FleetEstimatorKind::kShadow;
  spec->fleet = shadowed;
  testing::Ran shadow = testing::RunSpec(*spec, in2);
  ASSERT_FALSE(plain.log.empty());
  EXPECT_EQ(plain.log, shadow.log) << path;
  EXPECT_EQ(FormatSummary(plain.out.result), FormatSummary(shadow.out.result)) << path;
}

TEST(FleetEstimateTest, EstimatesDoNotChangeDecisions) {
  ExpectShadowDecidesAsGeneral("examples/scenarios/fleet-gpu-fragmented.yaml");
  ExpectShadowDecidesAsGeneral("examples/scenarios/fleet-karmada.yaml");
  ExpectShadowDecidesAsGeneral("test/sim/testdata/fleet-kueue-feasibility.yaml");
  ExpectShadowDecidesAsGeneral("test/sim/testdata/fleet-trial-placement.yaml");
}

// Copies that need a trial placement (required pod anti-affinity by host): the general estimator
// sends the whole Job to the member with one large node, where two of its three pods never run;
// the accurate one places the copies on a copy of each member and sends it to the member with three
// nodes. The estimates are counted: computed, from the memo, refused.
TEST(FleetEstimateTest, TrialPlacementForCopiesThatGetInEachOthersWay) {
  Interner in1 = api::NewInterner();
  testing::Ran general = RunFile("test/sim/testdata/fleet-trial-placement.yaml", "general", in1);
  ASSERT_NE(general.out.result.fleet, nullptr);
  EXPECT_EQ(PendingAtEnd(general.out.result, "a"), 2);
  EXPECT_GT(general.out.result.fleet->general_estimates.asked, 0);
  Interner in2 = api::NewInterner();
  testing::Ran accurate = RunFile("test/sim/testdata/fleet-trial-placement.yaml", "accurate", in2);
  ASSERT_NE(accurate.out.result.fleet, nullptr);
  const FleetResult& a = *accurate.out.result.fleet;
  EXPECT_EQ(PendingAtEnd(accurate.out.result, "a"), 0);
  EXPECT_EQ(PendingAtEnd(accurate.out.result, "b"), 0);
  EXPECT_EQ(MemberResult(a, "b")->replicas, 3 + 2);
  const FleetResult::EstimateCounts& c = a.accurate_estimates;
  EXPECT_GT(c.computed, 0);
  EXPECT_EQ(c.asked, c.computed + c.memoized + c.refused);
  ASSERT_EQ(a.accurate_member_estimates.size(), 2u);
  EXPECT_EQ(a.accurate_member_estimates[0].asked + a.accurate_member_estimates[1].asked, c.asked);
  const std::string metrics = FormatFleetPrometheus(a);
  EXPECT_THAT(metrics,
              ::testing::HasSubstr(fmt::format(
                  "corral_fleet_estimates_total{{estimator=\"accurate\",result=\"computed\"}} {}\n",
                  c.computed)));
  EXPECT_THAT(metrics,
              ::testing::HasSubstr(fmt::format(
                  "corral_fleet_estimate_requests_total{{estimator=\"accurate\"}} {}\n", c.asked)));
  EXPECT_EQ(FleetJson(a)["estimates"]["accurate"]["members"][1]["name"], "b");
}

// A Kueue fleet whose profile filters with ClusterFeasibility: the accurate estimator filters the
// fragmented member out of a gang's choices, the general one does not.
TEST(FleetEstimateTest, KueueClusterFeasibilityAsksTheMembers) {
  Interner in1 = api::NewInterner();
  testing::Ran general = RunFile("test/sim/testdata/fleet-kueue-feasibility.yaml", "general", in1);
  ASSERT_NE(general.out.result.fleet, nullptr);
  EXPECT_GT(MemberResult(*general.out.result.fleet, "east-fragmented")->copies, 0);
  Interner in2 = api::NewInterner();
  testing::Ran accurate =
      RunFile("test/sim/testdata/fleet-kueue-feasibility.yaml", "accurate", in2);
  ASSERT_NE(accurate.out.result.fleet, nullptr);
  const FleetResult& a = *accurate.out.result.fleet;
  EXPECT_EQ(MemberResult(a, "east-fragmented")->copies, 0);
  EXPECT_EQ(a.finished, a.items);
  EXPECT_EQ(a.retries, 0);
}

// Each member's own KubeSchedulerConfiguration bears on its accurate estimate: the strict member's
// addedAffinity keeps pods off its reserved node, so it can take 4 replicas, not 8, and dynamic
// weighting splits 6 replicas 4 + 2 (the general estimator, reading equal summaries, 3 + 3).
TEST(FleetEstimateTest, AccurateEstimateHonoursEachMembersConfiguration) {
  Interner in1 = api::NewInterner();
  testing::Ran general = RunFile("test/sim/testdata/fleet-member-configs.yaml", "general", in1);
  ASSERT_NE(general.out.result.fleet, nullptr);
  EXPECT_EQ(MemberResult(*general.out.result.fleet, "lenient")->replicas, 3);
  EXPECT_EQ(MemberResult(*general.out.result.fleet, "strict")->replicas, 3);
  Interner in2 = api::NewInterner();
  testing::Ran accurate = RunFile("test/sim/testdata/fleet-member-configs.yaml", "accurate", in2);
  ASSERT_NE(accurate.out.result.fleet, nullptr);
  EXPECT_EQ(MemberResult(*accurate.out.result.fleet, "lenient")->replicas, 4);
  EXPECT_EQ(MemberResult(*accurate.out.result.fleet, "strict")->replicas, 2);
  EXPECT_EQ(PendingAtEnd(accurate.out.result, "strict"), 0);
}

// examples/scenarios/fleet-kueue-topology.yaml: a 4-pod gang that must run within one rack. The
// general estimator lets CapacityScore send it to the member whose free GPUs are spread over four
// racks, where its PodGroup's topology constraint keeps it pending; the accurate estimator's
// GangFits(…, rack) filters that member out, and every gang runs on the other.
TEST(FleetEstimateTest, RequiredTopologyGangGoesWhereItFitsInOneRack) {
  Interner in1 = api::NewInterner();
  testing::Ran general = RunFile("examples/scenarios/fleet-kueue-topology.yaml", "general", in1);
  ASSERT_NE(general.out.result.fleet, nullptr);
  EXPECT_EQ(MemberResult(*general.out.result.fleet, "scattered")->copies, 2);
  EXPECT_EQ(general.out.result.fleet->finished, 0);
  EXPECT_EQ(PendingAtEnd(general.out.result, "scattered"), 8);
  Interner in2 = api::NewInterner();
  testing::Ran accurate = RunFile("examples/scenarios/fleet-kueue-topology.yaml", "accurate", in2);
  ASSERT_NE(accurate.out.result.fleet, nullptr);
  const FleetResult& a = *accurate.out.result.fleet;
  EXPECT_EQ(MemberResult(a, "scattered")->copies, 0);
  EXPECT_EQ(MemberResult(a, "packed")->copies, 2);
  EXPECT_EQ(a.finished, 2);
  EXPECT_EQ(PendingAtEnd(accurate.out.result, "packed"), 0);
}

// A random fleet of GPU members with resident pods, and 2..4 Jobs arriving an hour apart, each
// divided by Karmada (dynamic weight or aggregated) with the accurate estimator. The members are
// idle when each Job arrives, so every replica sent to a member must be placed there: nothing is
// pending at the end, anywhere.
RC_GTEST_PROP(FleetEstimatePropertyTest, AccurateEstimateNeverAboveWhatTheMemberPlaces, ()) {
  const int members = *rc::gen::inRange(1, 4);
  std::string clusters, fleet_members, residents;
  for (int m = 0; m < members; ++m) {
    const int nodes = *rc::gen::inRange(1, 5);
    const int gpus = *rc::gen::element(2, 4, 8);
    clusters += fmt::format(
        "- name: m{0}\n  nodePools:\n  - {{name: m{0}-pool, count: {1}, resources: {{cpu: \"32\", "
        "memory: 128Gi, pods: \"20\", nvidia.com/gpu: \"{2}\"}}}}\n",
        m, nodes, gpus);
    fleet_members += fmt::format("  - {{name: m{0}, labels: {{gpu: \"yes\"}}}}\n", m);
    // At most two residents per node of at most half its GPUs: every resident fits.
    const int resident_pods = *rc::gen::inRange(0, nodes * 2 + 1);
    if (resident_pods > 0) {
      const int resident_gpus = *rc::gen::inRange(1, gpus / 2 + 1);
      residents += fmt::format(
          "- name: resident-m{0}\n  cluster: m{0}\n  count: {1}\n  resources: {{cpu: \"1\", "
          "memory: 1Gi, nvidia.com/gpu: \"{2}\"}}\n",
          m, resident_pods, resident_gpus);
    }
  }
  const int parallelism = *rc::gen::inRange(1, 5);
  const int per_pod = *rc::gen::element(1, 2, 4);
  const int jobs = *rc::gen::inRange(2, 5);
  const bool aggregated = *rc::gen::arbitrary<bool>();
  const std::string division =
      aggregated ? "replicaDivisionPreference: Aggregated"
                 : "replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: "
                   "AvailableReplicas}";
  const std::string text =
      fmt::format(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {{name: accurate-property}}
duration: 6h
clusters:
{}fleet:
  scheduler: karmada
  estimator: accurate
  members:
{}workloads:
{}- name: train
  kind: Job
  parallelism: {}
  start: 10m
  duration: forever
  arrival: {{rate: 1/h}}
  count: {}
  resources: {{cpu: "1", memory: 1Gi, nvidia.com/gpu: "{}"}}
  fleet:
    placement:
      clusterAffinity: {{labelSelector: {{matchLabels: {{gpu: "yes"}}}}}}
      replicaScheduling: {{replicaSchedulingType: Divided, {}}}
)",
                  clusters, fleet_members, residents, parallelism, jobs, per_pod, division);
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(text, "property.yaml", "", in, diags);
  RC_ASSERT(spec.ok());
  testing::Ran r = testing::RunSpec(*spec, in);
  RC_ASSERT(r.out.result.fleet != nullptr);
  for (const ClusterResult& c : r.out.result.clusters) {
    if (c.name.starts_with("m")) RC_ASSERT(c.pods_pending_end == 0);
  }
  RC_TAG(r.out.result.fleet->placed > 0 ? "some placed" : "none placed");
}

// The same property for copies the accurate estimator places on a copy of the member (trial
// placement): the Job's pods carry required pod anti-affinity by host, a host port, or a
// DoNotSchedule spread by host, so copies get in each other's way beyond node resources. Every
// replica Karmada divides by those estimates is placed by its member.
RC_GTEST_PROP(FleetEstimatePropertyTest, TrialPlacementEstimateNeverAboveWhatTheMemberPlaces, ()) {
  const int members = *rc::gen::inRange(1, 4);
  std::string clusters, fleet_members;
  for (int m = 0; m < members; ++m) {
    const int nodes = *rc::gen::inRange(1, 5);
    const int cpus = *rc::gen::element(2, 4, 8);
    clusters += fmt::format(
        "- name: m{0}\n  nodePools:\n  - {{name: m{0}-pool, count: {1}, resources: {{cpu: "
        "\"{2}\", memory: 16Gi, pods: \"20\"}}}}\n",
        m, nodes, cpus);
    fleet_members += fmt::format("  - {{name: m{0}, labels: {{pool: \"yes\"}}}}\n", m);
  }
  const int parallelism = *rc::gen::inRange(1, 6);
  const int jobs = *rc::gen::inRange(2, 5);
  const int constraint = *rc::gen::element(0, 1, 2);
  const int cpu = *rc::gen::element(1, 2);
  const bool aggregated = *rc::gen::arbitrary<bool>();
  const std::string division =
      aggregated ? "replicaDivisionPreference: Aggregated"
                 : "replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: "
                   "AvailableReplicas}";
  std::string pods;
  switch (constraint) {
    case 0:
      pods = fmt::format(
          "  labels: {{app: train}}\n  resources: {{cpu: \"{}\", memory: 1Gi}}\n"
          "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:"
          "\n      - labelSelector: {{matchLabels: {{app: train}}}}\n"
          "        topologyKey: kubernetes.io/hostname\n",
          cpu);
      break;
    case 1:
      pods = fmt::format(
          "  template:\n    metadata: {{labels: {{app: train}}}}\n    spec:\n      containers:\n"
          "      - name: train\n        image: train:1\n        ports: [{{containerPort: 80, "
          "hostPort: 8080}}]\n        resources:\n          requests: {{cpu: \"{}\", memory: "
          "1Gi}}\n",
          cpu);
      break;
    default:
      pods = fmt::format(
          "  labels: {{app: train}}\n  resources: {{cpu: \"{}\", memory: 1Gi}}\n"
          "  topologySpread:\n  - {{maxSkew: 1, topologyKey: kubernetes.io/hostname, "
          "whenUnsatisfiable: DoNotSchedule}}\n",
          cpu);
      break;
  }
  const std::string text = fmt::format(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {{name: trial-property}}
duration: 6h
clusters:
{}fleet:
  scheduler: karmada
  estimator: accurate
  members:
{}workloads:
- name: train
  kind: Job
  parallelism: {}
  start: 10m
  duration: forever
  arrival: {{rate: 1/h}}
  count: {}
{}  fleet:
    placement:
      clusterAffinity: {{labelSelector: {{matchLabels: {{pool: "yes"}}}}}}
      replicaScheduling: {{replicaSchedulingType: Divided, {}}}
)",
                                       clusters, fleet_members, parallelism, jobs, pods, division);
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(text, "property.yaml", "", in, diags);
  RC_ASSERT(spec.ok());
  testing::Ran r = testing::RunSpec(*spec, in);
  RC_ASSERT(r.out.result.fleet != nullptr);
  const FleetResult& f = *r.out.result.fleet;
  RC_ASSERT(f.accurate_estimates.computed > 0);
  for (const ClusterResult& c : r.out.result.clusters) {
    if (c.name.starts_with("m")) RC_ASSERT(c.pods_pending_end == 0);
  }
  RC_TAG(f.placed > 0 ? "some placed" : "none placed");
  RC_TAG(constraint == 0 ? "anti-affinity" : constraint == 1 ? "host port" : "spread");
}

}  // namespace
}  // namespace corral::sim
