// The run of `roofline place` in words (roofline/run_analysis.hpp has the numbers): the answer
// sentences the terminal and place.html open with, the steps and the time per model op, the fusion
// patterns, place.json's "run" block; and the two text helpers every place view uses (kernel names
// shortened without two kernels reading the same, lines fitted to the terminal).
#pragma once
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"
#include "roofline/run_analysis.hpp"

namespace roofline {

/// At most three sentences, computed from the numbers: the step and what it achieves (the median
/// step of the main kind: wall time, MBU/MFU/HFU of the nominal dense peak, the attainable step and
/// measured ÷ attainable); where the time goes (GPU idle with the host op it waits in, launch-bound
/// kernels, kernel time above the roofs and the model op holding most of it); the most valuable
/// next step (the largest of: the host idle, the best fusion pattern's time saved per step, a
/// model op's time above its roof). Empty when the run has no steps.
std::vector<std::string> run_sentences(const run_answer& a);
/// "unfused RMSNorm (add, copy_, pow, mean, add, rsqrt, mul, copy_, mul) × 22 runs: 1.23 MB not moved = 0.41 µs"
std::string fusion_pattern_line(const fusion_pattern& p);
/// The steps table (at most `top_n` rows), the median step's shapes, model op table and host idle,
/// and the fusion patterns.
std::string render_run_text(const run_answer& a, std::size_t top_n = 10);
/// place.json's "run": the sentences, every step with its numbers, the fusion patterns
/// (docs/results-schema.md, "place.json").
json run_json(const run_answer& a);

/// Kernel names shortened for a view: namespaces and `void ` dropped, cut to `width` glyphs with "…";
/// where two different names would read the same, each gets a 4-hex-digit tag of its full name
/// ("…~3fa2"), so that two different kernels never read the same.
std::vector<std::string> short_kernel_names(const std::vector<std::string>& names, std::size_t width);
/// Every line of `text` at most `width` glyphs: longer lines wrapped at spaces (the continuation
/// indented two more columns than the line).
std::string fit_lines(const std::string& text, std::size_t width);

}  // namespace roofline
