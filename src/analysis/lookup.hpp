// Private helpers of the analysis module: finding roofs and factors in the result model.
#pragma once
#include <optional>
#include <string>

#include "roofline/results.hpp"

namespace roofline::detail {

/// Device-memory levels: "dram" or "hbm".
bool is_device_memory(const std::string& level);
/// GEMM-like engines: "gemm" or "tensor".
bool is_gemm_engine(const std::string& engine);

/// The nominal peak of `precision`: tensor engine first, then vector (CPU), then any engine.
const nominal_peak* nominal_peak_for(const nominal_roofs& nom, const std::string& precision);

/// Best bandwidth result of a level ("dram" = device memory), optionally of one pattern ("" = any);
/// rejected points (roofline/sanity.hpp) are never a roof.
const bandwidth_result* best_bandwidth(const measured_roofs& m, const std::string& level_kind,
                                       const std::string& pattern = "");
/// Best compute result of `precision`: GEMM/tensor first; the vector result when there is no GEMM.
const compute_result* best_compute(const measured_roofs& m, const std::string& precision);
/// The GEMM/tensor result of `precision` at size n (nullptr when not measured).
const compute_result* gemm_at(const measured_roofs& m, const std::string& precision, std::int64_t n);

/// Datasheet (boost) SM clock in MHz from the nominal factors (peak's own first, then the device's):
/// a factor whose name mentions "clock" but not "mem", unit Hz/kHz/MHz/GHz. nullopt when absent.
std::optional<double> datasheet_clock_mhz(const nominal_roofs& nom, const nominal_peak* peak);
/// Streaming multiprocessors: device.properties["sms"], else a nominal factor named "SMs".
std::optional<double> sm_count(const results& r);

/// A json number, or null.
json num_or_null(std::optional<double> v);

}  // namespace roofline::detail
