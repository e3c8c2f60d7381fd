// Cluster compaction: the example fleet's answer, the strict errors of `--clusters` and of
// `clusters.NAME=absent`, and the property that the answer meets the objective on every seed used
// while one cluster fewer misses it on at least one (checked by running those counts again,
// independently of the bisection), over random small fleets.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/compare/compact.h"
#include "corral/compare/plan.h"
#include "corral/sim/fleet_spec.h"
#include "corral/sim/input/scenario.h"

namespace corral::compare {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr const char* kFleet = "examples/compare/fleet-six-clusters.yaml";

// Runs the fleet with the first `kept` of `named` kept on every seed: true when every run meets
// every objective.
bool MeetsKeeping(const CompactRequest& req, const std::vector<std::string>& named, size_t kept) {
  for (uint64_t seed : req.seeds) {
    RunPlan plan;
    plan.scenario_path = req.scenario_path;
    plan.variant = req.variant;
    Overrides o;
    o.absent_clusters.assign(named.begin() + static_cast<std::ptrdiff_t>(kept), named.end());
    plan.variant.overrides.Merge(o);
    plan.seed = seed;
    auto r = RunOne(plan);
    if (!r.ok()) return false;
    for (const auto& obj : req.objectives) {
      if (!Meets(*r, obj, nullptr)) return false;
    }
  }
  return true;
}

CompactRequest FleetRequest() {
  CompactRequest req;
  req.scenario_path = kFleet;
  req.variant = *ParseVariantFlag("scenario");
  req.seeds = *SeedsFrom(req.scenario_path, 3);
  req.objectives = {*ParseObjective("no-pending"), *ParseObjective("gang-wait<=10m")};
  req.compact_clusters = true;
  return req;
}

// The example of docs/comparing-policies.md: four of the six clusters suffice, three do not.
TEST(CompactClustersTest, ExampleFleetNeedsFourOfSixClusters) {
  CompactRequest req = FleetRequest();
  auto res = Compact(req);
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_TRUE(res->met_at_start) << res->why_not;
  ASSERT_TRUE(res->compact_clusters);
  const ClusterAnswer& a = res->clusters;
  EXPECT_EQ(a.named, (std::vector<std::string>{"f1", "f2", "f3", "f4", "f5", "f6"}));
  EXPECT_EQ(a.original, 6);
  EXPECT_EQ(a.floor, 1);
  EXPECT_EQ(a.answer, 4);
  EXPECT_TRUE(MeetsKeeping(req, a.named, 4));
  EXPECT_FALSE(MeetsKeeping(req, a.named, 3));
  // Both the answer and one fewer were run, and every probe is listed.
  std::vector<int64_t> kept;
  for (const auto& p : a.probes) kept.push_back(p.nodes);
  EXPECT_THAT(kept, ::testing::Contains(4));
  EXPECT_THAT(kept, ::testing::Contains(3));
  EXPECT_EQ(res->runs, static_cast<int64_t>(a.probes.size() * req.seeds.size()));
  // Deterministic, in text and JSON.
  auto again = Compact(req);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(FormatCompactText(*res), FormatCompactText(*again));
  EXPECT_EQ(FormatCompactJson(*res), FormatCompactJson(*again));
  EXPECT_THAT(FormatCompactText(*res), HasSubstr("removed: f5, f6"));
  EXPECT_THAT(FormatCompactJson(*res), HasSubstr("\"compacted\": 4"));
}

// Naming clusters compacts those only, removed from the end of the list given.
TEST(CompactClustersTest, NamedClustersAreRemovedFromTheEndOfTheList) {
  CompactRequest req = FleetRequest();
  req.clusters = {"f6", "f1"};
  auto res = Compact(req);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const ClusterAnswer& a = res->clusters;
  EXPECT_EQ(a.floor, 0);  // the other four clusters stay
  EXPECT_LE(a.answer, 2);
  EXPECT_TRUE(MeetsKeeping(req, a.named, static_cast<size_t>(a.answer)));
  if (a.answer > 0) {
    EXPECT_FALSE(MeetsKeeping(req, a.named, static_cast<size_t>(a.answer) - 1));
  }
}

TEST(CompactClustersTest, StrictErrors) {
  CompactRequest req = FleetRequest();
  req.clusters = {"f1", "zz"};
  EXPECT_THAT(Compact(req).error().message,
              HasSubstr("--clusters: the scenario has no member cluster \"zz\" (clusters: f1, f2"));
  req.clusters = {"f1", "f1"};
  EXPECT_THAT(Compact(req).error().message, HasSubstr("cluster \"f1\" is named twice"));
  req.clusters = {};
  req.pools = {"f1-general"};
  EXPECT_THAT(Compact(req).error().message, HasSubstr("--clusters and --pool"));
  req.pools = {};
  req.variant = *ParseVariantFlag("v:nodes.f6-general=2");
  EXPECT_THAT(Compact(req).error().message,
              HasSubstr("--clusters: the variant's nodes.f6-general changes cluster \"f6\", which "
                        "compaction may remove"));
  req.clusters = {"f1", "f2"};  // f6 is not compacted: the variant may change it
  EXPECT_TRUE(Compact(req).ok());
  req.clusters = {};
  req.variant = *ParseVariantFlag("scenario");
  req.scenario_path = "examples/compare/gpu-gangs.yaml";
  EXPECT_THAT(Compact(req).error().message,
              HasSubstr("--clusters: the scenario declares no member clusters"));
}

TEST(CompactClustersTest, AbsentOptionParsesAndDescribes) {
  Overrides o;
  ASSERT_TRUE(ParseOverride("clusters.f6=absent", o).ok());
  ASSERT_TRUE(ParseOverride("clusters.f5=absent", o).ok());
  EXPECT_EQ(o.Describe(), "clusters.f6=absent;clusters.f5=absent");
  EXPECT_THAT(ParseOverride("clusters.f6=empty", o).error().message,
              HasSubstr("clusters.f6: want absent"));
  auto v = ParseVariantFlag("small:clusters.f6=absent;clusters.f5=absent");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->overrides.absent_clusters, (std::vector<std::string>{"f6", "f5"}));
}

Result<sim::SimSpec> LoadWithout(const std::string& text, std::vector<std::string> absent,
                                 Interner& in) {
  Diagnostics diags;
  sim::ScenarioOptions opts;
  opts.absent_clusters = std::move(absent);
  return sim::ParseScenario(text, "fleet.yaml", "", in, diags, opts);
}

std::string SmallFleet(const std::string& extra_workload) {
  return fmt::format(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {{name: small}}
duration: 1h
clusters:
- name: a
  nodePools:
  - {{name: a-pool, count: 2, resources: {{cpu: "8", memory: 32Gi, pods: "20"}}}}
- name: b
  nodePools:
  - {{name: b-pool, count: 2, resources: {{cpu: "8", memory: 32Gi, pods: "20"}}}}
fleet:
  scheduler: karmada
  members:
  - {{name: a, labels: {{tier: prod}}}}
  - {{name: b, labels: {{tier: prod}}}}
  outages:
  - {{cluster: b, at: 10m}}
workloads:
- name: web
  count: 2
  arrival: {{rate: 6/h}}
  resources: {{cpu: "1", memory: 1Gi}}
{})",
                     extra_workload);
}

// A removed cluster is absent: its pools, member entry and outages are gone, not an empty member.
TEST(CompactClustersTest, AbsentClusterIsDroppedBeforeTheScenarioCompiles) {
  Interner in = api::NewInterner();
  auto spec = LoadWithout(SmallFleet(""), {"b"}, in);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_EQ(spec->clusters.size(), 1U);
  EXPECT_EQ(spec->clusters[0].name, "a");
  ASSERT_EQ(spec->pools.size(), 1U);
  EXPECT_EQ(spec->pools[0].name, "a-pool");
  ASSERT_NE(spec->fleet, nullptr);
  EXPECT_EQ(spec->fleet->clusters.size(), 1U);
  EXPECT_TRUE(spec->fleet->outages.empty());
}

// What still names a removed cluster is an error at its position.
TEST(CompactClustersTest, WhatNamesAnAbsentClusterIsAPositionedError) {
  struct Case {
    std::string extra;
    std::vector<std::string> absent;
    std::string want;
  };
  const Case cases[] = {
      {"- name: pinned\n  cluster: b\n  count: 1\n  arrival: {rate: 6/h}\n  resources: {cpu: "
       "\"1\"}\n",
       {"b"},
       "fleet.yaml:25: workloads[1].cluster: cluster \"b\" is absent from this run"},
      {"  fleet:\n    placement:\n      clusterAffinity: {clusterNames: [a, b]}\n",
       {"b"},
       "fleet.yaml:26: workloads[0].fleet.placement: names cluster \"b\", which is absent"},
      {"", {"c"}, "clusters.c=absent: the scenario has no member cluster \"c\" (clusters: a, b)"},
      {"", {"a", "b"}, "every member cluster would be absent"},
  };
  for (const Case& c : cases) {
    Interner in = api::NewInterner();
    auto spec = LoadWithout(SmallFleet(c.extra), c.absent, in);
    ASSERT_FALSE(spec.ok()) << c.want;
    EXPECT_THAT(spec.error().message, HasSubstr(c.want));
  }
}

std::string RandomFleet(int members, int nodes, int parallelism, double jobs_per_h, int count,
                        int seed) {
  std::string clusters, described;
  for (int m = 1; m <= members; ++m) {
    clusters += fmt::format(
        "- name: m{}\n  nodePools:\n  - {{name: m{}-pool, count: {}, resources: {{cpu: \"16\", "
        "memory: 64Gi, pods: \"50\"}}}}\n",
        m, m, nodes);
    described += fmt::format("  - {{name: m{}, labels: {{tier: prod}}}}\n", m);
  }
  return fmt::format(R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {{name: random-fleet}}
seed: {}
duration: 2h
sampleInterval: 5m
clusters:
{}fleet:
  scheduler: karmada
  members:
{}workloads:
- name: batch
  kind: Job
  parallelism: {}
  arrival: {{poisson: {}/h}}
  count: {}
  duration: {{exponential: {{mean: 50m}}}}
  resources: {{cpu: "4", memory: 8Gi}}
  fleet:
    placement:
      clusterAffinity: {{labelSelector: {{matchLabels: {{tier: prod}}}}}}
      replicaScheduling:
        replicaSchedulingType: Divided
        replicaDivisionPreference: Aggregated
)",
                     seed, clusters, described, parallelism, jobs_per_h, count);
}

RC_GTEST_PROP(CompactClustersProperty, AnswerMeetsTheObjectiveAndOneClusterFewerDoesNot, ()) {
  const int members = *rc::gen::inRange(2, 6);
  const int nodes = *rc::gen::inRange(1, 3);
  const int parallelism = *rc::gen::inRange(2, 9);
  const int jobs = *rc::gen::inRange(6, 24);
  const int count = *rc::gen::inRange(6, 20);
  const int seed = *rc::gen::inRange(1, 1000);
  const int which = *rc::gen::inRange(0, 3);
  fs::path dir = fs::temp_directory_path() / fmt::format("corral-compact-fleet-{}", getpid());
  fs::create_directories(dir);
  fs::path scenario = dir / "fleet.yaml";
  std::ofstream(scenario) << RandomFleet(members, nodes, parallelism, jobs, count, seed);
  CompactRequest req;
  req.scenario_path = scenario.string();
  req.variant = *ParseVariantFlag("scenario");
  req.seeds = *SeedsFrom(req.scenario_path, 2);
  const char* objectives[] = {"no-pending", "gang-wait<=15m", "p99-wait<=5m"};
  req.objectives = {*ParseObjective(objectives[which])};
  req.compact_clusters = true;
  auto res = Compact(req);
  RC_ASSERT(res.ok());
  RC_CLASSIFY(res->met_at_start, "met with every member");
  if (res->met_at_start) {
    const ClusterAnswer& a = res->clusters;
    RC_ASSERT(a.floor == 1);
    RC_CLASSIFY(a.answer > a.floor, "needs more than one cluster");
    RC_ASSERT(a.answer >= 1 && a.answer <= members);
    RC_ASSERT(MeetsKeeping(req, a.named, static_cast<size_t>(a.answer)));
    if (a.answer > a.floor) {
      RC_ASSERT(!MeetsKeeping(req, a.named, static_cast<size_t>(a.answer) - 1));
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace corral::compare
