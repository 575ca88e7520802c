// Reading and writing results.analysis (roofline/analysis_results.hpp): every block's to_json and
// from_json, beside the rest of results.json's (src/common/results_json.cpp), so that the base library
// reads and writes a whole results file. Keys and units: docs/results-schema.md "analysis".
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/analysis_results.hpp"
#include "roofline/json.hpp"
#include "roofline/json_mapping.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

// ---- analysis.ridge (roofline/ridge_analysis.hpp) ----

ROOFLINE_JSON(ridge_row, lenient,
              always(precision, engine_nominal, engine_measured, peak_nominal, peak_measured, measured_size,
                     ridge_nominal, ridge_measured, relative_move, verdict),
              present(within_20_percent, within_10_percent, peak_ratio, bandwidth_ratio))
ROOFLINE_JSON(ridge_analysis, lenient, shape(per_precision), always(unit, expectation, default_precision, gaps))

// ---- analysis.compute_waterfall (roofline/waterfall.hpp) ----

ROOFLINE_JSON(waterfall_step, lenient, always(step, factor, percent_of_nominal, detail))
ROOFLINE_JSON(gemm_size_factors, lenient,
              always(n, flops_per_s, percent_of_nominal, clock_factor, wave_factor, tile_factor, remainder_factor),
              present(note, tile))
ROOFLINE_JSON_FIELDS(compute_waterfall_precision, lenient) {
  ROOFLINE_ALWAYS(precision)
  ROOFLINE_PRESENT(note)
  if (visit.when(v.note.empty())) {  // a note says why the rest is missing
    ROOFLINE_ALWAYS(nominal_flops_per_s, nominal_engine, datasheet_clock_mhz, best_size, measured_flops_per_s,
                    measured_percent_of_nominal, method, steps, size_sweep)
    ROOFLINE_PRESENT(remainder_trend)
  }
}
ROOFLINE_JSON(compute_waterfall, lenient, shape(per_precision), always(unit, tile_assumption), present(note))

// ---- analysis.bandwidth_waterfall (roofline/waterfall.hpp) ----

ROOFLINE_JSON(bandwidth_step, lenient, always(step, bytes_per_s, percent_of_nominal), present(pattern))
ROOFLINE_JSON_FIELDS(bandwidth_pattern, lenient) {
  ROOFLINE_ALWAYS(pattern, bytes_per_s)
  if (visit.when(!v.bytes_per_s)) {  // not measured: why
    ROOFLINE_ALWAYS(note)
  }
  if (visit.when(v.bytes_per_s.has_value())) {
    ROOFLINE_ALWAYS(level, median_bytes_per_s, percent_of_nominal, fraction_of_best, bytes_convention)
  }
}
ROOFLINE_JSON_FIELDS(cache_roof, lenient) {
  ROOFLINE_ALWAYS(bytes_per_s)
  if (visit.when(!v.bytes_per_s)) {  // not measured: why
    ROOFLINE_ALWAYS(note)
  }
  if (visit.when(v.bytes_per_s.has_value())) {
    ROOFLINE_ALWAYS(pattern, working_set_bytes, ratio_to_dram)
  }
}
ROOFLINE_JSON(dram_overhead, lenient, always(name, label, low_percent, high_percent, source))
ROOFLINE_JSON(ecc_report, lenient, always(state, source))

namespace {

/// [low, high] percent, written when both are known; read back from an array of two numbers.
auto percent_range(std::optional<double> bandwidth_waterfall::*low, std::optional<double> bandwidth_waterfall::*high) {
  return json_mapping::computed{
      [=](const bandwidth_waterfall& v) {
        return v.*low && v.*high ? std::optional<std::vector<double>>({*(v.*low), *(v.*high)}) : std::nullopt;
      },
      [=](bandwidth_waterfall& v, const json& x) {
        const auto range = x.get<std::vector<double>>();
        if (range.size() == 2) v.*low = range[0], v.*high = range[1];
      }};
}

}  // namespace

ROOFLINE_JSON_FIELDS(bandwidth_waterfall, lenient) {
  ROOFLINE_SHAPE(steps)
  ROOFLINE_ALWAYS(unit, nominal_bytes_per_s, nominal_formula, patterns, l2, ecc, dram_overheads)
  ROOFLINE_PRESENT(nominal_reason, note, gap_percent, unattributed_note)
  visit.present("estimated_overheads_percent", percent_range(&bandwidth_waterfall::estimated_overheads_low_percent,
                                                             &bandwidth_waterfall::estimated_overheads_high_percent));
  visit.present("unattributed_percent", percent_range(&bandwidth_waterfall::unattributed_low_percent,
                                                      &bandwidth_waterfall::unattributed_high_percent));
}

// ---- analysis.mfu (roofline/decode_mfu.hpp) ----

ROOFLINE_JSON_FIELDS(mfu_scenario, lenient) {
  ROOFLINE_ALWAYS(batch, context, step_flops, step_bytes, flops_per_token, intensity, predicted_tpot_s, tpot_source,
                  tpot_s, mfu)
  ROOFLINE_PRESENT(mfu_ceiling_nominal, mfu_ceiling_measured_roofs, sum_of_ops_tpot_s, whole_step_predicted_s, note)
  if (visit.when(v.tpot_s.has_value())) {  // the rates of a step time
    ROOFLINE_ALWAYS(tokens_per_s, achieved_flops_per_s, hfu, fraction_of_measured_roof)
    ROOFLINE_PRESENT(mfu_over_ceiling, mbu, mbu_measured)
  }
}
ROOFLINE_JSON(decode_mfu, lenient, shape(scenarios), always(precision, peak_nominal, peak_measured, convention),
              present(rule_of_thumb_flops_per_token, rule_of_thumb, note))

// ---- analysis.fusion (roofline/fusion_analysis.hpp) ----

ROOFLINE_JSON(silu_mul_fusion, lenient,
              always(phase, batch, unfused_bytes, fused_bytes, byte_ratio, unfused_predicted_s, fused_predicted_s,
                     predicted_saved_s_per_step, time_ratio),
              present(unfused_measured_s, fused_measured_s, saved_s_per_step, note))
ROOFLINE_JSON(predicted_saving, lenient,
              always(phase, batch, name, ops, description, count, bytes_before, bytes_after, fraction_saved,
                     bytes_saved_per_step, time_saved_bytes_only_per_step_s, time_saved_per_step_s))
ROOFLINE_JSON_FIELDS(predicted_fusion, lenient) {
  ROOFLINE_ALWAYS(savings)
  ROOFLINE_PRESENT(note)
  if (visit.when(!v.latency_model.empty())) {  // the times of a latency model
    ROOFLINE_ALWAYS(bandwidth_bytes_per_s, latency_model)
  }
}
ROOFLINE_JSON(fusion_analysis, lenient, shape(silu_mul), always(expected_byte_ratio, why, predicted), present(note))

// ---- analysis.accuracy (roofline/accuracy.hpp) ----

ROOFLINE_JSON_FIELDS(op_accuracy, lenient) {
  ROOFLINE_ALWAYS(name, phase, batch, bound, predicted_s, measured_s, ratio, abs_error, counted, roof_fraction,
                  headroom, on_launch_floor)
  visit.always("long", &op_accuracy::long_op);
}
ROOFLINE_JSON(step_accuracy, lenient, always(phase, batch, predicted_s, measured_s, ratio, abs_error, meets_target),
              present(sum_of_ops_s))
ROOFLINE_JSON(prediction_accuracy, lenient, shape(per_op),
              always(threshold_s, target, target_long, target_whole_step, ops_counted, ops_long, median_abs_error,
                     median_abs_error_long, whole_step),
              present(meets_target, meets_target_long, note))

// ---- analysis.batch_sweep (roofline/batch_sweep.hpp) ----

ROOFLINE_JSON(sweep_point, lenient, always(batch, intensity, flops, bytes, predicted_s, measured_s, note),
              present(implementation, measured_flops_per_s))
ROOFLINE_JSON(sweep_shape, lenient, always(shape, k, n, dtype, points, knee_measured, knee_predicted))
ROOFLINE_JSON_FIELDS(batch_sweep, lenient) {
  ROOFLINE_SHAPE(shapes)
  ROOFLINE_ALWAYS(ridge_measured)
  ROOFLINE_PRESENT(definition)
  // the first shape's points again: the trace drawn on the roofline (not read back)
  visit.present("points", json_mapping::computed{[](const batch_sweep& v) {
                  return v.shapes.empty() ? std::nullopt : std::optional<json>(v.shapes[0].points);
                }});
}

// ---- analysis.energy and step_sweep (roofline/energy_analysis.hpp) ----

ROOFLINE_JSON(probe_energy, lenient, always(probe, window_s),
              present(power_w, integrated_power_w, counter_vs_integrated, power_cap_share, note))
ROOFLINE_JSON(op_energy, lenient, always(name, phase, batch, count, predicted_j), present(measured_time_j))
ROOFLINE_JSON(energy_roofline, lenient, shape(definition),
              always(idle_w, joules_per_byte, joules_per_flop, power_limit_w, power_cap, probes, ops, notes),
              present(idle_source, bytes_source, flops_source, joules_per_flop_cuda_cores, cuda_cores_source,
                      joules_per_flop_decode_tensor, joules_per_flop_decode_cuda_cores, decode_source))
ROOFLINE_JSON(step_sweep_point, lenient,
              always(batch, predicted_s, measured_s, error, predicted_tokens_per_s, measured_tokens_per_s, power_w,
                     power_cap_share, j_per_token_measured, j_per_token_integrated, j_per_token_predicted,
                     energy_error, counter_vs_integrated),
              present(note, flops_charged_tensor, flops_charged_cuda_cores))
ROOFLINE_JSON_FIELDS(step_sweep_analysis, lenient) {
  ROOFLINE_SHAPE(points)
  ROOFLINE_ALWAYS(definition, context, knee_measured, knee_predicted, tpot_target_s, largest_batch_measured,
                  largest_batch_predicted, kv_capacity_batch, notes)
  if (visit.present_object("drift", &step_sweep_analysis::drift)) {  // what the drift check found
    ROOFLINE_ALWAYS(drift_change, drift_moved)
  }
}

// ---- analysis.latency_model (roofline/latency.hpp) ----

// latency_model's arrays are lists of rows, each mapped as a type (a row that is no struct of
// latency.hpp gets one here); every row key is required. An array is read element by element, as a
// range-for over its value gives them (none for null).

namespace {

/// A ramp point as latency_model writes it: memory_s is its time; bytes_per_s = bytes ÷ memory_s is
/// for the reader (not read back).
struct ramp_row {
  double bytes = 0, memory_s = 0;
};
ROOFLINE_JSON_FIELDS(ramp_row, checked) {
  ROOFLINE_REQUIRED(bytes, memory_s)
  visit.always("bytes_per_s",
               json_mapping::computed{[](const ramp_row& p) { return p.memory_s > 0 ? p.bytes / p.memory_s : 0; }});
}
ramp_row to_row(const ramp_point& p) { return {p.bytes, p.seconds}; }
ramp_point from_row(const ramp_row& r) { return {r.bytes, r.memory_s}; }

/// P(shape) at one square GEMM size n.
struct gemm_rate_row {
  double n = 0, flops_per_s = 0;
};
ROOFLINE_JSON(gemm_rate_row, checked, required(flops_per_s, n))
gemm_rate_row to_row(const std::pair<double, double>& p) { return {p.first, p.second}; }
std::pair<double, double> from_row(const gemm_rate_row& r) { return {r.n, r.flops_per_s}; }

/// One point (m rows) of a rows curve, with the curve's weight (linears: absent for a fixed weight).
struct gemm_rows_row {
  double m = 0, n = 0, k = 0, flops_per_s = 0;
  std::string linears;
};
ROOFLINE_JSON(gemm_rows_row, checked, required(n, k), present(linears), required(flops_per_s, m))

/// gemm_rows as written: one row a point.
std::vector<gemm_rows_row> gemm_rows_flat(const latency_model& v) {
  std::vector<gemm_rows_row> out;
  for (const auto& c : v.gemm_rows)
    for (const auto& [m, f] : c.points) out.push_back({m, c.n, c.k, f, c.linears});
  return out;
}
/// ...and read back: consecutive points of one weight are one curve.
void gemm_rows_from(latency_model& v, const json& a) {
  for (const auto& x : a) {
    const auto p = x.get<gemm_rows_row>();
    auto& curves = v.gemm_rows;
    if (curves.empty() || curves.back().n != p.n || curves.back().k != p.k || curves.back().linears != p.linears)
      curves.push_back({p.n, p.k, p.linears, {}});
    curves.back().points.emplace_back(p.m, p.flops_per_s);
  }
}

/// A vector member written as an array of `Row`s (`to` of each element) and read back row by row.
template <class Row, class Elem>
auto rows(std::vector<Elem> latency_model::*m, Row (*to)(const Elem&), Elem (*from)(const Row&)) {
  return json_mapping::computed{[=](const latency_model& v) {
                                  std::vector<Row> out;
                                  for (const auto& e : v.*m) out.push_back(to(e));
                                  return out;
                                },
                                [=](latency_model& v, const json& a) {
                                  for (const auto& x : a) (v.*m).push_back(from(x.get<Row>()));
                                }};
}
template <class Elem>
Elem same(const Elem& e) {
  return e;
}
/// An array of rows that are the elements themselves.
template <class Elem>
auto rows(std::vector<Elem> latency_model::*m) {
  return rows<Elem>(m, &same<Elem>, &same<Elem>);
}

}  // namespace

ROOFLINE_JSON_FIELDS(latency_model::attention_rate, checked) {
  ROOFLINE_REQUIRED(head_dim)
  visit.required("qk_flops_per_s", &latency_model::attention_rate::qk);
  visit.required("pv_flops_per_s", &latency_model::attention_rate::pv);
  visit.required("softmax_flops_per_s", &latency_model::attention_rate::softmax);
  ROOFLINE_REQUIRED(tile_rows)
}
ROOFLINE_JSON(latency_model::fused_rate, checked, required(head_dim, tokens, flops_per_s))
ROOFLINE_JSON(latency_model::decode_rate, checked, required(heads, kv_heads, head_dim, keys, batch, flops_per_s))

ROOFLINE_JSON_FIELDS(latency_model, lenient) {
  ROOFLINE_REQUIRED(floor_s, latency_s)  // numbers, not null: a block without them is not this shape
  if (visit.when(v.switch_s > 0)) {      // only where measured (GPU)
    ROOFLINE_ALWAYS(switch_s)
  }
  ROOFLINE_ALWAYS(source)
  visit.always("formula", json_mapping::computed{[](const latency_model&) {
                 return "t = max(FLOPs / P(shape), bytes / BW(bytes)) + floor";
               }});
  visit.always("ramp", rows<ramp_row>(&latency_model::ramp, to_row, from_row));
  visit.always("gemm_rate", rows<gemm_rate_row>(&latency_model::gemm_rate, to_row, from_row));
  visit.always("gemm_rows", json_mapping::computed{gemm_rows_flat, gemm_rows_from});
  // only where the one-thread regime was measured (CPU)
  if (visit.leads("serial_below_elements", &latency_model::serial_below_elements, v.serial_below_elements > 0)) {
    ROOFLINE_REQUIRED(serial_floor_s)
  }
  if (visit.when(v.serial_below_elements > 0)) {
    visit.always("serial_ramp", rows<ramp_row>(&latency_model::serial_ramp, to_row, from_row));
  }
  visit.present("attention_rates", rows(&latency_model::attention_rates));
  visit.present("fused_attention_rates", rows(&latency_model::fused_rates));
  visit.present("decode_attention_rates", rows(&latency_model::decode_rates));
  if (visit.when(v.write_cost.has_value())) {
    ROOFLINE_ALWAYS(write_cost, write_in_place)
  }
}

// ---- analysis.record_table (roofline/record_table.hpp) ----

namespace {

/// A record row's `measured`: its number, or the word of measured_text.
json measured_value(const record_row& x) {
  return x.measured_text.empty() ? num_or_null(x.measured) : json(x.measured_text);
}
void measured_from(record_row& x, const json& m) {
  if (m.is_string()) x.measured_text = m.get<std::string>();
  else x.measured = m.get<double>();
}
std::optional<double> ratio_value(const record_row& x) { return x.ratio(); }

}  // namespace

ROOFLINE_JSON_FIELDS(record_row, lenient) {
  ROOFLINE_SHAPE(key)
  ROOFLINE_ALWAYS(label, unit, nominal, expected_low, expected_high, expected_note, nominal_note, measured_note,
                  rejected, seconds)
  ROOFLINE_PRESENT(above_usual)
  visit.always("measured", json_mapping::computed{measured_value, measured_from});
  visit.always("ratio", json_mapping::computed{ratio_value});  // for the reader, not read back
}

// ---- analysis.tpot_input / step_input ----

ROOFLINE_JSON(user_step_time, lenient, shape(tpot_s), always(batch, source))

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
  json_mapping::lenient::check(j);
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
