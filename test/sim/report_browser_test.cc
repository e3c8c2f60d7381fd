// The HTML report renders in headless Chromium: the page loads from a file:// URL without network
// access, Chromium exits cleanly, no JavaScript error or console.error is logged, and the rendered
// DOM holds every chart. Skipped when Chromium is not installed (scripts/install-deps.sh installs
// it), except under CI (the CI environment variable set), where a missing Chromium fails. Also
// checks the report's structure without a browser, and that the report of a run with several
// clusters has a panel with a drawn chart for every cluster and for the fleet total.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/sim/report/output.h"
#include "corral/sim/report/report.h"

#include "chromium.h"
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

constexpr const char* kCharts[] = {"chart-utilization", "chart-running",  "chart-pending",
                                   "chart-activity",    "chart-latency",  "chart-gang-wait",
                                   "chart-preemptions", "chart-batching", "heatmap-cpu",
                                   "heatmap-memory",    "table-workloads"};

TEST(ReportTest, IsSelfContainedAndHasEveryChart) {
  std::string html = SmallReport();
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  for (const char* id : kCharts)
    EXPECT_THAT(html, ::testing::HasSubstr(fmt::format("id=\"{}\"", id))) << id;
  // No external resources: no script, no link, no remote URL other than the SVG namespace.
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("<script")));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("<link")));
  std::string stripped = html;
  for (size_t p; (p = stripped.find("http://www.w3.org/2000/svg")) != std::string::npos;)
    stripped.erase(p, 26);
  EXPECT_THAT(stripped, ::testing::Not(::testing::HasSubstr("http")));
  EXPECT_THAT(html, ::testing::HasSubstr("Preemptions over time"));
  EXPECT_THAT(html, ::testing::HasSubstr("Batching hits and flushes"));
}

std::string ThreeClustersReport(std::vector<std::string>& names) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/three-clusters.yaml", in, diags);
  EXPECT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  if (!spec.ok()) return "";
  auto r = testing::RunSpec(*spec, in);
  for (const auto& c : r.out.result.clusters) names.push_back(c.name);
  return RenderHtmlReport(r.out.result);
}

// The clusters (by name; "" is the fleet total) whose panel is missing from a report's HTML or
// rendered DOM, or holds no drawn SVG: a panel is the <section> whose data-cluster attribute names
// the cluster, and it must contain an <svg> with a <polyline> or a <rect> inside.
std::vector<std::string> ClustersWithoutPanel(const std::string& dom,
                                              const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  std::vector<std::string> all = names;
  all.insert(all.begin(), "");
  for (const auto& name : all) {
    std::string attr = fmt::format("data-cluster=\"{}\"", name);
    size_t at = dom.find(attr);
    size_t open = at == std::string::npos ? at : dom.rfind("<section", at);
    size_t close = at == std::string::npos ? at : dom.find("</section>", at);
    if (open == std::string::npos || close == std::string::npos ||
        dom.find("cluster-panel", open) > at) {
      missing.push_back(name);
      continue;
    }
    std::string_view panel(dom.data() + open, close - open);
    size_t svg = panel.find("<svg");
    if (svg == std::string_view::npos || (panel.find("<polyline", svg) == std::string_view::npos &&
                                          panel.find("<rect", svg) == std::string_view::npos)) {
      missing.push_back(name);
    }
  }
  return missing;
}

TEST(ReportTest, HasAPanelPerClusterAndTheCheckFailsWithoutOne) {
  std::vector<std::string> names;
  std::string html = ThreeClustersReport(names);
  ASSERT_THAT(names, ::testing::ElementsAre("web", "batch", "gpu"));
  EXPECT_THAT(ClustersWithoutPanel(html, names), ::testing::IsEmpty());
  // Drop the batch panel: the check names it.
  size_t at = html.find("data-cluster=\"batch\"");
  ASSERT_NE(at, std::string::npos);
  size_t open = html.rfind("<section", at);
  size_t close = html.find("</section>", at) + std::string_view("</section>").size();
  std::string without = html.substr(0, open) + html.substr(close);
  EXPECT_THAT(ClustersWithoutPanel(without, names), ::testing::ElementsAre("batch"));
  // A panel without a chart counts as missing too.
  std::string empty_gpu = html;
  size_t gpu = empty_gpu.find("data-cluster=\"gpu\"");
  size_t gpu_end = empty_gpu.find("</section>", gpu);
  empty_gpu.replace(gpu, gpu_end - gpu, "data-cluster=\"gpu\">");
  EXPECT_THAT(ClustersWithoutPanel(empty_gpu, names), ::testing::ElementsAre("gpu"));
  // A run of one cluster has no cluster panels.
  EXPECT_THAT(SmallReport(), ::testing::Not(::testing::HasSubstr("cluster-panel")));
}

// CSV and Prometheus text of a run with clusters: per-cluster columns and `cluster` labels; a run
// of one cluster has neither.
TEST(OutputTest, PerClusterColumnsAndLabelsOnlyWithClusters) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/three-clusters.yaml", in, diags);
  ASSERT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  auto r = testing::RunSpec(*spec, in);
  std::string csv = FormatCsv(r.out.result);
  std::string header = csv.substr(0, csv.find('\n'));
  for (const char* col : {",web_pending,", ",web_util_cpu,", ",batch_pending,", ",gpu_pending,",
                          ",gpu_util_nvidia.com/gpu,"}) {
    EXPECT_THAT(header, ::testing::HasSubstr(col));
  }
  // Every row has as many fields as the header.
  auto fields = [](std::string_view line) { return std::count(line.begin(), line.end(), ',') + 1; };
  size_t nl = csv.find('\n');
  std::string_view row(csv.data() + nl + 1, csv.find('\n', nl + 1) - nl - 1);
  EXPECT_EQ(fields(row), fields(header));
  std::string prom = FormatPrometheus(r.out.result);
  for (const char* line : {"corral_sim_pods{cluster=\"gpu\",state=\"pending\"} 8",
                           "corral_sim_nodes{cluster=\"batch\"} 3",
                           "corral_sim_pod_scheduling_latency_seconds_count{cluster=\"web\"}",
                           "corral_sim_scheduling_cycles_total{cluster=\"gpu\"} 30",
                           "corral_sim_utilization_ratio{cluster=\"batch\",resource=\"cpu\","
                           "stat=\"mean\"}"}) {
    EXPECT_THAT(prom, ::testing::HasSubstr(line));
  }

  Interner in1 = api::NewInterner();
  Diagnostics diags1;
  auto small = LoadScenarioFile("examples/scenarios/small.yaml", in1, diags1);
  ASSERT_TRUE(small.ok());
  auto r1 = testing::RunSpec(*small, in1);
  EXPECT_THAT(FormatCsv(r1.out.result), ::testing::Not(::testing::HasSubstr("_pending")));
  EXPECT_THAT(FormatPrometheus(r1.out.result), ::testing::Not(::testing::HasSubstr("cluster=")));
}

using testing::Rendered;
using testing::RenderInChromium;
using testing::RunCommand;
using ReportBrowserTest = testing::BrowserTest;

// The JavaScript error check can fail: a page that throws is caught.
TEST_F(ReportBrowserTest, DetectsJavaScriptErrors) {
  Rendered r = RenderInChromium(chromium_, dir_,
                                "<!DOCTYPE html><html><body><p>x</p><script>console.log('fine');"
                                "throw new Error('corral-test-boom');</script></body></html>");
  ASSERT_EQ(r.rc, 0);
  ASSERT_EQ(r.js_errors.size(), 1U);
  EXPECT_THAT(r.js_errors[0], ::testing::HasSubstr("corral-test-boom"));
}

TEST_F(ReportBrowserTest, RendersInHeadlessChromiumWithoutErrors) {
  std::string report = SmallReport();
  Rendered r = RenderInChromium(chromium_, dir_, report);
  ASSERT_EQ(r.rc, 0) << "chromium --dump-dom failed";
  EXPECT_THAT(r.js_errors, ::testing::IsEmpty());
  EXPECT_THAT(r.dom, ::testing::HasSubstr("Corral simulation report"));
  for (const char* id : kCharts)
    EXPECT_THAT(r.dom, ::testing::HasSubstr(fmt::format("id=\"{}\"", id))) << id;
  // The SVG parsed as SVG (an XML error would replace the chart with a parser error element).
  EXPECT_THAT(r.dom, ::testing::Not(::testing::HasSubstr("parsererror")));
  EXPECT_THAT(r.dom, ::testing::HasSubstr("<polyline"));
  EXPECT_THAT(r.dom, ::testing::HasSubstr("<rect"));
  // A screenshot: the page paints (a blank page compresses to a few KB).
  std::string shot_out;
  int rc = RunCommand(
      fmt::format(
          "timeout 120 {} --headless --no-sandbox --disable-gpu --no-first-run "
          "--user-data-dir={} --window-size=1280,4000 --screenshot={} file://{} 2>/dev/null",
          chromium_, (dir_ / "profile2").string(), (dir_ / "report.png").string(),
          (dir_ / "page.html").string()),
      shot_out);
  ASSERT_EQ(rc, 0) << "chromium --screenshot failed";
  EXPECT_GT(fs::file_size(dir_ / "report.png"), 20000U);
}

// The three-cluster example's report in headless Chromium: every cluster's panel and the fleet
// total are in the rendered DOM with a drawn chart, and a 1400x3000 screenshot is not blank
// (test/sim/png_not_blank.py decodes the PNG with the Python standard library and counts colors).
TEST_F(ReportBrowserTest, ThreeClusterReportHasEveryClusterPanel) {
  std::vector<std::string> names;
  std::string report = ThreeClustersReport(names);
  ASSERT_EQ(names.size(), 3U);
  Rendered r = RenderInChromium(chromium_, dir_, report, "--disable-quic");
  ASSERT_EQ(r.rc, 0) << "chromium --dump-dom failed";
  EXPECT_THAT(r.js_errors, ::testing::IsEmpty());
  EXPECT_THAT(r.dom, ::testing::Not(::testing::HasSubstr("parsererror")));
  EXPECT_THAT(ClustersWithoutPanel(r.dom, names), ::testing::IsEmpty());
  for (size_t c = 0; c < names.size(); ++c) {
    for (const char* chart : {"utilization", "pending", "latency"}) {
      EXPECT_THAT(r.dom, ::testing::HasSubstr(fmt::format("id=\"cluster-{}-{}\"", c, chart)));
    }
  }
  std::string shot_out;
  int rc = RunCommand(
      fmt::format("timeout 120 {} --headless --no-sandbox --disable-gpu --disable-quic "
                  "--no-first-run --disable-background-networking --disable-component-update "
                  "--disable-sync --user-data-dir={} --window-size=1400,3000 --screenshot={} "
                  "file://{} 2>/dev/null",
                  chromium_, (dir_ / "profile2").string(), (dir_ / "clusters.png").string(),
                  (dir_ / "page.html").string()),
      shot_out);
  ASSERT_EQ(rc, 0) << "chromium --screenshot failed";
  std::string check_out;
  EXPECT_EQ(RunCommand(fmt::format("python3 test/sim/png_not_blank.py {} 2>&1",
                                   (dir_ / "clusters.png").string()),
                       check_out),
            0)
      << check_out;
}

}  // namespace
}  // namespace corral::sim
