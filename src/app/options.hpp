// What ops, mfu and place share: CLI11 validators of option values, the --device/--results pair,
// and the one resolution of the roofs a command places work against.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "roofline/latency.hpp"
#include "roofline/results.hpp"

namespace roofline::app {

/// Validators wrapping the library's one parser of each value (parse_phase, dtype_bytes,
/// known_precisions): CLI11 refuses a bad value while parsing, before anything runs, in one line
/// naming the flag ("--phase: 'sideways' is not a phase (decode, prefill, train)").
CLI::Validator phase_value();
CLI::Validator dtype_value();
CLI::Validator weights_value();  ///< a row of weight_formats() (--weights)
/// Adds --weights FORMAT and --group-size N|channel|tensor (the linear layers' weights; activations
/// stay --dtype): the same flags with the same words in every command that takes them.
void add_weights_options(CLI::App* sub, std::string& weights, std::string& group_size);
CLI::Validator precision_value();
CLI::Validator finite_positive();  ///< a finite number > 0 (CLI::PositiveNumber lets "nan" through)

/// A duration with its unit: "25ms", "25 ms", "0.025", "0.025s", "25000us", "25000µs", "2.5e-2", "40ns";
/// a bare number is seconds. Throws input_error naming `flag` for anything else or a value that is
/// not finite and > 0.
double parse_duration(const std::string& text, const std::string& flag);
/// True when `text` is a number without a unit.
bool duration_is_bare(const std::string& text);

/// Adds --device NAME (the spec table's nominal roofs) and --results FILE, each excluding the other.
void add_roofs_options(CLI::App* sub, std::string& device, std::string& results_file);

/// The roofs of --device or --results at one precision.
struct command_roofs {
  std::string precision;        ///< as asked, else main_precision(file), else default_precision("cuda")
  std::optional<results> file;  ///< --results: the whole file
  nominal_roofs nominal;        ///< the spec table's (--device) or the file's
  roofline_summary summary;     ///< summarize_roofline(nominal, the file's measured roofs, precision)
  std::string device_kind;      ///< "cuda" for a spec-table name, else the file's device.kind
  std::string source;           ///< "NVIDIA H200 (spec table)" | "FILE (device name)", + a fallback note
};

struct roofs_request {
  std::string device, results_file, precision;  ///< precision "" = the default
  std::string precision_flag = "--precision";   ///< the flag named when the precision has no peak
  /// --results with no roof at `precision`: use the file's own summary, said in `source` (ops
  /// places fp16 ops on a CPU's fp32 roofs); otherwise input_error.
  bool fall_back = false;
};

/// nullopt when neither --device nor --results is given. Throws input_error naming
/// `precision_flag` when the device has no nominal or measured peak of the precision.
std::optional<command_roofs> resolve_roofs(const roofs_request& q);

/// The roofs `ops` places a step against and `mfu` predicts the attainable TPOT at (one precision),
/// with the small-work model (per-kernel floor, memory latency or measured ramp:
/// docs/formulas-analysis.md §7): measured when the file has both a measured peak and bandwidth,
/// else nominal.
struct placement_roofs {
  double peak = 0, bandwidth = 0;  ///< FLOP/s, B/s
  double memory_bytes = 0;         ///< device memory (table "memory size" GB × 1e9), 0 = unknown
  std::string source;              ///< "nominal: NVIDIA H200 (spec table) fp16", "measured: results.json ..."
  std::string precision;
  latency_model lat;
  double ridge() const { return peak / bandwidth; }
};
/// nullopt without --device/--results; input_error when the roofs lack a peak or a bandwidth.
std::optional<placement_roofs> resolve_placement_roofs(const roofs_request& q);

}  // namespace roofline::app
