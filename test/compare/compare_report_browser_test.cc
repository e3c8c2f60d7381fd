// The comparison report of examples/compare (kube's default scoring against GPU bin-packing) in
// headless Chromium: the page loads from a file:// URL with no JavaScript error, every chart of
// the rendered DOM overlays all variants on one set of axes — one legend entry per variant, in
// variant order, and one line per variant in its colour — the time charts share one x axis (the
// same tick labels), the utilization and wait-distribution charts one y axis (0–100%), and a
// screenshot is not blank. Skipped when Chromium is not installed, except under CI.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
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
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

int RunCommand(const std::string& cmd, std::string& out) {
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return -1;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string Slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string FindChromium() {
  for (const char* p :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// One chart of the DOM: its id, legend texts, the colours of its lines, x and y tick labels.
struct Chart {
  std::string id;
  std::vector<std::string> legend;
  std::set<std::string> line_colors;
  std::vector<std::string> x_ticks, y_ticks;
};

// The value of attribute `name` in the tag that starts at `tag`.
std::string Attr(std::string_view tag, std::string_view name) {
  std::string pat = fmt::format(" {}=\"", name);
  size_t at = tag.find(pat);
  if (at == std::string_view::npos) return "";
  size_t end = tag.find('"', at + pat.size());
  return std::string(tag.substr(at + pat.size(), end - at - pat.size()));
}

// Charts as LineChart draws them: legend labels are the <text> at y="17", x ticks the <text
// text-anchor="middle"> below the plot, y ticks the <text text-anchor="end">.
std::vector<Chart> ParseCharts(const std::string& dom) {
  std::vector<Chart> charts;
  for (size_t at = dom.find("<svg"); at != std::string::npos; at = dom.find("<svg", at + 1)) {
    size_t end = dom.find("</svg>", at);
    std::string_view svg(dom.data() + at, end - at);
    Chart c;
    c.id = Attr(svg.substr(0, svg.find('>')), "id");
    if (!c.id.starts_with("chart-")) continue;
    for (size_t t = svg.find("<text"); t != std::string_view::npos; t = svg.find("<text", t + 1)) {
      size_t close = svg.find('>', t);
      std::string_view tag = svg.substr(t, close - t);
      std::string text(svg.substr(close + 1, svg.find("</text>", close) - close - 1));
      if (Attr(tag, "y") == "17") {
        c.legend.push_back(text);
      } else if (Attr(tag, "text-anchor") == "middle" && Attr(tag, "transform").empty()) {
        c.x_ticks.push_back(text);
      } else if (Attr(tag, "text-anchor") == "end") {
        c.y_ticks.push_back(text);
      }
    }
    for (size_t p = svg.find("<polyline"); p != std::string_view::npos;
         p = svg.find("<polyline", p + 1)) {
      c.line_colors.insert(Attr(svg.substr(p, svg.find('>', p) - p), "stroke"));
    }
    charts.push_back(std::move(c));
  }
  return charts;
}

class CompareReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("corral-compare-report-{}", getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

const std::vector<std::string> kVariants = {"default", "gpu-binpack", "gpu-rtcr"};

TEST_F(CompareReportBrowserTest, ChartsShareAxesWithALegendEntryPerVariant) {
  const fs::path report = dir_ / "compare.html";
  std::string out;
  ASSERT_EQ(RunCommand(fmt::format("'{}' compare examples/compare/gpu-gangs.yaml --seeds 3 --quiet "
                                   "--variant default --variant "
                                   "'gpu-binpack:config=examples/compare/gpu-most-allocated.yaml' "
                                   "--variant "
                                   "'gpu-rtcr:config=examples/compare/"
                                   "gpu-requested-to-capacity.yaml' --report {}",
                                   CORRAL_BINARY, report.string()),
                       out),
            0);
  const std::string html = Slurp(report);
  ASSERT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<script")));

  std::string chromium = FindChromium();
  if (chromium.empty()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && *ci != '\0' && std::string_view(ci) != "false") {
      FAIL() << "chromium is not installed, and CI must run the browser tests";
    }
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  }
  const std::string flags = fmt::format(
      "--headless --no-sandbox --disable-gpu --disable-background-networking "
      "--disable-component-update --disable-sync --disable-quic --no-first-run "
      "--user-data-dir={} --window-size=1400,3000",
      (dir_ / "profile").string());
  std::string dom;
  ASSERT_EQ(RunCommand(fmt::format("timeout 120 {} {} --enable-logging=stderr --v=0 --dump-dom "
                                   "file://{} 2>{}",
                                   chromium, flags, report.string(), (dir_ / "log").string()),
                       dom),
            0);
  EXPECT_THAT(dom, ::testing::Not(HasSubstr("parsererror")));
  std::string log = Slurp(dir_ / "log");
  EXPECT_THAT(log, ::testing::Not(HasSubstr("Uncaught")));

  std::vector<Chart> charts = ParseCharts(dom);
  std::set<std::string> ids;
  for (const auto& c : charts) ids.insert(c.id);
  for (const char* want : {"chart-pending-0", "chart-running-0", "chart-util-0-0", "chart-util-2-0",
                           "chart-pod-wait-0", "chart-gang-wait-0"}) {
    EXPECT_TRUE(ids.contains(want)) << want;
  }
  const std::vector<std::string>* time_ticks = nullptr;
  for (const auto& c : charts) {
    // One legend entry per variant, in order; a line per variant in the palette's first colours.
    EXPECT_THAT(c.legend, ElementsAreArray(kVariants)) << c.id;
    EXPECT_THAT(c.line_colors, ::testing::IsSupersetOf({"#4e79a7", "#f28e2b", "#e15759"})) << c.id;
    bool time_chart = c.id.starts_with("chart-pending") || c.id.starts_with("chart-running") ||
                      c.id.starts_with("chart-util");
    if (time_chart) {
      if (time_ticks == nullptr) time_ticks = &c.x_ticks;
      EXPECT_EQ(c.x_ticks, *time_ticks) << c.id << ": x axis differs";
      EXPECT_EQ(c.x_ticks.back(), "06:00") << c.id;
    }
    if (c.id.starts_with("chart-util") || c.id.find("wait") != std::string::npos) {
      ASSERT_FALSE(c.y_ticks.empty()) << c.id;
      EXPECT_EQ(c.y_ticks.front(), "0%") << c.id;
      EXPECT_EQ(c.y_ticks.back(), "100%") << c.id;
    }
  }
  // The check can fail: a chart missing a variant's legend entry is caught.
  std::string broken = dom;
  size_t at = broken.find(">gpu-rtcr</text>");
  ASSERT_NE(at, std::string::npos);
  broken.replace(at, 16, ">other</text>");
  std::vector<Chart> bad = ParseCharts(broken);
  EXPECT_FALSE(::testing::Matches(ElementsAreArray(kVariants))(bad[0].legend));

  std::string shot;
  ASSERT_EQ(RunCommand(fmt::format("timeout 120 {} {} --screenshot={} file://{} 2>/dev/null",
                                   chromium, flags, (dir_ / "shot.png").string(), report.string()),
                       shot),
            0);
  std::string check;
  EXPECT_EQ(RunCommand(fmt::format("python3 test/sim/png_not_blank.py {} 2>&1",
                                   (dir_ / "shot.png").string()),
                       check),
            0)
      << check;
}

}  // namespace
