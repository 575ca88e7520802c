// Report views over one results struct: all pure functions of it (re-renderable anywhere).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

std::string render_json(const results& r);      ///< results.json text (pretty, 2-space indent)
std::string render_markdown(const results& r);  ///< report.md: record table first, then details
std::string render_svg(const results& r);       ///< roofline.svg: log-log roofs + op points
std::string render_html(const results& r);      ///< report.html: self-contained, figure inline

/// Writes results.json, report.md, roofline.svg and report.html into `dir` atomically (each file
/// through a temporary + rename). Throws input_error (field "--out") if `dir` is not writable.
void write_outputs(const results& r, const std::string& dir);

/// Writes (name, content) pairs into `dir` (created if needed), each atomically. Render everything
/// before calling, so a render that throws writes nothing. Throws input_error (field "--out").
void write_files(const std::vector<std::pair<std::string, std::string>>& files, const std::string& dir);

/// One side of `roofline compare`: a measured results file, or a spec-only device (nominal roofs,
/// nothing measured: `measured` false, r.measured empty, r.device.kind "cuda").
struct compare_side {
  std::string label;  ///< the device name as shown
  std::string source; ///< the file or NAME it came from
  results r;
  bool measured = false;
};

/// Loads a side from ARG: a results.json (validated as load_results: exit 2 on a bad or old schema),
/// a `roofline spec NAME --json` file (a json with peaks[] and memory_bandwidth_bytes_per_s, at the
/// top level or under "nominal"), or a GPU NAME from the spec table (gpu_nominal). Throws input_error.
compare_side load_compare_side(const std::string& arg);

/// compare.md: one table of both devices (each row: A, B, B ÷ A), then the ops of either predicted
/// on both; compare.svg: both devices on one roofline figure; compare.html: both, self-contained.
std::string render_compare_markdown(const compare_side& a, const compare_side& b);
std::string render_compare_svg(const compare_side& a, const compare_side& b);
std::string render_compare_html(const compare_side& a, const compare_side& b);
/// Writes compare.md, compare.svg and compare.html into `dir` (nothing when a render throws).
void write_compare_outputs(const compare_side& a, const compare_side& b, const std::string& dir);

}  // namespace roofline
