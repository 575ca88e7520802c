// Ridge points, nominal vs measured, per precision. docs/formulas-analysis.md §1.
#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/ridge_analysis.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

ridge_analysis analyse_ridge(const results& r) {
  const roofline_summary s = summarize_roofline(r.nominal, r.measured, main_precision(r));
  ridge_analysis out{"FLOP/B", "both roofs shrink, so the ridge usually moves by under 10–20%", s.precision, {}, roofline_gaps(s)};
  for (const auto& e : s.per_precision) {
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

void to_json(json& j, const ridge_row& v) {
  j = {{"precision", v.precision}, {"engine_nominal", v.engine_nominal}, {"engine_measured", v.engine_measured},
       {"peak_nominal", v.peak_nominal}, {"peak_measured", v.peak_measured}, {"measured_size", v.measured_size},
       {"ridge_nominal", v.ridge_nominal}, {"ridge_measured", v.ridge_measured}, {"relative_move", v.relative_move},
       {"verdict", v.verdict}};
  detail::write_if(j, "within_20_percent", v.within_20_percent);
  detail::write_if(j, "within_10_percent", v.within_10_percent);
  detail::write_if(j, "peak_ratio", v.peak_ratio);
  detail::write_if(j, "bandwidth_ratio", v.bandwidth_ratio);
}
void from_json(const json& j, ridge_row& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(precision, engine_nominal, engine_measured, peak_nominal, peak_measured, measured_size,
                       ridge_nominal, ridge_measured, relative_move, within_20_percent, within_10_percent,
                       peak_ratio, bandwidth_ratio, verdict)
}

void to_json(json& j, const ridge_analysis& v) {
  j = {{"unit", v.unit}, {"expectation", v.expectation}, {"default_precision", v.default_precision},
       {"per_precision", v.per_precision}, {"gaps", v.gaps}};
}
void from_json(const json& j, ridge_analysis& v) {
  detail::require_block(j, "per_precision");
  ROOFLINE_READ_FIELDS(unit, expectation, default_precision, per_precision, gaps)
}

}  // namespace roofline
