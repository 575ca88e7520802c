// Two devices' roofs and steps side by side, as numbers (`roofline compare`'s opening sentences):
// the ratio B ÷ A of the main precision's compute roof and of the device-memory bandwidth, and for
// each scenario both devices ran (decode at each batch, prefill), the two step times and the ratio
// the roofs' ratios explain. Worded by src/report/compare.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

/// One scenario on both devices. Shares are of A's op time by bound (time_split of the headline,
/// docs/formulas-analysis.md §6).
struct compared_step {
  std::string phase;  ///< decode | prefill
  std::int64_t batch = 1, context = 0, seq = 0;
  double a_s = 0, b_s = 0;           ///< the step on A and on B (whole step measured, else Σ of the ops)
  std::string a_source, b_source;    ///< "whole step" | "sum of ops"
  double compute_share = 0, bandwidth_share = 0, latency_share = 0;  ///< of A's known op time, sum 1
  /// A's step ÷ B's step: how many times faster B runs it.
  double speedup() const { return b_s > 0 ? a_s / b_s : 0; }
  /// The speedup A's shares predict when each class scales by the ratio of the roof that binds it and
  /// latency-bound time stays as it is (Amdahl's law, AFIPS 1967): 1 ÷ (latency + bandwidth ÷ r_bw +
  /// compute ÷ r_compute), r the B ÷ A ratios of the measured roofs. nullopt without both ratios.
  std::optional<double> expected_speedup;
};

struct device_comparison {
  std::string precision;  ///< the ops' precision of A (else B; else fp16)
  std::optional<double> compute_nominal_a, compute_nominal_b;    ///< FLOP/s (OP/s for int8): peak_for
  std::optional<double> compute_measured_a, compute_measured_b;  ///< best_compute
  std::optional<double> bandwidth_nominal_a, bandwidth_nominal_b;    ///< B/s
  std::optional<double> bandwidth_measured_a, bandwidth_measured_b;  ///< best_device_bandwidth
  std::string bandwidth_pattern_a, bandwidth_pattern_b;
  std::vector<compared_step> steps;  ///< A's scenarios that B has too, in A's order
  /// B ÷ A of the measured roofs (else the nominal ones); nullopt where a side lacks both.
  std::optional<double> compute_ratio() const;
  std::optional<double> bandwidth_ratio() const;
};

/// Compares A and B (either may be spec-only: no measured roofs, no steps).
device_comparison compare_devices(const results& a, const results& b);

}  // namespace roofline
