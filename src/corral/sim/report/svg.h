#pragma once
// Inline SVG charts for the HTML report: time-series line charts, histograms, heat maps and an
// empty-state panel. Pure string builders; coordinates are printed with fixed precision so the
// output is byte-stable.
//
// Charts are responsive: they carry a viewBox and `width="100%"`, so the page layout decides
// their size.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace corral::sim::svg {

inline constexpr std::string_view kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                                "#9c755f", "#bab0ac"};

std::string Escape(std::string_view s);

struct Series {
  std::string name;
  std::string color;
  std::vector<double> y;  // one value per x; NaN leaves a gap
  bool area = false;      // fill below the line
};

struct LineChartOptions {
  int width = 900;
  int height = 260;
  double y_min = 0;
  double y_max = 0;      // 0 ⇒ from the data
  bool percent = false;  // y values are fractions shown as %
  std::string y_label;
  std::string id;
};

// x values are virtual times in seconds.
std::string LineChart(const std::vector<double>& x, const std::vector<Series>& series,
                      const LineChartOptions& o);

struct Bar {
  std::string label;  // x tick label ("" for none)
  double value = 0;
};

struct HistogramOptions {
  int width = 900;
  int height = 240;
  std::string color = "#4e79a7";
  std::string y_label;
  std::string id;
};

std::string BarChart(const std::vector<Bar>& bars, const HistogramOptions& o);

struct HeatMapOptions {
  int width = 900;
  int row_height = 3;
  std::string id;
  std::string title;
};

struct HeatRowGroup {
  std::string label;  // shown at the first row of the group
  size_t first_row = 0;
};

// cells[row][col] in 0..200 (utilization × 200) or 255 (no node); x = column start times
// in seconds.
std::string HeatMap(const std::vector<std::vector<uint8_t>>& cells, const std::vector<double>& x,
                    const std::vector<HeatRowGroup>& groups, const HeatMapOptions& o);

// A labelled empty panel for a feature that has nothing to show.
std::string EmptyPanel(std::string_view title, std::string_view message, std::string_view id,
                       int height = 120, int width = 900);

// Time axis labels: "00:00", "12:30", "1d06h", "45s".
std::string TimeLabel(double seconds, double step);

// Viridis colour for t in [0, 1].
std::string Viridis(double t);

}  // namespace corral::sim::svg
