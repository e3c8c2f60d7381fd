#include "corral/sim/report/svg.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace corral::sim::svg {

namespace {

constexpr int kLeft = 58, kRight = 16, kTop = 28, kBottom = 34;
constexpr std::string_view kAxis = "#9aa3ad";
constexpr std::string_view kGrid = "#e6e9ee";
constexpr std::string_view kText = "#4a5360";

double NiceStep(double range, int target) {
  if (!(range > 0)) return 1;
  double raw = range / target;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / mag;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return nice * mag;
}

double TimeStep(double range) {
  static constexpr double kSteps[] = {1,     2,     5,     10,    15,    30,     60,
                                      120,   300,   600,   900,   1800,  3600,   7200,
                                      10800, 14400, 21600, 43200, 86400, 172800, 604800};
  for (double s : kSteps) {
    if (range / s <= 8) return s;
  }
  return 604800 * std::ceil(range / 604800 / 8);
}

std::string YLabel(double v, bool percent) {
  if (percent) return fmt::format("{:g}%", std::round(v * 1000) / 10);
  double a = std::fabs(v);
  if (a >= 1e6) return fmt::format("{:g}M", std::round(v / 1e5) / 10);
  if (a >= 1e4) return fmt::format("{:g}k", std::round(v / 1e2) / 10);
  return fmt::format("{:g}", std::round(v * 100) / 100);
}

std::string Num(double v) {
  return fmt::format("{:.1f}", v);
}

// The x axis's baseline under a plot of `pw` × `ph` pixels, and the rotated y-axis label (none when
// empty), as the line and bar charts draw them.
void AppendBaselineAndYLabel(std::string& s, int pw, int ph, std::string_view y_label) {
  s += fmt::format(R"svg(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)svg", kLeft, kTop + ph,
                   kLeft + pw, kTop + ph, kAxis);
  if (!y_label.empty()) {
    s += fmt::format(
        R"svg(<text x="12" y="{}" font-size="11" fill="{}" transform="rotate(-90 12 {})" )svg"
        R"svg(text-anchor="middle">{}</text>)svg",
        kTop + ph / 2, kText, kTop + ph / 2, Escape(y_label));
  }
}
}  // namespace

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string TimeLabel(double seconds, double step) {
  auto s = static_cast<int64_t>(std::llround(seconds));
  if (step < 60) {
    if (s < 60) return fmt::format("{}s", s);
    return fmt::format("{}:{:02}", s / 60, s % 60);
  }
  int64_t d = s / 86400, h = (s / 3600) % 24, m = (s / 60) % 60;
  if (d > 0) return h == 0 && m == 0 ? fmt::format("{}d", d) : fmt::format("{}d{:02}h", d, h);
  return fmt::format("{:02}:{:02}", h, m);
}

std::string Viridis(double t) {
  static constexpr std::array<std::array<int, 3>, 9> kStops = {{{68, 1, 84},
                                                                {71, 45, 123},
                                                                {59, 82, 139},
                                                                {44, 114, 142},
                                                                {33, 145, 140},
                                                                {40, 174, 128},
                                                                {94, 201, 98},
                                                                {173, 220, 48},
                                                                {253, 231, 37}}};
  t = std::clamp(t, 0.0, 1.0) * 8;
  auto i = static_cast<size_t>(std::min(7.0, std::floor(t)));
  double f = t - static_cast<double>(i);
  int rgb[3];
  for (int k = 0; k < 3; ++k) {
    rgb[k] = static_cast<int>(std::lround(kStops[i][k] + (kStops[i + 1][k] - kStops[i][k]) * f));
  }
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

std::string LineChart(const std::vector<double>& x, const std::vector<Series>& series,
                      const LineChartOptions& o) {
  const int pw = o.width - kLeft - kRight, ph = o.height - kTop - kBottom;
  double x0 = x.empty() ? 0 : x.front(), x1 = x.empty() ? 1 : x.back();
  if (x1 <= x0) x1 = x0 + 1;
  double ymin = o.y_min, ymax = o.y_max;
  if (ymax <= ymin) {
    for (const auto& s : series) {
      for (double v : s.y) {
        if (std::isfinite(v)) ymax = std::max(ymax, v);
      }
    }
    if (ymax <= ymin) ymax = ymin + 1;
    double step = NiceStep(ymax - ymin, 5);
    ymax = ymin + step * std::ceil((ymax - ymin) / step);
  }
  auto px = [&](double v) { return kLeft + (v - x0) / (x1 - x0) * pw; };
  auto py = [&](double v) {
    return kTop + ph - (std::clamp(v, ymin, ymax) - ymin) / (ymax - ymin) * ph;
  };
  std::string s = fmt::format(
      R"svg(<svg class="chart" id="{}" viewBox="0 0 {} {}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)svg",
      o.id, o.width, o.height);
  s += "\n";
  // Grid and y ticks.
  double ystep = NiceStep(ymax - ymin, 5);
  for (double v = ymin; v <= ymax + ystep * 1e-9; v += ystep) {
    double y = py(v);
    s += fmt::format(R"svg(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)svg", kLeft, Num(y),
                     kLeft + pw, Num(y), kGrid);
    s += fmt::format(
        R"svg(<text x="{}" y="{}" text-anchor="end" font-size="11" fill="{}">{}</text>)svg",
        kLeft - 6, Num(y + 4), kText, YLabel(v, o.percent));
    s += "\n";
  }
  // x ticks.
  double xstep = TimeStep(x1 - x0);
  for (double v = std::ceil(x0 / xstep) * xstep; v <= x1 + 1e-9; v += xstep) {
    double xx = px(v);
    s += fmt::format(R"svg(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)svg", Num(xx),
                     kTop + ph, Num(xx), kTop + ph + 4, kAxis);
    s += fmt::format(
        R"svg(<text x="{}" y="{}" text-anchor="middle" font-size="11" fill="{}">{}</text>)svg",
        Num(xx), kTop + ph + 17, kText, TimeLabel(v, xstep));
    s += "\n";
  }
  AppendBaselineAndYLabel(s, pw, ph, o.y_label);
  s += "\n";
  // Series.
  for (const auto& ser : series) {
    std::string pts;
    std::vector<std::string> segments;
    for (size_t i = 0; i < x.size() && i < ser.y.size(); ++i) {
      if (!std::isfinite(ser.y[i])) {
        if (!pts.empty()) segments.push_back(std::move(pts));
        pts.clear();
        continue;
      }
      if (!pts.empty()) pts += ' ';
      pts += Num(px(x[i])) + "," + Num(py(ser.y[i]));
    }
    if (!pts.empty()) segments.push_back(std::move(pts));
    for (const auto& seg : segments) {
      if (ser.area) {
        size_t first_comma = seg.find(',');
        size_t last_space = seg.rfind(' ');
        std::string first_x = seg.substr(0, first_comma);
        std::string last = last_space == std::string::npos ? seg : seg.substr(last_space + 1);
        std::string last_x = last.substr(0, last.find(','));
        s += fmt::format(
            R"svg(<polygon points="{},{} {} {},{}" fill="{}" fill-opacity="0.15" stroke="none"/>)svg",
            first_x, Num(py(ymin)), seg, last_x, Num(py(ymin)), ser.color);
      }
      s += fmt::format(
          R"svg(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.6" stroke-linejoin="round"/>)svg",
          seg, ser.color);
      s += "\n";
    }
  }
  // Legend.
  double lx = kLeft + 4;
  for (const auto& ser : series) {
    s += fmt::format(R"svg(<rect x="{}" y="8" width="10" height="10" rx="2" fill="{}"/>)svg",
                     Num(lx), ser.color);
    s += fmt::format(R"svg(<text x="{}" y="17" font-size="11" fill="{}">{}</text>)svg",
                     Num(lx + 14), kText, Escape(ser.name));
    lx += 22 + 6.5 * static_cast<double>(ser.name.size());
  }
  s += "</svg>\n";
  return s;
}

std::string BarChart(const std::vector<Bar>& bars, const HistogramOptions& o) {
  const int pw = o.width - kLeft - kRight, ph = o.height - kTop - kBottom;
  double ymax = 0;
  for (const auto& b : bars) ymax = std::max(ymax, b.value);
  if (ymax <= 0) ymax = 1;
  double step = NiceStep(ymax, 4);
  ymax = step * std::ceil(ymax / step);
  std::string s = fmt::format(
      R"svg(<svg class="chart" id="{}" viewBox="0 0 {} {}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)svg",
      o.id, o.width, o.height);
  s += "\n";
  auto py = [&](double v) { return kTop + ph - v / ymax * ph; };
  for (double v = 0; v <= ymax + step * 1e-9; v += step) {
    s += fmt::format(R"svg(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)svg", kLeft,
                     Num(py(v)), kLeft + pw, Num(py(v)), kGrid);
    s += fmt::format(
        R"svg(<text x="{}" y="{}" text-anchor="end" font-size="11" fill="{}">{}</text>)svg",
        kLeft - 6, Num(py(v) + 4), kText, YLabel(v, false));
    s += "\n";
  }
  const double bw = bars.empty() ? 0 : static_cast<double>(pw) / static_cast<double>(bars.size());
  for (size_t i = 0; i < bars.size(); ++i) {
    double x = kLeft + bw * static_cast<double>(i);
    double y = py(bars[i].value);
    if (bars[i].value > 0) {
      s += fmt::format(
          R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {:g}</title></rect>)svg",
          Num(x + 0.5), Num(y), Num(std::max(0.5, bw - 1)), Num(kTop + ph - y), o.color,
          Escape(bars[i].label), bars[i].value);
      s += fmt::format(
          R"svg(<text x="{}" y="{}" text-anchor="middle" font-size="10" fill="{}">{}</text>)svg",
          Num(x + bw / 2), Num(y - 3), kText, YLabel(bars[i].value, false));
    }
    if (!bars[i].label.empty()) {
      s += fmt::format(
          R"svg(<text x="{}" y="{}" text-anchor="middle" font-size="11" fill="{}">{}</text>)svg",
          Num(x + bw / 2), kTop + ph + 17, kText, Escape(bars[i].label));
    }
    s += "\n";
  }
  AppendBaselineAndYLabel(s, pw, ph, o.y_label);
  s += "</svg>\n";
  return s;
}

std::string HeatMap(const std::vector<std::vector<uint8_t>>& cells, const std::vector<double>& x,
                    const std::vector<HeatRowGroup>& groups, const HeatMapOptions& o) {
  const size_t rows = cells.size();
  const size_t cols = rows == 0 ? 0 : cells[0].size();
  const int label_w = 96;
  const int pw = o.width - label_w - kRight;
  const int ph = static_cast<int>(rows) * o.row_height;
  const int height = kTop + ph + kBottom + 22;
  std::string s = fmt::format(
      R"svg(<svg class="chart heat" id="{}" viewBox="0 0 {} {}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)svg",
      o.id, o.width, height);
  s += "\n";
  const double cw = cols == 0 ? 0 : static_cast<double>(pw) / static_cast<double>(cols);
  // Cells, with horizontally adjacent cells of the same colour merged.
  for (size_t r = 0; r < rows; ++r) {
    const double y = kTop + static_cast<double>(r) * o.row_height;
    size_t c = 0;
    while (c < cols) {
      uint8_t v = cells[r][c];
      int q = v == 255 ? -1 : std::min(20, static_cast<int>(v) / 10);  // 21 levels
      size_t e = c + 1;
      while (e < cols) {
        uint8_t w = cells[r][e];
        int qw = w == 255 ? -1 : std::min(20, static_cast<int>(w) / 10);
        if (qw != q) break;
        ++e;
      }
      std::string color = q < 0 ? "#f1f3f5" : Viridis(q / 20.0);
      s += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)svg",
                       Num(label_w + cw * static_cast<double>(c)), Num(y),
                       Num(cw * static_cast<double>(e - c) + 0.3), o.row_height, color);
      c = e;
    }
    s += "\n";
  }
  for (const auto& g : groups) {
    const double y = kTop + static_cast<double>(g.first_row) * o.row_height;
    s += fmt::format(
        R"svg(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#ffffff" stroke-width="1"/>)svg",
        label_w, Num(y), label_w + pw, Num(y));
    s += fmt::format(
        R"svg(<text x="{}" y="{}" text-anchor="end" font-size="11" fill="{}">{}</text>)svg",
        label_w - 6, Num(y + 11), kText, Escape(g.label));
    s += "\n";
  }
  // Time axis.
  if (!x.empty()) {
    double x0 = x.front(), x1 = x.back() + (x.size() > 1 ? x[1] - x[0] : 1);
    double xstep = TimeStep(x1 - x0);
    for (double v = std::ceil(x0 / xstep) * xstep; v <= x1 + 1e-9; v += xstep) {
      double xx = label_w + (v - x0) / (x1 - x0) * pw;
      s += fmt::format(
          R"svg(<text x="{}" y="{}" text-anchor="middle" font-size="11" fill="{}">{}</text>)svg",
          Num(xx), kTop + ph + 15, kText, TimeLabel(v, xstep));
    }
  }
  // Colour legend.
  const int ly = kTop + ph + 24;
  for (int i = 0; i <= 20; ++i) {
    s += fmt::format(R"svg(<rect x="{}" y="{}" width="9" height="9" fill="{}"/>)svg",
                     label_w + i * 9, ly, Viridis(i / 20.0));
  }
  s += fmt::format(
      R"svg(<text x="{}" y="{}" font-size="11" fill="{}">0% → 100% requested</text>)svg",
      label_w + 21 * 9 + 8, ly + 9, kText);
  s += fmt::format(
      R"svg(<rect x="{}" y="{}" width="9" height="9" fill="#f1f3f5" stroke="#d0d5db"/>)svg",
      label_w + 21 * 9 + 160, ly);
  s += fmt::format(R"svg(<text x="{}" y="{}" font-size="11" fill="{}">no node</text>)svg",
                   label_w + 21 * 9 + 174, ly + 9, kText);
  if (!o.title.empty()) {
    s += fmt::format(
        R"svg(<text x="{}" y="18" font-size="12" font-weight="600" fill="{}">{}</text>)svg",
        label_w, kText, Escape(o.title));
  }
  s += "</svg>\n";
  return s;
}

std::string EmptyPanel(std::string_view title, std::string_view message, std::string_view id,
                       int height, int width) {
  return fmt::format(
      R"svg(<svg class="chart empty" id="{}" viewBox="0 0 {} {}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">)svg"
      R"svg(<rect x="1" y="1" width="{}" height="{}" rx="8" fill="#f8f9fb" stroke="#d0d5db" stroke-dasharray="5 4"/>)svg"
      R"svg(<text x="{}" y="{}" text-anchor="middle" font-size="15" font-weight="600" fill="#6b7480">{}</text>)svg"
      R"svg(<text x="{}" y="{}" text-anchor="middle" font-size="12" fill="#8a939e">{}</text></svg>)svg"
      "\n",
      id, width, height, width - 2, height - 2, width / 2, height / 2 - 4, Escape(title), width / 2,
      height / 2 + 16, Escape(message));
}

}  // namespace corral::sim::svg
