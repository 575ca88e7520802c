// render_json, render_html and write_outputs: every view rendered first, then written, so a view
// that throws leaves nothing behind.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "report/html_page.hpp"
#include "report/markdown.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

std::string render_json(const results& r) { return json(r).dump(2) + "\n"; }

std::string render_html(const results& r) {
  report::document d = report::build_document(r);
  d.figure_html = render_svg(r) + render_step_sweep_svg(r);
  const auto others = other_figure_precisions(r);
  for (const auto& p : others) d.multiples_html.push_back(render_svg(r, p));
  if (!others.empty())
    d.multiples_summary = fmt::format("The other precisions measured, one panel each ({}): roofs only; the ops ran in {}",
                                      fmt::join(others, ", "), main_precision(r));
  return report::html_page(d.title, report::to_html(d));
}

void write_outputs(const results& r, const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"results.json", render_json(r)},
      {"report.md", render_markdown(r)},
      {"roofline.svg", render_svg(r)},
      {"report.html", render_html(r)},
      {"ops.csv", render_ops_csv(r)},
  };
  if (std::string b = render_step_sweep_svg(r); !b.empty()) files.emplace_back("batch.svg", std::move(b));
  write_files(files, dir);
}

void write_files(const std::vector<std::pair<std::string, std::string>>& files, const std::string& dir) {
  prepare_output_dir(dir);
  for (const auto& [name, text] : files) write_file_atomic(dir + "/" + name, text);
}

}  // namespace roofline
