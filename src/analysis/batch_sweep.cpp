// The decode batch sweep's knees, from its measured points (docs/formulas-model.md §7).
#include <vector>

#include "roofline/analysis.hpp"
#include "roofline/batch_sweep.hpp"
#include "roofline/measure.hpp"
#include "roofline/model.hpp"

namespace roofline {

std::optional<double> knee_of(const std::vector<batch_time>& points) {
  std::vector<double> flat;
  std::int64_t largest_b = 0;
  double largest_s = 0;
  for (const auto& p : points) {
    if (!(p.seconds > 0)) continue;
    if (p.batch <= 8) flat.push_back(p.seconds);
    if (p.batch > largest_b) largest_b = p.batch, largest_s = p.seconds;
  }
  if (flat.empty() || largest_b <= 8 || !(largest_s > 0)) return std::nullopt;
  return median(flat) / (largest_s / static_cast<double>(largest_b));
}

batch_sweep analyse_batch_sweep(batch_sweep sweep, double ridge_measured) {
  sweep.definition =
      "decode linear [B×k]·[k×n]; predicted knee: intensity reaches the measured ridge; "
      "measured knee: the flat line (median time of B <= 8) meets the compute line through the largest batch";
  sweep.ridge_measured = ridge_measured > 0 ? std::optional<double>(ridge_measured) : std::nullopt;
  for (auto& sh : sweep.shapes) {
    std::vector<batch_time> measured;
    for (const auto& p : sh.points)
      if (p.measured_s) measured.push_back({p.batch, *p.measured_s});
    // Measured knee: where the measured flat line (median time of B ≤ 8: the weights' bytes ÷
    // bandwidth) meets the measured compute line through the largest batch (time ∝ B).
    sh.knee_measured = knee_of(measured);
    sh.knee_predicted.reset();
    if (ridge_measured > 0 && sh.k > 0 && sh.n > 0 && !sh.dtype.empty())
      sh.knee_predicted = knee_batch(sh.k, sh.n, dtype_bytes(sh.dtype), ridge_measured);
  }
  return sweep;
}

}  // namespace roofline
