#include "corral/core/output_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

namespace corral {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corral-output-file-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutputFileTest, PathErrorsNameTheFlagAndTheProblem) {
  EXPECT_EQ(CheckOutputPath("--report", (dir_ / "r.html").string()), "");
  EXPECT_EQ(CheckOutputPath("--report", (dir_ / "missing" / "r.html").string()),
            "--report: directory \"" + (dir_ / "missing").string() + "\" does not exist");
  EXPECT_EQ(CheckOutputPath("--csv", dir_.string()),
            "--csv: \"" + dir_.string() + "\" is a directory");
  std::ofstream(dir_ / "plain") << "x";
  EXPECT_EQ(CheckOutputPath("--metrics", (dir_ / "plain" / "m.txt").string()),
            "--metrics: \"" + (dir_ / "plain").string() + "\" is not a directory");
  EXPECT_EQ(CheckOutputPath("--csv", ""), "--csv: \"\" does not name a file");
}

TEST_F(OutputFileTest, WritesWholeAndLeavesNoTemporaryFile) {
  const std::string path = (dir_ / "out.txt").string();
  ASSERT_TRUE(WriteFileAtomically(path, "first\n").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second\n").ok());
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  EXPECT_FALSE(WriteFileAtomically((dir_ / "missing" / "x").string(), "x").ok());
}

}  // namespace
}  // namespace corral
