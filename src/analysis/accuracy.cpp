// Prediction accuracy: predicted ÷ measured per op and per whole step. docs/formulas-analysis.md §5.
#include <cmath>

#include "roofline/analysis.hpp"
#include "roofline/accuracy.hpp"
#include "roofline/measure.hpp"

namespace roofline {

prediction_accuracy analyse_accuracy(const results& r) {
  prediction_accuracy out;
  out.threshold_s = 20e-6;
  out.target = 0.20, out.target_long = 0.10, out.target_whole_step = 0.15;
  std::vector<double> errors, long_errors;
  for (const auto& op : r.ops) {
    if (!op.measured_s || !(*op.measured_s > 0)) continue;
    op_accuracy& e = out.per_op.emplace_back();
    e.name = op.name, e.phase = op.phase, e.batch = op.batch, e.bound = op.bound;
    e.predicted_s = op.predicted_s, e.measured_s = *op.measured_s;
    e.ratio = op.predicted_s / *op.measured_s;
    e.abs_error = std::fabs(e.ratio - 1.0);
    e.long_op = *op.measured_s > out.threshold_s;
    errors.push_back(e.abs_error);
    if (e.long_op) long_errors.push_back(e.abs_error);
    if (const auto f = roof_fraction(op, r.roofline)) {
      e.roof_fraction = *f;     // time at the roof ÷ measured time
      e.headroom = 1.0 / *f;    // how many times faster the roof would be
    }
    if (op.launch_floor_s && *op.launch_floor_s > 0) e.on_launch_floor = *op.measured_s < 2.0 * *op.launch_floor_s;
  }
  // Headline: every measured op (no size cut-off); second column: ops longer than 20 µs.
  out.ops_counted = static_cast<std::int64_t>(errors.size());
  out.ops_long = static_cast<std::int64_t>(long_errors.size());
  if (errors.empty()) {
    out.note = "no measured op";
  } else {
    out.median_abs_error = median(errors);
    out.meets_target = *out.median_abs_error <= out.target;
  }
  if (!long_errors.empty()) {
    out.median_abs_error_long = median(long_errors);
    out.meets_target_long = *out.median_abs_error_long <= out.target_long;
  }
  for (const auto& w : r.whole_step) {
    if (!w.measured_s || !(*w.measured_s > 0)) continue;
    const double ratio = w.predicted_s / *w.measured_s;
    out.whole_step.push_back({w.phase, w.batch, w.predicted_s, *w.measured_s, ratio, std::fabs(ratio - 1.0),
                              std::fabs(ratio - 1.0) <= out.target_whole_step, w.sum_of_ops_s});
  }
  return out;
}

}  // namespace roofline
