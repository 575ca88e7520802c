// Views of the user's kernels judged (roofline/kernel_analysis.hpp): the terminal summary, place.csv,
// place.json and place.svg of `roofline place`. Pure functions of one kernel_report; every number
// through roofline/units.hpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "roofline/analysis.hpp"
#include "roofline/json_fwd.hpp"
#include "roofline/kernel_analysis.hpp"
#include "roofline/results.hpp"
#include "roofline/run_analysis.hpp"

namespace roofline {

/// Everything `place` judged, computed before any view renders.
struct kernel_report {
  std::string file, format, tool_version;  ///< the profile read
  std::string roofs_source;                ///< "FILE (device)" | "NAME (spec table); nominal roofs only"
  std::string default_precision;           ///< for counts without a precision
  std::vector<kernel_verdict> verdicts;
  std::optional<trace_summary> trace;      ///< when the kernels carry start times
  std::optional<baseline_diff> baseline;
  std::vector<kernel_verdict> baseline_verdicts;  ///< the baseline's kernels judged (for the arrows)
  std::vector<std::string> skipped;        ///< what the reader skipped, one line each
  std::optional<run_answer> run;           ///< traces: the steps, the model join, the answer
  std::optional<run_answer> baseline_run;  ///< the baseline's steps (--baseline), compared per step
  std::string gpu;                         ///< the GPU the file names ("" none)
  std::string incomplete;                  ///< the file ended early, and where ("" whole)
  std::vector<std::string> failures;       ///< what the profiler failed on (Nsight Compute ==ERROR== lines)
};

/// The terminal summary, every line at most 120 columns: the answer sentences (traces: the step and
/// what it achieves, where the time goes, the next step), an incomplete file's cut and failures, the
/// steps and time per model op, the time split, fusion patterns, the top `top_n` kernels with their
/// class and fraction (names shortened, never two alike), the advice table (class → advice, once),
/// clock notes, impossible results, skipped lines.
std::string render_kernel_text(const kernel_report& k, std::size_t top_n = 10);
/// place.csv: one row per kernel (number, name, seconds, flops, precision, engine, flops_source,
/// bytes, bytes_source, intensity, class, fraction_of_roof, …; docs/results-schema.md "place.json").
std::string render_kernel_csv(const kernel_report& k);
/// place.json (docs/results-schema.md, "place.json").
json kernel_report_json(const kernel_report& k);
/// place.svg: the roofs the kernels were judged against, every kernel with FLOPs and bytes drawn, the
/// `top_n` longest numbered (place.csv's number) and listed in the key beside the figure (the count
/// of the others said), arrows from the baseline's point to the new one.
std::string render_kernel_svg(const kernel_report& k, const results& roofs, const std::string& title, std::size_t top_n = 10);
/// place.html: one self-contained page (the report's HTML page): the time split and host gaps, the
/// time by class with each class's advice once, fusion candidates, the baseline diff, the figure,
/// and every kernel (the 500 longest; the rest in place.csv) in a sortable, collapsed table.
std::string render_kernel_html(const kernel_report& k, const results& roofs, const std::string& title, std::size_t top_n = 10);

/// `place --flops F --bytes B --time S --json`: one kernel_placement (place_kernel) as JSON:
/// flops, bytes, seconds, intensity, achieved and attainable rates, fractions of the roofs, bound,
/// advice, plausible + causes.
json placement_json(const kernel_placement& k);
/// The same as text, with the roofs it was placed against (`source` names them).
std::string render_placement_text(const kernel_placement& k, const roofline_summary& roofs, const std::string& source);

}  // namespace roofline
