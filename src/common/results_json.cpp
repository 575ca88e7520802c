// results.json (de)serialisation and validation.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/results.hpp"

namespace roofline {

namespace {

/// A field whose JSON value its C++ type cannot hold (parse_results names it and the file).
struct bad_field : std::runtime_error {
  std::string key;
  bad_field(std::string k, const std::string& what) : std::runtime_error(what), key(std::move(k)) {}
};

/// An integer field from any JSON number, or bad_field: a float must be whole and, like any
/// integer, inside the type's range. nlohmann converts with a bare static_cast, which for a
/// double out of range (2e48 into an int64 count, found by the fuzzer) is undefined behaviour
/// (C++20 [conv.fpint]/1) and for an integer out of range silently wraps.
template <class T>
T checked_integer(const json& v, const char* key) {
  if (!v.is_number()) return v.get<T>();  // nlohmann's type_error names the kind
  const auto out_of_range = [&] {
    return bad_field(key, fmt::format("{} does not fit in an integer field (range {} … {})", v.dump(),
                                      std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  };
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^63 and its kin are exact doubles: the half-open range keeps the cast defined.
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
    if (!std::isfinite(d) || d < lo || d >= hi) throw out_of_range();
    if (d != std::trunc(d)) throw bad_field(key, fmt::format("{} is not a whole number", v.dump()));
    return static_cast<T>(d);
  }
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) throw out_of_range();
    return static_cast<T>(u);
  }
  const auto i = v.get<std::int64_t>();
  if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
      (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
    throw out_of_range();
  return static_cast<T>(i);
}

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

/// `out` = j[key] (or `fallback` when absent), integers through checked_integer.
template <class T>
void read_field(const json& j, const char* key, T& out, const T& fallback) {
  if (!j.is_object()) {
    out = j.value(key, fallback);  // nlohmann's type_error for a non-object
    return;
  }
  const auto it = j.find(key);
  if (it == j.end()) {
    out = fallback;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    out = checked_integer<T>(*it, key);
  } else if constexpr (is_optional<T>::value) {
    using V = typename T::value_type;
    if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
      if (it->is_null()) out.reset();
      else out = checked_integer<V>(*it, key);
    } else {
      out = it->template get<T>();
    }
  } else {
    out = it->template get<T>();
  }
}

}  // namespace

#define RL_FROM(field) read_field(nlohmann_json_j, #field, nlohmann_json_t.field, nlohmann_json_default_obj.field);

// to_json writes every field; from_json takes missing fields from a default-constructed value
// and checks every integer's range (read_field); validation of the fields that checks rely on
// happens in parse_results.
#define RL_JSON(Type, ...)                                                   \
  void to_json(json& nlohmann_json_j, const Type& nlohmann_json_t) {         \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__)) \
  }                                                                          \
  void from_json(const json& nlohmann_json_j, Type& nlohmann_json_t) {       \
    const Type nlohmann_json_default_obj{};                                  \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(RL_FROM, __VA_ARGS__))          \
  }

// Types with fields added after files were written: the fields in RL_JSON are written always, the
// `extras` (all std::optional) only when present, so an older file re-renders to the same document.
#define RL_JSON_EXTRA(Type, extras, ...)                                     \
  void to_json(json& nlohmann_json_j, const Type& nlohmann_json_t) {         \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__)) \
    extras##_to(nlohmann_json_j, nlohmann_json_t);                           \
  }                                                                          \
  void from_json(const json& nlohmann_json_j, Type& nlohmann_json_t) {       \
    const Type nlohmann_json_default_obj{};                                  \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(RL_FROM, __VA_ARGS__))          \
    extras##_from(nlohmann_json_j, nlohmann_json_t);                         \
  }

namespace {

template <class T>
void write_present(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
template <class T>
void read_present(const json& j, const char* key, std::optional<T>& v) {
  read_field(j, key, v, std::optional<T>{});
}
template <class Row>
void row_energy_to(json& j, const Row& v) {
  write_present(j, "energy", v.energy), write_present(j, "sustained_energy", v.sustained_energy);
  write_present(j, "sustained_energy_rate", v.sustained_energy_rate);
}
template <class Row>
void row_energy_from(const json& j, Row& v) {
  read_present(j, "energy", v.energy), read_present(j, "sustained_energy", v.sustained_energy);
  read_present(j, "sustained_energy_rate", v.sustained_energy_rate);
}
void energy_extras_to(json& j, const bandwidth_result& v) { row_energy_to(j, v); }
void energy_extras_from(const json& j, bandwidth_result& v) { row_energy_from(j, v); }
void energy_extras_to(json& j, const compute_result& v) {
  row_energy_to(j, v);
  write_present(j, "inputs", v.inputs), write_present(j, "repeat_clock", v.repeat_clock);
  if (!v.sustained_by_input.empty()) j["sustained_by_input"] = v.sustained_by_input;
}
void energy_extras_from(const json& j, compute_result& v) {
  row_energy_from(j, v);
  read_present(j, "inputs", v.inputs), read_present(j, "repeat_clock", v.repeat_clock);
  read_field(j, "sustained_by_input", v.sustained_by_input, std::vector<sustained_run>{});
}
void energy_extras_to(json& j, const measured_roofs& v) { write_present(j, "idle_energy", v.idle_energy); }
void energy_extras_from(const json& j, measured_roofs& v) { read_present(j, "idle_energy", v.idle_energy); }
void energy_extras_to(json& j, const whole_step_result& v) {
  write_present(j, "energy", v.energy), write_present(j, "flops", v.flops), write_present(j, "bytes", v.bytes);
  write_present(j, "disturbed_s", v.disturbed_s);
  write_present(j, "flops_executed_tensor", v.flops_executed_tensor);
  write_present(j, "flops_executed_cuda_cores", v.flops_executed_cuda_cores);
}
void energy_extras_from(const json& j, whole_step_result& v) {
  read_present(j, "energy", v.energy), read_present(j, "flops", v.flops), read_present(j, "bytes", v.bytes);
  read_present(j, "disturbed_s", v.disturbed_s);
  read_present(j, "flops_executed_tensor", v.flops_executed_tensor);
  read_present(j, "flops_executed_cuda_cores", v.flops_executed_cuda_cores);
}

void energy_extras_to(json& j, const small_work_result& v) { write_present(j, "floor_switch_s", v.floor_switch_s); }
void energy_extras_from(const json& j, small_work_result& v) { read_present(j, "floor_switch_s", v.floor_switch_s); }
void energy_extras_to(json& j, const gemm_attention_result& v) {
  write_present(j, "batch", v.batch), write_present(j, "heads", v.heads), write_present(j, "kv_heads", v.kv_heads);
}
void energy_extras_from(const json& j, gemm_attention_result& v) {
  read_present(j, "batch", v.batch), read_present(j, "heads", v.heads), read_present(j, "kv_heads", v.kv_heads);
}
void energy_extras_to(json& j, const gemm_rows_result& v) { write_present(j, "linears", v.linears); }
void energy_extras_from(const json& j, gemm_rows_result& v) { read_present(j, "linears", v.linears); }
void energy_extras_to(json& j, const results& v) { write_present(j, "step_sweep", v.step_sweep); }
void energy_extras_from(const json& j, results& v) { read_present(j, "step_sweep", v.step_sweep); }
void choice_extras_to(json& j, const op_result& v) {
  write_present(j, "choice", v.choice), write_present(j, "disturbed_s", v.disturbed_s);
}
void choice_extras_from(const json& j, op_result& v) {
  read_present(j, "choice", v.choice), read_present(j, "disturbed_s", v.disturbed_s);
}
void choice_extras_to(json& j, const kernel_choice& v) { write_present(j, "chosen_s", v.chosen_s), write_present(j, "over_s", v.over_s); }
void choice_extras_from(const json& j, kernel_choice& v) { read_present(j, "chosen_s", v.chosen_s), read_present(j, "over_s", v.over_s); }
// The timing windows came with the op and step judging: written when there are any, so an older
// file re-renders to the same document.
void timing_extras_to(json& j, const interference_report& v) {
  if (v.timings.empty() && v.ops_kept_out == 0 && v.steps_kept_out == 0) return;
  j["timings"] = v.timings, j["ops_kept_out"] = v.ops_kept_out, j["steps_kept_out"] = v.steps_kept_out;
}
void timing_extras_from(const json& j, interference_report& v) {
  read_field(j, "timings", v.timings, {});
  read_field(j, "ops_kept_out", v.ops_kept_out, 0);
  read_field(j, "steps_kept_out", v.steps_kept_out, 0);
}
void drift_extras_to(json& j, const step_sweep_plan& v) { write_present(j, "drift", v.drift); }
void drift_extras_from(const json& j, step_sweep_plan& v) { read_present(j, "drift", v.drift); }

}  // namespace

RL_JSON(drift_check, op, scenario, bytes, predicted_s, table_s, after_s)
RL_JSON_EXTRA(step_sweep_plan, drift_extras, context, batches, memory_bytes, weights_bytes, kv_bytes_per_sequence, kv_capacity_batch,
        tpot_target_s, notes)
RL_JSON(energy_window, window_s, counter_j, integrated_j, power_samples, source, note)
RL_JSON(factor, name, value, unit, source)
RL_JSON(nominal_peak, precision, accumulate, engine, flops_per_s, formula, factors, sparse_flops_per_s, note)
RL_JSON(nominal_roofs, device_name, source, factors, peaks, memory_bandwidth_bytes_per_s,
        memory_bandwidth_reason, memory_bandwidth_formula, memory_factors, notes)
RL_JSON(stats_summary, n, min, max, median, mean, spread, range)
RL_JSON(interference_sample, probe, wall_s, other_cpu_fraction, steal_fraction, attempts, verdict, device_processes)
RL_JSON_EXTRA(interference_report, timing_extras, busy, summary, before, unreliable_results, probes)
RL_JSON(telemetry_summary, samples, sample_hz, sm_clock_mhz, mem_clock_mhz, power_w, temperature_c,
        throttle_reasons, throttled_fraction)
RL_JSON_EXTRA(bandwidth_result, energy_extras, pattern, level, working_set_bytes, bytes_per_s, median_bytes_per_s, spread,
        repeats, bytes_convention, verified, burst_bytes_per_s, telemetry, flags, rejected,
        rejected_reason, across_runs)
RL_JSON(repeat_clocks, repeats, resolved, period_s, fastest_mhz, fastest_low_mhz, fastest_high_mhz, fastest_window_s,
        fastest_why, resolved_flops_per_s, resolved_mhz)
RL_JSON(sustained_run, inputs, flops_per_s, duration_s, telemetry, energy)
RL_JSON_EXTRA(compute_result, energy_extras, precision, engine, size, flops_per_s, median_flops_per_s, spread, repeats,
        verified, method, algo, burst_flops_per_s, telemetry, flags, rejected, rejected_reason, across_runs)
RL_JSON(launch_result, kernel_s, graph_s, back_to_back_s, method)
RL_JSON(probe_status, probe, status, reason)
RL_JSON(ramp_point, bytes, seconds)
RL_JSON_EXTRA(small_work_result, energy_extras, floor_s, floor_one_block_s, ramp, serial_below_elements, serial_floor_s, serial_ramp, write_cost,
        write_copy, write_in_place, method, verified)
RL_JSON_EXTRA(gemm_rows_result, energy_extras, precision, m, n, k, flops_per_s, median_flops_per_s, spread, repeats,
              verified, method)
RL_JSON_EXTRA(gemm_attention_result, energy_extras, precision, gemm, head_dim, tile_rows, keys, flops_per_s, median_flops_per_s, spread, repeats,
        verified, method)
RL_JSON_EXTRA(measured_roofs, energy_extras, bandwidth, compute, launch, small_work, gemm_rows, gemm_attention, telemetry, skipped)
RL_JSON_EXTRA(whole_step_result, energy_extras, phase, batch, context, seq, measured_s, best_s, predicted_s, sum_of_ops_s, kernels, note)
RL_JSON(roofline_summary, precision, peak_nominal, peak_measured, bandwidth_nominal, bandwidth_measured,
        ridge_nominal, ridge_measured, l2_bandwidth_measured, per_precision)
RL_JSON_EXTRA(kernel_choice, choice_extras, over, over_detail, kept)
RL_JSON_EXTRA(op_result, choice_extras, name, phase, batch, seq, context, shape, dtype, count, flops, bytes, bytes_read,
        bytes_written, intensity, bound, predicted_s, measured_s, measured_note, implementation, launch_floor_s, memory_s,
        compute_s, advice, plausible, causes, alternative_to)
RL_JSON(error_entry, probe, message)
RL_JSON(tool_info, name, version, build_type, compiler, cuda_backend)
RL_JSON(host_info, hostname, os, timestamp, command)
RL_JSON(device_info, kind, name, id, properties)
RL_JSON(model_summary, name, source, family, config, parameters)
RL_JSON_EXTRA(results, energy_extras, schema_version, status, tool, host, device, nominal, measured, roofline, model, ops,
        whole_step, analysis, errors, interference, repeat)

#undef RL_JSON
#undef RL_JSON_EXTRA
#undef RL_FROM

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
  } catch (const bad_field& e) {
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
