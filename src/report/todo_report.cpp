// PLACEHOLDER until the report module lands (delete this file when implementing src/report/).
#include "roofline/io.hpp"
#include "roofline/report.hpp"
namespace roofline {
std::string render_json(const results& r) { return json(r).dump(2) + "\n"; }
std::string render_markdown(const results& r) { return "# roofline report\n"; }
std::string render_svg(const results& r) { return "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"; }
std::string render_html(const results& r) { return "<!doctype html><html></html>\n"; }
void write_outputs(const results& r, const std::string& dir) {
  prepare_output_dir(dir);
  write_file_atomic(dir + "/results.json", render_json(r));
  write_file_atomic(dir + "/report.md", render_markdown(r));
  write_file_atomic(dir + "/roofline.svg", render_svg(r));
  write_file_atomic(dir + "/report.html", render_html(r));
}
}  // namespace roofline
