// The views of the commands that compute one answer and print it (`ops`, `mfu`, `spec`): JSON, CSV
// and text renderings of the typed results computed in the analysis (roofline/ops_step.hpp,
// roofline/mfu.hpp) and spec (roofline/spec.hpp) layers. They compute nothing: every number is a
// field of the result, printed through roofline/units.hpp or the column layouts here.
#pragma once
#include <string>

#include "roofline/json_fwd.hpp"
#include "roofline/mfu.hpp"
#include "roofline/ops_step.hpp"
#include "roofline/spec.hpp"

namespace roofline {

// ---- ops (src/report/ops_view.cpp) ----

/// The one JSON form of an op of the catalogue: name, kind, phase, count, shape, dtype, flops,
/// bytes_read, bytes_written, bytes, intensity, backward, recompute, gemm{m,n,k,weights,weight_bytes,
/// groups}, rows/cols, attention{…}, note; with `placed` its bound, predicted_s, compute_s,
/// memory_s, floor_s (s) and share of the step; without, bound, predicted_s and share are null.
json op_json(const op_desc& op, const placed_op* placed);
/// A step's weight format: format, label, quantized, bits_per_weight_4096x4096, method, source, …
json weights_json(const weight_scheme& w);
/// `ops --json`: model, phase, batch, seq, context, dtypes, weights, conventions, roofs, ops[]
/// (op_json), totals, tensor_parallel (with --tp), fusion (with --fusion).
json ops_step_json(const ops_step& s);
/// `ops --csv`: one line per op (render_csv of ops_step_json's ops).
std::string ops_step_csv(const ops_step& s);
/// `ops`: the header lines, the op table and the step's totals as aligned text.
std::string ops_step_text(const ops_step& s);
/// `ops --batch B0:B1 [--json|--csv]`: points[] and knees[]; CSV one line per point.
json ops_sweep_json(const ops_sweep& s);
std::string ops_sweep_csv(const ops_sweep& s);
std::string ops_sweep_text(const ops_sweep& s);

// ---- mfu (src/report/mfu_view.cpp) ----

/// `mfu --json`: model, phase, batch, seq, gpus, precision, peak, FLOPs per token and its formula,
/// tokens/s, mfu, hfu (fractions), the alternatives, plausible + causes; decode{…} and step_curve.
json mfu_json(const mfu_result& r);
/// `mfu --csv`: a header line and one value line (model, phase, batch, seq, gpus, mfu, hfu first).
std::string mfu_csv(const mfu_result& r);
/// `mfu`: the derivation line by line (formula = value), as aligned text.
std::string mfu_text(const mfu_result& r);

// ---- spec (src/report/spec_view.cpp) ----

/// `spec --json`: the nominal roofs (factors, peaks, bandwidth, notes), name, ecc (when the table
/// states its cost), ridge_points[] {precision, accumulate, engine, flop_per_byte (nominal_ridge)}.
json spec_json(const nominal_roofs& n, const std::optional<ecc_ceiling>& ecc);
/// `spec`: the derivation factors, live vs table, the dense peaks with ridges, the bandwidth, notes.
std::string spec_text(const nominal_roofs& n);
/// `spec --list [--json]`.
json spec_list_json(const std::vector<spec_list_row>& rows);
std::string spec_list_text(const std::vector<spec_list_row>& rows);

}  // namespace roofline
