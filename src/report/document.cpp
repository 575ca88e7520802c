#include "report/document.hpp"

#include <fmt/format.h>

namespace roofline::report {

namespace {

/// Markdown text: `<` would open raw HTML in GitHub markdown; keep it literal.
std::string md_text(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '\n') o += ' ';
    else o += c;
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

/// HTML text with `code` spans.
std::string html_text(const std::string& s) {
  std::string o;
  bool code = false;
  const std::string e = html_escape(s);
  for (char c : e) {
    if (c == '`') {
      o += code ? "</code>" : "<code>";
      code = !code;
    } else {
      o += c;
    }
  }
  if (code) o += "</code>";
  return o;
}

}  // namespace

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
  for (const auto& p : d.intro) o += md_text(p) + "\n\n";
  for (std::size_t si = 0; si < d.sections.size(); ++si) {
    const section& s = d.sections[si];
    if (si == d.figure_after && !d.figure_markdown.empty()) o += d.figure_markdown + "\n\n";
    o += "## " + md_text(s.title) + "\n\n";
    for (const auto& b : s.blocks) {
      switch (b.k) {
        case block::kind::paragraph: o += md_text(b.lines.at(0)) + "\n\n"; break;
        case block::kind::heading: o += "### " + md_text(b.lines.at(0)) + "\n\n"; break;
        case block::kind::bullets:
          for (const auto& l : b.lines) o += "- " + md_text(l) + "\n";
          o += "\n";
          break;
        case block::kind::table: {
          const auto& t = b.t;
          o += "|";
          for (const auto& h : t.header) o += " " + md_cell(h) + " |";
          o += "\n|";
          for (std::size_t i = 0; i < t.header.size(); ++i) o += " --- |";
          o += "\n";
          for (const auto& row : t.rows) {
            o += "|";
            for (std::size_t i = 0; i < t.header.size(); ++i) o += " " + md_cell(i < row.size() ? row[i].text : "") + " |";
            o += "\n";
          }
          o += "\n";
          break;
        }
      }
    }
  }
  return o;
}

std::string to_html(const document& d) {
  std::string o = "<h1>" + html_text(d.title) + "</h1>\n";
  for (const auto& p : d.intro) o += "<p>" + html_text(p) + "</p>\n";
  o += "<nav><ul>";
  for (const auto& s : d.sections) o += "<li><a href=\"#" + s.id + "\">" + html_text(s.title) + "</a></li>";
  o += "</ul></nav>\n";
  for (std::size_t si = 0; si < d.sections.size(); ++si) {
    const section& s = d.sections[si];
    if (si == d.figure_after && !d.figure_html.empty()) o += "<figure>" + d.figure_html + "</figure>\n";
    o += "<section id=\"" + s.id + "\">\n<h2>" + html_text(s.title) + "</h2>\n";
    for (const auto& b : s.blocks) {
      switch (b.k) {
        case block::kind::paragraph: o += "<p>" + html_text(b.lines.at(0)) + "</p>\n"; break;
        case block::kind::heading: o += "<h3>" + html_text(b.lines.at(0)) + "</h3>\n"; break;
        case block::kind::bullets:
          o += "<ul>\n";
          for (const auto& l : b.lines) o += "<li>" + html_text(l) + "</li>\n";
          o += "</ul>\n";
          break;
        case block::kind::table: {
          const auto& t = b.t;
          o += "<div class=\"tw\"><table class=\"sortable\">\n<thead><tr>";
          for (const auto& h : t.header) o += "<th title=\"click to sort\">" + html_text(h) + "</th>";
          o += "</tr></thead>\n<tbody>\n";
          for (const auto& row : t.rows) {
            o += "<tr>";
            for (std::size_t i = 0; i < t.header.size(); ++i) {
              const cell c = i < row.size() ? row[i] : cell{};
              if (c.key) o += fmt::format("<td data-v=\"{:.17g}\">", *c.key);
              else o += "<td>";
              o += html_text(c.text) + "</td>";
            }
            o += "</tr>\n";
          }
          o += "</tbody></table></div>\n";
          break;
        }
      }
    }
    o += "</section>\n";
  }
  return o;
}

}  // namespace roofline::report
