// The block results.analysis.accuracy: predicted ÷ measured time per measured op and per measured
// whole step, with the median |ratio − 1| against the targets. Fields and units:
// docs/results-schema.md "analysis"; computed by roofline/accuracy.hpp (analyse_accuracy, in
// src/analysis); read and written by src/common/analysis_json.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

struct op_accuracy {
  std::string name, phase;
  std::int64_t batch = 0;
  std::string bound;
  double predicted_s = 0, measured_s = 0;
  double ratio = 0;      ///< predicted ÷ measured
  double abs_error = 0;  ///< |ratio − 1|
  bool counted = true;   ///< in the headline median
  bool long_op = false;  ///< JSON "long": measured above threshold_s
  std::optional<double> roof_fraction;    ///< time at the roof ÷ measured, 0–1; null without a roof
  std::optional<double> headroom;         ///< 1 ÷ roof_fraction: how many times faster the roof is
  std::optional<bool> on_launch_floor;    ///< measured < 2 × launch floor; null without a floor
};

struct step_accuracy {
  std::string phase;
  std::int64_t batch = 0;
  double predicted_s = 0, measured_s = 0, ratio = 0, abs_error = 0;
  bool meets_target = false;              ///< abs_error ≤ target_whole_step
  std::optional<double> sum_of_ops_s;     ///< absent when unknown
};

struct prediction_accuracy {
  double threshold_s = 0;  ///< ops measured above it are "long", s
  double target = 0, target_long = 0, target_whole_step = 0;  ///< median |ratio − 1| goals, 0–1
  std::vector<op_accuracy> per_op;
  std::int64_t ops_counted = 0, ops_long = 0;
  std::optional<double> median_abs_error, median_abs_error_long;  ///< 0–1; null without ops
  std::optional<bool> meets_target, meets_target_long;            ///< absent without ops
  std::string note;
  std::vector<step_accuracy> whole_step;
};

void to_json(json& j, const op_accuracy& v);
void from_json(const json& j, op_accuracy& v);
void to_json(json& j, const step_accuracy& v);
void from_json(const json& j, step_accuracy& v);
void to_json(json& j, const prediction_accuracy& v);
void from_json(const json& j, prediction_accuracy& v);

}  // namespace roofline
