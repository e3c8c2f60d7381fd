// `corral sweep` through the binary: the example sweep run in one process, and again as three
// shards started as separate processes at the same time into one results directory, then merged —
// the comparison (text, JSON and HTML report) is byte-identical. Also: a second run over a complete
// directory skips every run and prints the same; a merge with a shard missing names the missing
// runs and fails; results of another sweep in the directory are refused.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr const char* kSpec = "examples/compare/sweep.yaml";

struct Out {
  int rc = -1;
  std::string out;
};

// Runs `corral <args>` (from the repository root, the tests' working directory), stderr to a file.
Out Corral(const std::string& args, const fs::path& err) {
  Out o;
  FILE* f = popen(fmt::format("'{}' {} 2>'{}'", CORRAL_BINARY, args, err.string()).c_str(), "r");
  if (f == nullptr) return o;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) o.out.append(buf, n);
  int st = pclose(f);
  o.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

std::string Slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class SweepShardsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("corral-sweep-test-{}-{}", getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SweepShardsTest, ShardsInSeparateProcessesMergeToTheSingleProcessResult) {
  const fs::path one = dir_ / "one", sharded = dir_ / "sharded", err = dir_ / "err";
  Out single = Corral(fmt::format("sweep {} --out {} -o json -j 2 --report {}", kSpec, one.string(),
                                  (dir_ / "one.html").string()),
                      err);
  ASSERT_EQ(single.rc, 0) << Slurp(err);
  ASSERT_THAT(single.out, HasSubstr("\"comparisons\""));

  // Three shards at once, each its own process (as the pods of an Indexed Job would be).
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::string shard = fmt::format("{}/3", i);
      execl(CORRAL_BINARY, CORRAL_BINARY, "sweep", kSpec, "--shard", shard.c_str(), "--out",
            sharded.c_str(), "-j", "1", "--quiet", static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st));
    ASSERT_EQ(WEXITSTATUS(st), 0);
  }
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(sharded)) files += e.path().extension() == ".json";
  EXPECT_EQ(files, 8U);  // 2 points × 2 variants × 2 seeds, every run exactly once

  Out merged = Corral(fmt::format("sweep merge {} -o json --report {}", sharded.string(),
                                  (dir_ / "merged.html").string()),
                      err);
  ASSERT_EQ(merged.rc, 0) << Slurp(err);
  EXPECT_EQ(merged.out, single.out);
  EXPECT_EQ(Slurp(dir_ / "merged.html"), Slurp(dir_ / "one.html"));
  // The run files themselves are identical too.
  for (const auto& e : fs::directory_iterator(one))
    EXPECT_EQ(Slurp(e.path()), Slurp(sharded / e.path().filename())) << e.path().filename();

  // Text output agrees as well, and a rerun over the complete directory skips every run.
  Out text_single = Corral(fmt::format("sweep {} --out {} --quiet", kSpec, one.string()), err);
  Out text_merged = Corral(fmt::format("sweep merge {}", sharded.string()), err);
  ASSERT_EQ(text_single.rc, 0);
  EXPECT_EQ(text_single.out, text_merged.out);
  EXPECT_THAT(text_single.out, HasSubstr("parameters: nodes.gpu=12"));
}

TEST_F(SweepShardsTest, MergeNamesMissingRunsAndRefusesForeignResults) {
  const fs::path d = dir_ / "partial", err = dir_ / "err";
  Out shard = Corral(fmt::format("sweep {} --shard 1/3 --out {} -j 1", kSpec, d.string()), err);
  ASSERT_EQ(shard.rc, 0) << Slurp(err);
  EXPECT_THAT(shard.out, HasSubstr("shard 1/3: 3 of 8 runs done"));
  Out merged = Corral(fmt::format("sweep merge {}", d.string()), err);
  EXPECT_EQ(merged.rc, 1);
  EXPECT_THAT(Slurp(err), HasSubstr("5 of 8 runs are missing (runs 0, 2, 3, 5, 6)"));

  // A result file of another sweep (its digest differs) is refused, not reused.
  fs::path file;
  for (const auto& e : fs::directory_iterator(d)) file = e.path();
  std::string text = Slurp(file);
  size_t at = text.find("\"digest\":\"");
  ASSERT_NE(at, std::string::npos);
  text[at + 10] = text[at + 10] == '0' ? '1' : '0';
  std::ofstream(file, std::ios::binary) << text;
  Out again = Corral(fmt::format("sweep {} --shard 1/3 --out {} -j 1", kSpec, d.string()), err);
  EXPECT_EQ(again.rc, 2);
  EXPECT_THAT(Slurp(err), HasSubstr("a result of another sweep"));
}

// `corral compare -j 3` (runs in child processes) prints exactly what `-j 1` (in process) prints.
TEST_F(SweepShardsTest, CompareInProcessesMatchesInProcess) {
  const fs::path err = dir_ / "err";
  const std::string args =
      "compare examples/compare/gpu-gangs.yaml --seeds 2 --variant default --variant "
      "gpu-binpack:config=examples/compare/gpu-most-allocated.yaml -o json";
  Out one = Corral(args + " -j 1", err);
  Out three = Corral(args + " -j 3", err);
  ASSERT_EQ(one.rc, 0) << Slurp(err);
  ASSERT_EQ(three.rc, 0) << Slurp(err);
  EXPECT_EQ(one.out, three.out);
  EXPECT_EQ(one.out, Slurp("test/e2e/cases/compare-gpu-binpack-json/expected.out"));
}

TEST_F(SweepShardsTest, UsageErrors) {
  const fs::path err = dir_ / "err";
  EXPECT_EQ(Corral(fmt::format("sweep {} --shard 3/3 --out {}", kSpec, dir_.string()), err).rc, 2);
  EXPECT_THAT(Slurp(err), HasSubstr("--shard: want I/N with 0 ≤ I < N, got \"3/3\""));
  EXPECT_EQ(Corral(fmt::format("sweep {} --shard 0/2", kSpec), err).rc, 2);
  EXPECT_THAT(Slurp(err), HasSubstr("--shard needs --out DIR"));
  EXPECT_EQ(Corral(fmt::format("sweep {} --emit-job --shards 2", kSpec), err).rc, 2);
  EXPECT_THAT(Slurp(err), HasSubstr("--emit-job needs --results-claim"));
  EXPECT_EQ(Corral(fmt::format("sweep {} --shards 4 --out {}", kSpec, dir_.string()), err).rc, 2);
  EXPECT_THAT(Slurp(err), HasSubstr("--shards requires --emit-job"));
  EXPECT_EQ(Corral(fmt::format("sweep {} --report /no/such/dir/r.html", kSpec), err).rc, 2);
  EXPECT_THAT(Slurp(err), HasSubstr("does not exist"));
}

}  // namespace
