#include "app/options.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"
#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::app {

namespace {

/// A validator whose message is `check`'s input_error without the field (CLI11 prefixes the flag).
template <class Check>
CLI::Validator from_check(Check check, const std::string& name) {
  return CLI::Validator(
      [check](std::string& s) -> std::string {
        try {
          check(s);
          return {};
        } catch (const input_error& e) {
          const std::string m = e.what(), prefix = e.field() + ": ";
          return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
        }
      },
      name);
}

bool has_peak(const roofline_summary& s) { return s.peak_nominal > 0 || s.peak_measured > 0; }

}  // namespace

CLI::Validator phase_value() { return from_check([](const std::string& s) { parse_phase(s); }, "PHASE"); }
CLI::Validator dtype_value() { return from_check([](const std::string& s) { dtype_bytes(s); }, "DTYPE"); }
CLI::Validator weights_value() { return from_check([](const std::string& s) { weight_quant_of(s); }, "FORMAT"); }

void add_weights_options(CLI::App* sub, std::string& weights, std::string& group_size) {
  sub->add_option("--weights", weights,
                  "linear layers' weights: " + weight_format_names() +
                      " (default: the config's quantization_config, else --dtype; activations stay --dtype)")
      ->check(weights_value());
  sub->add_option("--group-size", group_size, "elements per scale of --weights: N, channel or tensor (default: the format's)");
}
CLI::Validator precision_value() {
  return from_check([](const std::string& s) {
    const auto& k = known_precisions();
    if (std::find(k.begin(), k.end(), s) == k.end()) throw input_error("", "", "'" + s + "' is not a precision (fp64 fp32 tf32 bf16 fp16 fp8 int8)");
  }, "PRECISION");
}
CLI::Validator finite_positive() {
  return from_check([](const std::string& s) {
    double v = 0;
    if (!CLI::detail::lexical_cast(s, v) || !std::isfinite(v) || v <= 0) throw input_error("", "", "must be a finite number > 0, got " + s);
  }, "POSITIVE");
}

void add_roofs_options(CLI::App* sub, std::string& device, std::string& results_file) {
  auto* d = sub->add_option("--device", device, "GPU name from the spec table: its nominal roofs");
  sub->add_option("--results", results_file, "results.json from `roofline run/measure`: its measured and nominal roofs")->excludes(d);
}

std::optional<command_roofs> resolve_roofs(const roofs_request& q) {
  command_roofs r;
  if (!q.results_file.empty()) {
    r.file = load_results(q.results_file);
    r.nominal = r.file->nominal;
    r.device_kind = r.file->device.kind;
    r.precision = q.precision.empty() ? main_precision(*r.file) : q.precision;
    r.source = q.results_file + " (" + r.file->device.name + ")";
  } else if (!q.device.empty()) {
    if (q.device == "cpu" || q.device == "auto" || q.device.rfind("cuda", 0) == 0)
      throw input_error("", "--device",
                        "'" + q.device + "' names a device of this machine; here --device names a GPU of the spec table "
                        "(roofline spec --list). For this machine's own roofs use --results out/results.json from "
                        "`roofline run` or `roofline measure`");
    r.nominal = gpu_device_nominal(q.device, "--device");  // one device as the runtime counts them (a GCD of an MI250X)
    r.device_kind = "cuda";
    r.precision = q.precision.empty() ? default_precision(r.device_kind) : q.precision;
    r.source = r.nominal.device_name + " (spec table)";
  } else {
    return std::nullopt;
  }
  r.summary = summarize_roofline(r.nominal, r.file ? r.file->measured : measured_roofs{}, r.precision);
  if (!has_peak(r.summary) && r.file && q.fall_back && has_peak(r.file->roofline)) {
    r.source += " (no " + r.precision + " roof in the file: its " + r.file->roofline.precision + " roofs)";
    r.summary = r.file->roofline;
    r.precision = r.summary.precision;
  }
  if (!has_peak(r.summary)) throw input_error(q.results_file, q.precision_flag, "no " + r.precision + " peak known for " + r.source);
  return r;
}

std::optional<placement_roofs> resolve_placement_roofs(const roofs_request& q) {
  const auto c = resolve_roofs(q);
  if (!c) return std::nullopt;
  const roofline_summary& s = c->summary;
  const bool measured = s.peak_measured > 0 && s.bandwidth_measured > 0;
  placement_roofs r{measured ? s.peak_measured : s.peak_nominal, measured ? s.bandwidth_measured : s.bandwidth_nominal.value_or(0), 0,
                    fmt::format("{}: {} {}", measured ? "measured" : "nominal", c->source, c->precision), c->precision,
                    c->file ? latency_model_from(c->file->measured, c->device_kind, c->precision) : default_latency_model("gpu")};
  if (!(r.peak > 0) || !(r.bandwidth > 0))
    throw input_error(q.results_file, q.results_file.empty() ? "--device" : "roofline",
                      c->source + ": no peak FLOP/s and memory bandwidth to place ops against");
  for (const auto& f : c->nominal.factors)
    if (f.name == "memory size" && f.unit == "GB") r.memory_bytes = f.value * 1e9;
  return r;
}

namespace {
/// Splits "25ms" into the number and the unit ("" when none); false when no number leads.
bool split_duration(const std::string& text, double& value, std::string& unit) {
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  unit = text.substr(used);
  unit.erase(0, unit.find_first_not_of(' '));
  unit.erase(unit.find_last_not_of(' ') + 1);
  return true;
}
}  // namespace

double parse_duration(const std::string& text, const std::string& flag) {
  double v = 0;
  std::string unit;
  if (!split_duration(text, v, unit))
    throw input_error("", flag, "'" + text + "' is not a duration (write units: 25ms, 0.025s, 25000us)");
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "us" || unit == "µs" || unit == "μs") scale = 1e-6;
  else if (unit == "ns") scale = 1e-9;
  else throw input_error("", flag, "'" + text + "': unit '" + unit + "' is not one of s, ms, us (µs), ns");
  const double s = v * scale;
  if (!std::isfinite(s) || !(s > 0)) throw input_error("", flag, "'" + text + "' must be a finite time > 0");
  return s;
}

bool duration_is_bare(const std::string& text) {
  double v = 0;
  std::string unit;
  return split_duration(text, v, unit) && unit.empty();
}

}  // namespace roofline::app
