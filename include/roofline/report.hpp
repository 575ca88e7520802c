// Report views over one results struct: all pure functions of it (re-renderable anywhere).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

std::string render_json(const results& r);      ///< results.json text (pretty, 2-space indent)
std::string render_markdown(const results& r);  ///< report.md: record table first, then details
/// roofline.svg: log-log roofs + op points, one panel: the compute roofs of `precision` ("" = the
/// model's, main_precision) and every memory level; the ops (which ran in the model's precision) only
/// on the model's panel. Throws input_error naming --precision when `precision` has no measured or
/// nominal roof in r.
std::string render_svg(const results& r, const std::string& precision = "");
/// The precisions with a measured compute roof other than the model's, in measured order: the small
/// multiples report.html shows under the figure.
std::vector<std::string> other_figure_precisions(const results& r);
std::string render_html(const results& r);      ///< report.html: self-contained, figure inline
/// batch.svg: decode step time, tokens/s and J/token against batch, measured and predicted, knees
/// marked (analysis.step_sweep); "" when the file has no step sweep of two or more points.
std::string render_step_sweep_svg(const results& r);
/// place.svg of `roofline place --csv`: r's roofs with r.ops as the user's kernels (measured_s =
/// their time, predicted_s = the same work at the roof), numbered as in the table.
std::string render_place_svg(const results& r, const std::string& title);

/// The terminal summary printed at the end of `run`, `measure` and fleet runs (under 25 lines):
/// device and status, the record table (quantity, nominal, measured, measured ÷ nominal) and the
/// three step ops furthest below their roofs (measured ÷ predicted time, the launch floor included
/// where modelled). `where` names the
/// full report ("" = not mentioned).
std::string render_summary(const results& r, const std::string& where = "");
/// Why the run failed (judge_run, roofline/run_verdict.hpp), in one line: "the machine was busy, so no
/// roof stands and 46 op timing(s) and 4 whole step(s) were kept out (14 of 14 probe(s) stayed disturbed
/// after a re-run; before measuring, other processes used 93 % of the CPU time, …)",
/// "no fp32 compute roof stands: every fp32 result was rejected (…)"; "" when the run stands. The
/// terminal summary's first line, the last line `run` prints and report.md's first warning.
std::string run_failure(const results& r);
/// One progress line of a run: "[roofline  42% · ETA 3 min 07 s] what" (the percent of `fraction`,
/// 0..1, rounded, width 3; then " · took D" when `took_s`, else " · ETA D" when `eta_s`; D rounded
/// to the second: "42 s", "3 min 07 s", "1 h 05 min").
std::string render_progress_line(double fraction, std::optional<double> took_s, std::optional<double> eta_s,
                                 const std::string& what);
/// `text` broken into lines of at most `width` columns (UTF-8 glyphs) at spaces, the first line starting
/// with `first`, the others with `rest`; a word is never split (one longer than a line stands alone).
std::string wrap_words(const std::string& text, std::size_t width, const std::string& first, const std::string& rest);

// ---- results as CSV (src/report/csv.cpp; the CSV text itself: roofline/csv.hpp) ----
/// An array of json objects (or one object) as CSV: a header of the keys in `first` (those present),
/// then every other key in first-seen order; one line per object; numbers at full precision, null
/// as an empty field, nested values as JSON.
std::string render_csv(const json& rows, const std::vector<std::string>& first = {});
/// results.ops as CSV (run's op table): number, name, phase, batch, seq, context, shape, dtype,
/// count, flops, bytes, intensity, bound, predicted_s, measured_s, measured_over_predicted, …
std::string render_ops_csv(const results& r);

/// Writes results.json, report.md, roofline.svg, report.html and ops.csv into `dir` atomically (each file
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
/// The terminal view `compare` prints on stdout: the roofs side by side (A, B, B ÷ A) as aligned text.
std::string render_compare_text(const compare_side& a, const compare_side& b);
std::string render_compare_html(const compare_side& a, const compare_side& b);
/// Writes compare.md, compare.svg and compare.html into `dir` (nothing when a render throws).
void write_compare_outputs(const compare_side& a, const compare_side& b, const std::string& dir);

}  // namespace roofline
