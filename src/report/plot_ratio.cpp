// The ratio chart of `roofline compare` (plot.hpp, draw_ratio_svg): B ÷ A of each roof and step as a
// horizontal bar from 1× on a log axis, so 2× and 0.5× are the same length either way.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/document.hpp"
#include "report/plot.hpp"
#include "report/units.hpp"

namespace roofline::report {

std::string draw_ratio_svg(const std::string& title, const std::string& subtitle, const std::vector<ratio_bar>& bars) {
  constexpr double W = 1200, LABEL_X = 16, AX0 = 330, AX1 = 900, TOP = 70, ROW = 24;
  double lo = 0.5, hi = 2;
  for (const auto& b : bars)
    if (b.ratio > 0) lo = std::min(lo, b.ratio), hi = std::max(hi, b.ratio);
  // symmetric around 1× in log, out to the 1-2-5 value beyond the widest bar
  const double reach = std::max(std::log10(hi), -std::log10(lo));
  double bound = 2;
  for (double v : {2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1000.0})
    if (std::log10(v) >= reach - 1e-9) {
      bound = v;
      break;
    }
  const double l = std::log10(bound);
  const auto x = [&](double r) { return AX0 + (std::log10(r) + l) / (2 * l) * (AX1 - AX0); };
  const double H = TOP + ROW * static_cast<double>(bars.size()) + 60;
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0:.1f}\" height=\"{1:.1f}\" viewBox=\"0 0 {0:.1f} {1:.1f}\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0:.1f}\" height=\"{1:.1f}\" fill=\"#ffffff\"/>\n"
      "<text class=\"figure-title\" x=\"{3:.1f}\" y=\"26\" font-size=\"17\" font-weight=\"bold\" fill=\"#222222\">{2}</text>\n"
      "<text class=\"figure-subtitle\" x=\"{3:.1f}\" y=\"46\" font-size=\"11.5\" fill=\"#555555\">{4}</text>\n",
      W, H, html_escape(title), LABEL_X, html_escape(subtitle));
  const double y_end = TOP + ROW * static_cast<double>(bars.size());
  // ticks: 1-2-5 × 10^k within the bounds, and their grid lines
  o += "<g class=\"ratio-ticks\" font-size=\"11.5\" fill=\"#333333\">\n";
  for (int k = -3; k <= 3; ++k)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, k);
      if (std::log10(v) < -l - 1e-9 || std::log10(v) > l + 1e-9) continue;
      o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" stroke-width=\"{4}\"/>", x(v), TOP - 6,
                       y_end, v == 1.0 ? "#333333" : "#e3e3e3", v == 1.0 ? "1.4" : "1");
      o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}×</text>\n", x(v), y_end + 16, units::plain(v));
    }
  o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"12.5\">B ÷ A (log scale): right of 1×, B is higher</text>\n",
                   (AX0 + AX1) / 2, y_end + 36);
  o += "</g>\n<g class=\"ratio-bars\" font-size=\"12.5\" fill=\"#222222\">\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double yc = TOP + ROW * static_cast<double>(i) + ROW / 2;
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", LABEL_X, yc + 4.5, html_escape(b.label));
    if (!(b.ratio > 0)) continue;
    const double x0 = x(1), x1 = x(std::clamp(b.ratio, 1 / bound, bound));
    const char* color = b.ratio >= 1 ? "#e6550d" : "#1f5fb4";
    o += fmt::format("<rect class=\"ratio-bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.8\"><title>{}: {} ({})</title></rect>",
                     std::min(x0, x1), yc - 7, std::max(1.0, std::abs(x1 - x0)), 14.0, color, html_escape(b.label), ratio(b.ratio),
                     html_escape(b.detail));
    o += fmt::format("<text class=\"ratio-value\" x=\"{:.1f}\" y=\"{:.1f}\">{}{}</text>\n", AX1 + 12, yc + 4.5, html_escape(ratio(b.ratio)),
                     b.detail.empty() ? "" : html_escape("  " + b.detail));
  }
  o += "</g>\n</svg>\n";
  return o;
}

}  // namespace roofline::report
