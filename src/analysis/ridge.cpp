// Ridge points, nominal vs measured, per precision. docs/formulas-analysis.md §1.
#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/ridge_analysis.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

ridge_analysis analyse_ridge(const results& r) {
  const roofline_summary s = summarize_roofline(r.nominal, r.measured, main_precision(r));
  ridge_analysis out{"FLOP/B", "both roofs shrink, so the ridge usually moves by under 10–20%", s.precision, {}, roofline_gaps(s)};
  for (const auto& e : *s.per_precision) {
    ridge_row row = e.get<ridge_row>();
    if (row.ridge_nominal && row.ridge_measured) {
      const double move = *row.ridge_measured / *row.ridge_nominal - 1.0;
      row.relative_move = move;
      row.within_20_percent = std::fabs(move) <= 0.20;
      row.within_10_percent = std::fabs(move) <= 0.10;
      row.peak_ratio = row.peak_measured / row.peak_nominal;
      if (s.bandwidth_nominal && s.bandwidth_measured > 0) row.bandwidth_ratio = s.bandwidth_measured / *s.bandwidth_nominal;
      row.verdict = std::fabs(move) <= 0.20
                        ? fmt::format("holds: the ridge moved {:+.0f}%", 100 * move)
                        : fmt::format("does not hold: the ridge moved {:+.0f}% (compute and bandwidth shrank unequally)", 100 * move);
    } else {
      row.verdict = "unknown: needs nominal and measured bandwidth";
    }
    out.per_precision.push_back(std::move(row));
  }
  return out;
}

}  // namespace roofline
