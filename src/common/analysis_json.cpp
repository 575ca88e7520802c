// Reading and writing results.analysis (roofline/analysis_results.hpp): every block's to_json and
// from_json, beside the rest of results.json's (src/common/results_json.cpp), so that the base library
// reads and writes a whole results file. Keys and units: docs/results-schema.md "analysis".
#include <algorithm>

#include "roofline/analysis_json.hpp"
#include "roofline/analysis_results.hpp"
#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

// ---- analysis.ridge (roofline/ridge_analysis.hpp) ----

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

// ---- analysis.compute_waterfall (roofline/waterfall.hpp) ----

void to_json(json& j, const waterfall_step& v) {
  j = {{"step", v.step}, {"factor", v.factor}, {"percent_of_nominal", v.percent_of_nominal}, {"detail", v.detail}};
}

void from_json(const json& j, waterfall_step& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(step, factor, percent_of_nominal, detail)
}

void to_json(json& j, const gemm_size_factors& v) {
  j = {{"n", v.n}, {"flops_per_s", v.flops_per_s}, {"percent_of_nominal", v.percent_of_nominal},
       {"clock_factor", v.clock_factor}, {"wave_factor", v.wave_factor}, {"tile_factor", v.tile_factor},
       {"remainder_factor", v.remainder_factor}};
  detail::write_if(j, "note", v.note);
  detail::write_if(j, "tile", v.tile);
}

void from_json(const json& j, gemm_size_factors& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(n, flops_per_s, percent_of_nominal, clock_factor, wave_factor, tile_factor, remainder_factor,
                       note, tile)
}

void to_json(json& j, const compute_waterfall_precision& v) {
  j = {{"precision", v.precision}};
  if (!v.note.empty()) {
    j["note"] = v.note;
    return;
  }
  j["nominal_flops_per_s"] = v.nominal_flops_per_s;
  j["nominal_engine"] = v.nominal_engine;
  j["datasheet_clock_mhz"] = v.datasheet_clock_mhz;
  j["best_size"] = v.best_size;
  j["measured_flops_per_s"] = v.measured_flops_per_s;
  j["measured_percent_of_nominal"] = v.measured_percent_of_nominal;
  j["method"] = v.method;
  j["steps"] = v.steps;
  j["size_sweep"] = v.size_sweep;
  detail::write_if(j, "remainder_trend", v.remainder_trend);
}

void from_json(const json& j, compute_waterfall_precision& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(precision, note, nominal_flops_per_s, nominal_engine, datasheet_clock_mhz, best_size,
                       measured_flops_per_s, measured_percent_of_nominal, method, steps, size_sweep, remainder_trend)
}

void to_json(json& j, const compute_waterfall& v) {
  j = {{"unit", v.unit}, {"tile_assumption", v.tile_assumption}, {"per_precision", v.per_precision}};
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, compute_waterfall& v) {
  detail::require_block(j, "per_precision");
  ROOFLINE_READ_FIELDS(unit, tile_assumption, per_precision, note)
}

// ---- analysis.bandwidth_waterfall (roofline/waterfall.hpp) ----

void to_json(json& j, const bandwidth_step& v) {
  j = {{"step", v.step}, {"bytes_per_s", v.bytes_per_s}, {"percent_of_nominal", v.percent_of_nominal}};
  detail::write_if(j, "pattern", v.pattern);
}

void from_json(const json& j, bandwidth_step& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(step, pattern, bytes_per_s, percent_of_nominal)
}

void to_json(json& j, const bandwidth_pattern& v) {
  j = {{"pattern", v.pattern}, {"bytes_per_s", v.bytes_per_s}};
  if (!v.bytes_per_s) {
    j["note"] = v.note;
    return;
  }
  j["level"] = v.level;
  j["median_bytes_per_s"] = v.median_bytes_per_s;
  j["percent_of_nominal"] = v.percent_of_nominal;
  j["fraction_of_best"] = v.fraction_of_best;
  j["bytes_convention"] = v.bytes_convention;
}

void from_json(const json& j, bandwidth_pattern& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(pattern, level, bytes_per_s, median_bytes_per_s, percent_of_nominal, fraction_of_best,
                       bytes_convention, note)
}

void to_json(json& j, const cache_roof& v) {
  j = {{"bytes_per_s", v.bytes_per_s}};
  if (!v.bytes_per_s) {
    j["note"] = v.note;
    return;
  }
  j["pattern"] = v.pattern;
  j["working_set_bytes"] = v.working_set_bytes;
  j["ratio_to_dram"] = v.ratio_to_dram;
}

void from_json(const json& j, cache_roof& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(bytes_per_s, pattern, working_set_bytes, ratio_to_dram, note)
}

void to_json(json& j, const dram_overhead& v) {
  j = {{"name", v.name}, {"label", v.label}, {"low_percent", v.low_percent}, {"high_percent", v.high_percent}, {"source", v.source}};
}

void from_json(const json& j, dram_overhead& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(name, label, low_percent, high_percent, source)
}

void to_json(json& j, const ecc_report& v) { j = {{"state", v.state}, {"source", v.source}}; }
void from_json(const json& j, ecc_report& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(state, source)
}

void to_json(json& j, const bandwidth_waterfall& v) {
  j = {{"unit", v.unit}, {"nominal_bytes_per_s", v.nominal_bytes_per_s}, {"nominal_formula", v.nominal_formula},
       {"steps", v.steps}, {"patterns", v.patterns}, {"l2", v.l2}, {"ecc", v.ecc}, {"dram_overheads", v.dram_overheads}};
  detail::write_if(j, "nominal_reason", v.nominal_reason);
  detail::write_if(j, "note", v.note);
  detail::write_if(j, "gap_percent", v.gap_percent);
  if (v.estimated_overheads_low_percent && v.estimated_overheads_high_percent)
    j["estimated_overheads_percent"] = {*v.estimated_overheads_low_percent, *v.estimated_overheads_high_percent};
  if (v.unattributed_low_percent && v.unattributed_high_percent)
    j["unattributed_percent"] = {*v.unattributed_low_percent, *v.unattributed_high_percent};
  detail::write_if(j, "unattributed_note", v.unattributed_note);
}

void from_json(const json& j, bandwidth_waterfall& v) {
  detail::require_block(j, "steps");
  detail::read(j, "unit", v.unit), detail::read(j, "nominal_bytes_per_s", v.nominal_bytes_per_s);
  detail::read(j, "nominal_reason", v.nominal_reason), detail::read(j, "nominal_formula", v.nominal_formula);
  detail::read(j, "steps", v.steps), detail::read(j, "patterns", v.patterns), detail::read(j, "note", v.note);
  detail::read(j, "l2", v.l2), detail::read(j, "ecc", v.ecc), detail::read(j, "dram_overheads", v.dram_overheads);
  detail::read(j, "gap_percent", v.gap_percent), detail::read(j, "unattributed_note", v.unattributed_note);
  std::optional<std::vector<double>> range;
  detail::read(j, "estimated_overheads_percent", range);
  if (range && range->size() == 2) v.estimated_overheads_low_percent = (*range)[0], v.estimated_overheads_high_percent = (*range)[1];
  detail::read(j, "unattributed_percent", range);
  if (range && range->size() == 2) v.unattributed_low_percent = (*range)[0], v.unattributed_high_percent = (*range)[1];
}

// ---- analysis.mfu (roofline/decode_mfu.hpp) ----

void to_json(json& j, const mfu_scenario& v) {
  j = {{"batch", v.batch}, {"context", v.context}, {"step_flops", v.step_flops}, {"step_bytes", v.step_bytes},
       {"flops_per_token", v.flops_per_token}, {"intensity", v.intensity}, {"predicted_tpot_s", v.predicted_tpot_s},
       {"tpot_source", v.tpot_source}, {"tpot_s", v.tpot_s}, {"mfu", v.mfu}};
  detail::write_if(j, "mfu_ceiling_nominal", v.mfu_ceiling_nominal);
  detail::write_if(j, "mfu_ceiling_measured_roofs", v.mfu_ceiling_measured_roofs);
  detail::write_if(j, "sum_of_ops_tpot_s", v.sum_of_ops_tpot_s);
  detail::write_if(j, "whole_step_predicted_s", v.whole_step_predicted_s);
  if (v.tpot_s) {
    j["tokens_per_s"] = v.tokens_per_s;
    j["achieved_flops_per_s"] = v.achieved_flops_per_s;
    j["hfu"] = v.hfu;
    j["fraction_of_measured_roof"] = v.fraction_of_measured_roof;
    detail::write_if(j, "mfu_over_ceiling", v.mfu_over_ceiling);
    detail::write_if(j, "mbu", v.mbu);
    detail::write_if(j, "mbu_measured", v.mbu_measured);
  }
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, mfu_scenario& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(batch, context, step_flops, step_bytes, flops_per_token, intensity, predicted_tpot_s,
                       mfu_ceiling_nominal, mfu_ceiling_measured_roofs, sum_of_ops_tpot_s, whole_step_predicted_s,
                       tpot_source, tpot_s, tokens_per_s, achieved_flops_per_s, mfu, hfu, fraction_of_measured_roof,
                       mfu_over_ceiling, mbu, mbu_measured, note)
}

void to_json(json& j, const decode_mfu& v) {
  j = {{"precision", v.precision}, {"peak_nominal", v.peak_nominal}, {"peak_measured", v.peak_measured},
       {"convention", v.convention}, {"scenarios", v.scenarios}};
  detail::write_if(j, "rule_of_thumb_flops_per_token", v.rule_of_thumb_flops_per_token);
  detail::write_if(j, "rule_of_thumb", v.rule_of_thumb);
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, decode_mfu& v) {
  detail::require_block(j, "scenarios");
  ROOFLINE_READ_FIELDS(precision, peak_nominal, peak_measured, convention, scenarios, rule_of_thumb_flops_per_token,
                       rule_of_thumb, note)
}

// ---- analysis.fusion (roofline/fusion_analysis.hpp) ----

void to_json(json& j, const silu_mul_fusion& v) {
  j = {{"phase", v.phase}, {"batch", v.batch}, {"unfused_bytes", v.unfused_bytes}, {"fused_bytes", v.fused_bytes},
       {"byte_ratio", v.byte_ratio}, {"unfused_predicted_s", v.unfused_predicted_s},
       {"fused_predicted_s", v.fused_predicted_s}, {"predicted_saved_s_per_step", v.predicted_saved_s_per_step},
       {"time_ratio", v.time_ratio}};
  detail::write_if(j, "unfused_measured_s", v.unfused_measured_s);
  detail::write_if(j, "fused_measured_s", v.fused_measured_s);
  detail::write_if(j, "saved_s_per_step", v.saved_s_per_step);
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, silu_mul_fusion& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(phase, batch, unfused_bytes, fused_bytes, byte_ratio, unfused_predicted_s, fused_predicted_s,
                       predicted_saved_s_per_step, unfused_measured_s, fused_measured_s, time_ratio,
                       saved_s_per_step, note)
}

void to_json(json& j, const predicted_saving& v) {
  j = {{"phase", v.phase}, {"batch", v.batch}, {"name", v.name}, {"ops", v.ops}, {"description", v.description},
       {"count", v.count}, {"bytes_before", v.bytes_before}, {"bytes_after", v.bytes_after},
       {"fraction_saved", v.fraction_saved}, {"bytes_saved_per_step", v.bytes_saved_per_step},
       {"time_saved_bytes_only_per_step_s", v.time_saved_bytes_only_per_step_s},
       {"time_saved_per_step_s", v.time_saved_per_step_s}};
}

void from_json(const json& j, predicted_saving& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(phase, batch, name, ops, description, count, bytes_before, bytes_after, fraction_saved,
                       bytes_saved_per_step, time_saved_bytes_only_per_step_s, time_saved_per_step_s)
}

void to_json(json& j, const predicted_fusion& v) {
  j = {{"savings", v.savings}};
  if (!v.latency_model.empty()) {
    j["bandwidth_bytes_per_s"] = v.bandwidth_bytes_per_s;
    j["latency_model"] = v.latency_model;
  }
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, predicted_fusion& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(savings, bandwidth_bytes_per_s, latency_model, note)
}

void to_json(json& j, const fusion_analysis& v) {
  j = {{"expected_byte_ratio", v.expected_byte_ratio}, {"why", v.why}, {"silu_mul", v.silu_mul}, {"predicted", v.predicted}};
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, fusion_analysis& v) {
  detail::require_block(j, "silu_mul");
  ROOFLINE_READ_FIELDS(expected_byte_ratio, why, silu_mul, note, predicted)
}

// ---- analysis.accuracy (roofline/accuracy.hpp) ----

void to_json(json& j, const op_accuracy& v) {
  j = {{"name", v.name}, {"phase", v.phase}, {"batch", v.batch}, {"bound", v.bound}, {"predicted_s", v.predicted_s},
       {"measured_s", v.measured_s}, {"ratio", v.ratio}, {"abs_error", v.abs_error}, {"counted", v.counted},
       {"long", v.long_op}, {"roof_fraction", v.roof_fraction}, {"headroom", v.headroom}, {"on_launch_floor", v.on_launch_floor}};
}

void from_json(const json& j, op_accuracy& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(name, phase, batch, bound, predicted_s, measured_s, ratio, abs_error, counted, roof_fraction,
                       headroom, on_launch_floor)
  detail::read(j, "long", v.long_op);
}

void to_json(json& j, const step_accuracy& v) {
  j = {{"phase", v.phase}, {"batch", v.batch}, {"predicted_s", v.predicted_s}, {"measured_s", v.measured_s},
       {"ratio", v.ratio}, {"abs_error", v.abs_error}, {"meets_target", v.meets_target}};
  detail::write_if(j, "sum_of_ops_s", v.sum_of_ops_s);
}

void from_json(const json& j, step_accuracy& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(phase, batch, predicted_s, measured_s, ratio, abs_error, meets_target, sum_of_ops_s)
}

void to_json(json& j, const prediction_accuracy& v) {
  j = {{"threshold_s", v.threshold_s}, {"target", v.target}, {"target_long", v.target_long},
       {"target_whole_step", v.target_whole_step}, {"per_op", v.per_op}, {"ops_counted", v.ops_counted},
       {"ops_long", v.ops_long}, {"median_abs_error", v.median_abs_error},
       {"median_abs_error_long", v.median_abs_error_long}, {"whole_step", v.whole_step}};
  detail::write_if(j, "meets_target", v.meets_target);
  detail::write_if(j, "meets_target_long", v.meets_target_long);
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, prediction_accuracy& v) {
  detail::require_block(j, "per_op");
  ROOFLINE_READ_FIELDS(threshold_s, target, target_long, target_whole_step, per_op, ops_counted, ops_long,
                       median_abs_error, median_abs_error_long, meets_target, meets_target_long, note, whole_step)
}

// ---- analysis.batch_sweep (roofline/batch_sweep.hpp) ----

void to_json(json& j, const sweep_point& v) {
  j = {{"batch", v.batch}, {"intensity", v.intensity}, {"flops", v.flops}, {"bytes", v.bytes},
       {"predicted_s", v.predicted_s}, {"measured_s", v.measured_s}, {"note", v.note}};
  detail::write_if(j, "implementation", v.implementation);
  detail::write_if(j, "measured_flops_per_s", v.measured_flops_per_s);
}

void from_json(const json& j, sweep_point& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(batch, intensity, flops, bytes, predicted_s, measured_s, measured_flops_per_s, note,
                       implementation)
}

void to_json(json& j, const sweep_shape& v) {
  j = {{"shape", v.shape}, {"k", v.k}, {"n", v.n}, {"dtype", v.dtype}, {"points", v.points},
       {"knee_measured", v.knee_measured}, {"knee_predicted", v.knee_predicted}};
}

void from_json(const json& j, sweep_shape& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(shape, k, n, dtype, points, knee_measured, knee_predicted)
}

void to_json(json& j, const batch_sweep& v) {
  j = {{"shapes", v.shapes}, {"ridge_measured", v.ridge_measured}};
  detail::write_if(j, "definition", v.definition);
  if (!v.shapes.empty()) j["points"] = j["shapes"][0]["points"];  // the trace drawn on the roofline
}

void from_json(const json& j, batch_sweep& v) {
  detail::require_block(j, "shapes");
  ROOFLINE_READ_FIELDS(definition, ridge_measured, shapes)
}

// ---- analysis.energy and step_sweep (roofline/energy_analysis.hpp) ----

void to_json(json& j, const probe_energy& v) {
  j = {{"probe", v.probe}, {"window_s", v.window_s}};
  detail::write_if(j, "power_w", v.power_w);
  detail::write_if(j, "integrated_power_w", v.integrated_power_w);
  detail::write_if(j, "counter_vs_integrated", v.counter_vs_integrated);
  detail::write_if(j, "power_cap_share", v.power_cap_share);
  detail::write_if(j, "note", v.note);
}

void from_json(const json& j, probe_energy& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(probe, window_s, power_w, integrated_power_w, counter_vs_integrated, power_cap_share, note)
}

void to_json(json& j, const op_energy& v) {
  j = {{"name", v.name}, {"phase", v.phase}, {"batch", v.batch}, {"count", v.count}, {"predicted_j", v.predicted_j}};
  detail::write_if(j, "measured_time_j", v.measured_time_j);
}

void from_json(const json& j, op_energy& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(name, phase, batch, count, predicted_j, measured_time_j)
}

void to_json(json& j, const energy_roofline& v) {
  j = {{"definition", v.definition},
       {"idle_w", v.idle_w},
       {"joules_per_byte", v.joules_per_byte},
       {"joules_per_flop", v.joules_per_flop},
       {"power_limit_w", v.power_limit_w},
       {"power_cap", v.power_cap},
       {"probes", v.probes},
       {"ops", v.ops},
       {"notes", v.notes}};
  detail::write_if(j, "idle_source", v.idle_source);
  detail::write_if(j, "bytes_source", v.bytes_source);
  detail::write_if(j, "flops_source", v.flops_source);
  detail::write_if(j, "joules_per_flop_cuda_cores", v.joules_per_flop_cuda_cores);
  detail::write_if(j, "cuda_cores_source", v.cuda_cores_source);
}

void from_json(const json& j, energy_roofline& v) {
  detail::require_block(j, "definition");
  ROOFLINE_READ_FIELDS(definition, idle_w, idle_source, joules_per_byte, bytes_source, joules_per_flop, flops_source,
                       joules_per_flop_cuda_cores, cuda_cores_source, power_limit_w, power_cap, probes, ops, notes)
}

void to_json(json& j, const step_sweep_point& v) {
  j = {{"batch", v.batch},
       {"predicted_s", v.predicted_s},
       {"measured_s", v.measured_s},
       {"error", v.error},
       {"predicted_tokens_per_s", v.predicted_tokens_per_s},
       {"measured_tokens_per_s", v.measured_tokens_per_s},
       {"power_w", v.power_w},
       {"power_cap_share", v.power_cap_share},
       {"j_per_token_measured", v.j_per_token_measured},
       {"j_per_token_integrated", v.j_per_token_integrated},
       {"j_per_token_predicted", v.j_per_token_predicted},
       {"energy_error", v.energy_error},
       {"counter_vs_integrated", v.counter_vs_integrated}};
  detail::write_if(j, "note", v.note);
  detail::write_if(j, "flops_charged_tensor", v.flops_charged_tensor);
  detail::write_if(j, "flops_charged_cuda_cores", v.flops_charged_cuda_cores);
}

void from_json(const json& j, step_sweep_point& v) {
  detail::require_object(j);
  ROOFLINE_READ_FIELDS(batch, predicted_s, measured_s, error, predicted_tokens_per_s, measured_tokens_per_s, power_w,
                       power_cap_share, j_per_token_measured, j_per_token_integrated, j_per_token_predicted,
                       energy_error, counter_vs_integrated, note, flops_charged_tensor, flops_charged_cuda_cores)
}

void to_json(json& j, const step_sweep_analysis& v) {
  j = {{"definition", v.definition},
       {"context", v.context},
       {"points", v.points},
       {"knee_measured", v.knee_measured},
       {"knee_predicted", v.knee_predicted},
       {"tpot_target_s", v.tpot_target_s},
       {"largest_batch_measured", v.largest_batch_measured},
       {"largest_batch_predicted", v.largest_batch_predicted},
       {"kv_capacity_batch", v.kv_capacity_batch},
       {"notes", v.notes}};
  if (v.drift) j["drift"] = *v.drift, j["drift_change"] = v.drift_change, j["drift_moved"] = v.drift_moved;
}

void from_json(const json& j, step_sweep_analysis& v) {
  detail::require_block(j, "points");
  ROOFLINE_READ_FIELDS(definition, context, points, knee_measured, knee_predicted, tpot_target_s,
                       largest_batch_measured, largest_batch_predicted, kv_capacity_batch, notes)
  if (j.contains("drift") && j["drift"].is_object()) {
    v.drift = j["drift"].get<drift_check>();
    ROOFLINE_READ_FIELDS(drift_change, drift_moved)
  }
}

// ---- analysis.latency_model (roofline/latency.hpp) ----

namespace {

json ramp_json(const std::vector<ramp_point>& pts) {
  json a = json::array();
  for (const auto& p : pts)
    a.push_back({{"bytes", p.bytes}, {"memory_s", p.seconds}, {"bytes_per_s", p.seconds > 0 ? p.bytes / p.seconds : 0}});
  return a;
}

std::vector<ramp_point> ramp_from(const json& a) {
  std::vector<ramp_point> out;
  for (const auto& p : a) out.push_back({p.at("bytes").get<double>(), p.at("memory_s").get<double>()});
  return out;
}

}  // namespace

void to_json(json& j, const latency_model& m) {
  json rates = json::array();
  for (const auto& [n, f] : m.gemm_rate) rates.push_back({{"n", n}, {"flops_per_s", f}});
  json rows = json::array();
  for (const auto& c : m.gemm_rows)
    for (const auto& [r, f] : c.points) {
      json p = {{"m", r}, {"n", c.n}, {"k", c.k}, {"flops_per_s", f}};
      if (!c.linears.empty()) p["linears"] = c.linears;
      rows.push_back(std::move(p));
    }
  j = {{"formula", "t = max(FLOPs / P(shape), bytes / BW(bytes)) + floor"},
       {"floor_s", m.floor_s},
       {"latency_s", m.latency_s},
       {"ramp", ramp_json(m.ramp)},
       {"gemm_rate", rates},
       {"gemm_rows", rows},
       {"source", m.source}};
  if (m.switch_s > 0) j["switch_s"] = m.switch_s;  // only where measured (GPU)
  if (m.serial_below_elements > 0) {  // only where the one-thread regime was measured (CPU)
    j["serial_below_elements"] = m.serial_below_elements;
    j["serial_floor_s"] = m.serial_floor_s;
    j["serial_ramp"] = ramp_json(m.serial_ramp);
  }
  if (!m.attention_rates.empty()) {
    json attn = json::array();
    for (const auto& a : m.attention_rates)
      attn.push_back({{"head_dim", a.head_dim}, {"qk_flops_per_s", a.qk}, {"pv_flops_per_s", a.pv},
                      {"softmax_flops_per_s", a.softmax}, {"tile_rows", a.tile_rows}});
    j["attention_rates"] = attn;
  }
  if (!m.fused_rates.empty()) {
    json fr = json::array();
    for (const auto& f : m.fused_rates) fr.push_back({{"head_dim", f.head_dim}, {"tokens", f.tokens}, {"flops_per_s", f.flops_per_s}});
    j["fused_attention_rates"] = fr;
  }
  if (!m.decode_rates.empty()) {
    json dr = json::array();
    for (const auto& d : m.decode_rates)
      dr.push_back({{"heads", d.heads}, {"kv_heads", d.kv_heads}, {"head_dim", d.head_dim}, {"keys", d.keys},
                    {"batch", d.batch}, {"flops_per_s", d.flops_per_s}});
    j["decode_attention_rates"] = dr;
  }
  if (m.write_cost) {
    j["write_cost"] = *m.write_cost;
    j["write_in_place"] = m.write_in_place;
  }
}

void from_json(const json& j, latency_model& m) {
  detail::require_object(j);
  m = latency_model{};
  m.floor_s = j.at("floor_s").get<double>();  // a number, not null: a block without it is not this shape
  m.latency_s = j.at("latency_s").get<double>();
  detail::read(j, "switch_s", m.switch_s);
  detail::read(j, "source", m.source);
  if (j.contains("ramp")) m.ramp = ramp_from(j.at("ramp"));
  for (const auto& p : j.value("gemm_rate", json::array()))
    m.gemm_rate.emplace_back(p.at("n").get<double>(), p.at("flops_per_s").get<double>());
  for (const auto& p : j.value("gemm_rows", json::array())) {  // consecutive points of one weight: one curve
    const double n = p.at("n").get<double>(), k = p.at("k").get<double>();
    const std::string linears = p.value("linears", std::string());
    if (m.gemm_rows.empty() || m.gemm_rows.back().n != n || m.gemm_rows.back().k != k || m.gemm_rows.back().linears != linears)
      m.gemm_rows.push_back({n, k, linears, {}});
    m.gemm_rows.back().points.emplace_back(p.at("m").get<double>(), p.at("flops_per_s").get<double>());
  }
  if (j.contains("serial_below_elements")) {  // written together, only where the one-thread regime was measured
    m.serial_below_elements = j.at("serial_below_elements").get<std::int64_t>();
    m.serial_floor_s = j.at("serial_floor_s").get<double>();
  }
  if (j.contains("serial_ramp")) m.serial_ramp = ramp_from(j.at("serial_ramp"));
  for (const auto& a : j.value("attention_rates", json::array()))
    m.attention_rates.push_back({a.at("head_dim").get<double>(), a.at("qk_flops_per_s").get<double>(),
                                 a.at("pv_flops_per_s").get<double>(), a.at("softmax_flops_per_s").get<double>(),
                                 a.at("tile_rows").get<double>()});
  for (const auto& f : j.value("fused_attention_rates", json::array()))
    m.fused_rates.push_back({f.at("head_dim").get<double>(), f.at("tokens").get<double>(), f.at("flops_per_s").get<double>()});
  for (const auto& d : j.value("decode_attention_rates", json::array()))
    m.decode_rates.push_back({d.at("heads").get<double>(), d.at("kv_heads").get<double>(), d.at("head_dim").get<double>(),
                              d.at("keys").get<double>(), d.at("batch").get<double>(), d.at("flops_per_s").get<double>()});
  detail::read(j, "write_cost", m.write_cost);
  detail::read(j, "write_in_place", m.write_in_place);
}

// ---- analysis.record_table (roofline/record_table.hpp) ----

void to_json(json& j, const record_row& x) {
  j = {{"key", x.key}, {"label", x.label}, {"unit", x.unit}, {"nominal", num_or_null(x.nominal)},
       {"measured", x.measured_text.empty() ? num_or_null(x.measured) : json(x.measured_text)},
       {"expected_low", num_or_null(x.expected_low)}, {"expected_high", num_or_null(x.expected_high)},
       {"expected_note", x.expected_note}, {"ratio", num_or_null(x.ratio())}, {"nominal_note", x.nominal_note},
       {"measured_note", x.measured_note}, {"rejected", x.rejected}, {"seconds", num_or_null(x.seconds)}};
  detail::write_if(j, "above_usual", x.above_usual);
}

void from_json(const json& j, record_row& v) {
  detail::require_block(j, "key");
  ROOFLINE_READ_FIELDS(key, label, unit, nominal, expected_low, expected_high, expected_note, nominal_note, measured_note,
                       rejected, seconds, above_usual)
  v.measured.reset();
  v.measured_text.clear();
  if (const auto it = j.find("measured"); it != j.end()) {
    if (it->is_string()) v.measured_text = it->get<std::string>();
    else if (!it->is_null()) v.measured = it->get<double>();
  }
}

// ---- analysis.tpot_input / step_input ----

void to_json(json& j, const user_step_time& v) {
  j = {{"tpot_s", v.tpot_s}, {"batch", v.batch}, {"source", v.source}};
}

void from_json(const json& j, user_step_time& v) {
  detail::require_block(j, "tpot_s");
  ROOFLINE_READ_FIELDS(tpot_s, batch, source)
}

// ---- results.analysis (roofline/analysis_results.hpp) ----

namespace {

/// Calls f(key, member) for every block of analysis_results, in the order docs/results-schema.md lists them.
template <class A, class F>
void each_block(A& a, F&& f) {
  f("roofline_gaps", a.roofline_gaps);
  f("compute_waterfall", a.compute_waterfall);
  f("bandwidth_waterfall", a.bandwidth_waterfall);
  f("ridge", a.ridge);
  f("mfu", a.mfu);
  f("fusion", a.fusion);
  f("accuracy", a.accuracy);
  f("batch_sweep", a.batch_sweep);
  f("energy", a.energy);
  f("step_sweep", a.step_sweep);
  f("record_table", a.record_table);
  f("latency_model", a.latency_model);
  f("tpot_input", a.tpot_input);
  f("step_input", a.step_input);
}

}  // namespace

void to_json(json& j, const analysis_results& v) {
  j = v.other->is_object() ? *v.other : json::object();
  each_block(v, [&](const char* key, const auto& block) {
    if (block) j[key] = *block;
  });
}

void from_json(const json& j, analysis_results& v) {
  detail::require_object(j);
  v = analysis_results{};
  v.other = j;
  each_block(v, [&](const char* key, auto& block) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    try {
      block = it->template get<typename std::remove_reference_t<decltype(block)>::value_type>();
      v.other->erase(key);
    } catch (const json::exception& e) {
      block.reset();
      v.unreadable[key] = e.what();
    }
  });
}

}  // namespace roofline
