// Ridge points, nominal vs measured, per precision. docs/formulas-analysis.md §1.
#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

json ridge_analysis(const results& r) {
  const roofline_summary s = summarize_roofline(r.nominal, r.measured, main_precision(r));
  json out = {{"unit", "FLOP/B"},
              {"expectation", "both roofs shrink, so the ridge usually moves by under 10–20%"},
              {"default_precision", s.precision},
              {"per_precision", json::array()}};
  for (const auto& e : s.per_precision) {
    json row = e;
    if (e["ridge_nominal"].is_number() && e["ridge_measured"].is_number()) {
      const double n = e["ridge_nominal"].get<double>(), m = e["ridge_measured"].get<double>();
      const double move = m / n - 1.0;
      row["relative_move"] = move;
      row["within_20_percent"] = std::fabs(move) <= 0.20;
      row["within_10_percent"] = std::fabs(move) <= 0.10;
      row["peak_ratio"] = e["peak_measured"].get<double>() / e["peak_nominal"].get<double>();
      if (s.bandwidth_nominal && s.bandwidth_measured > 0)
        row["bandwidth_ratio"] = s.bandwidth_measured / *s.bandwidth_nominal;
      row["verdict"] = std::fabs(move) <= 0.20
                           ? fmt::format("holds: the ridge moved {:+.0f}%", 100 * move)
                           : fmt::format("does not hold: the ridge moved {:+.0f}% (compute and bandwidth shrank unequally)", 100 * move);
    } else {
      row["relative_move"] = nullptr;
      row["verdict"] = "unknown: needs nominal and measured bandwidth";
    }
    out["per_precision"].push_back(row);
  }
  json gaps = json::array();
  for (const auto& g : roofline_gaps(s)) gaps.push_back(g);
  out["gaps"] = gaps;
  return out;
}

}  // namespace roofline
