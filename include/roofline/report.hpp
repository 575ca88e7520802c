// Report views over one results struct: all pure functions of it (re-renderable anywhere).
#pragma once
#include <string>

#include "roofline/results.hpp"

namespace roofline {

std::string render_json(const results& r);      ///< results.json text (pretty, 2-space indent)
std::string render_markdown(const results& r);  ///< report.md: record table first, then details
std::string render_svg(const results& r);       ///< roofline.svg: log-log roofs + op points
std::string render_html(const results& r);      ///< report.html: self-contained, figure inline

/// Writes results.json, report.md, roofline.svg and report.html into `dir` atomically (each file
/// through a temporary + rename). Throws input_error (field "--out") if `dir` is not writable.
void write_outputs(const results& r, const std::string& dir);

}  // namespace roofline
