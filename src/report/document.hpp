// A report as data: sections of paragraphs, bullet lists and tables of plain text. One document,
// two renderings (report.md and the body of report.html), so both always show the same numbers.
// Text may use `backticks` for code; nothing else is markup.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace roofline::report {

/// A table cell: its text (number with unit) and, for numbers, the raw value the HTML view sorts by.
struct cell {
  std::string text;
  std::optional<double> key;
  cell() = default;
  cell(std::string t) : text(std::move(t)) {}                                    // NOLINT
  cell(const char* t) : text(t) {}                                               // NOLINT
  cell(std::string t, std::optional<double> k) : text(std::move(t)), key(k) {}
};

struct table {
  std::vector<std::string> header;
  std::vector<std::vector<cell>> rows;
  std::vector<std::string> notes;  ///< numbered notes under the table, each stated once

  /// The marker of note `text` ("[1]"), adding it to `notes` the first time it is seen.
  std::string note(const std::string& text);
  /// True when every cell of column `i` that is not "—" or empty carries a number (key): the
  /// column is right-aligned.
  bool numeric(std::size_t i) const;
};

struct block {
  enum class kind { paragraph, bullets, table, heading };
  kind k = kind::paragraph;
  std::vector<std::string> lines;  ///< paragraph: one line; bullets: one per item; heading: one
  report::table t;
};

struct section {
  std::string title;
  std::string id;  ///< HTML anchor
  std::vector<block> blocks;
  bool detail = false;  ///< per-point detail: a collapsed <details> in HTML, the appendix in Markdown
  /// Markdown shows only `md_summary` (one line saying where the detail is): report.md stays short,
  /// the per-point tables live in results.json and in the HTML's collapsed sections.
  bool html_only = false;
  std::string md_summary = {};

  void para(std::string text) { blocks.push_back({block::kind::paragraph, {std::move(text)}, {}}); }
  void bullets(std::vector<std::string> items) {
    if (!items.empty()) blocks.push_back({block::kind::bullets, std::move(items), {}});
  }
  void heading(std::string text) { blocks.push_back({block::kind::heading, {std::move(text)}, {}}); }
  void add(table t) { blocks.push_back({block::kind::table, {}, std::move(t)}); }
};

struct document {
  std::string title;
  std::vector<std::string> headline;  ///< the opening sentences (headline_sentences), before everything else
  std::vector<std::string> intro;  ///< paragraphs under the title
  std::vector<section> sections;
  /// The figure, shown after the first `figure_after` sections (at the end when there are fewer):
  /// markdown text / inline HTML.
  std::string figure_markdown, figure_html;
  std::size_t figure_after = 1;
  /// Small multiples under the figure (HTML only), in one collapsed section: its summary line and one
  /// inline SVG per panel (render_svg of each other measured precision).
  std::string multiples_summary;
  std::vector<std::string> multiples_html;
  std::vector<std::string> warnings;  ///< shown above everything (e.g. a busy machine)
};

std::string to_markdown(const document& d);
/// The HTML body content (headings, paragraphs, `<table class="sortable">`), escaped.
std::string to_html(const document& d);
std::string html_escape(const std::string& s);
/// True when words `a` and `b` must stay on one line: a number and its unit ("1.95" "ms", "(4.00"
/// "GiB)"), or either side of "=". The terminal's wrap (wrap_words) and the HTML text (a
/// non-breaking space between them) both use this one rule.
bool number_and_unit(const std::string& a, const std::string& b);
/// Text for HTML: escaped, `code` spans, and a number and its unit joined by a non-breaking space
/// (number_and_unit), so a browser never wraps between them. Every HTML text of a report goes
/// through it.
std::string html_text(const std::string& s);

}  // namespace roofline::report
