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

void add_ecc_option(CLI::App* sub, std::string& ecc) {
  sub->add_option("--ecc", ecc, "--device with GDDR memory: ECC on | off (default: as the part ships; the output says "
                                "which bandwidth and memory size are used)")
      ->check(CLI::IsMember({"on", "off"}));
}

void add_memory_utilization_option(CLI::App* sub, double& share) {
  sub->add_option("--gpu-memory-utilization", share,
                  "share of device memory the step may use, as vLLM's flag of that name (default 1: all of it; vLLM's "
                  "own default is 0.9)")
      ->check(CLI::Range(0.0, 1.0))
      ->check(finite_positive());
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
