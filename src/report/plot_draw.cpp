#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "report/document.hpp"
#include "report/plot.hpp"
#include "report/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::report {

namespace {

constexpr double W = 1200, X0 = 118, X1 = 860, Y0 = 64, Y1 = 700, LEGEND_X = 884;
constexpr double FONT = 13, SMALL = 11.5;

struct rect {
  double x0, y0, x1, y1;
  bool hits(const rect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

std::size_t glyphs(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}
/// The width of `s` at `size` px: 0.58 em a glyph (DejaVu Sans' mean advance is about 0.55 em); bold 0.62 em.
double text_width(const std::string& s, double size) { return 0.58 * size * static_cast<double>(glyphs(s)); }
double bold_width(const std::string& s, double size) { return 0.62 * size * static_cast<double>(glyphs(s)); }

/// `s` broken at spaces into lines no wider than `width` at `size` (a word wider than the width is
/// broken inside, so no line ever runs past it).
std::vector<std::string> wrap(const std::string& s, double size, double width) {
  std::vector<std::string> lines;
  std::string line;
  auto fits = [&](const std::string& t) { return text_width(t, size) <= width; };
  std::size_t i = 0;
  while (i <= s.size()) {
    std::size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    std::string word = s.substr(i, j - i);
    if (!line.empty() && !fits(line + " " + word)) {
      lines.push_back(line);
      line.clear();
    }
    while (!fits(word)) {  // a word wider than the line: split it at the last glyph that fits
      std::size_t k = word.size();
      while (k > 1 && !fits(word.substr(0, k))) --k;
      while (k > 1 && (static_cast<unsigned char>(word[k]) & 0xC0) == 0x80) --k;  // not inside a UTF-8 glyph
      if (!line.empty()) lines.push_back(line), line.clear();
      lines.push_back(word.substr(0, k));
      word = word.substr(k);
    }
    line += (line.empty() ? "" : " ") + word;
    i = j + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

/// `s` cut to `width` at `size` with "…" at the end (the whole text stays in the <title>).
std::string fit(const std::string& s, double size, double width) {
  if (text_width(s, size) <= width) return s;
  std::string t = s;
  while (!t.empty() && text_width(t + "…", size) > width) {
    t.pop_back();
    while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
    if (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0xC0) t.pop_back();
  }
  return t + "…";
}

std::string esc(const std::string& s) { return html_escape(s); }
std::string px(double v) { return fmt::format("{:.1f}", v); }

/// The largest of 1, 2, 5 × 10^k at or below v (v > 0), and the smallest at or above it.
double nice_down(double v) {
  const double d = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
  for (double m : {5.0, 2.0, 1.0})
    if (m * d <= v * (1 + 1e-9)) return m * d;
  return d;
}
double nice_up(double v) {
  const double d = std::pow(10.0, std::floor(std::log10(v) - 1e-9));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * d >= v * (1 - 1e-9)) return m * d;
  return 10 * d;
}

/// Tick values in [10^l0, 10^l1]: every decade when the range spans three decades or more, else
/// 1, 2 and 5 × 10^k.
std::vector<double> log_ticks(double l0, double l1) {
  std::vector<double> t;
  const bool decades = l1 - l0 >= 3 - 1e-9;
  for (int k = static_cast<int>(std::floor(l0)) - 1; k <= static_cast<int>(std::ceil(l1)); ++k)
    for (double m : decades ? std::vector<double>{1} : std::vector<double>{1, 2, 5}) {
      const double v = m * std::pow(10.0, k), lv = std::log10(v);
      if (lv >= l0 - 1e-9 && lv <= l1 + 1e-9) t.push_back(v);
    }
  return t;
}

struct axes {
  double lx0, lx1, ly0, ly1;
  std::vector<double> xt, yt;  ///< labelled ticks (values)
  double inset = 0;            ///< px between the frame and the ends of the x range (explicit x ticks)
  double x(double v) const { return X0 + inset + (std::log10(v) - lx0) / (lx1 - lx0) * (X1 - X0 - 2 * inset); }
  double y(double v) const { return Y1 - (std::log10(v) - ly0) / (ly1 - ly0) * (Y1 - Y0); }
};

axes make_axes(const plot& p) {
  std::vector<double> xs, ys;
  for (const auto& pt : p.points) {
    if (pt.x > 0) xs.push_back(pt.x);
    if (pt.y > 0) ys.push_back(pt.y);
  }
  for (const auto& t : p.traces)
    for (const auto& [x, y] : t.pts) {
      if (x > 0) xs.push_back(x);
      if (y > 0) ys.push_back(y);
    }
  for (const auto& v : p.vlines)
    if (v.x > 0) xs.push_back(v.x);
  axes a{};
  const bool roofs = !p.roofs.empty();
  if (!roofs) {
    // A chart of data alone: each axis from the nice value below its smallest value to the one above
    // its largest (a single value: the nice values around it).
    auto span = [](const std::vector<double>& v, double& l0, double& l1) {
      if (v.empty()) {
        l0 = 0, l1 = 1;
        return;
      }
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      l0 = std::log10(nice_down(*lo));
      l1 = std::log10(nice_up(*hi));
      if (l1 - l0 < 0.3) l0 = std::log10(nice_down(*lo / 1.5)), l1 = std::log10(nice_up(*hi * 1.5));
    };
    span(xs, a.lx0, a.lx1);
    span(ys, a.ly0, a.ly1);
  } else {
    double top = 0;
    for (const auto& r : p.roofs) {
      top = std::max(top, r.peak);
      if (r.bw && *r.bw > 0 && r.peak > 0) xs.push_back(r.peak / *r.bw);
    }
    for (double y : ys) top = std::max(top, y);
    if (xs.empty()) {
      a.lx0 = -2;
      a.lx1 = 4;
    } else {
      // room left of the first point, and right of the last one for the roofs' labels on their flat part
      a.lx0 = std::log10(nice_down(*std::min_element(xs.begin(), xs.end()) / 1.5));
      a.lx1 = std::log10(nice_up(*std::max_element(xs.begin(), xs.end()) * 2.5));
    }
    if (a.lx1 - a.lx0 < 4) a.lx0 = a.lx1 - 4;
    if (a.lx1 - a.lx0 > p.max_x_decades) a.lx0 = a.lx1 - p.max_x_decades;
    if (top <= 0) top = 1e12;
    a.ly1 = std::log10(nice_up(top * 2.5));  // room above the highest roof for its label
    double low = top;  // the lowest point or memory roof entry sets it (at least three decades below)
    for (double y : ys) low = std::min(low, y / 1.5);
    for (const auto& r : p.roofs)
      if (r.bw && *r.bw > 0) low = std::min(low, std::max(*r.bw * std::pow(10.0, a.lx0), top / 1e6));
    a.ly0 = std::log10(nice_down(low));
    if (a.ly1 - a.ly0 > 8) a.ly0 = a.ly1 - 8;
    if (a.ly1 - a.ly0 < 3) a.ly0 = a.ly1 - 3;
  }
  if (!p.x_ticks.empty()) {
    a.lx0 = std::log10(p.x_ticks.front());
    a.lx1 = std::log10(p.x_ticks.back());
    if (a.lx1 - a.lx0 < 0.3) a.lx0 -= 0.15, a.lx1 += 0.15;
    a.xt = p.x_ticks;
    a.inset = 14;
  } else {
    a.xt = log_ticks(a.lx0, a.lx1);
  }
  a.yt = log_ticks(a.ly0, a.ly1);
  return a;
}

/// An x tick's label without a unit: "0.1", "1", "256", "1e6".
std::string x_tick(double v) {
  const double lv = std::log10(v);
  if (lv < -3 - 1e-9 || lv > 5 + 1e-9) {
    if (std::abs(lv - std::round(lv)) < 1e-9) return fmt::format("1e{}", static_cast<int>(std::round(lv)));
    return fmt::format("{:.0e}", v);
  }
  return fmt::format("{:g}", std::round(v * 1e3) / 1e3);
}

std::string marker(const plot_point& p, double cx, double cy) {
  const std::string fill = p.filled ? p.color : "#ffffff";
  const std::string attrs = fmt::format(" class=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.8\"", p.cls, fill, p.color);
  const std::string title = "<title>" + esc(p.title) + "</title>";
  const double s = p.size;
  if (p.shape == "square")
    return fmt::format("<rect{} x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">{}</rect>", attrs, px(cx - s), px(cy - s), px(2 * s),
                       px(2 * s), title);
  if (p.shape == "triangle")
    return fmt::format("<path{} d=\"M{} {}L{} {}L{} {}Z\">{}</path>", attrs, px(cx), px(cy - s - 1.5), px(cx + s + 1), px(cy + s),
                       px(cx - s - 1), px(cy + s), title);
  if (p.shape == "diamond")
    return fmt::format("<path{} d=\"M{} {}L{} {}L{} {}L{} {}Z\">{}</path>", attrs, px(cx), px(cy - s - 1), px(cx + s + 1), px(cy),
                       px(cx), px(cy + s + 1), px(cx - s - 1), px(cy), title);
  return fmt::format("<circle{} cx=\"{}\" cy=\"{}\" r=\"{}\">{}</circle>", attrs, px(cx), px(cy), px(s), title);
}

/// Greedy label placement: the first of eight positions around (cx, cy) that stays inside the plot
/// and hits no occupied rectangle; nullopt when none does.
std::optional<rect> place(const std::string& text, double size, double cx, double cy, double gap, const std::vector<rect>& taken) {
  const double w = text_width(text, size), h = size * 1.1;
  const double c[8][2] = {{gap, -h / 2}, {gap, -h - gap / 2}, {gap, gap / 2}, {-gap - w, -h / 2},
                          {-w / 2, -h - gap}, {-w / 2, gap}, {-gap - w, -h - gap / 2}, {-gap - w, gap / 2}};
  for (const auto& o : c) {
    rect r{cx + o[0], cy + o[1], cx + o[0] + w, cy + o[1] + h};
    if (r.x0 < X0 + 2 || r.x1 > X1 - 2 || r.y0 < Y0 + 2 || r.y1 > Y1 - 2) continue;
    if (std::none_of(taken.begin(), taken.end(), [&](const rect& t) { return t.hits(r); })) return r;
  }
  return std::nullopt;
}

std::string text_at(const rect& r, double size, const std::string& color, const std::string& text, const std::string& cls) {
  // a translucent white box under the text keeps it legible where it crosses a roof or the grid
  return fmt::format("<rect class=\"label-bg\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" fill-opacity=\"0.8\"/>",
                     px(r.x0 - 1), px(r.y0), px(r.x1 - r.x0 + 2), px(r.y1 - r.y0)) +
         fmt::format("<text class=\"{}\" x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\">{}</text>\n", cls, px(r.x0), px(r.y1 - size * 0.25),
                     px(size), color, esc(text));
}

}  // namespace

std::string stack_svgs(const std::vector<std::string>& parts, const std::string& title) {
  double y = 0, width = 0;
  std::string body;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    const auto num_attr = [&](const char* key) {
      const auto at = part.find(key);
      if (at == std::string::npos) return 0.0;
      return std::atof(part.c_str() + at + std::char_traits<char>::length(key));
    };
    const double h = num_attr(" height=\""), w = num_attr(" width=\"");
    std::string s = part;
    s.replace(s.find("<svg "), 5, fmt::format("<svg x=\"0\" y=\"{:.1f}\" ", y));
    body += s;
    y += h;
    width = std::max(width, w);
  }
  if (body.empty()) return "";
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0:.1f}\" height=\"{1:.1f}\" "
      "viewBox=\"0 0 {0:.1f} {1:.1f}\">\n<title>{2}</title>\n{3}</svg>\n",
      width, y, esc(title), body);
}

std::string precision_color(const std::string& p) {
  if (p == "fp64") return "#6a3d9a";
  if (p == "fp32") return "#1f5fb4";
  if (p == "tf32") return "#17a2b8";
  if (p == "bf16") return "#8c564b";
  if (p == "fp16") return "#d62728";
  if (p == "fp8") return "#2ca02c";
  return "#555555";
}

std::string scenario_color(std::size_t i) {
  static const char* c[] = {"#ff7f0e", "#b8349a", "#4d9a1c", "#c59a00", "#1b9e77", "#7570b3", "#e7298a", "#666666"};
  return c[i % (sizeof c / sizeof c[0])];
}

std::string level_color(const std::string& level) {
  switch (memory_tier_of(level)) {
    case memory_tier::l1: return "#d6619e";
    case memory_tier::l2: return "#9a9a1c";
    case memory_tier::l3:
    case memory_tier::llc: return "#b3741a";
    case memory_tier::device: return "#2b2b2b";
    case memory_tier::unknown: break;
  }
  return "#8a8a8a";
}

std::string pattern_color(const std::string& pattern) {
  if (pattern == "read") return "#1f77b4";
  if (pattern == "write") return "#d62728";
  if (pattern == "copy") return "#2ca02c";
  if (pattern == "triad") return "#9467bd";
  return "#7f7f7f";
}


namespace {

/// The class tokens of a class attribute value.
std::vector<std::string> tokens(const std::string& cls) {
  std::vector<std::string> v;
  std::size_t i = 0;
  while (i < cls.size()) {
    const auto j = cls.find(' ', i);
    const std::string t = cls.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!t.empty()) v.push_back(t);
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return v;
}

void legend_marker(std::string& o, const legend_item& li, double sx, double cy) {
  switch (li.k) {
    case legend_item::kind::solid:
    case legend_item::kind::dashed:
      o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.2\"{}/>", px(sx), px(cy - 4), px(sx + 28),
                       px(cy - 4), li.color, li.k == legend_item::kind::dashed ? " stroke-dasharray=\"7,4\"" : "");
      break;
    case legend_item::kind::hollow:
    case legend_item::kind::filled:
      o += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.8\"/>", px(sx + 14), px(cy - 4),
                       li.k == legend_item::kind::filled ? li.color : "#ffffff", li.color);
      break;
    case legend_item::kind::diamond:
    case legend_item::kind::hollow_diamond:  // as the point it stands for: filled (measured) or hollow (nominal)
      o += fmt::format("<path d=\"M{0} {1}L{2} {3}L{0} {4}L{5} {3}Z\" fill=\"{6}\" stroke=\"{7}\" stroke-width=\"1.8\"/>", px(sx + 14), px(cy - 10),
                       px(sx + 20), px(cy - 4), px(cy + 2), px(sx + 8), li.k == legend_item::kind::diamond ? li.color : "#ffffff", li.color);
      break;
    case legend_item::kind::triangle:
      o += fmt::format("<path d=\"M{} {}L{} {}L{} {}Z\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"1.8\"/>", px(sx + 14), px(cy - 11),
                       px(sx + 20), px(cy + 1), px(sx + 8), px(cy + 1), li.color);
      break;
    case legend_item::kind::square:
      o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"{}\"/>", px(sx + 10), px(cy - 8), li.color);
      break;
    case legend_item::kind::cross:
      o += fmt::format("<path d=\"M{0} {1}L{2} {3}M{0} {3}L{2} {1}\" stroke=\"{4}\" stroke-width=\"2\"/>", px(sx + 9), px(cy - 9),
                       px(sx + 19), px(cy + 1), li.color);
      break;
  }
}

/// The bandwidth-against-working-set chart: x log2 working set, y log10 B/s; one line per pattern,
/// each point filled in its level's colour (a rejected point is a red ×), the levels named above
/// the points that claim them. Appends the drawn class tokens to `drawn`.
std::string draw_bandwidth(const std::vector<bw_point>& pts, double top, double bottom, std::vector<std::string>& drawn,
                           std::vector<rect>& label_boxes) {
  std::string o;
  double wmin = 1e300, wmax = 0, bmin = 1e300, bmax = 0;
  for (const auto& p : pts) {
    if (p.working_set <= 0 || p.bytes_per_s <= 0) continue;
    wmin = std::min(wmin, p.working_set), wmax = std::max(wmax, p.working_set);
    bmin = std::min(bmin, p.bytes_per_s), bmax = std::max(bmax, p.bytes_per_s);
  }
  if (wmax <= 0) return o;
  const double lx0 = std::floor(std::log2(wmin) / 2) * 2 - 1, lx1 = std::ceil(std::log2(wmax) / 2) * 2 + 1;
  const double ly0 = std::floor(std::log10(bmin / 1.3)), ly1 = std::ceil(std::log10(bmax * 1.3));
  const double py0 = top + 34, py1 = bottom;
  auto X = [&](double w) { return X0 + (std::log2(w) - lx0) / (lx1 - lx0) * (X1 - X0); };
  auto Y = [&](double b) { return py1 - (std::log10(b) - ly0) / (ly1 - ly0) * (py1 - py0); };
  o += fmt::format("<g class=\"bandwidth-chart\">\n<text x=\"{}\" y=\"{}\" font-size=\"{}\" font-weight=\"bold\" fill=\"#222222\">"
                   "Bandwidth against working set (each point: the level it was measured for)</text>\n",
                   px(X0), px(top + 14), px(FONT));
  o += "<g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">\n";
  for (int k = static_cast<int>(std::ceil(lx0)); k <= static_cast<int>(lx1); ++k)
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", px(X(std::pow(2.0, k))), px(py0), px(py1));
  for (int k = static_cast<int>(ly0); k <= static_cast<int>(ly1); ++k)
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", px(X0), px(Y(std::pow(10.0, k))), px(X1));
  o += "</g>\n";
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1.2\"/>\n", px(X0),
                   px(py0), px(X1 - X0), px(py1 - py0));
  o += fmt::format("<g class=\"ticks\" font-size=\"{}\" fill=\"#333333\">\n", px(SMALL));
  for (int k = static_cast<int>(std::ceil(lx0)); k <= static_cast<int>(lx1); k += 2)
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(X(std::pow(2.0, k))), px(py1 + 16),
                     esc(bytes_binary(std::pow(2.0, k))));
  for (int k = static_cast<int>(ly0); k <= static_cast<int>(ly1); ++k)
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(X0 - 8), px(Y(std::pow(10.0, k)) + 4),
                     esc(si(std::pow(10.0, k), "B/s", 1)));
  o += "</g>\n";
  o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" fill=\"#222222\">working set (log scale)</text>\n",
                   px((X0 + X1) / 2), px(py1 + 34), px(FONT));
  // one line per pattern, in working-set order
  std::vector<std::string> patterns;
  for (const auto& p : pts)
    if (std::find(patterns.begin(), patterns.end(), p.pattern) == patterns.end()) patterns.push_back(p.pattern);
  for (const auto& pat : patterns) {
    std::vector<const bw_point*> v;
    for (const auto& p : pts)
      if (p.pattern == pat && p.working_set > 0 && p.bytes_per_s > 0) v.push_back(&p);
    std::stable_sort(v.begin(), v.end(), [](const bw_point* a, const bw_point* b) { return a->working_set < b->working_set; });
    if (v.size() >= 2) {
      std::string d;
      for (std::size_t i = 0; i < v.size(); ++i) d += fmt::format("{}{} {}", i == 0 ? "M" : "L", px(X(v[i]->working_set)), px(Y(v[i]->bytes_per_s)));
      o += fmt::format("<path class=\"bw-line bw-pattern-{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.4\"/>\n", pat, d,
                       pattern_color(pat));
      drawn.push_back("bw-pattern-" + pat);
    }
  }
  // level names above the span of the points that claim them
  std::vector<std::string> levels;
  for (const auto& p : pts)
    if (!p.rejected && std::find(levels.begin(), levels.end(), p.level) == levels.end()) levels.push_back(p.level);
  for (const auto& lvl : levels) {
    double lo = 1e300, hi = 0;
    for (const auto& p : pts)
      if (p.level == lvl && !p.rejected && p.working_set > 0) lo = std::min(lo, p.working_set), hi = std::max(hi, p.working_set);
    if (hi <= 0) continue;
    const std::string text = memory_level_label(lvl);
    const double cx = (X(lo) + X(hi)) / 2, w = text_width(text, SMALL);
    rect box{cx - w / 2, py0 + 3, cx + w / 2, py0 + 3 + SMALL * 1.1};
    for (int tries = 0; tries < 4 && std::any_of(label_boxes.begin(), label_boxes.end(), [&](const rect& t) { return t.hits(box); }); ++tries)
      box.y0 += SMALL * 1.2, box.y1 += SMALL * 1.2;
    if (std::any_of(label_boxes.begin(), label_boxes.end(), [&](const rect& t) { return t.hits(box); })) continue;
    label_boxes.push_back(box);
    o += fmt::format("<line class=\"level-span\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>", px(X(lo)),
                     px(py0 + 1.5), px(X(hi)), px(py0 + 1.5), level_color(lvl));
    o += text_at(box, SMALL, level_color(lvl), text, "level-label");
  }
  for (const auto& p : pts) {
    if (p.working_set <= 0 || p.bytes_per_s <= 0) continue;
    const double cx = X(p.working_set), cy = Y(p.bytes_per_s);
    const std::string title = "<title>" + esc(p.title) + "</title>";
    if (p.rejected) {
      o += fmt::format("<path class=\"bw-point bw-rejected\" d=\"M{0} {1}L{2} {3}M{0} {3}L{2} {1}\" stroke=\"#c00000\" stroke-width=\"2\">{4}</path>\n",
                       px(cx - 4), px(cy - 4), px(cx + 4), px(cy + 4), title);
      drawn.push_back("bw-rejected");
    } else {
      o += fmt::format("<circle class=\"bw-point bw-level-{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1\">{}</circle>\n",
                       p.level, px(cx), px(cy), level_color(p.level), pattern_color(p.pattern), title);
      drawn.push_back("bw-level-" + p.level);
    }
  }
  o += "</g>\n";
  return o;
}

/// What draw_svg's parts share: the figure, its axes, the markup so far, the class tokens of every
/// drawn element (the legend shows only those), the boxes taken (no label overlaps one) and the labels
/// placed (drawn above everything else).
struct canvas {
  const plot& p;
  axes a;
  std::string o;
  std::vector<std::string> drawn;
  std::vector<rect> taken;
  std::string labels;
  void mark_drawn(const std::string& cls) {
    for (auto& t : tokens(cls)) drawn.push_back(std::move(t));
  }
  /// Where a point is drawn: at its place, or on the frame's edge where it leaves the plotted range.
  std::pair<double, double> at(const plot_point& pt) const {
    const auto clamp_log = [](double v, double lo, double hi) { return std::pow(10.0, std::clamp(std::log10(v), lo, hi)); };
    return {a.x(clamp_log(pt.x, a.lx0, a.lx1)), a.y(clamp_log(pt.y, a.ly0, a.ly1))};
  }
};

/// The roofs drawn (by index into plot::roofs) and boxes along every drawn roof line, by roof (roof
/// labels avoid them).
struct drawn_roofs {
  std::vector<bool> drawn;
  std::vector<std::pair<std::size_t, rect>> lines;
};

/// The frame: the grid (every 1 … 9 × 10^k inside the range, the ticks darker), ticks, tick labels, axis titles.
void draw_frame(canvas& c) {
  const plot& p = c.p;
  const axes& a = c.a;
  std::string& o = c.o;
  const auto inside_x = [&](double v) { const double l = std::log10(v); return l >= a.lx0 - 1e-9 && l <= a.lx1 + 1e-9; };
  const auto inside_y = [&](double v) { const double l = std::log10(v); return l >= a.ly0 - 1e-9 && l <= a.ly1 + 1e-9; };
  o += "<g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">\n";
  for (int k = static_cast<int>(std::floor(a.lx0)); k < static_cast<int>(std::ceil(a.lx1)); ++k)
    for (int m = 1; m <= 9; ++m)
      if (const double v = m * std::pow(10.0, k); inside_x(v) && std::find(a.xt.begin(), a.xt.end(), v) == a.xt.end())
        o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#f3f3f3\"/>\n", px(a.x(v)), px(Y0), px(Y1));
  for (int k = static_cast<int>(std::floor(a.ly0)); k < static_cast<int>(std::ceil(a.ly1)); ++k)
    for (int m = 1; m <= 9; ++m)
      if (const double v = m * std::pow(10.0, k); inside_y(v) && std::find(a.yt.begin(), a.yt.end(), v) == a.yt.end())
        o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#f3f3f3\"/>\n", px(X0), px(a.y(v)), px(X1));
  for (double v : a.xt) o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", px(a.x(v)), px(Y0), px(Y1));
  for (double v : a.yt) o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", px(X0), px(a.y(v)), px(X1));
  o += "</g>\n";
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1.2\"/>\n", px(X0),
                   px(Y0), px(X1 - X0), px(Y1 - Y0));
  o += fmt::format("<g class=\"ticks\" font-size=\"{}\" fill=\"#333333\">\n", px(FONT));
  double last_label = -1e9;  // a tick label closer than 34 px to the previous one is left out (its tick stays)
  for (double v : a.xt) {
    const double x = a.x(v);
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333333\"/>", px(x), px(Y1), px(Y1 + 6));
    if (x - last_label < 34) continue;
    last_label = x;
    o += fmt::format("<text class=\"x-tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x), px(Y1 + 21),
                     esc(p.x_unit.empty() ? x_tick(v) : si(v, p.x_unit, 1)));
  }
  for (double v : a.yt) {
    const double y = a.y(v);
    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333333\"/>", px(X0 - 6), px(y), px(X0));
    o += fmt::format("<text class=\"y-tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(X0 - 9), px(y + 4.5),
                     esc(si(v, p.y_unit, 1)));
  }
  o += "</g>\n";
  o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" fill=\"#222222\">{}</text>\n",
                   px((X0 + X1) / 2), px(Y1 + 44), px(FONT + 1), esc(p.x_label));
  o += fmt::format("<text transform=\"translate(20,{}) rotate(-90)\" font-size=\"{}\" text-anchor=\"middle\" fill=\"#222222\">{}</text>\n",
                   px((Y0 + Y1) / 2), px(FONT + 1), esc(p.y_label));
}

/// The roofs: the whole min(peak, I × bw), or only its flat part (compute) or its diagonal (memory).
drawn_roofs draw_roofs(canvas& c) {
  const plot& p = c.p;
  const axes& a = c.a;
  std::string& o = c.o;
  const auto mark_drawn = [&c](const std::string& cls) { c.mark_drawn(cls); };
  o += "<g class=\"roofs\" clip-path=\"url(#plot-area)\" fill=\"none\">\n";
  const double xlo = std::pow(10.0, a.lx0), xhi = std::pow(10.0, a.lx1);
  drawn_roofs out;
  std::vector<bool>& roof_drawn = out.drawn;
  roof_drawn.assign(p.roofs.size(), false);
  std::vector<std::pair<std::size_t, rect>>& roof_lines = out.lines;
  for (std::size_t ri = 0; ri < p.roofs.size(); ++ri) {
    const auto& r = p.roofs[ri];
    std::string d;
    const bool has_bw = r.bw && *r.bw > 0;
    const double ridge = has_bw ? r.peak / *r.bw : 0;
    const double x_start = has_bw ? std::max(xlo, std::pow(10.0, a.ly0) / *r.bw / 1.05) : xlo;
    if (!has_bw || ridge <= xlo) {
      if (r.part != "diagonal") d = fmt::format("M{} {}L{} {}", px(a.x(xlo)), px(a.y(r.peak)), px(a.x(xhi)), px(a.y(r.peak)));
    } else if (r.part == "flat") {
      if (ridge < xhi) d = fmt::format("M{} {}L{} {}", px(a.x(ridge)), px(a.y(r.peak)), px(a.x(xhi)), px(a.y(r.peak)));
    } else {
      d = fmt::format("M{} {}L{} {}", px(a.x(x_start)), px(a.y(x_start * *r.bw)), px(a.x(std::min(ridge, xhi))),
                      px(a.y(std::min(ridge, xhi) * *r.bw)));
      if (r.part == "both" && ridge < xhi) d += fmt::format("L{} {}", px(a.x(xhi)), px(a.y(r.peak)));
    }
    if (d.empty()) continue;
    // the drawn segments, sampled every 4 px: a roof's label never sits on a roof line
    {
      std::vector<std::pair<double, double>> pts;
      std::size_t k = 0;
      while (k < d.size()) {
        if (d[k] == 'M' || d[k] == 'L') {
          double px = 0, py = 0;
          std::sscanf(d.c_str() + k + 1, "%lf %lf", &px, &py);
          pts.emplace_back(px, py);
        }
        ++k;
      }
      for (std::size_t q = 1; q < pts.size(); ++q) {
        const double dx = pts[q].first - pts[q - 1].first, dy = pts[q].second - pts[q - 1].second;
        const int n = std::max(1, static_cast<int>(std::hypot(dx, dy) / 4));
        for (int m = 0; m <= n; ++m) {
          const double px = pts[q - 1].first + dx * m / n, py = pts[q - 1].second + dy * m / n;
          if (px >= X0 && px <= X1 && py >= Y0 && py <= Y1) roof_lines.push_back({ri, {px - 1.5, py - 1.5, px + 1.5, py + 1.5}});
        }
      }
    }
    roof_drawn[ri] = true;
    mark_drawn(r.cls);
    o += fmt::format("<path class=\"roof {}\" d=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}><title>{}</title></path>\n", r.cls, d, r.color,
                     px(r.width), r.dashed ? " stroke-dasharray=\"9,6\"" : "", esc(r.label));
  }
  o += "</g>\n";
  return out;
}

/// The roof labels: a memory roof's beside its diagonal, a compute roof's on its flat part at the right.
void label_roofs(canvas& c, const drawn_roofs& roofs) {
  const plot& p = c.p;
  const axes& a = c.a;
  std::vector<rect>& taken = c.taken;
  std::string& labels = c.labels;
  const double xlo = std::pow(10.0, a.lx0), xhi = std::pow(10.0, a.lx1);
  const std::vector<bool>& roof_drawn = roofs.drawn;
  const auto& roof_lines = roofs.lines;
  for (std::size_t ri = 0; ri < p.roofs.size(); ++ri) {
    const auto& r = p.roofs[ri];
    if (r.short_label.empty() || !roof_drawn[ri]) continue;
    // points, labels placed so far, and every roof line (a diagonal's label sits beside its own line:
    // its own line is not counted, the others are)
    std::vector<rect> blocked = taken;
    for (const auto& [owner, box] : roof_lines)
      if (owner != ri || r.part != "diagonal") blocked.push_back(box);
    if (r.part == "diagonal" && r.bw && *r.bw > 0) {
      // beside the diagonal, first a decade below where it meets its cap, then further down
      for (double f : {10.0, 30.0, 3.0, 100.0, 5.0, 20.0, 50.0, 2.0, 200.0, 1.5}) {
        const double xm = std::min(r.peak / *r.bw, xhi) / f;
        if (xm <= xlo) continue;
        if (auto box = place(r.short_label, SMALL, a.x(xm), a.y(xm * *r.bw), 4, blocked)) {
          taken.push_back(*box);
          labels += text_at(*box, SMALL, r.color, r.short_label, "roof-label");
          break;
        }
      }
      continue;
    }
    const double w = text_width(r.short_label, SMALL), h = SMALL * 1.1, y = a.y(r.peak);
    for (double dy : {-h - 3, 3.0, -2 * h - 4, h + 6}) {
      rect box{X1 - 6 - w, y + dy, X1 - 6, y + dy + h};
      if (box.y0 < Y0 + 2 || box.y1 > Y1 - 2) continue;
      if (std::any_of(blocked.begin(), blocked.end(), [&](const rect& t) { return t.hits(box); })) continue;
      taken.push_back(box);
      labels += text_at(box, SMALL, r.color, r.short_label, "roof-label");
      break;
    }
  }
}

/// Vertical lines (knees) across the whole chart, each labelled inside the frame beside it.
void draw_vlines(canvas& c) {
  const plot& p = c.p;
  const axes& a = c.a;
  std::string& o = c.o;
  std::vector<rect>& taken = c.taken;
  std::string& labels = c.labels;
  const auto mark_drawn = [&c](const std::string& cls) { c.mark_drawn(cls); };
  for (const auto& v : p.vlines) {
    if (!(v.x > 0) || std::log10(v.x) < a.lx0 || std::log10(v.x) > a.lx1) continue;
    const double x = a.x(v.x);
    o += fmt::format("<path class=\"vline {}\" d=\"M{} {}L{} {}\" stroke=\"{}\" stroke-width=\"1.6\" stroke-dasharray=\"6,4\"><title>{}</title></path>\n",
                     v.cls, px(x), px(Y0), px(x), px(Y1), v.color, esc(v.label));
    mark_drawn(v.cls);
    const double w = text_width(v.label, SMALL), h = SMALL * 1.1;
    for (double y0 : v.label_at_top ? std::vector<double>{Y0 + 6, Y0 + 8 + h, Y0 + 10 + 2 * h}
                                    : std::vector<double>{Y1 - 6 - h, Y1 - 8 - 2 * h, Y1 - 10 - 3 * h}) {
      std::optional<rect> box;
      for (const rect r : {rect{x + 5, y0, x + 5 + w, y0 + h}, rect{x - 5 - w, y0, x - 5, y0 + h}})
        if (r.x0 >= X0 + 2 && r.x1 <= X1 - 2 && std::none_of(taken.begin(), taken.end(), [&](const rect& t) { return t.hits(r); })) {
          box = r;
          break;
        }
      if (!box) continue;
      taken.push_back(*box);
      labels += text_at(*box, SMALL, v.color, v.label, "vline-label");
      break;
    }
  }
}

/// The traces, and the predicted → measured links clipped to the frame (an end outside it is drawn on the edge).
void draw_traces(canvas& c) {
  const plot& p = c.p;
  const axes& a = c.a;
  std::string& o = c.o;
  const auto mark_drawn = [&c](const std::string& cls) { c.mark_drawn(cls); };
  for (const auto& t : p.traces) {
    if (t.pts.size() < 2) continue;
    std::string d;
    for (std::size_t i = 0; i < t.pts.size(); ++i)
      d += fmt::format("{}{} {}", i == 0 ? "M" : "L", px(a.x(t.pts[i].first)), px(a.y(t.pts[i].second)));
    o += fmt::format("<path class=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" stroke-dasharray=\"3,3\" clip-path=\"url(#plot-area)\"><title>{}</title></path>\n",
                     t.cls, d, t.color, esc(t.label));
    mark_drawn(t.cls);
  }
  for (const auto& l : p.links)
    o += fmt::format("<line class=\"op-link\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1\" stroke-opacity=\"0.6\" clip-path=\"url(#plot-area)\"/>\n",
                     px(a.x(l.x0)), px(a.y(l.y0)), px(a.x(l.x1)), px(a.y(l.y1)), l.color);
}

/// The points (every point occupies its box before any op label is placed). A point outside the axes (the
/// y range keeps at most 8 decades, the x range max_x_decades) is drawn on the frame's edge where it
/// leaves it, hollow, with a short arrow pointing the way out; its tooltip says so. Returns how many were.
int draw_points(canvas& c) {
  const plot& p = c.p;
  const axes& a = c.a;
  std::string& o = c.o;
  const auto mark_drawn = [&c](const std::string& cls) { c.mark_drawn(cls); };
  const auto at = [&c](const plot_point& pt) { return c.at(pt); };
  int outside = 0;
  o += "<g class=\"points\">\n";
  for (const auto& pt : p.points) {
    const double lx = std::log10(pt.x), ly = std::log10(pt.y);
    const int dx = lx < a.lx0 ? -1 : lx > a.lx1 ? 1 : 0, dy = ly < a.ly0 ? 1 : ly > a.ly1 ? -1 : 0;  // svg y grows down
    const auto xy = at(pt);
    const double cx = xy.first, cy = xy.second;
    if (dx == 0 && dy == 0) {
      o += marker(pt, cx, cy) + "\n";
    } else {
      ++outside;
      plot_point edge = pt;
      edge.filled = false;
      edge.cls += " outside-range";
      edge.title += " (outside the plotted range: drawn on its edge)";
      o += marker(edge, cx, cy);
      const double len = 9, ex = cx + dx * (pt.size + len), ey = cy + dy * (pt.size + len);
      o += fmt::format("<path class=\"outside-arrow\" d=\"M{} {}L{} {}M{} {}L{} {}L{} {}\" stroke=\"{}\" stroke-width=\"1.4\" fill=\"none\"/>\n",
                       px(cx + dx * pt.size), px(cy + dy * pt.size), px(ex), px(ey),
                       px(ex - dx * 4 + dy * 3), px(ey - dy * 4 + dx * 3), px(ex), px(ey), px(ex - dx * 4 - dy * 3),
                       px(ey - dy * 4 - dx * 3), pt.color);
    }
    mark_drawn(pt.cls);
  }
  o += "</g>\n";
  return outside;
}

/// The op labels: the name where it fits, else the number. Numbered points closer than 7 px share one
/// label ("3,7,27"); a label that fits nowhere near its point is counted (the key still lists it).
/// Returns that count; `numbered` gets the (number, text) of every number drawn.
int label_points(canvas& c, std::vector<std::pair<int, std::string>>& numbered) {
  const plot& p = c.p;
  std::string& o = c.o;
  std::vector<rect>& taken = c.taken;
  std::string& labels = c.labels;
  const auto at = [&c](const plot_point& pt) { return c.at(pt); };
  struct cluster {
    double cx, cy;
    std::vector<int> numbers;
    const plot_point* first;
  };
  std::vector<cluster> clusters;
  std::vector<int> labelled_groups;
  int unlabelled = 0;
  for (const auto& pt : p.points) {
    if (pt.label.empty() && pt.number <= 0) continue;
    if (pt.group >= 0 && std::find(labelled_groups.begin(), labelled_groups.end(), pt.group) != labelled_groups.end()) continue;
    if (pt.group >= 0) labelled_groups.push_back(pt.group);
    const auto xy = at(pt);
    const double cx = xy.first, cy = xy.second;
    if (!pt.label.empty()) {
      if (auto r = place(pt.label, SMALL, cx, cy, pt.size + 5, taken)) {
        taken.push_back(*r);
        labels += text_at(*r, SMALL, "#222222", pt.label, "point-label");
        continue;
      }
      if (pt.number <= 0) {
        ++unlabelled;
        continue;
      }
    }
    auto near = std::find_if(clusters.begin(), clusters.end(), [&](const cluster& c) { return std::hypot(c.cx - cx, c.cy - cy) < 7; });
    if (near != clusters.end()) near->numbers.push_back(pt.number);
    else clusters.push_back({cx, cy, {pt.number}, &pt});
  }
  for (const auto& c : clusters) {
    std::string text;
    for (int n : c.numbers) {
      if (!text.empty()) text += ',';
      text += std::to_string(n);
    }
    std::optional<rect> r;
    for (double gap : {c.first->size + 5, c.first->size + 11, c.first->size + 17})
      if ((r = place(text, SMALL, c.cx, c.cy, gap, taken))) break;
    if (!r) {
      unlabelled += static_cast<int>(c.numbers.size());
      continue;
    }
    taken.push_back(*r);
    labels += text_at(*r, SMALL, "#222222", text, "point-number");
    for (int n : c.numbers) numbered.emplace_back(n, c.first->legend_text.empty() ? c.first->label : c.first->legend_text);
  }

  return unlabelled;
}

/// The legend (only the entries whose elements were drawn) and its notes, from y = Y0 + 4; returns the
/// y below them.
double draw_legend(canvas& c, int outside, int unlabelled) {
  const plot& p = c.p;
  const axes& a = c.a;
  std::string& o = c.o;
  const double line_h = 18;
  double y = Y0 + 4;
  o += fmt::format("<g class=\"legend\" font-size=\"{}\" fill=\"#222222\">\n", px(FONT - 0.5));
  o += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">Legend</text>\n", px(LEGEND_X), px(y + 10));
  y += 28;
  for (const auto& li : p.legend) {
    if (!li.ref.empty() && std::find(c.drawn.begin(), c.drawn.end(), li.ref) == c.drawn.end()) continue;
    o += fmt::format("<g class=\"legend-item\" data-ref=\"{}\">", esc(li.ref));
    legend_marker(o, li, LEGEND_X, y);
    // wrapped to the svg's width: a second line sits under the first, indented like it
    const auto lines = wrap(li.label, FONT - 0.5, W - LEGEND_X - 36 - 6);
    for (std::size_t i = 0; i < lines.size(); ++i)
      o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", px(LEGEND_X + 36), px(y + 15 * static_cast<double>(i)), esc(lines[i]));
    o += "</g>\n";
    y += line_h + 15 * static_cast<double>(lines.size() - 1);
  }
  std::vector<std::string> notes = p.notes;
  if (outside > 0)
    notes.push_back(fmt::format("{} point(s) outside the plotted range ({} … {}, {} … {}) drawn hollow on its edge, an arrow pointing the way out", outside, x_tick(std::pow(10.0, a.lx0)),
                                x_tick(std::pow(10.0, a.lx1)), si(std::pow(10.0, a.ly0), p.y_unit, 1), si(std::pow(10.0, a.ly1), p.y_unit, 1)));
  if (unlabelled > 0)
    notes.push_back(p.key.empty() ? fmt::format("{} point label(s) not drawn (no room beside the point)", unlabelled)
                                  : fmt::format("{} op number(s) not drawn (no room beside the point); the key lists every op", unlabelled));
  for (const auto& n : notes)  // wrapped at word boundaries to the legend's width
    for (const auto& line : wrap(n, SMALL - 0.5, W - LEGEND_X - 10)) {
      o += fmt::format("<text class=\"legend-note\" x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"#555555\">{}</text>\n", px(LEGEND_X), px(y),
                       px(SMALL - 0.5), esc(line));
      y += 15;
    }
  return y;
}

/// The op key (per scenario, its colour, "number name" entries wrapped to the legend's width), else the
/// numbered points, from `y`; returns the y below them.
double draw_key(canvas& c, double y, const std::vector<std::pair<int, std::string>>& numbered) {
  const plot& p = c.p;
  std::string& o = c.o;
  if (!p.key.empty()) {
    // The op key: per scenario (its colour), "number name" entries wrapped to the legend's width.
    y += 10;
    o += fmt::format("<text class=\"key-heading\" x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", px(LEGEND_X), px(y),
                     esc(fit(p.key_title, (FONT - 0.5) * 0.62 / 0.58, W - LEGEND_X - 8)));
    y += 17;
    const double width = W - LEGEND_X - 8;
    const double size = SMALL - 1;
    for (const auto& g : p.key) {
      if (g.entries.empty()) continue;
      o += fmt::format("<text class=\"key-title\" x=\"{}\" y=\"{}\" font-size=\"{}\" font-weight=\"bold\" fill=\"{}\">{}</text>\n",
                       px(LEGEND_X), px(y), px(size), g.color, esc(g.title));
      y += 14;
      std::string line;
      auto flush = [&] {
        if (line.empty()) return;
        o += fmt::format("<text class=\"key-line\" x=\"{}\" y=\"{}\" font-size=\"{}\">{}</text>\n", px(LEGEND_X + 6), px(y), px(size), line);
        y += 14;
        line.clear();
      };
      std::string plain;  // the line's text without markup, for its width
      for (const auto& [n, name] : g.entries) {
        const std::string item = fit(fmt::format("{} {}", n, name), size, width - 6);
        const std::string sep = plain.empty() ? "" : " · ";
        if (!plain.empty() && text_width(plain + sep + item, size) > width - 6) {
          flush();
          plain.clear();
        }
        line += (plain.empty() ? "" : " · ") + fmt::format("<tspan class=\"key-entry\" data-n=\"{}\">{}</tspan>", n, esc(item));
        plain += (plain.empty() ? "" : " · ") + item;
      }
      flush();
    }
  } else if (!numbered.empty()) {
    y += 10;
    o += fmt::format("<text class=\"key-heading\" x=\"{}\" y=\"{}\" font-weight=\"bold\">Numbered points</text>\n", px(LEGEND_X), px(y));
    y += 18;
    for (const auto& [n, text] : numbered) {
      o += fmt::format("<text class=\"numbered-entry\" data-n=\"{}\" x=\"{}\" y=\"{}\" font-size=\"{}\">{}</text>\n", n, px(LEGEND_X), px(y),
                       px(SMALL - 0.5), esc(fit(fmt::format("{} {}", n, text), SMALL - 0.5, W - LEGEND_X - 8)));
      y += 15;
    }
  }
  return y;
}

/// The svg element of height H, its title, background, the figure title on one line inside the svg
/// (smaller where long, down to 14 px, cut with "…" only beyond that: the whole title is the svg's
/// <title>), the subtitle wrapped onto two lines at most, and the plot area's clip path.
std::string svg_head(const plot& p, double H) {
  std::string head;
  head += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
      px(W), px(H));
  head += "<title>" + esc(p.title) + "</title>\n";
  head += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", px(W), px(H));
  // The title on one line inside the svg: smaller where long (down to 14 px), cut with "…" only
  // beyond that (the whole title is the svg's <title>); the subtitle wrapped onto two lines at most.
  {
    const double room = W - X0 - 8;
    const double size = std::max(14.0, std::min(18.0, std::floor(10 * room / bold_width(p.title, 1)) / 10));
    std::string t = p.title;
    if (bold_width(t, size) > room) t = fit(t, size * 0.62 / 0.58, room);
    head += fmt::format("<text class=\"figure-title\" x=\"{}\" y=\"26\" font-size=\"{}\" font-weight=\"bold\" fill=\"#222222\">{}</text>\n",
                        px(X0), px(size), esc(t));
    auto sub = wrap(p.subtitle, SMALL, room);
    if (sub.size() > 2) {
      std::string rest;
      for (std::size_t i = 1; i < sub.size(); ++i) rest += (rest.empty() ? "" : " ") + sub[i];
      sub = {sub[0], fit(rest, SMALL, room)};
    }
    for (std::size_t i = 0; i < sub.size(); ++i)
      head += fmt::format("<text class=\"figure-subtitle\" x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"#555555\">{}</text>\n", px(X0),
                          px(sub.size() == 1 ? 46.0 : 43.0 + 13.0 * static_cast<double>(i)), px(SMALL), esc(sub[i]));
  }
  head += fmt::format("<defs><clipPath id=\"plot-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>\n", px(X0),
                   px(Y0), px(X1 - X0), px(Y1 - Y0));
  return head;
}

}  // namespace

std::string draw_svg(const plot& p) {
  canvas c{p, make_axes(p), {}, {}, {}, {}};
  draw_frame(c);
  // each point's box: its marker (diamonds and triangles reach size + 1, the stroke 0.9 more) and a
  // 2 px gap, so that no label touches a neighbouring point
  for (const auto& pt : p.points) {
    const auto [cx, cy] = c.at(pt);
    const double r = pt.size + 4;
    c.taken.push_back({cx - r, cy - r, cx + r, cy + r});
  }
  label_roofs(c, draw_roofs(c));
  draw_vlines(c);
  draw_traces(c);
  const int outside = draw_points(c);
  std::vector<std::pair<int, std::string>> numbered;
  const int unlabelled = label_points(c, numbered);
  c.o += "<g class=\"labels\">\n" + c.labels + "</g>\n";
  // the second chart: bandwidth against working set
  double bottom = Y1 + 60;
  std::vector<rect> bw_labels;
  if (!p.bandwidth.empty()) {
    const double top = Y1 + 64;
    bottom = top + 300;
    c.o += draw_bandwidth(p.bandwidth, top, bottom, c.drawn, bw_labels);
    bottom += 50;
  }
  const double y = draw_key(c, draw_legend(c, outside, unlabelled), numbered);
  c.o += "</g>\n</svg>\n";
  return svg_head(p, std::max(bottom + 20, y + 20)) + c.o;
}

}  // namespace roofline::report
