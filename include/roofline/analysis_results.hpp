// results.analysis, typed end to end: one member per block. analyse() (src/analysis/analyse.cpp)
// computes the views of the gap from the measured fields of a results file; `roofline run` adds the
// latency model it predicted with, the measured batch sweep and the user's --tpot; `report --tpot`
// adds the user's step time. Reading and writing: src/common/analysis_json.cpp. Keys and units:
// docs/results-schema.md "analysis". Part of roofline_base with results.hpp: it includes only the
// blocks' types (roofline/schema/), never the analysis that computes them.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"
#include "roofline/schema/accuracy.hpp"
#include "roofline/schema/batch_sweep.hpp"
#include "roofline/schema/decode_mfu.hpp"
#include "roofline/schema/energy_analysis.hpp"
#include "roofline/schema/fusion_analysis.hpp"
#include "roofline/schema/latency.hpp"
#include "roofline/schema/record_table.hpp"
#include "roofline/schema/ridge_analysis.hpp"
#include "roofline/schema/waterfall.hpp"

namespace roofline {

/// A step time the user measured in their own framework (s), at a decode batch: `run --tpot`
/// (analysis.tpot_input, batch 1) or `report --tpot --batch` (analysis.step_input).
struct user_step_time {
  double tpot_s = 0;
  std::int64_t batch = 1;
  std::string source;  ///< the flag it came from, in words
};

/// Every block of results.analysis. A block is absent (nullopt) when not computed; `other` keeps,
/// as read, the keys this version does not know and the blocks it could not read (their reason in
/// `unreadable`), so that re-writing a file loses nothing and a view can say why a block is missing.
struct analysis_results {
  /// roofline_gaps(): the summary fields that could not be filled in ("field: why"); empty: none.
  std::optional<std::vector<std::string>> roofline_gaps;
  std::optional<roofline::compute_waterfall> compute_waterfall;
  std::optional<roofline::bandwidth_waterfall> bandwidth_waterfall;
  std::optional<ridge_analysis> ridge;
  std::optional<decode_mfu> mfu;
  std::optional<fusion_analysis> fusion;
  std::optional<prediction_accuracy> accuracy;
  std::optional<roofline::batch_sweep> batch_sweep;  ///< `run`'s measured points; knees by analyse()
  std::optional<energy_roofline> energy;             ///< only when the file has an energy reading
  std::optional<step_sweep_analysis> step_sweep;     ///< only when the file has a step sweep
  std::optional<std::vector<record_row>> record_table;
  std::optional<roofline::latency_model> latency_model;  ///< the small-work model `run` predicted with
  std::optional<user_step_time> tpot_input;              ///< `run --tpot`
  std::optional<user_step_time> step_input;              ///< `report --tpot --batch`
  json_value other{json_kind::object};           ///< keys not listed above, and unreadable blocks, as read
  std::map<std::string, std::string> unreadable;  ///< block key → why it did not read (not written)
};

void to_json(json& j, const user_step_time& v);
void from_json(const json& j, user_step_time& v);
/// Writes `other` first, then every block present (a block computed again replaces its old text).
void to_json(json& j, const analysis_results& v);
/// Reads each known key into its block; a block of another shape (an older file's, a malformed one)
/// goes to `other` with its reason in `unreadable` instead of failing the file. Throws
/// json::type_error when `j` is not an object.
void from_json(const json& j, analysis_results& v);

}  // namespace roofline
