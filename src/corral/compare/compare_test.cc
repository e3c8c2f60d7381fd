// Unit tests of the comparison machinery: variant flags and overrides, the run record's file form,
// the comparison's statistics (spread, beyond-spread flag, what changed), sweep files (strict,
// positioned errors), shards, the emitted Job (checked by Corral's own loader) and objectives.

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/compare/compact.h"
#include "corral/compare/comparison.h"
#include "corral/compare/plan.h"
#include "corral/compare/sweep.h"
#include "corral/compare/variant.h"
#include "corral/loader/fleet_loader.h"
#include "corral/sim/fleet_spec.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/provenance.h"

namespace corral::compare {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

constexpr const char* kScenario = "examples/compare/gpu-gangs.yaml";

TEST(VariantTest, ParsesNamesAndOptions) {
  auto v = ParseVariantFlag(
      "binpack:config=a.yaml;feature-gates=GenericWorkload=true;nodes.gpu=4;"
      "rate.train=3/h;config.web=w.yaml");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->name, "binpack");
  EXPECT_EQ(v->overrides.config, "a.yaml");
  EXPECT_EQ(v->overrides.feature_gates, "GenericWorkload=true");
  EXPECT_THAT(v->overrides.nodes, ElementsAre(std::pair<std::string, int64_t>("gpu", 4)));
  EXPECT_EQ(v->overrides.Describe(),
            "config=a.yaml;config.web=w.yaml;feature-gates=GenericWorkload=true;nodes.gpu=4;"
            "rate.train=3/h");
  auto plain = ParseVariantFlag("default");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->overrides.empty());
}

TEST(VariantTest, RejectsBadFlags) {
  struct Case {
    const char* flag;
    const char* message;
  };
  const Case cases[] = {
      {"", "invalid variant name \"\""},
      {"a b", "invalid variant name \"a b\""},
      {"x:nodes.gpu=-1",
       "nodes.gpu: want a node count from 0 to 1000000 (a pool's limit), "
       "got \"-1\""},
      {"x:nodes.gpu=many", "want a node count from 0 to 1000000"},
      // A count no run could hold is an error up front, as a scenario's nodePools[].count is.
      {"x:nodes.gpu=1000001", "want a node count from 0 to 1000000"},
      {"x:nodes.gpu=99999999999999999999", "want a node count from 0 to 1000000"},
      {"x:rate.train=fast", "rate.train: invalid rate \"fast\""},
      {"x:colour=blue", "unknown option \"colour\""},
      {"x:config", "want key=value"},
      {"x:feature-gates=NoSuchGate=true", "feature-gates:"},
      {"x:config=", "config: empty value"},
  };
  for (const auto& c : cases) {
    auto v = ParseVariantFlag(c.flag);
    ASSERT_FALSE(v.ok()) << c.flag;
    EXPECT_THAT(v.error().message, HasSubstr(c.message)) << c.flag;
  }
}

TEST(VariantTest, OverridesNameWhatTheScenarioLacks) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = sim::LoadScenarioFile(kScenario, in, diags);
  ASSERT_TRUE(spec.ok());
  Overrides o;
  ASSERT_TRUE(ParseOverride("nodes.cpu=3", o).ok());
  auto st = ApplyOverrides(o, *spec, in);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "nodes.cpu: the scenario has no node pool \"cpu\" (pools: gpu)");
  Overrides r;
  ASSERT_TRUE(ParseOverride("rate.serve=3/h", r).ok());
  st = ApplyOverrides(r, *spec, in);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("no workload \"serve\" (workloads: inference, train)"));
  Overrides c;
  ASSERT_TRUE(ParseOverride("config.web=x.yaml", c).ok());
  EXPECT_THAT(ApplyOverrides(c, *spec, in).error().message, HasSubstr("no member cluster \"web\""));
  // A pool resized: its initial createNodes op says so, and the rate is set.
  Overrides ok;
  ASSERT_TRUE(ParseOverride("nodes.gpu=5", ok).ok());
  ASSERT_TRUE(ParseOverride("rate.train=6/h", ok).ok());
  ASSERT_TRUE(ApplyOverrides(ok, *spec, in).ok());
  EXPECT_EQ(*InitialPoolSize(*spec, "gpu"), 5);
  EXPECT_DOUBLE_EQ(spec->workloads[1].arrival.rate_per_s, 6.0 / 3600);
}

// pools=FILE adds the file's pools (and replaces pools of the same name); nodes.POOL then resizes
// them; a pools file with anything but pools is refused.
TEST(VariantTest, PoolsFileAddsAndReplacesPools) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = sim::LoadScenarioFile(kScenario, in, diags);
  ASSERT_TRUE(spec.ok());
  auto v = ParseVariantFlag("x:pools=examples/compare/extra-gpu-pool.yaml;nodes.h100=3");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(ApplyOverrides(v->overrides, *spec, in).ok());
  ASSERT_EQ(spec->pools.size(), 2U);
  EXPECT_EQ(spec->pools[1].name, "h100");
  EXPECT_EQ(*InitialPoolSize(*spec, "gpu"), 16);
  EXPECT_EQ(*InitialPoolSize(*spec, "h100"), 3);
  // The runs place gangs on the added pool.
  RunPlan plan;
  plan.scenario_path = kScenario;
  plan.variant = *ParseVariantFlag("x:pools=examples/compare/extra-gpu-pool.yaml");
  plan.seed = 7;
  auto r = RunOne(plan);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->Metric("nodes_max"), 24);
  bool on_h100 = false;
  for (const auto& u : r->units) {
    for (const auto& n : u.nodes) on_h100 = on_h100 || n.starts_with("h100");
  }
  EXPECT_TRUE(on_h100);
  // Replacing: a pools file naming "gpu" swaps the scenario's gpu pool.
  fs::path dir = fs::temp_directory_path() / fmt::format("corral-pools-{}", getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "gpu.yaml")
      << "apiVersion: corral.dev/v1alpha1\nkind: Scenario\n"
         "metadata: {name: p}\nnodePools:\n- name: gpu\n  count: 5\n"
         "  resources: {cpu: \"8\", memory: 8Gi, nvidia.com/gpu: \"2\"}\n";
  std::ofstream(dir / "bad.yaml") << "apiVersion: corral.dev/v1alpha1\nkind: Scenario\n"
                                     "metadata: {name: p}\nnodePools:\n- name: gpu\n  count: 5\n"
                                     "  resources: {cpu: \"8\", memory: 8Gi}\nworkloads:\n"
                                     "- {name: w, count: 1, resources: {cpu: \"1\"}}\n";
  Interner in2 = api::NewInterner();
  Diagnostics diags2;
  auto spec2 = sim::LoadScenarioFile(kScenario, in2, diags2);
  ASSERT_TRUE(spec2.ok());
  Overrides o;
  ASSERT_TRUE(ParseOverride("pools=" + (dir / "gpu.yaml").string(), o).ok());
  ASSERT_TRUE(ApplyOverrides(o, *spec2, in2).ok());
  ASSERT_EQ(spec2->pools.size(), 1U);
  EXPECT_EQ(*InitialPoolSize(*spec2, "gpu"), 5);
  Overrides bad;
  ASSERT_TRUE(ParseOverride("pools=" + (dir / "bad.yaml").string(), bad).ok());
  EXPECT_THAT(ApplyOverrides(bad, *spec2, in2).error().message,
              HasSubstr("a pools file is a scenario that holds nodePools and nothing else"));
  fs::remove_all(dir);
}

// pools.CLUSTER=FILE adds pools to one member cluster; pools= on a scenario with clusters, an
// unknown cluster and a pool of another cluster are errors.
TEST(VariantTest, ClusterPoolsFileAddsToOneMember) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = sim::LoadScenarioFile("examples/scenarios/fleet-kueue.yaml", in, diags);
  ASSERT_TRUE(spec.ok());
  const size_t pools = spec->pools.size();
  auto v = ParseVariantFlag("x:pools.west=examples/compare/extra-gpu-pool.yaml;nodes.h100=3");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->overrides.Describe(),
            "pools.west=examples/compare/extra-gpu-pool.yaml;nodes.h100=3");
  ASSERT_TRUE(ApplyOverrides(v->overrides, *spec, in).ok());
  ASSERT_EQ(spec->pools.size(), pools + 1);
  EXPECT_EQ(spec->pools.back().name, "h100");
  EXPECT_EQ(spec->clusters[spec->pools.back().cluster].name, "west");
  EXPECT_EQ(*InitialPoolSize(*spec, "h100"), 3);

  fs::path dir = fs::temp_directory_path() / fmt::format("corral-cpools-{}", getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "east.yaml")
      << "apiVersion: corral.dev/v1alpha1\nkind: Scenario\n"
         "metadata: {name: p}\nnodePools:\n- name: east-a100\n  count: 1\n"
         "  resources: {cpu: \"8\", memory: 8Gi}\n";
  struct Case {
    std::string option;
    const char* message;
  };
  const Case cases[] = {
      {"pools=examples/compare/extra-gpu-pool.yaml",
       "pools: the scenario has member clusters; add pools to one of them with "
       "pools.CLUSTER=FILE"},
      {"pools.north=examples/compare/extra-gpu-pool.yaml",
       "pools.north: the scenario has no member cluster \"north\" (clusters: central, east, west"},
      {"pools.west=" + (dir / "east.yaml").string(),
       "pools.west: pool \"east-a100\" belongs to cluster \"east\"; replace it with "
       "pools.east=FILE"},
  };
  for (const auto& c : cases) {
    Interner in2 = api::NewInterner();
    Diagnostics diags2;
    auto spec2 = sim::LoadScenarioFile("examples/scenarios/fleet-kueue.yaml", in2, diags2);
    ASSERT_TRUE(spec2.ok());
    Overrides o;
    ASSERT_TRUE(ParseOverride(c.option, o).ok()) << c.option;
    auto st = ApplyOverrides(o, *spec2, in2);
    ASSERT_FALSE(st.ok()) << c.option;
    EXPECT_THAT(st.error().message, HasSubstr(c.message)) << c.option;
  }
  // Replacing a member's own pool keeps it in that member.
  Interner in3 = api::NewInterner();
  Diagnostics diags3;
  auto spec3 = sim::LoadScenarioFile("examples/scenarios/fleet-kueue.yaml", in3, diags3);
  ASSERT_TRUE(spec3.ok());
  Overrides o;
  ASSERT_TRUE(ParseOverride("pools.east=" + (dir / "east.yaml").string(), o).ok());
  ASSERT_TRUE(ApplyOverrides(o, *spec3, in3).ok());
  EXPECT_EQ(spec3->pools.size(), pools);
  EXPECT_EQ(*InitialPoolSize(*spec3, "east-a100"), 1);
  fs::remove_all(dir);
}

// The fleet level of a variant: parsed by the scenario's field names, applied to a copy of the
// compiled FleetSpec, and every override the fleet cannot honour is an error naming it.
TEST(FleetOverrideTest, ParsesAndDescribes) {
  auto v = ParseVariantFlag(
      "f:fleet.scheduler=kueue;fleet.dispatcher=composable;fleet.nomination=TopK;fleet.topK=2");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->overrides.Describe(),
            "fleet.scheduler=kueue;fleet.dispatcher=composable;fleet.nomination=TopK;"
            "fleet.topK=2");
  struct Case {
    const char* flag;
    const char* message;
  };
  const Case cases[] = {
      {"x:fleet.scheduler=volcano", "fleet.scheduler: want karmada or kueue, got \"volcano\""},
      {"x:fleet.dispatcher=AllAtOnce",
       "fleet.dispatcher: want composable, allAtOnce or incremental, got \"AllAtOnce\""},
      {"x:fleet.nomination=Top2", "fleet.nomination: want Top1 or TopK, got \"Top2\""},
      {"x:fleet.topK=11", "fleet.topK: want 1..10, got \"11\""},
      {"x:fleet.topK=0", "fleet.topK: want 1..10, got \"0\""},
      {"x:fleet.plugins=a", "unknown option \"fleet.plugins\""},
  };
  for (const auto& c : cases) {
    auto r = ParseVariantFlag(c.flag);
    ASSERT_FALSE(r.ok()) << c.flag;
    EXPECT_THAT(r.error().message, HasSubstr(c.message)) << c.flag;
  }
}

TEST(FleetOverrideTest, AppliesToTheFleetOrNamesWhyNot) {
  struct Case {
    const char* scenario;
    const char* options;
    const char* message;  // empty: applies
  };
  const Case cases[] = {
      {kScenario, "fleet.dispatcher=allAtOnce",
       "fleet.dispatcher: the scenario has no fleet section"},
      {"examples/scenarios/fleet-kueue.yaml", "fleet.scheduler=karmada",
       "fleet.scheduler=karmada: workload \"train\"'s dispatchMode MustBeAdmitted applies to "
       "scheduler kueue only"},
      {"examples/scenarios/fleet-karmada.yaml", "fleet.topK=2",
       "fleet.topK: applies to scheduler kueue (MultiKueue); Corral runs Karmada's default "
       "plugin set"},
      {"examples/scenarios/fleet-kueue.yaml", "fleet.dispatcher=allAtOnce;fleet.topK=2",
       "fleet.topK: applies to dispatcher composable (the fleet's is allAtOnce)"},
      {"examples/scenarios/fleet-kueue.yaml", "fleet.topK=2",
       "fleet.topK: applies to nomination TopK (the fleet's is Top1; add fleet.nomination=TopK)"},
      {"examples/scenarios/fleet-kueue.yaml", "fleet.nomination=TopK",
       "fleet.nomination=TopK: needs fleet.topK=1..10"},
      {"examples/scenarios/fleet-kueue.yaml",
       "fleet.profile=examples/compare/dispatcher-capacity-aware.yaml;fleet.nomination=Top1",
       "fleet.profile: a profile sets its own nominationMode and topK"},
      {"examples/scenarios/fleet-kueue.yaml", "fleet.profile=examples/compare/gpu-gangs.yaml",
       "fleet.profile:"},
      {"examples/scenarios/fleet-kueue.yaml", "fleet.nomination=TopK;fleet.topK=2", ""},
      {"examples/scenarios/fleet-kueue.yaml", "fleet.dispatcher=incremental", ""},
  };
  for (const auto& c : cases) {
    Interner in = api::NewInterner();
    Diagnostics diags;
    auto spec = sim::LoadScenarioFile(c.scenario, in, diags);
    ASSERT_TRUE(spec.ok()) << c.scenario;
    auto v = ParseVariantFlag(std::string("x:") + c.options);
    ASSERT_TRUE(v.ok()) << c.options << ": " << v.error().message;
    auto st = ApplyOverrides(v->overrides, *spec, in);
    if (std::string(c.message).empty()) {
      EXPECT_TRUE(st.ok()) << c.options << ": " << st.error().message;
    } else {
      ASSERT_FALSE(st.ok()) << c.options;
      EXPECT_THAT(st.error().message, HasSubstr(c.message)) << c.options;
    }
  }
}

TEST(FleetOverrideTest, ProfileAndSchedulerSwitchChangeTheFleetSpec) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = sim::LoadScenarioFile("examples/scenarios/fleet-kueue.yaml", in, diags);
  ASSERT_TRUE(spec.ok());
  const sim::FleetSpec* before = spec->fleet.get();
  auto v = ParseVariantFlag("x:fleet.profile=examples/compare/dispatcher-capacity-aware.yaml");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(ApplyOverrides(v->overrides, *spec, in).ok());
  ASSERT_NE(spec->fleet.get(), before);  // a new FleetSpec; the compiled one is untouched
  EXPECT_EQ(in.Str(spec->fleet->config.profile.meta.name), "capacity-aware");
  EXPECT_EQ(spec->fleet->profile_path, "examples/compare/dispatcher-capacity-aware.yaml");
  ASSERT_EQ(spec->fleet->config.profile.scores.size(), 1U);
  EXPECT_EQ(in.Str(spec->fleet->config.profile.scores[0].first), "CapacityScore");
  auto d = sim::DescribeDispatcher(*spec->fleet, in);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->scheduler, "kueue");
  EXPECT_EQ(d->dispatcher, "composable");
  EXPECT_EQ(d->profile, "capacity-aware");
  EXPECT_THAT(d->config_hash, ::testing::StartsWith("fnv1a64:"));
  EXPECT_THAT(d->scores, ElementsAre("CapacityScore:1"));
  EXPECT_EQ(d->nomination, "Top1");

  // Karmada's example asks for placements, which MultiKueue does not read: named, not dropped.
  Interner in2 = api::NewInterner();
  Diagnostics diags2;
  auto karmada = sim::LoadScenarioFile("examples/scenarios/fleet-karmada.yaml", in2, diags2);
  ASSERT_TRUE(karmada.ok());
  Overrides o;
  ASSERT_TRUE(ParseOverride("fleet.scheduler=kueue", o).ok());
  EXPECT_EQ(ApplyOverrides(o, *karmada, in2).error().message,
            "fleet.scheduler=kueue: workload \"web\"'s fleet.placement applies to scheduler "
            "karmada only (drop it from the scenario, or compare without switching the fleet "
            "scheduler)");

  // A Kueue fleet whose work asks for nothing Kueue-only switches to Karmada, and runs.
  fs::path dir = fs::temp_directory_path() / fmt::format("corral-fleet-switch-{}", getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "s.yaml")
      << "apiVersion: corral.dev/v1alpha1\nkind: Scenario\nmetadata: {name: switch}\n"
         "seed: 3\nduration: 1h\nclusters:\n"
         "- name: a\n  nodePools:\n  - {name: a-pool, count: 2, resources: {cpu: \"8\", "
         "memory: 32Gi, pods: \"20\"}}\n"
         "- name: b\n  nodePools:\n  - {name: b-pool, count: 2, resources: {cpu: \"8\", "
         "memory: 32Gi, pods: \"20\"}}\n"
         "fleet: {scheduler: kueue}\n"
         "workloads:\n- {name: web, arrival: {rate: 6/h}, count: 3, duration: 20m, "
         "resources: {cpu: \"1\", memory: 1Gi}, fleet: {replicas: 2}}\n";
  const std::string path = (dir / "s.yaml").string();
  Interner in3 = api::NewInterner();
  Diagnostics diags3;
  auto kueue = sim::LoadScenarioFile(path, in3, diags3);
  ASSERT_TRUE(kueue.ok()) << kueue.error().message;
  Overrides k;
  ASSERT_TRUE(ParseOverride("fleet.scheduler=karmada", k).ok());
  ASSERT_TRUE(ApplyOverrides(k, *kueue, in3).ok());
  EXPECT_EQ(kueue->fleet->config.kind, fleet::FleetKind::kKarmada);
  ASSERT_EQ(kueue->fleet->works.size(), 1U);
  EXPECT_EQ(kueue->fleet->works[0].source_kind, api::FleetWorkSourceKind::kResourceBinding);
  for (const auto& c : kueue->fleet->clusters)
    EXPECT_EQ(c.source_kind, api::ClusterSourceKind::kKarmadaCluster);
  auto karmada_d = sim::DescribeDispatcher(*kueue->fleet, in3);
  ASSERT_TRUE(karmada_d.ok());
  EXPECT_EQ(karmada_d->scheduler, "karmada");
  EXPECT_EQ(karmada_d->detail, "general estimator");
  RunPlan plan;
  plan.scenario_path = path;
  plan.seed = 3;
  plan.variant = *ParseVariantFlag("karmada:fleet.scheduler=karmada");
  auto run = RunOne(plan);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->options, "fleet.scheduler=karmada");
  EXPECT_GT(run->Metric("pods_scheduled"), 0);
  fs::remove_all(dir);
}

TEST(RecordTest, RoundTripsThroughItsFileFormExactly) {
  auto plans = PlanCompare(kScenario, {Variant{"default", {}}}, {7});
  ASSERT_TRUE(plans.ok());
  auto r = RunOne((*plans)[0]);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(r->Metric("pods_arrived"), 0);
  EXPECT_FALSE(r->units.empty());
  EXPECT_EQ(r->pod_wait_q.size(), 101U);
  std::string json = RecordToJson(*r);
  auto back = RecordFromJson(json, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(RecordToJson(*back), json);
  EXPECT_EQ(back->metrics, r->metrics);
  EXPECT_EQ(back->t_s, r->t_s);
  EXPECT_FALSE(RecordFromJson("{\"version\": \"other\"}", "y.json").ok());
  EXPECT_THAT(RecordFromJson("[1", "z.json").error().message, HasSubstr("z.json: not a valid"));
}

// Pending pods count with the time they waited so far: the mean wait over every arrival equals the
// sum of bound waits and censored waits.
TEST(RecordTest, WaitsIncludePendingPods) {
  auto plans = PlanCompare(kScenario, {Variant{"tiny", {.nodes = {{"gpu", 1}}}}}, {7});
  ASSERT_TRUE(plans.ok());
  auto r = RunOne((*plans)[0]);
  ASSERT_TRUE(r.ok());
  ASSERT_GT(r->Metric("pods_pending_end"), 0);
  // With one node, most pods are pending at the end: the p99 wait is close to the whole run.
  EXPECT_GT(r->pod_wait_q[99], r->end_ns / 2);
  int incomplete = 0;
  for (const auto& u : r->units) {
    if (!u.complete) {
      ++incomplete;
      EXPECT_EQ(u.wait_ns, r->end_ns - u.arrival_ns) << u.id;
    }
  }
  EXPECT_GT(incomplete, 0);
}

RunRecord Synthetic(const std::string& variant, uint64_t seed, double pending) {
  RunRecord r;
  r.scenario = "s";
  r.variant = variant;
  r.seed = seed;
  r.metrics = {{"pods_pending_end", pending}, {"pod_wait_mean_s", pending * 10}};
  r.t_s = {0, 60};
  r.pending = {0, pending};
  r.running = {0, 1};
  UnitRecord u;
  u.id = "default/train-0";
  u.workload = "train";
  u.wait_ns = static_cast<int64_t>(pending) * 1'000'000'000;
  u.complete = true;
  u.nodes =
      variant == "a" ? std::vector<std::string>{"n1", "n2"} : std::vector<std::string>{"n2", "n3"};
  r.units = {u};
  r.workloads = {WorkloadRecord{
      .name = "train", .kind = "gang", .pods_pending_end = 1, .wait_mean_ns = u.wait_ns}};
  return r;
}

TEST(ComparisonTest, SpreadDeltaAndBeyondSpread) {
  std::vector<RunRecord> rs;
  // a: 10, 12, 14 — b: 20, 21, 22 (beyond) — c: 13, 15, 30 (overlaps a's range).
  const double a[] = {10, 12, 14}, b[] = {20, 21, 22}, c[] = {13, 15, 30};
  size_t idx = 0;
  for (auto [name, vals] : {std::pair{"a", a}, std::pair{"b", b}, std::pair{"c", c}}) {
    for (uint64_t s = 0; s < 3; ++s) {
      rs.push_back(Synthetic(name, s + 1, vals[s]));
      rs.back().index = idx++;
    }
  }
  auto cmp = Compare(rs);
  ASSERT_TRUE(cmp.ok()) << cmp.error().message;
  ASSERT_EQ(cmp->points.size(), 1U);
  const auto& p = cmp->points[0];
  EXPECT_THAT(p.variants, ElementsAre("a", "b", "c"));
  const MetricRow& m = p.metrics[0];
  EXPECT_EQ(m.key, "pods_pending_end");
  EXPECT_DOUBLE_EQ(m.values[1].mean, 21);
  EXPECT_DOUBLE_EQ(m.values[1].min, 20);
  EXPECT_DOUBLE_EQ(m.values[2].max, 30);
  EXPECT_DOUBLE_EQ(m.delta[1], 9);
  EXPECT_THAT(m.beyond, ElementsAre(0, 1, 0));
  // Every instance changed (its wait), and moved one member of two.
  ASSERT_EQ(p.units.size(), 3U);
  EXPECT_EQ(p.units[0].seed, 3U);  // the largest wait difference: c's 30 s against a's 14 s
  EXPECT_THAT(p.units[0].moved, ElementsAre(0, 1, 1));
  // A chart per series, each with one line per variant on one x grid.
  for (const auto& chart : p.charts) EXPECT_EQ(chart.y.size(), 3U) << chart.id;
}

TEST(ComparisonTest, OneSeedHasNoSpreadAndMissingRunsAreErrors) {
  std::vector<RunRecord> rs = {Synthetic("a", 1, 1), Synthetic("b", 1, 2)};
  rs[1].index = 1;
  auto cmp = Compare(rs);
  ASSERT_TRUE(cmp.ok());
  EXPECT_THAT(cmp->points[0].metrics[0].beyond, ElementsAre(-1, -1));
  rs.push_back(Synthetic("a", 2, 1));
  rs.back().index = 2;
  auto bad = Compare(rs);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "variant b has no run with seed 2");
}

fs::path TempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / fmt::format("corral-compare-{}-{}", getpid(), name);
  fs::create_directories(d);
  return d;
}

std::string WriteSweep(const fs::path& dir, const std::string& text) {
  fs::path p = dir / "sweep.yaml";
  std::ofstream(p) << text;
  fs::copy_file(kScenario, dir / "gpu-gangs.yaml", fs::copy_options::overwrite_existing);
  return p.string();
}

TEST(SweepSpecTest, ReadsTheExample) {
  Diagnostics diags;
  auto spec = LoadSweepSpec("examples/compare/sweep.yaml", diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->name, "gpu-binpack");
  EXPECT_EQ(spec->scenario, "examples/compare/gpu-gangs.yaml");
  EXPECT_THAT(spec->seeds, ElementsAre(7, 8));
  ASSERT_EQ(spec->variants.size(), 2U);
  EXPECT_EQ(spec->variants[1].overrides.config, "examples/compare/gpu-most-allocated.yaml");
  auto plans = PlanSweep(*spec);
  ASSERT_TRUE(plans.ok());
  ASSERT_EQ(plans->size(), 8U);
  EXPECT_EQ((*plans)[0].point, "nodes.gpu=12");
  EXPECT_EQ((*plans)[7].point, "nodes.gpu=16");
  EXPECT_EQ((*plans)[3].variant.name, "gpu-binpack");
  EXPECT_EQ((*plans)[3].seed, 8U);
  EXPECT_EQ(spec->digest.size(), 16U);
}

// Strict like every Corral reader: each problem is a positioned error, all of them reported.
TEST(SweepSpecTest, ProblemsArePositionedErrors) {
  fs::path dir = TempDir("bad-sweep");
  std::string path = WriteSweep(dir, R"(apiVersion: corral.dev/v1alpha1
kind: Sweep
scenario: gpu-gangs.yaml
seeds: 0
variant:
- name: a
variants:
- name: a
  confg: x.yaml
- name: a
  nodes: {gpu: many}
  rates: {train: fast}
parameters:
  nodes.gpu: [4, -1]
  colour: [red]
)");
  Diagnostics diags;
  auto spec = LoadSweepSpec(path, diags);
  ASSERT_FALSE(spec.ok());
  std::vector<std::string> got;
  for (const auto& d : diags.items()) got.push_back(d.ToString());
  const std::string f = path;
  EXPECT_THAT(
      got, ::testing::IsSupersetOf({
               HasSubstr(f + ":4: seeds: invalid value 0: must be between 1 and 1000"),
               HasSubstr(f + ":5: variant: unknown field \"variant\" (did you mean \"variants\"?)"),
               HasSubstr(f + ":9: variants[0].confg: unknown field \"confg\""),
               HasSubstr(f + ":11: variants[1].nodes[gpu]: expected an integer"),
               HasSubstr(f + ":12: variants[1].rates[train]: invalid rate \"fast\""),
               HasSubstr(f + ":14: parameters[nodes.gpu][1]: nodes.gpu: want a node count "
                             "from 0 to 1000000 (a pool's limit), got \"-1\""),
               HasSubstr(f + ":15: parameters[colour][0]: unknown option \"colour\""),
               HasSubstr(f + ":10: variants[1].name: duplicate variant name \"a\""),
           }));
  fs::remove_all(dir);
}

// A matrix that no machine could plan (a few short lines of parameters multiply to 10^12 runs, and
// a pool of 10^15 nodes) is a positioned error before anything is allocated.
TEST(SweepSpecTest, ImpossibleMatricesArePositionedErrors) {
  fs::path dir = TempDir("huge-sweep");
  std::string path = WriteSweep(dir, R"(apiVersion: corral.dev/v1alpha1
kind: Sweep
scenario: gpu-gangs.yaml
seeds: 1000
variants:
- name: a
  nodes: {gpu: 1000000000000000}
parameters:
  rate.a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.c: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.d: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.e: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.f: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.g: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.h: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  rate.i: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
)");
  Diagnostics diags;
  auto spec = LoadSweepSpec(path, diags);
  ASSERT_FALSE(spec.ok());
  std::vector<std::string> got;
  for (const auto& d : diags.items()) got.push_back(d.ToString());
  const std::string f = path;
  EXPECT_THAT(got, ::testing::IsSupersetOf({
                       HasSubstr(f + ":7: variants[0].nodes[gpu]: invalid value "
                                     "1000000000000000: must be between 0 and 1000000"),
                       HasSubstr(f + ":9: parameters: the matrix has more than 100000 runs"),
                   }));
  SweepSpec huge;
  huge.variants.resize(2);
  huge.seeds.resize(1000);
  huge.parameters.emplace_back("rate.a", std::vector<std::string>(100, "1"));
  auto plans = PlanSweep(huge);
  ASSERT_FALSE(plans.ok());
  EXPECT_THAT(plans.error().message, HasSubstr("the matrix has more than 100000 runs"));
  fs::remove_all(dir);
}

TEST(SweepSpecTest, MissingFieldsAreNamed) {
  fs::path dir = TempDir("empty-sweep");
  std::string path = WriteSweep(dir, "apiVersion: corral.dev/v1alpha1\nkind: Sweep\n");
  Diagnostics diags;
  auto spec = LoadSweepSpec(path, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.error().message, HasSubstr("scenario"));
  EXPECT_THAT(spec.error().message, HasSubstr("variants"));
  EXPECT_THAT(spec.error().message, HasSubstr("seeds"));
  fs::remove_all(dir);
}

TEST(ShardTest, ParsesAndPartitions) {
  EXPECT_EQ(ParseShard("2/5")->index, 2U);
  for (const char* bad : {"5/5", "1", "a/2", "1/0", "-1/2", "1/2/3", ""})
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  std::vector<RunPlan> plans(23);
  for (size_t i = 0; i < plans.size(); ++i) plans[i].index = i;
  for (size_t n : {1, 2, 3, 7, 30}) {
    std::multiset<size_t> all;
    for (size_t i = 0; i < n; ++i) {
      for (const auto& p : ShardOf(plans, Shard{i, n})) {
        EXPECT_EQ(p.index % n, i);
        all.insert(p.index);
      }
    }
    EXPECT_EQ(all.size(), plans.size()) << n;
    EXPECT_EQ(std::set<size_t>(all.begin(), all.end()).size(), plans.size()) << n;
  }
}

TEST(ShardTest, CheckCompleteNamesMissingRuns) {
  std::vector<RunRecord> rs(3);
  for (size_t i = 0; i < rs.size(); ++i) {
    rs[i].index = i == 2 ? 3 : i;
    rs[i].total = 5;
    rs[i].digest = "d";
  }
  auto st = CheckComplete(rs);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("2 of 5 runs are missing (runs 2, 4)"));
  rs[1].digest = "other";
  EXPECT_THAT(CheckComplete(rs).error().message, HasSubstr("mixes results of different sweeps"));
}

// The emitted Job is accepted by Corral's manifest loader for batch/v1 Jobs (the fleet loader,
// always strict), and is an Indexed Job with one completion per shard.
TEST(JobTest, EmittedJobPassesTheLoader) {
  Diagnostics diags;
  auto spec = LoadSweepSpec("examples/compare/sweep.yaml", diags);
  ASSERT_TRUE(spec.ok());
  JobOptions o;
  o.spec_path = spec->file;
  o.image = "registry.example/corral:0.1";
  o.results_claim = "corral-results";
  o.shards = 4;
  o.cpus = 2;
  auto job = EmitJob(*spec, o);
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_THAT(*job, HasSubstr("completionMode: Indexed\n  completions: 4\n  parallelism: 4\n"));
  EXPECT_THAT(*job, HasSubstr("- \"$(JOB_COMPLETION_INDEX)/4\"\n"));
  EXPECT_THAT(*job, HasSubstr("claimName: corral-results\n"));
  EXPECT_THAT(*job, HasSubstr("name: corral-sweep-gpu-binpack\n"));
  Interner in = api::NewInterner();
  auto loaded = loader::LoadFleetString(*job, "job.yaml", in);
  // No error; the one remark is Karmada's (no PropagationPolicy selects the Job), which is about
  // propagation to member clusters, not about the Job.
  EXPECT_TRUE(loaded.ok());
  std::string problems;
  for (const auto& d : loaded.diagnostics.items()) {
    if (d.message.find("no PropagationPolicy or ClusterPropagationPolicy matches Job") ==
        std::string::npos) {
      problems += d.ToString() + "\n";
    }
  }
  EXPECT_TRUE(problems.empty()) << problems;
  // A broken Job is caught by the same check (the check can fail).
  std::string broken = *job;
  broken.replace(broken.find("restartPolicy"), 13, "restartPolicyy");
  auto bad = loader::LoadFleetString(broken, "job.yaml", in);
  EXPECT_FALSE(bad.ok());

  o.results_claim = "Not_A_Name";
  EXPECT_THAT(EmitJob(*spec, o).error().message, HasSubstr("--results-claim"));
}

TEST(ObjectiveTest, Parses) {
  EXPECT_EQ(ParseObjective("no-pending")->kind, Objective::Kind::kNoPending);
  auto g = ParseObjective("gang-wait<=90m");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->kind, Objective::Kind::kGangWait);
  EXPECT_EQ(g->limit_ns, 5400'000'000'000);
  EXPECT_EQ(ParseObjective("p99-wait<=1s")->limit_ns, 1'000'000'000);
  for (const char* bad : {"p99-wait<=soon", "pending", "gang-wait<90m", ""})
    EXPECT_FALSE(ParseObjective(bad).ok()) << bad;
}

}  // namespace
}  // namespace corral::compare
