// The terminal summary `run`, `measure` and fleet runs print at the end: the record table
// (nominal, measured, ratio) and the three ops furthest below their roofs (measured ÷ predicted),
// under 25 lines. The same
// rows as report.md's record table (record_section), so the terminal and the files never disagree.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "report/sections.hpp"
#include "report/units.hpp"
#include "roofline/report.hpp"

namespace roofline {

namespace {

std::size_t glyphs(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

/// A record-table cell for the terminal: note markers ("[2]") dropped.
std::string plain_cell(const std::string& s) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[') {
      std::size_t j = i + 1;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j > i + 1 && j < s.size() && s[j] == ']') {
        while (!o.empty() && o.back() == ' ') o.pop_back();
        i = j;
        continue;
      }
    }
    o += s[i];
  }
  return o;
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  const std::size_t g = glyphs(s);
  const std::string fill(g < w ? w - g : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string clip(const std::string& s, std::size_t w) {
  if (glyphs(s) <= w) return s;
  std::string o;
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++n > w - 1) break;
    o += s[i];
  }
  return o + "…";
}

}  // namespace

std::string render_summary(const results& r, const std::string& where) {
  using namespace report;
  std::string o = fmt::format("roofline: {} ({}), run {}", r.device.name.empty() ? "unknown device" : r.device.name,
                              r.device.kind.empty() ? "?" : r.device.kind, r.status);
  if (!where.empty()) o += " · full report: " + where;
  o += "\n";
  const section s = record_section(r);
  for (const auto& b : s.blocks) {
    if (b.k != block::kind::table) continue;
    const table& t = b.t;
    std::size_t w0 = 8, w1 = 7, w2 = 8;
    std::vector<std::array<std::string, 4>> rows;
    for (const auto& row : t.rows) {
      std::array<std::string, 4> c = {clip(plain_cell(row[0].text), 44), clip(plain_cell(row[1].text), 16),
                                      clip(plain_cell(row[2].text), 24), plain_cell(row[3].text)};
      w0 = std::max(w0, glyphs(c[0])), w1 = std::max(w1, glyphs(c[1])), w2 = std::max(w2, glyphs(c[2]));
      rows.push_back(c);
    }
    o += fmt::format("  {}  {}  {}  {}\n", pad("", w0, false), pad("nominal", w1, true), pad("measured", w2, true), "÷ nominal");
    for (const auto& c : rows)
      o += fmt::format("  {}  {}  {}  {}\n", pad(c[0], w0, false), pad(c[1], w1, true), pad(c[2], w2, true), pad(c[3], 9, true));
  }
  // The three step ops furthest below their roofs: measured ÷ predicted time (the roof plus the
  // launch floor where modelled, so a launch-bound op is not mistaken for a slow one), highest first.
  std::vector<std::pair<double, std::size_t>> below;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    if (!op.alternative_to.empty() || !op.measured_s || !(op.predicted_s > 0)) continue;
    below.emplace_back(-*op.measured_s / op.predicted_s, i);
  }
  std::stable_sort(below.begin(), below.end());
  if (!below.empty()) {
    o += "furthest below their roofs (measured ÷ predicted time):\n";
    for (std::size_t k = 0; k < std::min<std::size_t>(3, below.size()); ++k) {
      const op_result& op = r.ops[below[k].second];
      const std::string scenario = op.phase == "decode" ? fmt::format("decode b{}", op.batch) : fmt::format("{} seq {}", op.phase, op.seq);
      o += fmt::format("  #{} {} ({}): {} vs {} predicted, {}; {}\n", below[k].second + 1, op.name, scenario, seconds(*op.measured_s),
                       seconds(op.predicted_s), ratio(-below[k].first), clip(op.advice.empty() ? op.bound + "-bound" : op.advice, 56));
    }
  } else if (!r.ops.empty()) {
    o += "no op was measured: no op to rank against its roof\n";
  }
  if (!r.errors.empty()) o += fmt::format("{} probe(s) failed or did not run: see the errors in the report\n", r.errors.size());
  return o;
}

}  // namespace roofline
