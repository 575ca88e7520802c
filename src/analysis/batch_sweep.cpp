// The decode batch sweep's knees, from its measured points (docs/formulas-model.md §7).
#include <vector>

#include "roofline/analysis.hpp"
#include "roofline/measure.hpp"
#include "roofline/model.hpp"

namespace roofline {

json batch_sweep_knees(json sweep, double ridge_measured) {
  if (!sweep.is_object() || !sweep.contains("shapes") || !sweep["shapes"].is_array()) return sweep;
  sweep["definition"] =
      "decode linear [B×k]·[k×n]; predicted knee: intensity reaches the measured ridge; "
      "measured knee: the flat line (median time of B <= 8) meets the compute line through the largest batch";
  sweep["ridge_measured"] = ridge_measured > 0 ? json(ridge_measured) : json(nullptr);
  for (auto& sh : sweep["shapes"]) {
    if (!sh.is_object()) continue;
    std::vector<double> flat;
    std::int64_t largest_b = 0;
    double largest_s = 0;
    for (const auto& p : sh.value("points", json::array())) {
      if (!p.is_object() || !p.contains("batch") || !p["batch"].is_number_integer()) continue;
      const auto it = p.find("measured_s");
      if (it == p.end() || !it->is_number() || it->get<double>() <= 0) continue;
      const std::int64_t b = p["batch"].get<std::int64_t>();
      if (b <= 8) flat.push_back(it->get<double>());
      if (b > largest_b) largest_b = b, largest_s = it->get<double>();
    }
    // Measured knee: where the measured flat line (median time of B ≤ 8: the weights' bytes ÷
    // bandwidth) meets the measured compute line through the largest batch (time ∝ B).
    sh["knee_measured"] = !flat.empty() && largest_b > 8 && largest_s > 0
                              ? json(median(flat) / (largest_s / static_cast<double>(largest_b)))
                              : json(nullptr);
    std::optional<std::int64_t> knee;
    if (ridge_measured > 0 && sh.contains("k") && sh.contains("n") && sh.contains("dtype") && sh["dtype"].is_string())
      knee = knee_batch(sh["k"].get<std::int64_t>(), sh["n"].get<std::int64_t>(),
                        dtype_bytes(sh["dtype"].get<std::string>()), ridge_measured);
    sh["knee_predicted"] = knee ? json(*knee) : json(nullptr);
  }
  return sweep;
}

}  // namespace roofline
