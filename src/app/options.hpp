// What ops, mfu and place share: CLI11 validators for their option values, the --device/--results
// pair, and the one resolution of the roofs a command places work against.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "roofline/results.hpp"

namespace roofline::app {

/// Option-value validators. Each wraps the library's one parser of that value (parse_phase,
/// dtype_bytes, known_precisions), so CLI11 refuses a bad value while parsing, before anything runs,
/// with one line naming the flag ("--phase: 'sideways' is not a phase (decode, prefill, train)").
CLI::Validator phase_value();
CLI::Validator dtype_value();
CLI::Validator precision_value();
/// A finite number > 0 (CLI::PositiveNumber lets "nan" through).
CLI::Validator finite_positive();

/// Adds --device NAME (the spec table's nominal roofs) and --results FILE (a results.json's nominal
/// and measured roofs), each excluding the other.
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
  std::string device, results_file;
  std::string precision;                       ///< "" = the default
  std::string precision_flag = "--precision";  ///< named when the precision has no peak
  /// With --results: a precision the file has no roof of falls back to the file's main precision,
  /// said in `source` (ops places fp16 ops on a CPU's fp32 roofs); otherwise input_error.
  bool fall_back = false;
};

/// nullopt when neither --device nor --results is given. Throws input_error naming
/// `precision_flag` when the device has no nominal or measured peak of the precision.
std::optional<command_roofs> resolve_roofs(const roofs_request& q);

}  // namespace roofline::app
