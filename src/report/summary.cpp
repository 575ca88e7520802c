// The terminal summary `run`, `measure` and fleet runs print at the end: the report's three opening
// sentences, the record table (nominal, measured, ratio) with each row's reason under it, and the three
// ops slowest against their prediction (measured ÷ predicted), every text wrapped at word boundaries,
// never cut. The same
// rows as report.md's record table (record_section), so the terminal and the files never disagree.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "report/sections.hpp"
#include "report/units.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/report.hpp"

namespace roofline {

namespace {

constexpr std::size_t summary_width = 100;  ///< columns: text wraps at word boundaries, never cut

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

/// Marker numbers ("[2]" → 2) in a cell's text, in order.
std::vector<std::size_t> markers(const std::string& s) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '[') continue;
    std::size_t j = i + 1, n = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) n = n * 10 + static_cast<std::size_t>(s[j++] - '0');
    if (j > i + 1 && j < s.size() && s[j] == ']') v.push_back(n);
  }
  return v;
}

}  // namespace

std::string wrap_words(const std::string& text, std::size_t width, const std::string& first, const std::string& rest) {
  // Words, with a number and its unit (and both sides of "=") merged into one unbreakable unit.
  std::vector<std::string> units;
  std::string prev;
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    std::size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    if (!units.empty() && report::number_and_unit(prev, word)) units.back() += " " + word;
    else units.push_back(word);
    prev = std::move(word);
    i = j;
  }
  std::string o, line = first;
  std::size_t used = glyphs(first);
  bool empty = true;
  for (const auto& u : units) {
    const std::size_t g = glyphs(u);
    if (!empty && used + 1 + g > width) {  // a unit never splits: a longer one gets a line of its own
      o += line + "\n";
      line = rest, used = glyphs(rest), empty = true;
    }
    if (!empty) line += ' ', ++used;
    line += u, used += g, empty = false;
  }
  return o + line + "\n";
}

namespace {

/// One wrapped line on the decode step over batch (analysis.step_sweep): the first and the last
/// measured batch (step, tokens/s, J/token), the knees; "" without a measured sweep.
std::string sweep_line(const results& r) {
  const std::optional<step_sweep_analysis>& s = r.analysis.step_sweep;
  if (!s) return "";
  const step_sweep_point* first = nullptr;
  const step_sweep_point* last = nullptr;
  for (const auto& p : s->points)
    if (p.measured_s) (first ? last : first) = &p;
  if (!first) return "";
  const auto point = [](const step_sweep_point& p) {
    std::string t = fmt::format("batch {} {} ({} tokens/s", p.batch, units::seconds(*p.measured_s), units::sig(*p.measured_tokens_per_s));
    if (p.j_per_token_measured) t += ", " + units::si(*p.j_per_token_measured, "J") + "/token";
    return t + ")";
  };
  std::string line = fmt::format("decode step over batch, context {}: {}", s->context, point(*first));
  if (last) line += " … " + point(*last);
  line += fmt::format("; knee measured {}, predicted {}", s->knee_measured ? "batch " + units::sig(*s->knee_measured) : "unknown",
                      s->knee_predicted ? "batch " + units::sig(*s->knee_predicted) : "unknown");
  if (s->drift_moved) line += fmt::format("; drift check: {}", report::drift_text(*s));
  return wrap_words(line, summary_width, "", "  ");
}

}  // namespace

std::string render_summary(const results& r, const std::string& where) {
  using namespace report;
  // The first line: the device and how the run went; a run whose results do not stand says why here,
  // before anything else (run_failure: a busy machine, a roof that does not stand).
  const std::string failure = run_failure(r);
  std::string first = fmt::format("roofline: {} ({}), run {}", r.device.name.empty() ? "unknown device" : r.device.name,
                                  r.device.kind.empty() ? "?" : r.device.kind, failure.empty() ? r.status : "failed: " + failure);
  if (!where.empty()) first += " · full report: " + where;
  std::string o = failure.empty() ? first + "\n" : wrap_words(first, summary_width, "", "  ");
  for (const auto& h : headline_sentences(r, false)) o += wrap_words(h, summary_width, "", "  ");
  const section s = record_section(r);
  for (const auto& b : s.blocks) {
    if (b.k != block::kind::table) continue;
    const table& t = b.t;
    std::size_t w0 = 8, w1 = 7, w2 = 8;
    std::vector<std::array<std::string, 4>> rows;
    std::vector<std::vector<std::size_t>> notes;  // each row's reasons (the table's notes), printed under it
    for (const auto& row : t.rows) {
      std::array<std::string, 4> c = {plain_cell(row[0].text), plain_cell(row[1].text), plain_cell(row[2].text), plain_cell(row[3].text)};
      std::vector<std::size_t> n;
      for (const auto& cl : row)
        for (std::size_t k : markers(cl.text))
          if (std::find(n.begin(), n.end(), k) == n.end()) n.push_back(k);
      notes.push_back(std::move(n));
      w0 = std::max(w0, glyphs(c[0])), w1 = std::max(w1, glyphs(c[1])), w2 = std::max(w2, glyphs(c[2]));
      rows.push_back(c);
    }
    o += fmt::format("  {}  {}  {}  {}\n", pad("", w0, false), pad("nominal", w1, true), pad("measured", w2, true), "÷ nominal");
    std::vector<std::size_t> said;  // a reason shared by several rows is printed under the first
    std::vector<std::string> said_text;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto& c = rows[k];
      o += fmt::format("  {}  {}  {}  {}\n", pad(c[0], w0, false), pad(c[1], w1, true), pad(c[2], w2, true), pad(c[3], 9, true));
      for (std::size_t n : notes[k]) {
        if (n < 1 || n > t.notes.size() || std::find(said.begin(), said.end(), n) != said.end()) continue;
        said.push_back(n);
        // A result rejected because the machine was busy: said once, in words every such row shares (the
        // numbers of each probe's interference are in report.html and results.json), so that a busy run's
        // terminal is not a list of them.
        std::string text = t.notes[n - 1];
        if (text.rfind("rejected: unreliable: machine busy", 0) == 0)
          text = "rejected: measured while the machine was busy, twice (each probe's share of the CPU: report.html)";
        if (std::find(said_text.begin(), said_text.end(), text) != said_text.end()) continue;
        said_text.push_back(text);
        o += wrap_words(text, summary_width, "      ↳ ", "        ");
      }
    }
  }
  // The three step ops slowest against their prediction: measured ÷ predicted time (the roof plus the
  // launch floor where modelled, so a launch-bound op is not mistaken for a slow one), highest first.
  // This ranks by prediction error, and the heading says so.
  std::vector<std::pair<double, std::size_t>> below;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    if (!op.alternative_to.empty() || !op.measured_s || !(op.predicted_s > 0)) continue;
    below.emplace_back(-*op.measured_s / op.predicted_s, i);
  }
  std::stable_sort(below.begin(), below.end());
  if (!below.empty()) {
    o += "the 3 ops slowest against their prediction (ranked by measured ÷ predicted time, highest first):\n";
    for (std::size_t k = 0; k < std::min<std::size_t>(3, below.size()); ++k) {
      const op_result& op = r.ops[below[k].second];
      const std::string scenario = op.phase == "decode" ? fmt::format("decode b{}", op.batch) : fmt::format("{} seq {}", op.phase, op.seq);
      o += fmt::format("  #{} {} ({}): {} vs {} predicted, {}\n", below[k].second + 1, op.name, scenario, seconds(*op.measured_s),
                       seconds(op.predicted_s), ratio(-below[k].first));
      const std::string advice = op.advice.empty() ? op.bound + "-bound" : op.advice;
      std::size_t same = r.ops.size();  // an advice already printed is referred to, not repeated
      for (std::size_t e = 0; e < k && same == r.ops.size(); ++e)
        if (r.ops[below[e].second].advice == op.advice) same = below[e].second;
      if (same < r.ops.size()) o += fmt::format("      advice as for #{}\n", same + 1);
      else o += wrap_words(advice, summary_width, "      ", "      ");
    }
  } else if (!r.ops.empty()) {
    o += "no op was measured: no op to rank against its prediction\n";
  }
  o += sweep_line(r);
  if (!r.errors.empty()) o += fmt::format("{} probe(s) failed or did not run: see the errors in the report\n", r.errors.size());
  return o;
}

}  // namespace roofline
