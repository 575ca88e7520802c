// Roofline analysis: roofs and ridge points, placing ops, attribution of the gap, MFU/HFU, fusion.
// Formulas and their sources: docs/formulas-analysis.md (every key analyse() writes is listed there).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/accuracy.hpp"
#include "roofline/batch_sweep.hpp"
#include "roofline/decode_mfu.hpp"
#include "roofline/fusion_analysis.hpp"
#include "roofline/mfu.hpp"
#include "roofline/model.hpp"
#include "roofline/results.hpp"
#include "roofline/ridge_analysis.hpp"
#include "roofline/waterfall.hpp"

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

/// Why a field of summarize_roofline's answer is 0 / null (empty when every roof is known).
std::vector<std::string> roofline_gaps(const roofline_summary& s);

struct latency_model;  // roofline/schema/latency.hpp

/// op_desc → op_result: intensity, bound ("compute" | "bandwidth" | "latency") and predicted time
/// t = max(FLOPs ÷ P(shape), bytes ÷ BW(bytes)) + floor (docs/formulas-analysis.md §7), against the
/// measured roofs when present, else the nominal ones; P and BW(bytes) and the floor from `lat`.
op_result place_op(const op_desc& op, const roofline_summary& roofs, const latency_model& lat);
/// The same with only a per-kernel floor (memory time = bytes ÷ bandwidth, no latency term).
op_result place_op(const op_desc& op, const roofline_summary& roofs, double launch_floor_s);

/// The roofline's advice for an op before it is measured: "raise the batch" (decode linears),
/// "fuse" (elementwise chains, norms, softmax, RoPE), "use fused attention" (naive prefill
/// attention), "compute-bound: ..." (large GEMMs: tensor cores on a GPU, a vectorised BLAS on a CPU,
/// `device_kind` "cpu"), "latency-bound: fuse / graph / batch" (ops whose floor and latency
/// dominate), "bandwidth-bound: move fewer bytes" (the rest).
std::string op_advice(const op_desc& op, const std::string& bound, const std::string& device_kind = "cuda");

/// Fraction of the roof an op reached: roof time max(flops/peak, bytes/bw) ÷ measured time (no launch
/// floor), with the measured roofs (else nominal). nullopt when not measured or no roof is known.
std::optional<double> roof_fraction(const op_result& r, const roofline_summary& roofs);

/// Marks a measured op impossible (plausible = false, causes[] filled, advice replaced) when its
/// achieved FLOP/s exceed the nominal peak of `roofs`, or its achieved B/s the fastest memory level
/// measured (`fastest_level_bytes_per_s`, e.g. L1), by more than roof_noise. Above the DRAM roof alone
/// is not impossible: a working set that fits in a cache is served from it.
void judge_plausibility(op_result& r, const roofline_summary& roofs, std::optional<double> fastest_level_bytes_per_s);

/// After measurement: "stop: at the roof" when roof_fraction ≥ 0.9 (within ~10%); "launch-bound"
/// when the measured time is under 2 × the launch floor and the roof time is below the floor;
/// otherwise the advice is kept.
void refresh_advice(op_result& r, const roofline_summary& roofs, const std::string& device_kind = "cuda");

/// A user kernel placed on the roofline (`roofline place`).
struct kernel_placement {
  double flops = 0, bytes = 0, seconds = 0;
  double intensity = 0;            ///< FLOP/B
  double achieved_flops_per_s = 0, achieved_bytes_per_s = 0;
  std::string bound;               ///< "bandwidth" | "compute" (against the measured ridge, else nominal)
  std::optional<double> attainable_measured, attainable_nominal;  ///< FLOP/s at this intensity
  std::optional<double> fraction_measured, fraction_nominal;      ///< roof time ÷ time (≤ 1 normally)
  std::string advice;
  /// false when the kernel ran faster than a roof allows (fraction_nominal > 1 + roof_noise, or
  /// fraction_measured > 1 + roof_noise): physically impossible, so no advice is built on it.
  bool plausible = true;
  std::vector<std::string> causes;  ///< the likely causes of an impossible result (empty when plausible)
};
/// Measurement noise allowed above a roof before a result is called impossible: 5% (the run-to-run
/// spread of a clock-boosted GPU; a result 5% above its datasheet roof is already suspect).
inline constexpr double roof_noise = 0.05;
/// The likely causes of a result above the roof, for text and JSON (`causes[]`): timing without
/// device synchronisation, data resident in cache, a sparse peak, wrong FLOP/byte counts.
std::vector<std::string> above_roof_causes();
/// Throws input_error naming --flops / --bytes / --time for NaN, infinite, negative or zero time/bytes.
kernel_placement place_kernel(double flops, double bytes, double seconds, const roofline_summary& roofs);

// ---- attribution (docs/formulas-analysis.md §2, §3) ----

/// A GEMM output tile assumed for wave/tile quantization (rows × cols of C per thread block).
struct tile_shape {
  std::int64_t m = 128, n = 128;
};
/// Output tiles of an m×n result: ceil(m/tile.m) × ceil(n/tile.n).
std::int64_t output_tiles(std::int64_t m, std::int64_t n, tile_shape t);
/// Wave quantization efficiency: tiles ÷ (SMs × ceil(tiles ÷ SMs)). 4096² with 128×128 on 132 SMs:
/// 1024 ÷ (132 × 8) = 0.9697.
double wave_efficiency(std::int64_t tiles, std::int64_t sms);
/// Tile quantization efficiency: m·n ÷ (padded m × padded n) (1 when both are tile multiples).
double tile_efficiency(std::int64_t m, std::int64_t n, tile_shape t);

/// Everything the report explains, computed once into the typed blocks (roofline/waterfall.hpp,
/// ridge_analysis.hpp, decode_mfu.hpp, fusion_analysis.hpp, accuracy.hpp, batch_sweep.hpp,
/// record_table.hpp), the members of r.analysis (roofline/analysis_results.hpp; keys: docs/results-schema.md).
/// Refreshes each op's advice and plausibility from its measured time.
void analyse(results& r);
/// analyse(r) when r was read from a schema 1.0 file (its analysis blocks predate the typed ones
/// of 1.1); true when it did. A 1.1 file keeps the analysis it was written with.
bool reanalyse_if_older(results& r);

}  // namespace roofline
