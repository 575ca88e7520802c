// The roofs `ops`, `mfu` and `place` place work against: a spec-table GPU's nominal roofs
// (--device NAME) or a results file's measured and nominal roofs (--results FILE), at one precision,
// with the small-work latency model. Computed here once so every command reads the same roof.
#pragma once
#include <optional>
#include <string>

#include "roofline/latency.hpp"
#include "roofline/results.hpp"

namespace roofline {

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

}  // namespace roofline
