// End-to-end: runs the `corral` binary on the examples and compares stdout, stderr and the exit
// code with golden files in testdata/. Set CORRAL_UPDATE_GOLDEN=1 to rewrite the golden files.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
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

// Runs `corral <args>` in the source directory (so paths in messages are relative and stable).
RunResult RunCorral(const std::string& args) {
  // One stderr file per test process: ctest runs the tests of this binary concurrently.
  std::string err_file =
      testing::TempDir() + "/corral-validate-stderr-" + std::to_string(getpid()) + ".txt";
  std::string cmd =
      "cd '" CORRAL_SOURCE_DIR "' && '" CORRAL_BINARY "' " + args + " 2>'" + err_file + "'";
  RunResult r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = ReadFile(err_file);
  std::remove(err_file.c_str());
  return r;
}

void ExpectGolden(const std::string& name, const std::string& got) {
  std::string path = std::string(CORRAL_LOADER_TESTDATA) + "/" + name;
  if (std::getenv("CORRAL_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << got;
    return;
  }
  EXPECT_EQ(got, ReadFile(path)) << "golden file " << path
                                 << " (CORRAL_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(ValidateCliTest, BasicExampleTable) {
  RunResult r = RunCorral("validate examples/basic");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  ExpectGolden("validate-basic.golden", r.out);
}

TEST(ValidateCliTest, BasicExampleJson) {
  RunResult r = RunCorral("validate -o json examples/basic");
  EXPECT_EQ(r.exit_code, 0);
  ExpectGolden("validate-basic-json.golden", r.out);
}

TEST(ValidateCliTest, FiveMistakesExitTwoWithAllDiagnostics) {
  RunResult r = RunCorral("validate examples/errors/five-mistakes.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  ExpectGolden("validate-five-mistakes-stderr.golden", r.err);
}

TEST(ValidateCliTest, KubectlDumpIsClean) {
  RunResult r = RunCorral(
      "validate test/loader/testdata/kubectl-dump.yaml test/loader/testdata/kubectl-dump.json");
  // The same objects twice: every object of the second file is a duplicate.
  EXPECT_EQ(r.exit_code, 2);
  RunResult y = RunCorral("validate test/loader/testdata/kubectl-dump.yaml");
  EXPECT_EQ(y.exit_code, 0);
  EXPECT_EQ(y.err, "");
  ExpectGolden("validate-kubectl-dump.golden", y.out);
}

TEST(ValidateCliTest, WarningsExitZeroUnlessStrict) {
  std::string file = testing::TempDir() + "/corral-warn.yaml";
  std::ofstream(file) << "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, colour: blue}\n";
  // Unknown fields are errors unless kubectl's --validate=warn relaxes them to warnings.
  EXPECT_EQ(RunCorral("validate '" + file + "'").exit_code, 2);
  RunResult r = RunCorral("validate --validate=warn '" + file + "'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("warning: metadata.colour: unknown field \"colour\""), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 unknown fields ignored (named in the warnings)"), std::string::npos)
      << r.out;
  RunResult s = RunCorral("validate --validate=warn --strict '" + file + "'");
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_NE(s.err.find(": metadata.colour: unknown field \"colour\""), std::string::npos) << s.err;
}

TEST(ValidateCliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunCorral("validate").exit_code, 2);
  EXPECT_EQ(RunCorral("validate -o yaml examples/basic").exit_code, 2);
  RunResult missing = RunCorral("validate does/not/exist.yaml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(
      missing.err,
      "does/not/exist.yaml: no such file or directory\ncorral validate: 1 errors, 0 warnings\n");
}

}  // namespace
