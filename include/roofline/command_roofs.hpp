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
  /// The spec table's (--device) or the file's; --device with ECC on: memory_bandwidth_bytes_per_s is
  /// the ECC ceiling where the part's cost is documented (T4: 320 × 0.8 = 256 GB/s).
  nominal_roofs nominal;
  roofline_summary summary;     ///< summarize_roofline(nominal, the file's measured roofs, precision)
  /// The nominal dense peak the roof uses (peak_for(nominal, precision)); nullopt when the device has
  /// none usable: on a GPU a 16-bit or narrower precision without a tensor-core peak (the vector
  /// rate is not the roof of tensor-core work; `missing_peak` says why).
  std::optional<nominal_peak> peak;
  std::string missing_peak;     ///< why `peak` is null ("" when it is not)
  std::string device_kind;      ///< "cuda" for a spec-table name, else the file's device.kind
  std::string source;           ///< "NVIDIA H200 (spec table)" | "FILE (device name)", + a fallback note
  /// Which bandwidth and why, when a choice was made: "ECC on (as the part ships; --ecc off: 320
  /// GB/s): 256 GB/s = 320 GB/s × 0.8 (…)"; "" for parts whose ECC costs nothing stated (HBM).
  std::string bandwidth_note;
  /// Device memory a step may use, bytes (0 = unknown): --results: the run's measured size
  /// (device.properties.memory_bytes, else the live "memory size" factor); --device: the table's
  /// size read as GiB, as the GPU reports its binary-sized DRAM (H200 141 → 151.4e9 B; the runtime
  /// shows 139.8 GiB after the driver's reserve), × the ECC capacity factor with ECC on; then ×
  /// roofs_request::memory_utilization.
  double memory_bytes = 0;
  std::string memory_source;    ///< how memory_bytes was found, in words
};

struct roofs_request {
  std::string device, results_file, precision;  ///< precision "" = the default
  std::string precision_flag = "--precision";   ///< the flag named when the precision has no peak
  /// --results with no roof at `precision`: use the file's own summary, said in `source` (ops
  /// places fp16 ops on a CPU's fp32 roofs); otherwise input_error.
  bool fall_back = false;
  /// --ecc: "" (as the part ships: the table row's default), "on" or "off". --device only.
  std::string ecc;
  /// --gpu-memory-utilization: the share of device memory a serving engine lets the step use (vLLM's
  /// flag of that name, default 0.9 there); 1 = all of it. (0, 1].
  double memory_utilization = 1;
  /// No usable nominal peak and no measured one: nullopt `peak` with `missing_peak` set instead of
  /// input_error (mfu, given --peak, needs only the bandwidth and memory).
  bool allow_missing_peak = false;
};

/// nullopt when neither --device nor --results is given. Throws input_error naming
/// `precision_flag` when the device has no nominal or measured peak of the precision, or only a
/// vector-engine nominal peak for a 16-bit or narrower precision on a GPU (NVIDIA L20 before its
/// tensor class was known: the fp16 vector rate, 59.4 TFLOP/s, is not the roof of a bf16 GEMM);
/// "--ecc" with --results (the file was measured with ECC as it was) or a value other than on/off;
/// "--gpu-memory-utilization" outside (0, 1].
std::optional<command_roofs> resolve_roofs(const roofs_request& q);

/// The roofs `ops` places a step against and `mfu` predicts the attainable TPOT at (one precision),
/// with the small-work model (per-kernel floor, memory latency or measured ramp:
/// docs/formulas-analysis.md §7): measured when the file has both a measured peak and bandwidth,
/// else nominal.
struct placement_roofs {
  double peak = 0, bandwidth = 0;  ///< FLOP/s, B/s
  double memory_bytes = 0;         ///< device memory a step may use (command_roofs::memory_bytes), 0 = unknown
  std::string memory_source;       ///< command_roofs::memory_source
  std::string source;              ///< "nominal: NVIDIA H200 (spec table) fp16", "measured: results.json ..."
  std::string precision;
  latency_model lat;
  std::string bandwidth_note;      ///< command_roofs::bandwidth_note (ECC)
  /// The GPU's name when the roofs are a GPU's (spec table or a CUDA results file), for its nominal
  /// NVLink/PCIe link under --tp; "" for a CPU.
  std::string gpu_name;
  double ridge() const { return peak / bandwidth; }
};
/// nullopt without --device/--results; input_error when the roofs lack a peak or a bandwidth.
std::optional<placement_roofs> resolve_placement_roofs(const roofs_request& q);

}  // namespace roofline
