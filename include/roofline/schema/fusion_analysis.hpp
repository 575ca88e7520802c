// The block results.analysis.fusion: what fusing ops saves, measured (unfused SiLU + mul vs the fused
// SiLU·mul kernel, per scenario) and predicted (the model's fusion_savings() in time at the roofs).
// Fields and units: docs/results-schema.md; computed by roofline/fusion_analysis.hpp (analyse_fusion,
// in src/analysis); read and written by src/common/analysis_json.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

/// One (phase, batch) scenario with silu, mul and silu_mul ops. The measured fields are absent
/// (time_ratio null, `note` set) unless all three ops ran.
struct silu_mul_fusion {
  std::string phase;
  std::int64_t batch = 0;
  double unfused_bytes = 0, fused_bytes = 0;  ///< bytes per instance
  double byte_ratio = 0;                      ///< fused ÷ unfused (3/5 expected)
  double unfused_predicted_s = 0, fused_predicted_s = 0;
  double predicted_saved_s_per_step = 0;  ///< s per step (× count)
  std::optional<double> unfused_measured_s, fused_measured_s;
  std::optional<double> time_ratio;        ///< fused ÷ unfused measured time
  std::optional<double> saved_s_per_step;  ///< s per step
  std::string note;
};

/// One fused alternative of the model catalogue in one scenario.
struct predicted_saving {
  std::string phase;
  std::int64_t batch = 0;
  std::string name, ops, description;
  std::int64_t count = 0;                     ///< instances per step
  double bytes_before = 0, bytes_after = 0;  ///< bytes per instance
  double fraction_saved = 0;                  ///< 0–1 of bytes_before
  double bytes_saved_per_step = 0;
  std::optional<double> time_saved_bytes_only_per_step_s;  ///< saved bytes ÷ bandwidth, s
  std::optional<double> time_saved_per_step_s;  ///< with the floor and latency of each kernel, s
};

struct predicted_fusion {
  std::vector<predicted_saving> savings;
  /// The bandwidth and small-work model the savings are timed with; absent when the model config
  /// was not readable (then `note` says why).
  std::optional<double> bandwidth_bytes_per_s;
  std::string latency_model;
  std::string note;
};

struct fusion_analysis {
  double expected_byte_ratio = 0;  ///< 3/5
  std::string why;
  std::vector<silu_mul_fusion> silu_mul;
  std::string note;  ///< set when no scenario has all three ops
  predicted_fusion predicted;
};

void to_json(json& j, const silu_mul_fusion& v);
void from_json(const json& j, silu_mul_fusion& v);
void to_json(json& j, const predicted_saving& v);
void from_json(const json& j, predicted_saving& v);
void to_json(json& j, const predicted_fusion& v);
void from_json(const json& j, predicted_fusion& v);
void to_json(json& j, const fusion_analysis& v);
void from_json(const json& j, fusion_analysis& v);

}  // namespace roofline
