// results.json (de)serialisation and validation.
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/json_mapping.hpp"
#include "roofline/results.hpp"

namespace roofline {

// Every type of the results tree, mapped by include/roofline/json_mapping.hpp and read by its
// `checked` rule. `present` fields came after files were written: they are written only when they
// hold a value, so an older file re-renders to the same document.

ROOFLINE_JSON(drift_check, checked, always(op, scenario, bytes, predicted_s, table_s, after_s))
ROOFLINE_JSON(step_sweep_plan, checked,
              always(context, batches, memory_bytes, weights_bytes, kv_bytes_per_sequence, kv_capacity_batch,
                     tpot_target_s, notes),
              present(drift, linear_layers))
ROOFLINE_JSON(energy_window, checked, always(window_s, counter_j, integrated_j, power_samples, source, note),
              present(counter_updates, ends_j, temperature_c))
ROOFLINE_JSON(factor, checked, always(name, value, unit, source))
ROOFLINE_JSON(nominal_peak, checked,
              always(precision, accumulate, engine, flops_per_s, formula, factors, sparse_flops_per_s, note))
ROOFLINE_JSON(nominal_roofs, checked,
              always(device_name, source, factors, peaks, memory_bandwidth_bytes_per_s, memory_bandwidth_reason,
                     memory_bandwidth_formula, memory_factors, notes))
ROOFLINE_JSON(stats_summary, checked, always(n, min, max, median, mean, spread, range))
ROOFLINE_JSON(interference_sample, checked,
              always(probe, wall_s, other_cpu_fraction, steal_fraction, attempts, verdict, device_processes))
ROOFLINE_JSON_FIELDS(interference_report, checked) {
  ROOFLINE_ALWAYS(busy, summary, before, unreliable_results, probes)
  // The timing windows came with the op and step judging: written when there are any.
  if (visit.when(!v.timings.empty() || v.ops_kept_out != 0 || v.steps_kept_out != 0)) {
    ROOFLINE_ALWAYS(timings, ops_kept_out, steps_kept_out)
  }
}
ROOFLINE_JSON(telemetry_summary, checked,
              always(samples, sample_hz, sm_clock_mhz, mem_clock_mhz, power_w, temperature_c, throttle_reasons,
                     throttled_fraction))
ROOFLINE_JSON(bandwidth_result, checked,
              always(pattern, level, working_set_bytes, bytes_per_s, median_bytes_per_s, spread, repeats,
                     bytes_convention, verified, burst_bytes_per_s, telemetry, flags, rejected, rejected_reason,
                     across_runs),
              present(energy, sustained_energy, sustained_energy_rate))
ROOFLINE_JSON(repeat_clocks, checked,
              always(repeats, resolved, period_s, fastest_mhz, fastest_low_mhz, fastest_high_mhz, fastest_window_s,
                     fastest_why, resolved_flops_per_s, resolved_mhz))
ROOFLINE_JSON(sustained_run, checked, always(inputs, flops_per_s, duration_s, telemetry, energy))
ROOFLINE_JSON(compute_result, checked,
              always(precision, engine, size, flops_per_s, median_flops_per_s, spread, repeats, verified, method,
                     algo, burst_flops_per_s, telemetry, flags, rejected, rejected_reason, across_runs),
              present(energy, sustained_energy, sustained_energy_rate, inputs, repeat_clock, sustained_by_input))
ROOFLINE_JSON(launch_result, checked, always(kernel_s, graph_s, back_to_back_s, method))
ROOFLINE_JSON(probe_status, checked, always(probe, status, reason))
ROOFLINE_JSON(ramp_point, checked, always(bytes, seconds))
ROOFLINE_JSON(small_work_result, checked,
              always(floor_s, floor_one_block_s, ramp, serial_below_elements, serial_floor_s, serial_ramp, write_cost,
                     write_copy, write_in_place, method, verified),
              present(floor_switch_s))
ROOFLINE_JSON(gemm_rows_result, checked,
              always(precision, m, n, k, flops_per_s, median_flops_per_s, spread, repeats, verified, method),
              present(linears))
ROOFLINE_JSON(gemm_attention_result, checked,
              always(precision, gemm, head_dim, tile_rows, keys, flops_per_s, median_flops_per_s, spread, repeats,
                     verified, method),
              present(batch, heads, kv_heads))
ROOFLINE_JSON(measured_roofs, checked,
              always(bandwidth, compute, launch, small_work, gemm_rows, gemm_attention, telemetry, skipped),
              present(idle_energy))
ROOFLINE_JSON(whole_step_result, checked,
              always(phase, batch, context, seq, measured_s, best_s, predicted_s, sum_of_ops_s, kernels, note),
              present(energy, flops, bytes, disturbed_s, flops_executed_tensor, flops_executed_cuda_cores))
ROOFLINE_JSON(roofline_summary, checked,
              always(precision, peak_nominal, peak_measured, bandwidth_nominal, bandwidth_measured, ridge_nominal,
                     ridge_measured, l2_bandwidth_measured, per_precision))
ROOFLINE_JSON(kernel_choice, checked, always(over, over_detail, kept), present(chosen_s, over_s))
ROOFLINE_JSON(op_result, checked,
              always(name, phase, batch, seq, context, shape, dtype, count, flops, bytes, bytes_read, bytes_written,
                     intensity, bound, predicted_s, measured_s, measured_note, implementation, launch_floor_s,
                     memory_s, compute_s, advice, plausible, causes, alternative_to),
              present(choice, disturbed_s))
ROOFLINE_JSON(error_entry, checked, always(probe, message))
ROOFLINE_JSON(tool_info, checked, always(name, version, build_type, compiler, cuda_backend))
ROOFLINE_JSON(host_info, checked, always(hostname, os, timestamp, command))
ROOFLINE_JSON(device_info, checked, always(kind, name, id, properties))
ROOFLINE_JSON(model_summary, checked, always(name, source, family, config, parameters))
ROOFLINE_JSON(results, checked,
              always(schema_version, status, tool, host, device, nominal, measured, roofline, model, ops, whole_step,
                     analysis, errors, interference, repeat),
              present(step_sweep))

namespace {

std::string type_name(const json& j) { return j.type_name(); }

/// Checks that `j[key]` exists with the given kind; returns it. `path` names it in the error.
const json& require(const json& j, std::string_view key_, json::value_t kind, std::string_view path_,
                    std::string_view file_, bool nullable = false) {
  const std::string key(key_), path(path_), file(file_);
  if (!j.is_object() || !j.contains(key)) throw input_error(file, path + key, "missing required field");
  const json& v = j.at(key);
  if (nullable && v.is_null()) return v;
  bool ok = false;
  switch (kind) {
    case json::value_t::number_float: ok = v.is_number(); break;
    case json::value_t::number_integer: ok = v.is_number_integer(); break;
    default: ok = v.type() == kind; break;
  }
  if (!ok) throw input_error(file, path + key, std::string("expected ") + json(kind).type_name() + ", got " + type_name(v));
  return v;
}

void require_rate(const json& j, const std::string& key, const std::string& path, const std::string& file,
                  bool nullable = false) {
  const json& v = require(j, key, json::value_t::number_float, path, file, nullable);
  if (v.is_null()) return;
  const double x = v.get<double>();
  if (!(x >= 0) || x > 1e30) throw input_error(file, path + key, "must be a finite number >= 0");
}

}  // namespace

results parse_results(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows a double
    throw input_error(file, "", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw input_error(file, "", "top level must be an object");
  const auto& sv = require(j, "schema_version", json::value_t::string, "", file).get<std::string>();
  if (sv.rfind("1.", 0) != 0)
    throw input_error(file, "schema_version", "unsupported schema version '" + sv +
                                                  "' (this roofline reads 1.x; re-run the measurement)");
  const json& dev = require(j, "device", json::value_t::object, "", file);
  const auto kind = require(dev, "kind", json::value_t::string, "device.", file).get<std::string>();
  if (kind != "cpu" && kind != "cuda") throw input_error(file, "device.kind", "must be \"cpu\" or \"cuda\"");
  require(dev, "name", json::value_t::string, "device.", file);
  const json& nom = require(j, "nominal", json::value_t::object, "", file);
  const json& peaks = require(nom, "peaks", json::value_t::array, "nominal.", file);
  for (std::size_t i = 0; i < peaks.size(); ++i) {
    const std::string p = "nominal.peaks[" + std::to_string(i) + "].";
    require(peaks[i], "precision", json::value_t::string, p, file);
    require(peaks[i], "engine", json::value_t::string, p, file);
    require_rate(peaks[i], "flops_per_s", p, file);
  }
  require_rate(nom, "memory_bandwidth_bytes_per_s", "nominal.", file, true);
  const json& meas = require(j, "measured", json::value_t::object, "", file);
  const json& bw = require(meas, "bandwidth", json::value_t::array, "measured.", file);
  for (std::size_t i = 0; i < bw.size(); ++i) {
    const std::string p = "measured.bandwidth[" + std::to_string(i) + "].";
    require(bw[i], "pattern", json::value_t::string, p, file);
    require(bw[i], "level", json::value_t::string, p, file);
    require(bw[i], "working_set_bytes", json::value_t::number_integer, p, file);
    require_rate(bw[i], "bytes_per_s", p, file);
    require_rate(bw[i], "median_bytes_per_s", p, file);
  }
  const json& cmp = require(meas, "compute", json::value_t::array, "measured.", file);
  for (std::size_t i = 0; i < cmp.size(); ++i) {
    const std::string p = "measured.compute[" + std::to_string(i) + "].";
    require(cmp[i], "precision", json::value_t::string, p, file);
    require(cmp[i], "engine", json::value_t::string, p, file);
    require_rate(cmp[i], "flops_per_s", p, file);
    require_rate(cmp[i], "median_flops_per_s", p, file);
  }
  const json& ops = require(j, "ops", json::value_t::array, "", file);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string p = "ops[" + std::to_string(i) + "].";
    require(ops[i], "name", json::value_t::string, p, file);
    require(ops[i], "phase", json::value_t::string, p, file);
    require_rate(ops[i], "flops", p, file);
    require_rate(ops[i], "bytes", p, file);
    require_rate(ops[i], "predicted_s", p, file);
    require_rate(ops[i], "measured_s", p, file, true);
  }
  if (j.contains("analysis")) require(j, "analysis", json::value_t::object, "", file);
  if (j.contains("whole_step")) {
    const json& ws = require(j, "whole_step", json::value_t::array, "", file);
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const std::string p = "whole_step[" + std::to_string(i) + "].";
      require(ws[i], "phase", json::value_t::string, p, file);
      require(ws[i], "batch", json::value_t::number_integer, p, file);
      require_rate(ws[i], "measured_s", p, file, true);
      require_rate(ws[i], "predicted_s", p, file);
      require_rate(ws[i], "sum_of_ops_s", p, file, true);
    }
  }
  try {
    return j.get<results>();
  } catch (const json_mapping::bad_field& e) {
    throw input_error(file, e.key, e.what());
  } catch (const json::exception& e) {
    throw input_error(file, "", std::string("malformed results: ") + e.what());
  }
}

results load_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path, "", "cannot open for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_results(ss.str(), path);
}

}  // namespace roofline
