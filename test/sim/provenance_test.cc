// Run provenance: the FNV-1a 64 content hash (reference vectors), directory hashes, feature-gate
// flag items, and the record RunSimulation fills for each scheduler (configuration hash, profiles,
// plugins per extension point, gates), including one per member cluster.

#include "corral/sim/provenance.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim_test_util.h"

namespace corral::sim {
namespace {

namespace fs = std::filesystem;

// Reference values of the FNV-1a 64 test suite (Fowler, Noll, Vo: "FNV hash test vectors").
TEST(ProvenanceTest, Fnv1a64ReferenceVectors) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
  // Continuing a hash is hashing the concatenation.
  EXPECT_EQ(Fnv1a64("bar", Fnv1a64("foo")), Fnv1a64("foobar"));
  EXPECT_EQ(FormatFnv1a64(0xaf63dc4c8601ec8cULL), "fnv1a64:af63dc4c8601ec8c");
}

TEST(ProvenanceTest, HashPathOfFilesAndDirectories) {
  const fs::path dir = fs::path(::testing::TempDir()) / "corral_provenance_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "a.yaml", std::ios::binary) << "foobar";
  std::ofstream(dir / "sub" / "b.yaml", std::ios::binary) << "x";
  auto file = HashPath((dir / "a.yaml").string());
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file, FormatFnv1a64(Fnv1a64("foobar")));
  // A directory: relative path, NUL, bytes, NUL per file in path order.
  std::string stream =
      std::string("a.yaml") + '\0' + "foobar" + '\0' + "sub/b.yaml" + '\0' + "x" + '\0';
  auto whole = HashPath(dir.string());
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, FormatFnv1a64(Fnv1a64(stream)));
  std::ofstream(dir / "sub" / "b.yaml", std::ios::binary) << "y";
  EXPECT_NE(*HashPath(dir.string()), *whole);
  EXPECT_FALSE(HashPath((dir / "missing.yaml").string()).ok());
  fs::remove_all(dir);
}

TEST(ProvenanceTest, GateFlagItemsAreNormalized) {
  EXPECT_EQ(GateFlagItems("A=true, B=0,C=F"),
            (std::vector<std::string>{"A=true", "B=false", "C=false"}));
  EXPECT_TRUE(GateFlagItems("").empty());
}

TEST(ProvenanceTest, SingleClusterWithDefaults) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/small.yaml", in, diags);
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(spec->gates.Set("OpportunisticBatching", false).ok());
  spec->explicit_gates.push_back("OpportunisticBatching=false");
  auto r = testing::RunSpec(*spec, in);
  const Provenance& p = r.out.result.provenance;
  EXPECT_EQ(p.seed, 42U);
  EXPECT_EQ(p.corral_version, CorralVersion());
  ASSERT_EQ(p.schedulers.size(), 1U);
  const SchedulerProvenance& s = p.schedulers[0];
  EXPECT_EQ(s.cluster, "");
  EXPECT_EQ(s.config_path, "");
  EXPECT_EQ(s.gates_explicit, std::vector<std::string>{"OpportunisticBatching=false"});
  EXPECT_EQ(s.gates_non_default, std::vector<std::string>{"OpportunisticBatching=false"});
  ASSERT_EQ(s.profiles.size(), 1U);
  EXPECT_EQ(s.profiles[0].scheduler_name, "default-scheduler");
  ASSERT_EQ(s.profiles[0].points.size(), 12U);
  EXPECT_EQ(s.profiles[0].points[1].point, "QueueSort");
  EXPECT_EQ(s.profiles[0].points[1].plugins, std::vector<std::string>{"PrioritySort"});
}

TEST(ProvenanceTest, OneSchedulerPerClusterWithItsConfiguration) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/three-clusters.yaml", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto r = testing::RunSpec(*spec, in);
  r.out.result.provenance.command = "simulate";
  const Provenance& p = r.out.result.provenance;
  ASSERT_EQ(p.schedulers.size(), spec->clusters.size());
  bool found_batch = false;
  for (size_t c = 0; c < p.schedulers.size(); ++c) {
    const SchedulerProvenance& s = p.schedulers[c];
    EXPECT_EQ(s.cluster, spec->clusters[c].name);
    EXPECT_EQ(s.config_path, spec->clusters[c].scheduler_config_path);
    if (s.config_path.empty()) continue;
    found_batch = true;
    EXPECT_EQ(s.config_hash, *HashPath(s.config_path));
    // three-clusters-binpack.yaml turns NodeResourcesBalancedAllocation off.
    const auto& score = s.profiles.at(0).points.at(6);
    ASSERT_EQ(score.point, "Score");
    for (const auto& plugin : score.plugins)
      EXPECT_EQ(plugin.find("NodeResourcesBalancedAllocation"), std::string::npos);
  }
  EXPECT_TRUE(found_batch);
  const auto j = ProvenanceJson(p);
  EXPECT_EQ(j["schedulers"].size(), p.schedulers.size());
  EXPECT_EQ(j["seed"], spec->seed);
  const std::string summary = FormatSummary(r.out.result);
  EXPECT_NE(summary.find("\nINPUTS\n"), std::string::npos);
  // The three members' schedulers differ (configuration or gates): one block each.
  for (const auto& c : spec->clusters)
    EXPECT_NE(summary.find("  cluster           " + c.name + "\n"), std::string::npos) << c.name;
}

// A fleet run names its fleet level: scheduler, dispatcher, the profile (built in or a file with
// its hash), filters, scores and nomination, in the summary and the JSON; identical member
// blocks are printed once.
TEST(ProvenanceTest, FleetDispatcherAndSharedClusterBlocks) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/fleet-kueue.yaml", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto r = testing::RunSpec(*spec, in);
  r.out.result.provenance.command = "simulate";
  const Provenance& p = r.out.result.provenance;
  ASSERT_EQ(p.dispatcher.size(), 1U);
  const DispatcherProvenance& d = p.dispatcher[0];
  EXPECT_EQ(d.scheduler, "kueue");
  EXPECT_EQ(d.dispatcher, "composable");
  EXPECT_EQ(d.profile, "default");
  EXPECT_TRUE(d.config_path.empty());
  EXPECT_EQ(d.filters,
            (std::vector<std::string>{"ClusterHealth", "ClusterAffinity", "ClusterTaints"}));
  EXPECT_EQ(d.scores, (std::vector<std::string>{"ClusterAffinityScore:1"}));
  EXPECT_EQ(d.nomination, "Top1");
  const auto lines = ProvenanceLines(p);
  auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("fleet             kueue, dispatcher composable"));
  EXPECT_TRUE(has("  profile         default (built in)"));
  EXPECT_TRUE(has("  filters         ClusterHealth, ClusterAffinity, ClusterTaints"));
  EXPECT_TRUE(has("  nomination      Top1"));
  EXPECT_TRUE(has("clusters          central, east, west"));
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) {
                            return l.find("profile         default-") != std::string::npos;
                          }),
            1);
  const auto j = ProvenanceJson(p);
  EXPECT_EQ(j["dispatcher"]["scheduler"], "kueue");
  EXPECT_EQ(j["dispatcher"]["config_path"], nullptr);
  EXPECT_EQ(j["schedulers"].size(), 3U);  // the JSON keeps one entry per cluster
}

// The manifests a scenario lists are hashed, resolved against the scenario's directory.
TEST(ProvenanceTest, ScenarioManifestsAreHashed) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/workloads-scale.yaml", in, diags);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_FALSE(spec->manifest_paths.empty());
  for (const auto& m : spec->manifest_paths) {
    EXPECT_TRUE(fs::exists(m)) << m;
    EXPECT_EQ(m, "examples/workloads/") << m;  // `../workloads/`, resolved and normalized
  }
  auto listed = DescribeInputs(spec->manifest_paths);
  ASSERT_TRUE(listed.ok());
  Provenance p;
  p.command = "simulate";
  p.manifests = *listed;
  const auto lines = ProvenanceLines(p);
  EXPECT_EQ(lines.front(), "manifests         " + spec->manifest_paths[0] + "  " +
                               *HashPath(spec->manifest_paths[0]));
  EXPECT_EQ(ProvenanceJson(p)["manifests"][0]["hash"], *HashPath(spec->manifest_paths[0]));
}

}  // namespace
}  // namespace corral::sim
