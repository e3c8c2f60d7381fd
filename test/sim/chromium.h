#pragma once
// Headless Chromium for the report tests: find the binary, load a page from a file:// URL and dump
// its DOM, collecting uncaught JavaScript exceptions and console.error lines; a test fixture that
// skips without Chromium (and fails under CI, where the browser tests must run).

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace corral::sim::testing {

inline std::string FindChromium() {
  for (const char* p :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// Runs a command, returns its exit status and stdout.
inline int RunCommand(const std::string& cmd, std::string& out) {
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return -1;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// One page loaded in headless Chromium from a file:// URL.
struct Rendered {
  int rc = -1;
  std::string dom;
  // Uncaught JavaScript exceptions and console.error messages (Chromium's CONSOLE log lines).
  std::vector<std::string> js_errors;
};

// Writes `html` to dir/page.html and dumps its DOM.
inline Rendered RenderInChromium(const std::string& chromium, const std::filesystem::path& dir,
                                 const std::string& html, const std::string& extra_flags = "") {
  std::filesystem::path page = dir / "page.html";
  {
    std::ofstream f(page, std::ios::binary);
    f << html;
  }
  std::filesystem::path log = dir / "chromium.log";
  std::string flags = fmt::format(
      "--headless --no-sandbox --disable-gpu --disable-background-networking "
      "--disable-component-update "
      "--disable-sync --no-first-run --user-data-dir={} --window-size=1280,4000 "
      "--enable-logging=stderr --v=0 {}",
      (dir / "profile").string(), extra_flags);
  Rendered r;
  r.rc = RunCommand(fmt::format("timeout 120 {} {} --dump-dom file://{} 2>{}", chromium, flags,
                                page.string(), log.string()),
                    r.dom);
  std::ifstream lf(log);
  for (std::string line; std::getline(lf, line);) {
    if (line.find(":CONSOLE") == std::string::npos) continue;
    if (line.find("Uncaught") != std::string::npos ||
        line.find("ERROR:CONSOLE") != std::string::npos) {
      r.js_errors.push_back(line);
    }
  }
  return r;
}

// Skips without Chromium (fails under CI); gives each test a scratch directory.
class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = FindChromium();
    if (chromium_.empty()) {
      const char* ci = std::getenv("CI");
      if (ci != nullptr && *ci != '\0' && std::string_view(ci) != "false") {
        FAIL() << "chromium is not installed, and CI must run the browser tests "
                  "(scripts/install-deps.sh installs it)";
      }
      GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
    }
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("corral-report-test-{}-{}", getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string chromium_;
  std::filesystem::path dir_;
};

}  // namespace corral::sim::testing
