// Reliability regressions run through the `corral` binary in testdata/ (so messages name the files
// relatively). Every run is under `timeout 20`: an input that hangs again fails with exit 124
// instead of blocking the suite. The inputs are copies of counterexamples that once hung Corral,
// made batching on and off disagree, or were accepted wrongly.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs `corral <args>` in testdata/ with a 20 s timeout; `redirect` replaces the stdout capture
// (e.g. "> /dev/full").
RunResult RunCorral(const std::string& args, const std::string& redirect = "") {
  const std::string err_file =
      testing::TempDir() + "/corral-reliability-stderr-" + std::to_string(getpid()) + ".txt";
  std::string cmd = "cd '" CORRAL_RELIABILITY_TESTDATA "' && timeout 20 '" CORRAL_BINARY "' " +
                    args + " " + redirect + " 2>'" + err_file + "'";
  RunResult r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = ReadFile(err_file);
  std::remove(err_file.c_str());
  return r;
}

// The JSON output without its "stats" member (cycle counts and batching counters differ by design
// between batching on and off; placements, failures, groups and preemptions must not).
std::string WithoutStats(const std::string& json) {
  const size_t at = json.find("\"stats\"");
  return at == std::string::npos ? json : json.substr(0, at);
}

// Three gangs whose workload preemption once found room "without a victim" forever: the reprieve
// put a low-priority pod back into room promised to another gang's nominated member, the next
// cycle failed, and preemption ran again (ScheduleGroup → PreemptForGroup, no virtual
// time passing).
TEST(ReliabilityTest, HangSchedulePreemptionEnds) {
  for (const char* gates : {"", " --feature-gates=OpportunisticBatching=false"}) {
    RunResult r = RunCorral(std::string("schedule hang-schedule-preemption.yaml") + gates);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("11 scheduled, 0 unschedulable, 2 already bound"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("default/gang7        gang    6    6/6"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("team-a/gang10        gang    2    2/2"), std::string::npos) << r.out;
  }
}

// A random case that hung with batching on (workload-cycle gangs, preemption); it must end with the
// decisions of batching off.
TEST(ReliabilityTest, HangGangPreemptionBatchingEndsWithBatchingOffPlacements) {
  RunResult on = RunCorral("schedule hang-gang-preemption-batching.json -o json");
  RunResult off = RunCorral(
      "schedule hang-gang-preemption-batching.json -o json "
      "--feature-gates=OpportunisticBatching=false");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(on.out.find("\"pods_scheduled\": 306"), std::string::npos);
  EXPECT_EQ(WithoutStats(on.out), WithoutStats(off.out));
}

// At percentageOfNodesToScore 100, batching must not change a decision: the preemptor
// team-a/plain-2109 once went to node-098 with batching (the potential nodes followed the order
// the filter pass visited them in, which a batching hint leaves unrotated) and node-106 without.
TEST(ReliabilityTest, BatchingOnEqualsOffUnderPreemptionAtPercentage100) {
  RunResult on =
      RunCorral("schedule batching-differs-pct100.yaml --config percentage100.yaml -o json");
  RunResult off = RunCorral(
      "schedule batching-differs-pct100.yaml --config percentage100.yaml -o json "
      "--feature-gates=OpportunisticBatching=false");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(WithoutStats(on.out), WithoutStats(off.out));
  EXPECT_NE(on.out.find("\"pod\": \"team-a/plain-2109\",\n      \"node\": \"node-106\""),
            std::string::npos)
      << on.out;
}

// Quantities beyond the int64 range the scheduler counts them in were capped, so a 2·10^16-cpu
// pod fit a 10^16-cpu node.
TEST(ReliabilityTest, OutOfRangeQuantityIsAPositionedError) {
  RunResult r = RunCorral("schedule quantity-saturation-overcommit.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "quantity-saturation-overcommit.yaml:5: status.capacity[cpu]: invalid value "
            "\"10000000000000000\": out of range: cpu must be at most 9223372036854775807m (the "
            "int64 range the scheduler counts it in)\n"
            "quantity-saturation-overcommit.yaml:14: spec.containers[0].resources.requests[cpu]: "
            "invalid value \"20000000000000000\": out of range: cpu must be at most "
            "9223372036854775807m (the int64 range the scheduler counts it in)\n"
            "quantity-saturation-overcommit.yaml:23: spec.containers[0].resources.requests[cpu]: "
            "invalid value \"20000000000000000\": out of range: cpu must be at most "
            "9223372036854775807m (the int64 range the scheduler counts it in)\n");
}

TEST(ReliabilityTest, UnknownPluginsAndNegativeWeightArePositioned) {
  RunResult r =
      RunCorral("schedule hang-schedule-preemption.yaml --config config-unknown-plugins.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "config-unknown-plugins.yaml:8: profiles[0].plugins.multiPoint.enabled[0].name: "
            "Invalid value: \"NodeResourcesFitt\": plugin does not exist; did you mean "
            "\"NodeResourcesFit\"?\n"
            "config-unknown-plugins.yaml:11: profiles[0].plugins.score.disabled[0].name: Invalid "
            "value: \"Bogus\": plugin does not exist\n"
            "config-unknown-plugins.yaml:13: profiles[0].plugins.score.enabled[0].weight: Invalid "
            "value: -3: must be greater than or equal to 0\n");
}

TEST(ReliabilityTest, FrameworkBuildErrorsArePositioned) {
  RunResult r =
      RunCorral("schedule hang-schedule-preemption.yaml --config config-not-a-filter.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "config-not-a-filter.yaml:8: profiles[0].plugins: plugin \"ImageLocality\" does not "
            "extend FilterPlugin plugin\n");
}

// A FIFO named *.yaml in an input directory once blocked `corral validate` in open().
TEST(ReliabilityTest, FifoInInputDirectoryIsSkippedWithANote) {
  const std::string dir = testing::TempDir() + "/corral-fifo-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  ASSERT_EQ(mkfifo((dir + "/p.yaml").c_str(), 0600), 0);
  std::filesystem::copy_file(std::string(CORRAL_RELIABILITY_TESTDATA) + "/percentage100.yaml",
                             dir + "/config.yaml");
  RunResult r = RunCorral("validate '" + dir + "'");
  std::filesystem::remove_all(dir);
  EXPECT_NE(r.exit_code, 124) << "validate blocked on the FIFO";
  EXPECT_NE(r.err.find("p.yaml: warning: note: skipped (not a regular file)"), std::string::npos)
      << r.err;
}

TEST(ReliabilityTest, FullStdoutIsAFailure) {
  RunResult r = RunCorral("schedule hang-schedule-preemption.yaml", "> /dev/full");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "corral: cannot write the standard output: No space left on device\n");
}

TEST(ReliabilityTest, NegativeSeedIsAUsageError) {
  RunResult r = RunCorral("schedule hang-schedule-preemption.yaml --seed -5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--seed: must be an integer from 0 to 18446744073709551615, got -5"),
            std::string::npos)
      << r.err;
}

// docs/gangs.md: a topology-constrained group is never split; permit mode cannot promise that.
TEST(ReliabilityTest, PermitModeRefusesTopologyConstrainedGroups) {
  RunResult r = RunCorral("schedule batching-differs-pct100.yaml --gang-mode permit");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gang-mode permit: PodGroup team-a/gang24 has "
                       "spec.schedulingConstraints.topology"),
            std::string::npos)
      << r.err;
}

}  // namespace
