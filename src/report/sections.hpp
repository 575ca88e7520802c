// The sections of report.md / report.html, each a pure function of the results.
#pragma once
#include <string>
#include <vector>

#include "report/document.hpp"
#include "roofline/json.hpp"
#include "roofline/results.hpp"

namespace roofline {
struct step_sweep_analysis;
}

namespace roofline::report {

/// headline.cpp: the three sentences every view opens with (how close to the nominal roofs and why,
/// where the time goes by class, the most valuable next step); one when no op was placed.
/// `advice_by_reference`: the next step refers to its advice by the op table's note number ("see
/// advice [1] under the op table"), the advice stated once there (report.md, report.html); false
/// where no op table is shown (the terminal summary): the advice is stated in the sentence.
std::vector<std::string> headline_sentences(const results& r, bool advice_by_reference = true);
/// headline.cpp: a scenario in words: "decode at batch 1", "prefill of 2048 tokens", "prefill of 4 × 512 tokens".
std::string scenario_words(const std::string& phase, std::int64_t batch, std::int64_t seq);
/// headline.cpp: `s` with its first letter upper-case (ASCII).
std::string capitalised(std::string s);
section record_section(const results& r);       ///< record_table.cpp: nominal, expected, measured, ratio
section device_section(const results& r);       ///< sections_device.cpp: device + how measured
section nominal_section(const results& r);      ///< sections_device.cpp: nominal derivation
section measured_section(const results& r);     ///< sections_measured.cpp: bandwidth + compute tables
section roofline_section(const results& r);     ///< sections_measured.cpp: roofs + ridge points
section attribution_section(const results& r);  ///< sections_analysis.cpp: the two waterfalls
section ops_section(const results& r);          ///< sections_ops.cpp: the op table (time, ratio, bound, advice)
/// sections_ops.cpp: how the kernel was chosen, in words: "faster than cuBLASLt (11.2 µs vs 12.9 µs;
/// <what cuBLASLt would have run; verified: …>)", or, kept from earlier in the run, "chosen over our
/// GEMV when this shape first ran in this run (11.2 µs vs 12.9 µs; …)".
std::string choice_text(const kernel_choice& c);
/// sections_ops.cpp: an op's measured note with its kernel choice (choice_text) after it; what the
/// op table and ops.csv show.
std::string measured_note_text(const op_result& op);
section op_detail_section(const results& r);    ///< sections_ops.cpp: shapes, FLOPs, bytes, accuracy (detail)
section mfu_section(const results& r);          ///< sections_analysis.cpp: MFU / HFU
/// sections_step_sweep.cpp: the decode step over batch (analysis.step_sweep) and the energy roofline
/// (analysis.energy); no blocks when the file has neither.
section step_sweep_section(const results& r);
/// sections_step_sweep.cpp: the drift check in words ("lm_head (decode b1, 262 MB) took 9.32 ms in the op table
/// and 12.4 ms again after the steps (+33.0%): …"); "" when it was not run.
std::string drift_text(const step_sweep_analysis& a);
/// sections_step_sweep.cpp: each probe's energy window (power by counter and by integrated samples, share
/// of the power cap); no blocks without analysis.energy.
section probe_energy_section(const results& r);
section fusion_section(const results& r);       ///< sections_analysis.cpp: fusion savings
section other_analysis_section(const results& r);  ///< sections_analysis.cpp: keys not shown above
section problems_section(const results& r);     ///< sections_device.cpp: errors and skipped probes
/// sections_analysis.cpp: "Ridge analysis" (analysis.ridge) and "Prediction accuracy" (analysis.accuracy)
/// appended to `s`; nothing when the block is absent.
void ridge_block(section& s, const results& r);
void accuracy_block(section& s, const results& r);

/// Renders a free-form json value (device properties, telemetry, analysis keys without a typed
/// block) into `s`: scalars as bullets, arrays of objects as
/// tables, objects as sub-headings; numbers get units from their key names (json_blocks.cpp).
void add_json(section& s, const json& j, const std::string& name, int depth = 0);
/// One json scalar as text, its unit taken from `key` ("…_bytes_per_s" → GB/s, "…_s" → ms, ...).
cell json_cell(const std::string& key, const json& v);


}  // namespace roofline::report
