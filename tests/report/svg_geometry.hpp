// Geometry of the figures' SVG text, read back from the file: each <text> element's box from its
// x, y, font-size (its own or the nearest enclosing <g>'s), text-anchor and glyph count, with the
// width estimate the drawing uses (0.58 em a glyph, bold 0.62 em; DejaVu Sans averages about 0.55).
#pragma once
#include <regex>
#include <string>
#include <vector>

namespace roofline::test {

struct text_box {
  double x0, y0, x1, y1;
  std::string text, cls;
};

inline double svg_attr(const std::string& attrs, const std::string& name, double fallback) {
  const std::regex re("(^|\\s)" + name + "=\"([-0-9.]+)\"");
  std::smatch m;
  return std::regex_search(attrs, m, re) ? std::stod(m[2]) : fallback;
}

inline std::string svg_attr_s(const std::string& attrs, const std::string& name) {
  const std::regex re("(^|\\s)" + name + "=\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(attrs, m, re) ? m[2].str() : std::string();
}

/// The viewBox's width and height.
inline std::pair<double, double> svg_size(const std::string& svg) {
  std::smatch m;
  static const std::regex vb("viewBox=\"0 0 ([0-9.]+) ([0-9.]+)\"");
  return std::regex_search(svg, m, vb) ? std::pair{std::stod(m[1]), std::stod(m[2])} : std::pair{0.0, 0.0};
}

/// Every horizontal <text>'s box (rotated ones, the y-axis title, are left out).
inline std::vector<text_box> svg_text_boxes(const std::string& svg) {
  std::vector<text_box> out;
  std::vector<double> sizes{16};  // the font-size of each open <g> (the browser default at the bottom)
  static const std::regex tag("<(/?)(g|text)\\b([^>]*)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const bool close = (*it)[1].length() > 0;
    const std::string name = (*it)[2], attrs = (*it)[3];
    if (name == "g") {
      if (close) {
        if (sizes.size() > 1) sizes.pop_back();
      } else if (attrs.empty() || attrs.back() != '/') {
        sizes.push_back(svg_attr(attrs, "font-size", sizes.back()));
      }
      continue;
    }
    if (close) continue;
    if (attrs.find("rotate(") != std::string::npos) continue;
    const std::size_t from = static_cast<std::size_t>(it->position() + it->length());
    const std::size_t to = svg.find("</text>", from);
    std::string inner = svg.substr(from, to - from), plain;
    bool in_tag = false;
    for (char c : inner) {
      if (c == '<')
        in_tag = true;
      else if (c == '>')
        in_tag = false;
      else if (!in_tag)
        plain += c;
    }
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"})
      for (auto p = plain.find(e); p != std::string::npos; p = plain.find(e))
        plain.replace(p, std::string(e).size(), "x");
    std::size_t glyphs = 0;
    for (unsigned char c : plain)
      if ((c & 0xC0) != 0x80) ++glyphs;
    const double size = svg_attr(attrs, "font-size", sizes.back());
    const double w = (attrs.find("bold") != std::string::npos ? 0.62 : 0.58) * size * static_cast<double>(glyphs);
    const double x = svg_attr(attrs, "x", 0), y = svg_attr(attrs, "y", 0);
    const std::string anchor = svg_attr_s(attrs, "text-anchor");
    const double x0 = anchor == "middle" ? x - w / 2 : anchor == "end" ? x - w : x;
    out.push_back({x0, y - 0.85 * size, x0 + w, y + 0.2 * size, plain, svg_attr_s(attrs, "class")});
  }
  return out;
}

}  // namespace roofline::test
