// The result model: one struct tree, serialised to results.json (the single source of truth that
// every report view renders from). Field names follow shared/DESIGN.md; docs/results-schema.md
// documents them. Units: seconds, bytes, FLOP, B/s, FLOP/s, MHz, W, °C — never scaled.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json.hpp"

namespace roofline {

inline constexpr const char* schema_version = "1.0";

/// One factor of a nominal-peak derivation, e.g. {"SMs", 132, "", "NVIDIA H200 datasheet"}.
struct factor {
  std::string name;
  double value = 0;
  std::string unit;
  std::string source;  ///< "table: <citation>", "detected: <api>", "measured: <how>"
};

/// A nominal (datasheet-style, multiplied-out) peak for one precision on one engine.
struct nominal_peak {
  std::string precision;   ///< fp64 fp32 tf32 fp16 bf16 fp8 int8
  std::string accumulate;  ///< fp32 / fp16 / fp64 / int32 ("" where not meaningful)
  std::string engine;      ///< "vector" (CUDA cores / SIMD) or "tensor"
  double flops_per_s = 0;  ///< dense (or OP/s for int8)
  std::string formula;     ///< human readable product, e.g. "132 SM × 4 TC × 512 FMA × 2 × 1.83 GHz"
  std::vector<factor> factors;
  std::optional<double> sparse_flops_per_s;  ///< shown labelled sparse, never used as a peak
  std::string note;
};

struct nominal_roofs {
  std::string device_name;
  std::string source;  ///< "table", "live", "derived (live factors + architecture rates)", "cpu-detected"
  std::vector<factor> factors;  ///< shared device factors (SMs, clocks, cores, ...)
  std::vector<nominal_peak> peaks;
  std::optional<double> memory_bandwidth_bytes_per_s;
  std::string memory_bandwidth_reason;  ///< why null, when null
  std::string memory_bandwidth_formula;
  std::vector<factor> memory_factors;
  std::vector<std::string> notes;
};

/// Summary of a series of samples (seconds, or a rate). `spread` = (max - min) / median.
struct stats_summary {
  int n = 0;
  double min = 0, max = 0, median = 0, mean = 0, spread = 0;
};

/// Telemetry (NVML on GPUs, cpufreq/measured on CPUs) over one probe.
struct telemetry_summary {
  int samples = 0;
  double sample_hz = 0;
  std::optional<stats_summary> sm_clock_mhz, mem_clock_mhz, power_w, temperature_c;
  std::vector<std::string> throttle_reasons;  ///< union of the NVML reasons seen, e.g. "sw_power_cap"
  double throttled_fraction = 0;              ///< share of samples with any active slowdown reason
};

struct bandwidth_result {
  std::string pattern;  ///< read | write | copy | triad
  std::string level;    ///< l1 | l2 | llc | dram | hbm ("dram" for the device memory roof)
  std::int64_t working_set_bytes = 0;
  double bytes_per_s = 0;         ///< best (the roof)
  double median_bytes_per_s = 0;
  double spread = 0;
  int repeats = 0;
  std::string bytes_convention;  ///< how bytes were counted, e.g. "read + write; write-allocate not counted"
  bool verified = false;
  std::optional<double> burst_bytes_per_s;  ///< first ~100 ms (GPU)
  std::optional<telemetry_summary> telemetry;
  std::vector<std::string> flags;  ///< sanity warnings, e.g. "working set fits in LLC"
  bool rejected = false;           ///< breaks a physical rule (src/measure/sanity.cpp): never a roof
  std::string rejected_reason;     ///< which rule, when rejected
};

struct compute_result {
  std::string precision;  ///< fp64 fp32 fp16 bf16 tf32 fp8 int8
  std::string engine;     ///< vector | tensor | gemm
  std::optional<std::int64_t> size;  ///< n for n×n×n GEMM, null for FMA chains
  double flops_per_s = 0;            ///< best
  double median_flops_per_s = 0;
  double spread = 0;
  int repeats = 0;
  bool verified = false;
  std::string method;  ///< e.g. "OpenBLAS sgemm", "cuBLASLt algo 3 of 8", "FMA chains, 8 acc/lane"
  std::optional<double> burst_flops_per_s;
  std::optional<telemetry_summary> telemetry;
  std::vector<std::string> flags;
};

struct launch_result {
  double kernel_s = 0;  ///< median launch-to-completion of an empty kernel
  std::optional<double> graph_s;  ///< per kernel inside a CUDA graph
  std::string method;
};

/// A probe that did not produce a number: not applicable, not run, or failed.
struct probe_status {
  std::string probe;
  std::string status;  ///< "not applicable" | "not run" | "failed"
  std::string reason;
};

struct measured_roofs {
  std::vector<bandwidth_result> bandwidth;
  std::vector<compute_result> compute;
  std::optional<launch_result> launch;
  json telemetry = json::object();  ///< device-wide: sampler rate, ECC, power limit, ...
  std::vector<probe_status> skipped;
};

/// The roofline the ops are placed against (one precision).
struct roofline_summary {
  std::string precision;  ///< default precision of the op table (fp32 on CPU, bf16/fp16 on GPU)
  double peak_nominal = 0, peak_measured = 0;  ///< FLOP/s
  std::optional<double> bandwidth_nominal;     ///< B/s
  double bandwidth_measured = 0;               ///< B/s (best DRAM/HBM pattern used for ops)
  std::optional<double> ridge_nominal;         ///< FLOP/byte
  double ridge_measured = 0;                   ///< FLOP/byte
  std::optional<double> l2_bandwidth_measured;
  json per_precision = json::array();  ///< [{precision, peak_nominal, peak_measured, ridge_nominal, ridge_measured}]
};

struct op_result {
  std::string name;   ///< q_proj, k_proj, ..., attention, rmsnorm, ...
  std::string phase;  ///< decode | prefill | train
  std::int64_t batch = 1;
  std::int64_t seq = 1;      ///< tokens per sequence processed this step (1 for decode)
  std::int64_t context = 0;  ///< KV length for decode attention
  std::string shape;         ///< e.g. "[32×2048]·[2048×256]"
  std::string dtype;
  std::int64_t count = 1;    ///< instances per forward pass (e.g. layers)
  double flops = 0;          ///< per instance
  double bytes = 0;          ///< read + written, per instance
  double bytes_read = 0, bytes_written = 0;
  double intensity = 0;      ///< flops / bytes
  std::string bound;         ///< "memory" | "compute"
  double predicted_s = 0;    ///< max(flops/peak, bytes/bw) [+ launch floor where modelled]
  std::optional<double> measured_s;
  std::string measured_note;  ///< why null, or verification notes
  std::optional<double> launch_floor_s;
  std::string advice;
  /// "" for an op of the model's step; else the op(s) of the same scenario it is measured beside
  /// (e.g. silu_mul beside "silu + mul"): shown in the op table, never added to a step total.
  std::string alternative_to;
};

struct error_entry {
  std::string probe;
  std::string message;
};

struct tool_info {
  std::string name = "roofline";
  std::string version;
  std::string build_type;
  std::string compiler;
  bool cuda_backend = false;
};

struct host_info {
  std::string hostname;
  std::string os;
  std::string timestamp;  ///< ISO 8601 UTC
  std::string command;
};

struct device_info {
  std::string kind;  ///< "cpu" | "cuda"
  std::string name;
  std::string id;    ///< "cpu", "cuda:0"
  json properties = json::object();  ///< cores, ISA, caches / SMs, CC, L2, driver, ECC, power limit
};

struct model_summary {
  std::string name;
  std::string source;  ///< path of the config.json
  std::string family;  ///< llama | gpt2 | ...
  json config = json::object();
  std::int64_t parameters = 0;
};

struct results {
  std::string schema_version = roofline::schema_version;
  std::string status = "complete";  ///< complete | partial | interrupted
  tool_info tool;
  host_info host;
  device_info device;
  nominal_roofs nominal;
  measured_roofs measured;
  roofline_summary roofline;
  std::optional<model_summary> model;
  std::vector<op_result> ops;
  json analysis = json::object();  ///< attribution waterfalls, mfu, fusion, batch sweep, accuracy
  std::vector<error_entry> errors;
};

// ---- JSON (defined in src/common/results_json.cpp) ----
void to_json(json& j, const factor& v);
void from_json(const json& j, factor& v);
void to_json(json& j, const nominal_peak& v);
void from_json(const json& j, nominal_peak& v);
void to_json(json& j, const nominal_roofs& v);
void from_json(const json& j, nominal_roofs& v);
void to_json(json& j, const stats_summary& v);
void from_json(const json& j, stats_summary& v);
void to_json(json& j, const telemetry_summary& v);
void from_json(const json& j, telemetry_summary& v);
void to_json(json& j, const bandwidth_result& v);
void from_json(const json& j, bandwidth_result& v);
void to_json(json& j, const compute_result& v);
void from_json(const json& j, compute_result& v);
void to_json(json& j, const launch_result& v);
void from_json(const json& j, launch_result& v);
void to_json(json& j, const probe_status& v);
void from_json(const json& j, probe_status& v);
void to_json(json& j, const measured_roofs& v);
void from_json(const json& j, measured_roofs& v);
void to_json(json& j, const roofline_summary& v);
void from_json(const json& j, roofline_summary& v);
void to_json(json& j, const op_result& v);
void from_json(const json& j, op_result& v);
void to_json(json& j, const error_entry& v);
void from_json(const json& j, error_entry& v);
void to_json(json& j, const tool_info& v);
void from_json(const json& j, tool_info& v);
void to_json(json& j, const host_info& v);
void from_json(const json& j, host_info& v);
void to_json(json& j, const device_info& v);
void from_json(const json& j, device_info& v);
void to_json(json& j, const model_summary& v);
void from_json(const json& j, model_summary& v);
void to_json(json& j, const results& v);
void from_json(const json& j, results& v);

/// Parse and validate a results.json text. Throws input_error naming `file` and the field on a
/// missing/mistyped field, NaN/inf, or an unsupported schema_version.
results parse_results(const std::string& text, const std::string& file);
/// Read + parse_results. Throws input_error when the file cannot be read.
results load_results(const std::string& path);

}  // namespace roofline
