// Roofline analysis: roofs and ridge points, placing ops, attribution of the gap, MFU/HFU, fusion.
// Formulas: docs/formulas.md.
#pragma once
#include <string>
#include <vector>

#include "roofline/model.hpp"
#include "roofline/results.hpp"

namespace roofline {

/// Attainable FLOP/s at arithmetic intensity `intensity` (FLOP/B): min(peak, intensity × bw)
/// (Williams, Waterman, Patterson, CACM 2009).
double attainable_flops(double intensity, double peak_flops, double bandwidth);

/// Ridge point peak / bandwidth (FLOP/B).
double ridge_point(double peak_flops, double bandwidth);

/// The roofs ops are placed against, for `precision`: nominal from `nom`, measured from the best
/// GEMM / tensor result and the best device-memory bandwidth in `meas`.
roofline_summary summarize_roofline(const nominal_roofs& nom, const measured_roofs& meas,
                                    const std::string& precision);

/// op_desc → op_result: intensity, bound and predicted time = max(flops/peak, bytes/bw) + launch
/// floor, against the measured roofs when present, else the nominal ones.
op_result place_op(const op_desc& op, const roofline_summary& roofs, double launch_floor_s);

/// Everything the report explains: compute and bandwidth waterfalls, ridge movement, MFU/HFU of the
/// measured decode, fusion savings, prediction accuracy. Writes r.analysis.
void analyse(results& r);

}  // namespace roofline
