// The block results.analysis.ridge: nominal vs measured ridge point per precision and how far it
// moved. Fields and units: docs/results-schema.md "analysis"; computed by roofline/ridge_analysis.hpp
// (analyse_ridge, in src/analysis); read and written by src/common/analysis_json.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

/// One precision with a nominal peak and a measured result.
struct ridge_row {
  std::string precision, engine_nominal, engine_measured;
  double peak_nominal = 0, peak_measured = 0;  ///< FLOP/s (OP/s for int8)
  std::optional<std::int64_t> measured_size;   ///< n of the measured GEMM; null for FMA chains
  std::optional<double> ridge_nominal, ridge_measured;  ///< FLOP/B; null without that bandwidth
  std::optional<double> relative_move;          ///< ridge_measured ÷ ridge_nominal − 1; null unless both
  std::optional<bool> within_20_percent, within_10_percent;  ///< |relative_move| ≤ 0.20 / 0.10 (absent unless both)
  std::optional<double> peak_ratio, bandwidth_ratio;  ///< measured ÷ nominal (absent unless known)
  std::string verdict;  ///< "holds: the ridge moved -18%", "does not hold: …", "unknown: …"
};

struct ridge_analysis {
  std::string unit;         ///< "FLOP/B"
  std::string expectation;  ///< the rule of thumb checked
  std::string default_precision;
  std::vector<ridge_row> per_precision;
  std::vector<std::string> gaps;  ///< roofline_gaps() of the default precision ("field: why")
};

void to_json(json& j, const ridge_row& v);
void from_json(const json& j, ridge_row& v);
void to_json(json& j, const ridge_analysis& v);
void from_json(const json& j, ridge_analysis& v);

}  // namespace roofline
