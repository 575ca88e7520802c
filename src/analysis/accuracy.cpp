// Prediction accuracy (predicted ÷ measured per op) and measured fusion. docs/formulas-analysis.md §5.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "roofline/analysis.hpp"

namespace roofline {

json prediction_accuracy(const results& r) {
  constexpr double long_op_s = 20e-6;
  json per_op = json::array();
  std::vector<double> errors;
  for (const auto& op : r.ops) {
    if (!op.measured_s || !(*op.measured_s > 0)) continue;
    const double ratio = op.predicted_s / *op.measured_s;
    const bool is_long = *op.measured_s > long_op_s;
    if (is_long) errors.push_back(std::fabs(ratio - 1.0));
    per_op.push_back({{"name", op.name}, {"phase", op.phase}, {"batch", op.batch},
                      {"predicted_s", op.predicted_s}, {"measured_s", *op.measured_s},
                      {"ratio", ratio}, {"abs_error", std::fabs(ratio - 1.0)}, {"counted", is_long}});
  }
  json out = {{"threshold_s", long_op_s}, {"target", 0.15}, {"per_op", per_op},
              {"ops_counted", errors.size()}};
  if (errors.empty()) {
    out["median_abs_error"] = nullptr;
    out["note"] = "no measured op longer than 20 µs";
  } else {
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    const double med = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
    out["median_abs_error"] = med;
    out["meets_target"] = med <= 0.15;
  }
  return out;
}

json fusion_analysis(const results& r) {
  // Unfused SiLU then mul vs the fused SiLU·mul kernel, per (phase, batch) scenario.
  struct trio { const op_result *silu = nullptr, *mul = nullptr, *fused = nullptr; };
  std::map<std::pair<std::string, std::int64_t>, trio> groups;
  for (const auto& op : r.ops) {
    auto& t = groups[{op.phase, op.batch}];
    const std::string& n = op.name;
    if (n.find("silu_mul") != std::string::npos || n.find("swiglu") != std::string::npos) t.fused = &op;
    else if (n.find("silu") != std::string::npos) t.silu = &op;
    else if (n == "mul" || (n.size() > 4 && n.compare(n.size() - 4, 4, "_mul") == 0)) t.mul = &op;
  }
  json out = {{"expected_byte_ratio", 3.0 / 5.0},
              {"why", "unfused: SiLU reads g and writes s, mul reads s and u and writes y (5 tensors); fused reads g "
                      "and u and writes y (3 tensors)"},
              {"silu_mul", json::array()}};
  for (const auto& [key, t] : groups) {
    if (!t.fused || !t.silu || !t.mul) continue;
    json e = {{"phase", key.first}, {"batch", key.second},
              {"unfused_bytes", t.silu->bytes + t.mul->bytes}, {"fused_bytes", t.fused->bytes},
              {"byte_ratio", t.fused->bytes / (t.silu->bytes + t.mul->bytes)},
              {"unfused_predicted_s", t.silu->predicted_s + t.mul->predicted_s},
              {"fused_predicted_s", t.fused->predicted_s}};
    if (t.silu->measured_s && t.mul->measured_s && t.fused->measured_s) {
      const double unfused = *t.silu->measured_s + *t.mul->measured_s;
      e["unfused_measured_s"] = unfused;
      e["fused_measured_s"] = *t.fused->measured_s;
      e["time_ratio"] = *t.fused->measured_s / unfused;
      e["saved_s_per_step"] = (unfused - *t.fused->measured_s) * static_cast<double>(t.fused->count);
    } else {
      e["time_ratio"] = nullptr;
      e["note"] = "not all three ops measured";
    }
    out["silu_mul"].push_back(e);
  }
  if (out["silu_mul"].empty()) out["note"] = "no scenario has silu, mul and silu_mul ops";
  return out;
}

}  // namespace roofline
