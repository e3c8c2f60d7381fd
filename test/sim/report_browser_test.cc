// The HTML report renders in headless Chromium: the page loads from a file:// URL without network access,
// Chromium exits cleanly, and the rendered DOM holds every chart. Skipped only when Chromium is not
// installed (scripts/install-deps.sh installs it). Also checks the report's structure without a browser.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/sim/report.h"
#include "sim_test_util.h"

namespace corral::sim {
namespace {

namespace fs = std::filesystem;

std::string SmallReport() {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/small.yaml", in, diags);
  EXPECT_TRUE(spec.ok());
  auto r = testing::RunSpec(*spec, in);
  return RenderHtmlReport(r.out.result);
}

constexpr const char* kCharts[] = {"chart-utilization", "chart-running",   "chart-pending",     "chart-activity",
                                   "chart-latency",     "chart-gang-wait", "chart-preemptions", "chart-batching",
                                   "heatmap-cpu",       "heatmap-memory",  "table-workloads"};

TEST(ReportTest, IsSelfContainedAndHasEveryChart) {
  std::string html = SmallReport();
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  for (const char* id : kCharts) EXPECT_THAT(html, ::testing::HasSubstr(fmt::format("id=\"{}\"", id))) << id;
  // No external resources: no script, no link, no remote URL other than the SVG namespace.
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("<script")));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("<link")));
  std::string stripped = html;
  for (size_t p; (p = stripped.find("http://www.w3.org/2000/svg")) != std::string::npos;) stripped.erase(p, 26);
  EXPECT_THAT(stripped, ::testing::Not(::testing::HasSubstr("http")));
  EXPECT_THAT(html, ::testing::HasSubstr("Preemptions over time"));
  EXPECT_THAT(html, ::testing::HasSubstr("Batching hits and flushes"));
}

std::string FindChromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// Runs a command, returns its exit status and stdout.
int RunCommand(const std::string& cmd, std::string& out) {
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return -1;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(ReportBrowserTest, RendersInHeadlessChromium) {
  std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  fs::path dir = fs::temp_directory_path() / fmt::format("corral-report-test-{}", getpid());
  fs::create_directories(dir);
  fs::path html = dir / "report.html";
  {
    std::ofstream f(html, std::ios::binary);
    f << SmallReport();
  }
  std::string flags = fmt::format(
      "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
      "--disable-sync --no-first-run --user-data-dir={} --window-size=1280,4000",
      (dir / "profile").string());
  std::string dom;
  int rc = RunCommand(fmt::format("timeout 120 {} {} --dump-dom file://{} 2>/dev/null", chromium, flags, html.string()), dom);
  ASSERT_EQ(rc, 0) << "chromium --dump-dom failed";
  EXPECT_THAT(dom, ::testing::HasSubstr("Corral simulation report"));
  for (const char* id : kCharts) EXPECT_THAT(dom, ::testing::HasSubstr(fmt::format("id=\"{}\"", id))) << id;
  // The SVG parsed as SVG (an XML error would replace the chart with a parser error element).
  EXPECT_THAT(dom, ::testing::Not(::testing::HasSubstr("parsererror")));
  EXPECT_THAT(dom, ::testing::HasSubstr("<polyline"));
  EXPECT_THAT(dom, ::testing::HasSubstr("<rect"));
  std::string shot_out;
  rc = RunCommand(fmt::format("timeout 120 {} {} --screenshot={} file://{} 2>/dev/null", chromium, flags,
                       (dir / "report.png").string(), html.string()),
           shot_out);
  ASSERT_EQ(rc, 0) << "chromium --screenshot failed";
  EXPECT_GT(fs::file_size(dir / "report.png"), 20000U);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace corral::sim
