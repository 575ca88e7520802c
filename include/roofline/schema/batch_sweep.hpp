// The block results.analysis.batch_sweep: the decode batch sweep's measured points, written by
// `roofline run` (src/run/pipeline.cpp), and the knees analyse() fills in (roofline/batch_sweep.hpp).
// Fields and units: docs/results-schema.md "analysis"; read and written by src/common/analysis_json.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

/// One batch of a decode linear [B×k]·[k×n].
struct sweep_point {
  std::int64_t batch = 0;
  double intensity = 0;  ///< FLOP/B
  double flops = 0, bytes = 0, predicted_s = 0;
  std::optional<double> measured_s;            ///< null when not run
  std::optional<double> measured_flops_per_s;  ///< absent when not run
  std::string note;
  std::optional<std::string> implementation;  ///< what ran (absent in files written before it was recorded)
};

struct sweep_shape {
  std::string shape;  ///< "TinyLlama-1.1B gate_proj"
  std::int64_t k = 0, n = 0;
  std::string dtype;
  std::vector<sweep_point> points;
  /// Where the flat line (median time of B ≤ 8) meets the line through the largest batch (time ∝ B);
  /// null where the points do not allow it.
  std::optional<double> knee_measured;
  /// The batch whose intensity reaches ridge_measured (knee_batch); null without a ridge.
  std::optional<std::int64_t> knee_predicted;
};

struct batch_sweep {
  std::string definition;
  std::optional<double> ridge_measured;  ///< FLOP/B the predicted knees use
  std::vector<sweep_shape> shapes;       ///< JSON also carries `points` = shapes[0].points (the trace drawn)
};

void to_json(json& j, const sweep_point& v);
void from_json(const json& j, sweep_point& v);
void to_json(json& j, const sweep_shape& v);
void from_json(const json& j, sweep_shape& v);
void to_json(json& j, const batch_sweep& v);
void from_json(const json& j, batch_sweep& v);

}  // namespace roofline
