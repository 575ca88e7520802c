// The read-side vocabulary: the one answer to each question every view asks of a results file.
// Which level is device memory, which point may be a roof, which compute result is the roof of a
// precision, which peak is the nominal one, what precision a run is about, what `--device` means.
// analysis, report, fleet and every command ask here; nothing else answers these questions.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

// ---- memory levels ----

/// The memory levels a bandwidth row, a roof or a kernel's bytes name, nearest the core first.
enum class memory_tier { l1, l2, l3, llc, device, unknown };

/// One key a result may carry for a memory level, its tier and how views print it.
struct memory_level_name {
  const char* key;    ///< as in results.json: "l1", "l2", "l3", "llc", "dram", "hbm", "gddr", "device", "memory"
  memory_tier tier;
  const char* label;  ///< "L1", "L2", "L3", "LLC", "DRAM", "HBM", "GDDR", "device memory"
};
/// The one name table of memory levels (every key, its tier and label).
extern const std::vector<memory_level_name> memory_level_names;
/// The tier of a level key; memory_tier::unknown for a key not in the table (a transition such as
/// "l2+dram", or "").
memory_tier memory_tier_of(const std::string& level);
/// The label of a level key from the table; a key not in it, upper-cased ("l2+dram" → "L2+DRAM").
std::string memory_level_label(const std::string& level);

/// True for the names of device memory: "dram", "hbm", "gddr", "device", "memory".
bool is_device_memory(const std::string& level);
/// True for a level that names a transition between two levels ("l2+dram", "mixed") or none: never a roof.
bool is_transition_level(const std::string& level);
/// A bandwidth point that may be a roof: not rejected (roofline/sanity.hpp, interference), not a
/// transition, bytes_per_s > 0.
bool usable_as_roof(const bandwidth_result& b);
/// Best usable device-memory point of `pattern` ("" = any pattern); nullptr when none.
const bandwidth_result* best_device_bandwidth(const measured_roofs& m, const std::string& pattern = "");
/// The first device-memory point of `pattern` that was measured and kept out of the roofs
/// (bandwidth_result::rejected, its reason in rejected_reason); nullptr when none.
const bandwidth_result* rejected_device_bandwidth(const measured_roofs& m, const std::string& pattern);
/// Best usable point at cache level `level` ("l1", "l2", "llc", …), any pattern; nullptr when none.
const bandwidth_result* best_level_bandwidth(const measured_roofs& m, const std::string& level);
/// Cache levels with a usable point, in order l1, l2, l3, llc, then others alphabetically.
std::vector<std::string> cache_levels(const measured_roofs& m);

// ---- compute roofs ----

/// GEMM-like engines ("gemm", "tensor"); the other engine is "vector" (FMA chains).
bool is_gemm_engine(const std::string& engine);
/// The measured compute roof of `precision`: the best non-rejected GEMM/tensor result, and the best
/// vector (FMA-chain) result only when no GEMM of that precision was measured. The ops placed on the
/// roofline are matrix products and what feeds them, so the roof is what a matrix product reached;
/// an FMA chain is drawn beside it as its own line, never as the ridge's roof. nullptr when none.
const compute_result* best_compute(const measured_roofs& m, const std::string& precision);
/// The measured compute roof of `precision` on one engine: "tensor" (or "gemm") = the best
/// non-rejected GEMM/tensor result, "vector" = the best FMA-chain result; "" = best_compute.
/// nullptr when that engine was not measured at that precision (a kernel's own engine: a vector
/// kernel is never judged against a tensor-core GEMM's roof).
const compute_result* best_compute_on(const measured_roofs& m, const std::string& precision, const std::string& engine);
/// Best non-rejected GEMM/tensor result of `precision` at size n (n×n×n); nullptr when not measured.
const compute_result* gemm_at(const measured_roofs& m, const std::string& precision, std::int64_t n);
/// Precisions with a measured compute result, in order fp64 fp32 tf32 bf16 fp16 fp8 int8, then others.
std::vector<std::string> measured_precisions(const measured_roofs& m);
/// Precisions with a nominal peak, same order.
std::vector<std::string> nominal_precisions(const nominal_roofs& n);

/// Which of a precision's nominal peaks peak_for returns.
enum class peak_engine {
  roof,     ///< the dense peak a roof uses: the tensor-engine one when there is one, else the vector one
  tensor,   ///< the tensor-engine peak only
  vector,   ///< the vector-engine peak only (CUDA cores / SIMD)
  highest,  ///< the highest on any engine and accumulation (the bound no measured rate may pass)
};

/// The one nominal-peak lookup: the dense peak of `precision` chosen by `which` (among several of an
/// engine, the first in table order; `highest`: the largest). nullptr when the device has none; a
/// peak of 0 is none (sparse peaks are never in `peaks`).
const nominal_peak* peak_for(const nominal_roofs& n, const std::string& precision, peak_engine which = peak_engine::roof);

/// The clock among a peak's factors (first) or the device's: a factor whose name mentions "clock" or
/// "frequency" but not "mem", unit Hz/kHz/MHz/GHz (any case); a "boost"/"max" one wins. Its source
/// says whether it is a datasheet value or measured. nullptr when none.
const factor* nominal_clock_factor(const nominal_roofs& n, const nominal_peak* p);
/// nominal_clock_factor in MHz; nullopt when none.
std::optional<double> nominal_clock_mhz(const nominal_roofs& n, const nominal_peak* p);
/// Streaming multiprocessors: device.properties "sms" (or "SMs", "multiprocessors"), else a nominal
/// factor named "SMs"; nullopt when neither.
std::optional<double> sm_count(const results& r);

// ---- precisions and devices ----

/// The precisions roofline knows, in order: fp64 fp32 tf32 bf16 fp16 fp8 int8.
const std::vector<std::string>& known_precisions();
/// The precision a run's ops are placed at when the user names none: fp32 on a CPU (its SIMD units
/// have no faster dense type), fp16 on a GPU (the tensor-core type every CUDA GPU since Volta has).
std::string default_precision(const std::string& device_kind);
/// The precision of a results file: r.roofline.precision when set, else default_precision(kind).
std::string main_precision(const results& r);
/// The record table's second precision: fp64 on a CPU, fp32 on a GPU.
std::string second_precision(const std::string& device_kind);

/// A `--device` value: "auto", "cpu", "cuda" (= cuda:0) or "cuda:N".
struct device_arg {
  enum class kind { auto_select, cpu, cuda };
  kind what = kind::auto_select;
  int index = 0;  ///< GPU index for cuda
};
/// Parses `--device`; throws input_error naming `--device` for anything else ("cuda:x", "gpu").
device_arg parse_device(const std::string& text);

// ---- ridge and the decode step ----

/// Nominal and measured ridge of `precision`: peak ÷ device-memory bandwidth (FLOP/B; Williams,
/// Waterman, Patterson, CACM 2009). Measured: the roofs the ops were placed against
/// (results.roofline) when they are of this precision, else best_compute ÷ best_device_bandwidth.
struct ridge_pair {
  std::optional<double> nominal, measured;
  std::optional<double> peak_nominal, peak_measured, bw_nominal, bw_measured;
};
ridge_pair ridge_for(const results& r, const std::string& precision);

/// The decode step at one batch: FLOPs and bytes = Σ count × per-op value over the decode ops of that
/// batch (ops measured beside the step, `alternative_to` set, excluded). TPOT, first that exists:
/// the user's `--tpot` (analysis.tpot_input, batch 1 only), the measured whole step (whole_step[]),
/// Σ count × measured_s when every op ran; else null with `why`.
struct decode_step {
  std::int64_t batch = 1, context = 0;
  int ops = 0, measured = 0;
  double flops = 0, bytes = 0;       ///< per step (all `batch` tokens)
  double predicted_s = 0;            ///< Σ count × predicted_s
  std::optional<double> sum_of_ops_s;            ///< every op measured
  std::optional<double> whole_step_s, whole_step_predicted_s;
  std::optional<double> tpot_s;
  std::string tpot_source;  ///< "--tpot" | "whole step" | "sum of isolated ops" (empty when no TPOT)
  std::string why;          ///< why tpot_s is null
};
decode_step decode_step_at(const results& r, std::int64_t batch);
/// The decode batches in the op table, ascending.
std::vector<std::int64_t> decode_batches(const results& r);

// ---- telemetry and properties ----

/// A number from measured.telemetry or device.properties under any of `keys` (numbers only).
std::optional<double> property_number(const results& r, const std::vector<std::string>& keys);
/// ECC state ("on"/"off", or the driver's own word) from measured.telemetry or device.properties
/// (keys ecc, ecc_enabled, ecc_mode); nullopt when not reported. `source`, when given, receives the
/// field it came from ("measured.telemetry.ecc").
std::optional<std::string> ecc_state(const results& r, std::string* source = nullptr);

/// Why a measurement is missing: the status and reason of the first skipped probe, else the message
/// of the first error, whose probe name contains every one of `words` (case-insensitive); else `fallback`.
std::string why_missing(const results& r, const std::vector<std::string>& words, const std::string& fallback);

/// A JSON number, or null.
json num_or_null(std::optional<double> v);

}  // namespace roofline
