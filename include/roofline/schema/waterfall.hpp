// The blocks results.analysis.compute_waterfall and results.analysis.bandwidth_waterfall: the
// compute gap of the GEMM roof (nominal → clock → wave quantization → tile quantization → remainder)
// and the bandwidth gap (nominal → best pattern → each pattern; L2; ECC; DRAM overheads as labelled
// estimates). Fields and units: docs/results-schema.md "analysis"; computed by
// roofline/waterfall.hpp (in src/analysis); read and written by src/common/analysis_json.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

/// One step of the compute waterfall: the factor it applies and where the cumulative value stands.
struct waterfall_step {
  std::string step;               ///< "nominal", "clock", "wave quantization", "tile quantization", "remainder (…)"
  std::optional<double> factor;   ///< dimensionless, ≤ 1 normally; null when the factor is not applied
  double percent_of_nominal = 0;  ///< % of the nominal peak after this step
  std::string detail;             ///< the numbers behind the factor
};

/// The factors at one GEMM size n (n×n×n) of the size sweep.
struct gemm_size_factors {
  std::int64_t n = 0;
  double flops_per_s = 0;                                 ///< best, FLOP/s
  double percent_of_nominal = 0;                          ///< %
  std::optional<double> clock_factor, wave_factor, tile_factor;  ///< dimensionless; null = not applied
  double remainder_factor = 0;  ///< measured ÷ (nominal × the factors): > 1 when the run beat the model
  std::string note;             ///< why the remainder exceeds 1 (absent otherwise)
  std::string tile;             ///< the library's tile ("128x256x64"), when it reported one
};

/// The compute waterfall of one precision, against its nominal (tensor, else vector) peak.
struct compute_waterfall_precision {
  std::string precision;
  std::string note;  ///< set when there is no nominal peak: then nothing else is
  double nominal_flops_per_s = 0;
  std::string nominal_engine;                   ///< "tensor" | "vector"
  std::optional<double> datasheet_clock_mhz;    ///< the clock the nominal peak assumes, MHz
  std::int64_t best_size = 0;                   ///< n of the best GEMM (the one the steps attribute)
  double measured_flops_per_s = 0;              ///< FLOP/s of that GEMM
  double measured_percent_of_nominal = 0;       ///< %
  std::string method;                           ///< e.g. "cuBLASLt, best of 8 algorithms"
  std::vector<waterfall_step> steps;            ///< nominal, clock, wave, tile, remainder
  std::vector<gemm_size_factors> size_sweep;    ///< every GEMM size measured, ascending n
  std::string remainder_trend;                  ///< "remainder 2.58 at n=512 → 0.77 at n=4096" (≥ 2 sizes)
};

struct compute_waterfall {
  std::string unit;             ///< "% of nominal peak"
  std::string tile_assumption;  ///< the tile the factors use where the library reports none
  std::vector<compute_waterfall_precision> per_precision;
  std::string note;             ///< set when no GEMM was measured
};

void to_json(json& j, const waterfall_step& v);
void from_json(const json& j, waterfall_step& v);
void to_json(json& j, const gemm_size_factors& v);
void from_json(const json& j, gemm_size_factors& v);
void to_json(json& j, const compute_waterfall_precision& v);
void from_json(const json& j, compute_waterfall_precision& v);
void to_json(json& j, const compute_waterfall& v);
void from_json(const json& j, compute_waterfall& v);

/// A step of the bandwidth waterfall: nominal, then the best device-memory pattern.
struct bandwidth_step {
  std::string step;     ///< "nominal" | "best pattern (write)"
  std::string pattern;  ///< the best pattern (absent for nominal)
  std::optional<double> bytes_per_s;          ///< B/s; null when unknown
  std::optional<double> percent_of_nominal;   ///< %; null without a nominal bandwidth
};

/// The best device-memory point of one pattern; bytes_per_s null (with `note`) when not measured.
struct bandwidth_pattern {
  std::string pattern, level;
  std::optional<double> bytes_per_s, median_bytes_per_s;      ///< B/s
  std::optional<double> percent_of_nominal, fraction_of_best;  ///< %, and a fraction 0–1
  std::string bytes_convention;
  std::string note;
};

/// The best L2 point beside device memory; bytes_per_s null (with `note`) when not measured.
struct cache_roof {
  std::optional<double> bytes_per_s;  ///< B/s
  std::string pattern;
  std::int64_t working_set_bytes = 0;
  std::optional<double> ratio_to_dram;  ///< L2 ÷ best device-memory bandwidth
  std::string note;
};

/// A DRAM overhead no software counter shows: a documented estimate, never a measurement.
struct dram_overhead {
  std::string name, label;  ///< label "estimate"
  double low_percent = 0, high_percent = 0;
  std::string source;
};

struct ecc_report {
  std::string state;   ///< "on" | "off" | the driver's word | "unknown"
  std::string source;  ///< the field it came from
};

struct bandwidth_waterfall {
  std::string unit;  ///< "% of nominal memory bandwidth"
  std::optional<double> nominal_bytes_per_s;  ///< B/s; null when unknown
  std::string nominal_reason;                 ///< why null (absent otherwise)
  std::string nominal_formula;
  std::vector<bandwidth_step> steps;
  std::vector<bandwidth_pattern> patterns;  ///< read, write, copy, triad
  std::string note;                         ///< set when no device memory was measured
  cache_roof l2;
  ecc_report ecc;
  std::vector<dram_overhead> dram_overheads;
  /// With a measurement and a nominal bandwidth: the gap 100 − best % of nominal, the estimates'
  /// summed range and what they leave unattributed (percent of nominal, [low, high]).
  std::optional<double> gap_percent;
  std::optional<double> estimated_overheads_low_percent, estimated_overheads_high_percent;
  std::optional<double> unattributed_low_percent, unattributed_high_percent;
  std::string unattributed_note;
};

void to_json(json& j, const bandwidth_step& v);
void from_json(const json& j, bandwidth_step& v);
void to_json(json& j, const bandwidth_pattern& v);
void from_json(const json& j, bandwidth_pattern& v);
void to_json(json& j, const cache_roof& v);
void from_json(const json& j, cache_roof& v);
void to_json(json& j, const dram_overhead& v);
void from_json(const json& j, dram_overhead& v);
void to_json(json& j, const ecc_report& v);
void from_json(const json& j, ecc_report& v);
void to_json(json& j, const bandwidth_waterfall& v);
void from_json(const json& j, bandwidth_waterfall& v);

}  // namespace roofline
