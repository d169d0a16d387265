#include "simulator/sweep_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

namespace troupe::simulator {
namespace {

// Colours that stay apart for readers with the common colour-vision deficiencies (Okabe-Ito).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// 1,000 -> "1k", 2,500,000 -> "2.5M": labels of a log axis.
std::string shortNumber(double v) {
  const char* units[] = {"", "k", "M", "G"};
  int unit = 0;
  while (std::fabs(v) >= 1000 && unit < 3) {
    v /= 1000;
    ++unit;
  }
  return fmt::format("{:g}{}", v, units[unit]);
}

// A step of 1, 2 or 5 times a power of ten that cuts [lo, hi] in about `parts`.
double niceStep(double lo, double hi, int parts) {
  const double raw = (hi - lo) / parts;
  if (raw <= 0) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

struct Point {
  double x;
  double y;
  std::string title;  // what a reader hovering over its dot sees
};

struct Series {
  std::string name;
  std::string colour;
  std::vector<Point> points;  // by x
};

// One chart: a frame, axes with ticks, and the series as lines with dots.
class Panel {
 public:
  Panel(double left, double top, double width, double height)
      : left_(left), top_(top), width_(width), height_(height) {}

  void xRange(double lo, double hi) {
    x_lo_ = lo;
    x_hi_ = hi > lo ? hi : lo + 1;
  }
  // A linear y axis over [lo, hi], or a log one over whole decades around [lo, hi].
  void yRange(double lo, double hi, bool log) {
    log_ = log;
    if (log) {
      lo = std::floor(std::log10(std::max(lo, 1e-9)));
      hi = std::ceil(std::log10(std::max(hi, 1e-9)));
    }
    y_lo_ = lo;
    y_hi_ = hi > lo ? hi : lo + 1;
  }

  double x(double v) const { return left_ + (v - x_lo_) / (x_hi_ - x_lo_) * width_; }
  double y(double v) const {
    const double at = log_ ? std::log10(std::max(v, 1e-9)) : v;
    return top_ + height_ - (at - y_lo_) / (y_hi_ - y_lo_) * height_;
  }

  void draw(std::string& svg, const std::string& title, const std::string& x_label,
            const std::function<std::string(double)>& y_format,
            const std::vector<Series>& series) const {
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"14\" "
        "font-weight=\"bold\">{}</text>\n",
        left_ + width_ / 2, top_ - 12, escaped(title));
    // Grid and ticks.
    const double x_step = niceStep(x_lo_, x_hi_, 6);
    for (double v = std::ceil(x_lo_ / x_step) * x_step; v <= x_hi_ + 1e-9; v += x_step) {
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>\n"
          "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\" "
          "font-size=\"11\">{4:g}</text>\n",
          x(v), top_, top_ + height_, top_ + height_ + 16, std::round(v * 1000) / 1000);
    }
    const double y_step = log_ ? 1 : niceStep(y_lo_, y_hi_, 5);
    for (double v = std::ceil(y_lo_ / y_step) * y_step; v <= y_hi_ + 1e-9; v += y_step) {
      const double value = log_ ? std::pow(10.0, v) : v;
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>\n"
          "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\" font-size=\"11\">{5}</text>\n",
          left_, left_ + width_, y(value), left_ - 6, y(value) + 4, escaped(y_format(value)));
    }
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
        "stroke=\"#333\"/>\n",
        left_, top_, width_, height_);
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"12\">{}</text>\n",
        left_ + width_ / 2, top_ + height_ + 36, escaped(x_label));
    for (const Series& s : series) {
      if (s.points.empty()) continue;
      std::string path;
      for (const Point& p : s.points) path += fmt::format("{:.1f},{:.1f} ", x(p.x), y(p.y));
      svg +=
          fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                      path, s.colour);
      for (const Point& p : s.points) {
        svg += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" "
            "fill=\"{}\"><title>{}</title></circle>\n",
            x(p.x), y(p.y), s.colour, escaped(p.title));
      }
    }
  }

 private:
  double left_, top_, width_, height_;
  double x_lo_ = 0, x_hi_ = 1, y_lo_ = 0, y_hi_ = 1;
  bool log_ = false;
};

std::optional<double> read(const nlohmann::json& summary, const char* key) {
  if (!summary.is_object() || !summary.contains(key) || !summary[key].is_number())
    return std::nullopt;
  return summary[key].get<double>();
}

// One series per policy: (offered load, the key's value) of each of its runs, each dot
// titled "<policy> at scale <scale>: offered load <load>, <what> <value>".
std::vector<Series> seriesOf(const std::vector<SweepRun>& runs,
                             const std::vector<std::string>& policies, const char* key,
                             const char* what, const std::function<std::string(double)>& format) {
  std::vector<Series> out;
  for (size_t i = 0; i < policies.size(); ++i) {
    Series s{policies[i], kColours[i % std::size(kColours)], {}};
    for (const auto& run : runs) {
      if (run.policy != policies[i]) continue;
      auto load = read(run.summary, "offered_load");
      auto value = read(run.summary, key);
      if (!load || !value) continue;
      s.points.push_back({*load, *value,
                          fmt::format("{} at scale {}: offered load {:.2f}, {} {}", run.policy,
                                      run.scale, *load, what, format(*value))});
    }
    std::sort(s.points.begin(), s.points.end(),
              [](const Point& a, const Point& b) { return a.x < b.x; });
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::string sweepSvg(const std::vector<SweepRun>& runs, const std::vector<std::string>& policies) {
  const double width = 980, height = 440;
  const auto jct = seriesOf(runs, policies, "avg_jct_s", "average JCT",
                            [](double v) { return fmt::format("{:.0f} s", v); });
  const auto util = seriesOf(runs, policies, "gpu_utilization", "GPU utilization",
                             [](double v) { return fmt::format("{:.3f}", v); });
  double x_hi = 0, jct_lo = std::numeric_limits<double>::max(), jct_hi = 0;
  for (const auto& s : jct) {
    for (const Point& p : s.points) {
      x_hi = std::max(x_hi, p.x);
      jct_lo = std::min(jct_lo, p.y);
      jct_hi = std::max(jct_hi, p.y);
    }
  }
  if (jct_hi <= 0) jct_lo = jct_hi = 1;

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height);
  Panel left(80, 70, 370, 300);
  left.xRange(0, x_hi * 1.05);
  left.yRange(jct_lo, jct_hi, true);
  left.draw(svg, "Average job completion time (s, log scale)",
            "offered load (work submitted / GPU capacity)", shortNumber, jct);
  Panel right(570, 70, 370, 300);
  right.xRange(0, x_hi * 1.05);
  right.yRange(0, 1, false);
  right.draw(
      svg, "GPU utilization", "offered load (work submitted / GPU capacity)",
      [](double v) { return fmt::format("{:.1f}", v); }, util);
  // Legend, across the top.
  double at = 80;
  for (const auto& s : jct) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"22\" x2=\"{1:.1f}\" y2=\"22\" stroke=\"{2}\" "
        "stroke-width=\"3\"/>\n<text x=\"{3:.1f}\" y=\"26\" font-size=\"13\">{4}</text>\n",
        at, at + 24, s.colour, at + 30, escaped(s.name));
    at += 40 + 8.0 * static_cast<double>(s.name.size()) + 20;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace troupe::simulator
