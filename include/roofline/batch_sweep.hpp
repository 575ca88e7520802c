// The decode batch sweep (results.analysis.batch_sweep): measured points written by `roofline run`
// (src/run/pipeline.cpp), knees filled in by analyse(). Formulas: docs/formulas-model.md §7;
// fields and units: docs/results-schema.md "analysis".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

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

/// One time at one batch (a measured or predicted point of a batch curve).
struct batch_time {
  std::int64_t batch = 0;
  double seconds = 0;
};

/// The knee rule, one for every batch curve (a linear's sweep, the whole decode step's): where the
/// flat line — the median time of the points with B ≤ 8, the weights' bytes ÷ bandwidth — meets the
/// line through the origin and the largest batch's point (time ∝ B): knee = median(t, B ≤ 8) ÷
/// (t_max ÷ B_max), a batch (fractional). Points with seconds ≤ 0 are ignored. nullopt without a
/// point at B ≤ 8 or one above 8 (docs/formulas-model.md §7).
/// Worked: (1, 1 ms), (2, 1 ms), (8, 1.2 ms), (64, 4 ms) → 1 ms ÷ (4 ms ÷ 64) = 16.
std::optional<double> knee_of(const std::vector<batch_time>& points);

/// `sweep` with its knees and ridge_measured (FLOP/B; null when ≤ 0) filled in.
batch_sweep analyse_batch_sweep(batch_sweep sweep, double ridge_measured);
void to_json(json& j, const sweep_point& v);
void from_json(const json& j, sweep_point& v);
void to_json(json& j, const sweep_shape& v);
void from_json(const json& j, sweep_shape& v);
void to_json(json& j, const batch_sweep& v);
void from_json(const json& j, batch_sweep& v);

}  // namespace roofline
