// Read-only questions the report views ask of a results struct: the best bandwidth of a pattern at
// device memory, the GEMM at size n, the nominal peak of a precision, the decode TPOT. All derive
// from the typed fields, so the record table and the figure work even when r.analysis is empty.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "roofline/results.hpp"

namespace roofline::report {

/// True for the device-memory level names ("dram", "hbm", "gddr", "device", "memory").
bool is_device_memory(const std::string& level);

/// True for a level that names a transition between two levels ("l2+dram", "mixed"): never a roof.
bool is_transition_level(const std::string& level);
/// A bandwidth point that may be a roof: not rejected by the sanity rules, not a transition, > 0.
bool usable_as_roof(const bandwidth_result& b);

/// Best (highest bytes_per_s) result of `pattern` ("" = any) at device memory; nullptr if none.
const bandwidth_result* best_device_bandwidth(const measured_roofs& m, const std::string& pattern = "");
/// Best usable result at level `level` ("l2", "llc", ...), any pattern; nullptr if none.
const bandwidth_result* best_level_bandwidth(const measured_roofs& m, const std::string& level);
/// Cache levels with a usable point (usable_as_roof), in order l1, l2, l3, llc, then others alphabetically.
std::vector<std::string> cache_levels(const measured_roofs& m);

/// Best GEMM/tensor result of `precision` at size n (engine != "vector"); nullptr if none.
const compute_result* gemm_at(const measured_roofs& m, const std::string& precision, std::int64_t n);
/// Best compute result of `precision` (any engine, any size); nullptr if none.
const compute_result* best_compute(const measured_roofs& m, const std::string& precision);
/// Precisions with a measured compute result, in order fp64 fp32 tf32 bf16 fp16 fp8 int8 then others.
std::vector<std::string> measured_precisions(const measured_roofs& m);
/// Precisions with a nominal peak, same order.
std::vector<std::string> nominal_precisions(const nominal_roofs& n);

/// The dense nominal peak of `precision`: the tensor-engine one when there is one, else vector.
const nominal_peak* peak_for(const nominal_roofs& n, const std::string& precision);
/// The vector-engine peak of `precision` (CUDA cores / SIMD); nullptr if none.
const nominal_peak* vector_peak_for(const nominal_roofs& n, const std::string& precision);

/// The precision ops are placed at: r.roofline.precision, else fp32 on a CPU and fp16 on a GPU.
std::string main_precision(const results& r);
/// The record table's second precision: fp64 on a CPU, fp32 on a GPU.
std::string second_precision(const results& r);

/// Clock (MHz) among a peak's or the device's factors: a factor whose name mentions "clock" (or
/// "frequency") with unit MHz, GHz or Hz. nullopt if none.
std::optional<double> nominal_clock_mhz(const nominal_roofs& n, const nominal_peak* p);
/// The factor nominal_clock_mhz reads (its source says whether the clock is a datasheet value or
/// measured, e.g. a CPU's dependent-add chain); nullptr if none.
const factor* nominal_clock_factor(const nominal_roofs& n, const nominal_peak* p);

/// A number from device.properties or measured.telemetry under any of `keys` (numbers only).
std::optional<double> property_number(const results& r, const std::vector<std::string>& keys);
/// ECC state ("on"/"off") from device.properties or measured.telemetry, nullopt if not reported.
std::optional<std::string> ecc_state(const results& r);

/// Decode step at batch 1: TPOT = Σ count × measured_s over the decode batch-1 ops, FLOPs and bytes
/// likewise. `tpot_s` is null (with `why`) when an op was not measured.
struct decode_step {
  int ops = 0, measured = 0;
  double flops = 0, bytes = 0;
  std::optional<double> tpot_s;
  std::string why;
};
decode_step decode_batch1(const results& r);

/// Measured and nominal ridge for `precision`: peak ÷ device-memory bandwidth (FLOP/B).
struct ridge_pair {
  std::optional<double> nominal, measured;
  std::optional<double> peak_nominal, peak_measured, bw_nominal, bw_measured;
};
ridge_pair ridge_for(const results& r, const std::string& precision);

/// Achieved FLOP/s of an op: flops / seconds (0 when seconds <= 0).
double achieved(double flops, double seconds);

}  // namespace roofline::report
