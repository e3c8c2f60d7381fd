// The fleet panel of the HTML report, in the report's HTML and in headless Chromium's rendered DOM:
// the Karmada example (three members) has the "Fleet dispatching" section with a row per member
// (what the fleet sent there) and a drawn dispatch latency chart; the check names what is missing
// when the panel, a member's row or the chart is taken out. Without Chromium the browser test is
// skipped (and fails under CI), as in report_browser_test.cc.

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/sim/fleet_spec.h"
#include "corral/sim/report/report.h"

#include "chromium.h"
#include "sim_test_util.h"

namespace corral::sim {
namespace {

struct FleetReport {
  std::string html;
  std::vector<std::string> members;
};

FleetReport KarmadaReport() {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/fleet-karmada.yaml", in, diags);
  EXPECT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  if (!spec.ok()) return {};
  auto r = testing::RunSpec(*spec, in);
  FleetReport out;
  EXPECT_NE(r.out.result.fleet, nullptr);
  if (r.out.result.fleet == nullptr) return out;
  for (const FleetMemberResult& m : r.out.result.fleet->members) out.members.push_back(m.name);
  out.html = RenderHtmlReport(r.out.result);
  return out;
}

// What the fleet panel of `dom` lacks: "fleet panel" (no <section id="fleet">), "member NAME" (no
// row data-member="NAME" in its member table), "latency chart" (no chart-fleet-latency SVG with a
// drawn bar), "timeline chart" (no chart-fleet SVG with a line).
std::vector<std::string> FleetPanelProblems(const std::string& dom,
                                            const std::vector<std::string>& members) {
  const size_t open = dom.find("<section class=\"card\" id=\"fleet\"");
  if (open == std::string::npos) return {"fleet panel"};
  const size_t close = dom.find("</section>", open);
  const std::string_view panel(dom.data() + open,
                               (close == std::string::npos ? dom.size() : close) - open);
  std::vector<std::string> out;
  const size_t table = panel.find("id=\"table-fleet-members\"");
  const size_t table_end = panel.find("</table>", table);
  for (const std::string& m : members) {
    const size_t row = panel.find(fmt::format("data-member=\"{}\"", m), table);
    if (table == std::string_view::npos || row == std::string_view::npos || row > table_end) {
      out.push_back("member " + m);
    }
  }
  auto drawn = [&](std::string_view id, std::string_view mark) {
    const size_t at = panel.find(fmt::format("id=\"{}\"", id));
    if (at == std::string_view::npos) return false;
    const size_t svg = panel.rfind("<svg", at);
    const size_t end = panel.find("</svg>", at);
    return svg != std::string_view::npos && end != std::string_view::npos &&
           panel.substr(at, end - at).find(mark) != std::string_view::npos;
  };
  if (!drawn("chart-fleet-latency", "<rect")) out.emplace_back("latency chart");
  if (!drawn("chart-fleet", "<polyline")) out.emplace_back("timeline chart");
  return out;
}

TEST(FleetReportTest, HasTheFleetPanelAndTheCheckFailsWithoutIt) {
  FleetReport r = KarmadaReport();
  ASSERT_THAT(r.members, ::testing::ElementsAre("east", "small", "west"));
  EXPECT_THAT(FleetPanelProblems(r.html, r.members), ::testing::IsEmpty());
  // Without the panel.
  const size_t open = r.html.find("<section class=\"card\" id=\"fleet\"");
  ASSERT_NE(open, std::string::npos);
  const size_t close = r.html.find("</section>", open) + std::string_view("</section>").size();
  EXPECT_THAT(FleetPanelProblems(r.html.substr(0, open) + r.html.substr(close), r.members),
              ::testing::ElementsAre("fleet panel"));
  // Without one member's row.
  std::string no_small = r.html;
  const size_t row = no_small.find("<tr data-member=\"small\"");
  ASSERT_NE(row, std::string::npos);
  no_small.erase(row, no_small.find("</tr>", row) + 5 - row);
  EXPECT_THAT(FleetPanelProblems(no_small, r.members), ::testing::ElementsAre("member small"));
  // Without the latency chart's bars.
  std::string no_bars = r.html;
  const size_t chart = no_bars.find("id=\"chart-fleet-latency\"");
  ASSERT_NE(chart, std::string::npos);
  const size_t chart_end = no_bars.find("</svg>", chart);
  no_bars.replace(chart, chart_end - chart, "id=\"chart-fleet-latency\">");
  EXPECT_THAT(FleetPanelProblems(no_bars, r.members), ::testing::ElementsAre("latency chart"));
}

// Every member received copies in the Karmada example, and the table's numbers are the result's.
TEST(FleetReportTest, MemberRowsHoldTheCopiesSent) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadScenarioFile("examples/scenarios/fleet-karmada.yaml", in, diags);
  ASSERT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  auto r = testing::RunSpec(*spec, in);
  ASSERT_NE(r.out.result.fleet, nullptr);
  const FleetResult& f = *r.out.result.fleet;
  int64_t copies = 0;
  for (const FleetMemberResult& m : f.members) {
    EXPECT_GT(m.copies, 0) << m.name;
    copies += m.copies;
  }
  EXPECT_EQ(copies, f.copies_created);
  const std::string html = RenderHtmlReport(r.out.result);
  for (const FleetMemberResult& m : f.members) {
    EXPECT_THAT(html, ::testing::HasSubstr(fmt::format(
                          "<tr data-member=\"{0}\"><td>{0}</td><td>{1}</td><td>{2}</td>", m.name,
                          m.copies, m.replicas)));
  }
}

using FleetReportBrowserTest = testing::BrowserTest;

TEST_F(FleetReportBrowserTest, FleetPanelRendersWithEveryMemberAndTheLatencyChart) {
  FleetReport r = KarmadaReport();
  ASSERT_EQ(r.members.size(), 3U);
  testing::Rendered page = testing::RenderInChromium(chromium_, dir_, r.html, "--disable-quic");
  ASSERT_EQ(page.rc, 0) << "chromium --dump-dom failed";
  EXPECT_THAT(page.js_errors, ::testing::IsEmpty());
  EXPECT_THAT(page.dom, ::testing::Not(::testing::HasSubstr("parsererror")));
  EXPECT_THAT(page.dom, ::testing::HasSubstr("Fleet dispatching"));
  EXPECT_THAT(FleetPanelProblems(page.dom, r.members), ::testing::IsEmpty());
  // The same check on a page whose fleet panel is gone fails in the browser too.
  const size_t open = r.html.find("<section class=\"card\" id=\"fleet\"");
  const size_t close = r.html.find("</section>", open) + std::string_view("</section>").size();
  testing::Rendered without = testing::RenderInChromium(
      chromium_, dir_, r.html.substr(0, open) + r.html.substr(close), "--disable-quic");
  ASSERT_EQ(without.rc, 0);
  EXPECT_THAT(FleetPanelProblems(without.dom, r.members), ::testing::ElementsAre("fleet panel"));
}

}  // namespace
}  // namespace corral::sim
