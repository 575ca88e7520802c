#include "report/document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace roofline::report {

namespace {

/// Markdown text: `<` before a letter, `/`, `!` or `?` would open raw HTML in GitHub markdown: keep
/// it literal there; "<=" is written "≤" (readable both raw and rendered); elsewhere `<` stays.
std::string md_text(const std::string& s) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : ' ';
    if (c == '<' && next == '=') {
      o += "≤";
      ++i;
    } else if (c == '<' && (std::isalpha(static_cast<unsigned char>(next)) || next == '/' || next == '!' || next == '?')) {
      o += "&lt;";
    } else if (c == '\n') {
      o += ' ';
    } else {
      o += c;
    }
  }
  return o;
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : md_text(s)) {
    if (c == '|') o += "\\|";
    else o += c;
  }
  return o.empty() ? " " : o;
}

std::string md_table(const table& t) {
  std::string o = "|";
  for (const auto& h : t.header) {
    o += ' ';
    o += md_cell(h);
    o += " |";
  }
  o += "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) o += t.numeric(i) ? " ---: |" : " --- |";
  o += "\n";
  for (const auto& row : t.rows) {
    o += "|";
    for (std::size_t i = 0; i < t.header.size(); ++i) {
      o += ' ';
      o += md_cell(i < row.size() ? row[i].text : "");
      o += " |";
    }
    o += "\n";
  }
  o += "\n";
  for (std::size_t i = 0; i < t.notes.size(); ++i) o += fmt::format("{}[{}] {}\n", i == 0 ? "" : "\n", i + 1, md_text(t.notes[i]));
  if (!t.notes.empty()) o += "\n";
  return o;
}

std::string md_section(const section& s, const std::string& level) {
  std::string o = level + " " + md_text(s.title) + "\n\n";
  for (const auto& b : s.blocks) {
    switch (b.k) {
      case block::kind::paragraph: o += md_text(b.lines.at(0)) + "\n\n"; break;
      case block::kind::heading: o += level + "# " + md_text(b.lines.at(0)) + "\n\n"; break;
      case block::kind::bullets:
        for (const auto& l : b.lines) o += "- " + md_text(l) + "\n";
        o += "\n";
        break;
      case block::kind::table: o += md_table(b.t); break;
    }
  }
  return o;
}

/// Text cells longer than this many characters are held to `div.long`'s width (html_page's CSS), so
/// that one long name (a C++ kernel's) does not push the other columns out of sight.
constexpr std::size_t long_cell_chars = 60;
/// In a word longer than this (wider than div.long's 26 em hold), a line may break after "::", "(",
/// "<" and "," (a C++ kernel name: `at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(…)::{lambda()#3}…`),
/// never inside a run of letters, digits and "_"; a shorter word (`aten::scaled_dot_product_attention`) stays whole.
constexpr std::size_t long_word_chars = 48;

/// True when an escaped text `e` may break after position `i` (a <wbr> follows): `i` ends "::", "(",
/// "&lt;" or "," inside a word longer than long_word_chars.
bool breaks_after(const std::string& e, std::size_t i) {
  const char c = e[i];
  const bool mark = (c == ':' && i > 0 && e[i - 1] == ':' && (i + 1 >= e.size() || e[i + 1] != ':')) || c == '(' || c == ',' ||
                    (c == ';' && i >= 3 && e.compare(i - 3, 4, "&lt;") == 0);
  if (!mark || i + 1 >= e.size() || e[i + 1] == ' ' || e[i + 1] == ')') return false;
  const std::size_t from = e.rfind(' ', i);
  const std::size_t a0 = from == std::string::npos ? 0 : from + 1;
  const std::size_t b1 = std::min(e.find(' ', i), e.size());
  return b1 - a0 > long_word_chars;
}

std::string html_table(const table& t) {
  std::string o = "<div class=\"tw\"><table class=\"sortable\">\n<thead><tr>";
  std::vector<bool> num(t.header.size());
  for (std::size_t i = 0; i < t.header.size(); ++i) num[i] = t.numeric(i);
  for (std::size_t i = 0; i < t.header.size(); ++i)
    o += std::string("<th") + (num[i] ? " class=\"num\"" : "") + " title=\"click to sort\">" + html_text(t.header[i]) + "</th>";
  o += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    o += "<tr>";
    for (std::size_t i = 0; i < t.header.size(); ++i) {
      const cell c = i < row.size() ? row[i] : cell{};
      o += "<td";
      if (num[i]) o += " class=\"num\"";
      if (c.key) o += fmt::format(" data-v=\"{:.17g}\"", *c.key);
      o += '>';
      const bool held = !num[i] && c.text.size() > long_cell_chars;
      o += held ? "<div class=\"long\">" + html_text(c.text) + "</div>" : html_text(c.text);
      o += "</td>";
    }
    o += "</tr>\n";
  }
  o += "</tbody></table></div>\n";
  if (!t.notes.empty()) {
    o += "<ol class=\"notes\">\n";
    for (const auto& n : t.notes) o += "<li>" + html_text(n) + "</li>\n";
    o += "</ol>\n";
  }
  return o;
}

std::string html_blocks(const section& s) {
  std::string o;
  for (const auto& b : s.blocks) {
    switch (b.k) {
      case block::kind::paragraph: o += "<p>" + html_text(b.lines.at(0)) + "</p>\n"; break;
      case block::kind::heading: o += "<h3>" + html_text(b.lines.at(0)) + "</h3>\n"; break;
      case block::kind::bullets:
        o += "<ul>\n";
        for (const auto& l : b.lines) o += "<li>" + html_text(l) + "</li>\n";
        o += "</ul>\n";
        break;
      case block::kind::table: o += html_table(b.t); break;
    }
  }
  return o;
}

}  // namespace

std::string html_text(const std::string& s) {
  std::string o;
  bool code = false;
  const std::string e = html_escape(s);
  for (std::size_t i = 0; i < e.size(); ++i) {
    const char c = e[i];
    if (c == ' ' && i > 0) {
      const std::size_t from = e.rfind(' ', i - 1);
      const std::size_t a0 = from == std::string::npos ? 0 : from + 1;
      const std::size_t b1 = std::min(e.find(' ', i + 1), e.size());
      if (number_and_unit(e.substr(a0, i - a0), e.substr(i + 1, b1 - i - 1))) {
        o += "&nbsp;";
        continue;
      }
    }
    if (c == '`') {
      o += code ? "</code>" : "<code>";
      code = !code;
    } else {
      o += c;
      if (breaks_after(e, i)) o += "<wbr>";
    }
  }
  if (code) o += "</code>";
  return o;
}

std::string table::note(const std::string& text) {
  auto it = std::find(notes.begin(), notes.end(), text);
  if (it == notes.end()) {
    notes.push_back(text);
    it = notes.end() - 1;
  }
  return fmt::format("[{}]", it - notes.begin() + 1);
}

bool table::numeric(std::size_t i) const {
  // A cell that says why there is no number ("—", "not run [2]", "unknown [1]", "failed [3]") does
  // not make a column of numbers a text column.
  auto missing = [](const std::string& t) {
    return t.empty() || t == "—" || t == " " || t.rfind("not ", 0) == 0 || t.rfind("unknown", 0) == 0 || t.rfind("failed", 0) == 0;
  };
  bool any = false;
  for (const auto& row : rows) {
    if (i >= row.size()) continue;
    const cell& c = row[i];
    if (!c.key && missing(c.text)) continue;
    if (!c.key) return false;
    any = true;
  }
  return any;
}

bool number_and_unit(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  if (a == "=" || b == "=") return true;
  std::size_t b_glyphs = 0;
  for (unsigned char c : b)
    if ((c & 0xC0) != 0x80) ++b_glyphs;
  // a number: its first character after an opening bracket or sign is a digit, its last one too
  // ("(4.00", "1.95", "-3"); "fp16" is a word that ends in a digit, not a number.
  const std::size_t first = a.find_first_not_of("([~+-");
  const bool a_number = first != std::string::npos && std::isdigit(static_cast<unsigned char>(a[first])) != 0 &&
                        std::isdigit(static_cast<unsigned char>(a.back())) != 0;
  const bool b_unit = b_glyphs <= 8 && std::none_of(b.begin(), b.end(), [](unsigned char c) { return std::isdigit(c) != 0; }) &&
                      (std::isalpha(static_cast<unsigned char>(b[0])) || static_cast<unsigned char>(b[0]) >= 0x80 || b[0] == '%');
  return a_number && b_unit;
}

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string to_markdown(const document& d) {
  std::string o = "# " + md_text(d.title) + "\n\n";
  for (const auto& h : d.headline) o += "**" + md_text(h) + "**\n\n";
  for (const auto& w : d.warnings) o += "**Warning:** " + md_text(w) + "\n\n";
  for (const auto& p : d.intro) o += md_text(p) + "\n\n";
  bool appendix = false;
  bool figure_done = false;
  for (std::size_t si = 0; si < d.sections.size(); ++si) {
    const section& s = d.sections[si];
    if (si == d.figure_after && !d.figure_markdown.empty()) {
      o += d.figure_markdown + "\n\n";
      figure_done = true;
    }
    if (s.detail && !appendix) {
      o += "## Appendix: the detail behind every number\n\n";
      appendix = true;
    }
    if (s.html_only)
      o += (s.detail ? "### " : "## ") + md_text(s.title) + "\n\n" + md_text(s.md_summary) + "\n\n";
    else
      o += md_section(s, s.detail ? "###" : "##");
  }
  if (!figure_done && !d.figure_markdown.empty()) o += d.figure_markdown + "\n\n";
  return o;
}

std::string to_html(const document& d) {
  std::string o = "<h1>" + html_text(d.title) + "</h1>\n";
  if (!d.headline.empty()) {
    o += "<div class=\"headline\">\n";
    for (const auto& h : d.headline) o += "<p>" + html_text(h) + "</p>\n";
    o += "</div>\n";
  }
  for (const auto& w : d.warnings) o += "<p class=\"warning\"><strong>Warning:</strong> " + html_text(w) + "</p>\n";
  for (const auto& p : d.intro) o += "<p>" + html_text(p) + "</p>\n";
  o += "<nav><ul>";
  for (const auto& s : d.sections) o += "<li><a href=\"#" + s.id + "\">" + html_text(s.title) + "</a></li>";
  o += "</ul></nav>\n";
  bool figure_done = false;
  auto figure = [&] { o += "<figure>" + d.figure_html + "</figure>\n"; };
  for (std::size_t si = 0; si < d.sections.size(); ++si) {
    const section& s = d.sections[si];
    if (si == d.figure_after && !d.figure_html.empty()) {
      figure();
      figure_done = true;
    }
    if (s.detail)
      o += "<details id=\"" + s.id + "\">\n<summary><h2>" + html_text(s.title) + "</h2></summary>\n" + html_blocks(s) + "</details>\n";
    else
      o += "<section id=\"" + s.id + "\">\n<h2>" + html_text(s.title) + "</h2>\n" + html_blocks(s) + "</section>\n";
  }
  if (!figure_done && !d.figure_html.empty()) figure();
  if (!d.multiples_html.empty()) {  // collapsed, after everything: the other precisions' panels
    o += "<details class=\"multiples\" id=\"precisions\">\n<summary><h2>" + html_text(d.multiples_summary) +
         "</h2></summary>\n<div class=\"multiples\">\n";
    for (const auto& m : d.multiples_html) o += "<figure>" + m + "</figure>\n";
    o += "</div>\n</details>\n";
  }
  return o;
}

}  // namespace roofline::report
