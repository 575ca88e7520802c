// The user's own runs: one reader per foreign format, each returning the same typed list of
// kernel_records (docs/ingest.md). Readers only read: they never classify, place or format; the
// analysis (roofline/kernel_analysis.hpp) and the report do that.
//
// Formats:
//  - Nsight Compute CSV, long form (`ncu --csv [--page details] --metrics ...`: one row per
//    (launch, metric)) and raw page (`ncu --csv --page raw`: one row per launch, a units row under
//    the header);
//  - PyTorch profiler / Kineto chrome trace (`prof.export_chrome_trace`, .json or .json.gz);
//  - roofline's own CSV: name,flops,bytes,time_s (the form `place --csv` writes as place.csv).
//
// Every FLOP and byte count says where it came from (count_source): a hardware counter, the op-cost
// model of the catalogue applied to a framework op's shapes (roofline/model.hpp), or nothing. No
// count is ever invented: a kernel with neither keeps flops/bytes empty and is placed by time only.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/packed_optional.hpp"
#include "roofline/shared_string.hpp"
#include "roofline/shared_value.hpp"

namespace roofline::ingest {

/// Where a count came from, in order of trust (docs/ingest.md, "Where a kernel's cost comes from").
enum class count_source {
  counter,      ///< a hardware counter (Nsight Compute metric), or the user's own CSV
  shape_model,  ///< the catalogue's op-cost model applied to the framework op's input shapes
  capture,      ///< a CUDA-graph replay: the op (and shapes) whose launch the graph captured, in the same trace
  same_kernel,  ///< the same kernel (name, grid, block) costed elsewhere in the trace, or the same launch of a repeated step
  catalogue,    ///< the model's own step (roofline/model.hpp build_catalogue), matched kernel by kernel
  none,
};
std::string to_string(count_source s);

/// FLOPs of one precision on one engine. Precision: fp64 | fp32 | tf32 | fp16 | bf16 | fp8 | int8
/// (roofline/vocabulary.hpp names); engine: "tensor" (tensor cores: HMMA/HGMMA paths) | "vector"
/// (the SASS FMA/ADD/MUL pipes, FMA = 2 FLOP) | "" (a shape model that does not know the engine).
struct flop_count {
  shared_string precision;
  shared_string engine;
  double flops = 0;
  count_source source = count_source::none;
  shared_string metric;  ///< the counter(s) or the cost-model function it came from, for the derivation
  /// false when derived from rates the tool rounded (the ncu raw page's `.per_cycle_elapsed` SASS
  /// rates × cycles): then good to the bound written in the record's note, not to the last FLOP.
  bool exact = true;
};

/// Bytes moved at one memory level: "dram" (device memory), "l2", "l1" (L1/TEX/shared).
struct byte_count {
  shared_string level;
  double bytes = 0;
  count_source source = count_source::none;
  shared_string metric;
};

/// The shape of the op a kernel was costed from, as its cost model read it (0 = not applicable).
struct op_dims {
  std::int64_t m = 0, n = 0, k = 0;                          ///< GEMM: [m×k]·[k×n] (per group of a batched GEMM)
  std::int64_t batch = 0, heads = 0, q_len = 0, kv_len = 0;  ///< attention: sequences, query heads, queries, keys
  std::int64_t last = 0;   ///< the first tensor input's last dimension (elementwise ops, norms: the row)
  bool backward = false;   ///< a backward-pass op
};

/// One kernel launch (or one row of a user's CSV).
struct kernel_record {
  shared_string name;                       ///< as the tool wrote it (demangled where it was)
  std::string id;                         ///< ncu "ID", the trace's correlation id, or the CSV row
  packed_optional<double> start_s;        ///< seconds from the start of the file's first event (traces)
  double duration_s = 0;                  ///< > 0
  packed_optional<std::int64_t> stream, device;
  packed_optional<double> sm_clock_hz;    ///< the SM clock it ran at, when recorded (ncu: sm__cycles_elapsed.avg.per_second)
  packed_optional<std::int64_t> grid_blocks, block_threads;  ///< launch configuration, when recorded
  /// Hardware FLOPs (counters; HFU counts them) per precision and engine; empty when none counted.
  std::vector<flop_count> flops;
  /// Model FLOPs from the framework op's shapes (MFU counts them); empty when no cost model applies.
  std::vector<flop_count> model_flops;
  std::vector<byte_count> bytes;          ///< per level; a level absent = not known
  shared_string framework_op;               ///< the aten:: op (or Python scope) that launched it; "" unknown
  shared_string shapes;                     ///< its input shapes and types as read, e.g. "[[1,2048],[2048,2048]] fp16"
  shared_string cost_model;                 ///< the op-cost function used ("gemm_op", "attention_op", ...), "" none
  shared_value<op_dims> dims;             ///< the costed op's shape (traces: from the recorded shapes); read as k.dims->m
  bool graph_replay = false;              ///< launched by a CUDA-graph replay (no per-kernel op link)
  /// Traces: the host time (s, same origin as start_s) of the call that launched it (the runtime
  /// launch, or the cudaGraphLaunch of a replay); absent when the launch was not recorded (a kernel
  /// of the profiler's warm-up step whose host events were dropped).
  packed_optional<double> launch_s;
  /// Traces: the correlation id of the cudaGraphLaunch that replayed it (one id per replay).
  packed_optional<std::int64_t> replay;
  /// Where its FLOPs and bytes came from when not from its own counters or shapes: "capture: …",
  /// "same kernel: …", "catalogue: <model op>" ("" otherwise; the counts' source says which).
  shared_string cost_from;
  /// Traces: the framework op call (or the scope, for a Triton kernel) that launched it, as an index into
  /// the file's host intervals (kernels of one call share it; captured launches too); -1 when not linked.
  std::int64_t op_call = -1;
  /// The kernel (index into the same list) that carries the counts of the op this kernel belongs to,
  /// when this one carries none itself (a split-K reduction beside its GEMM, cuDNN's lean reduction
  /// beside its attention kernel): the op is counted once, and this kernel is judged with it.
  packed_optional<std::size_t> counted_with;
  /// The model op it was matched to (a catalogue op name, "q_proj", "input_norm + q_proj …"), when the
  /// run was joined to a model (roofline/run_analysis.hpp); "" otherwise.
  shared_string model_op;
  /// true when the file could not count one engine's FLOPs at all (an Nsight Compute export without
  /// the sm__ops_path_tensor_* metrics: tensor-core work is invisible to the SASS counters), so a
  /// kernel whose counted FLOPs are 0 may still have done tensor-core work.
  bool tensor_flops_not_counted = false;
  shared_string note;                       ///< how the numbers were read, what is missing
};

/// A host (CPU-side) interval of a trace, kept to say what the host did while the GPU idled.
struct host_interval {
  std::string name;  ///< aten:: op, Python scope or runtime call
  double start_s = 0, duration_s = 0;
};

/// What one file held.
struct ingest_result {
  std::string format;  ///< "ncu-long" | "ncu-raw" | "torch-trace" | "roofline-csv"
  std::string file;
  std::vector<kernel_record> kernels;  ///< in launch order
  /// Traces: GPU memory operations (Kineto cat "gpu_memcpy" / "gpu_memset": name, time, stream and the
  /// bytes CUPTI recorded, at level "dram"), kept apart from `kernels` (they are GPU activity, not
  /// kernels: no FLOPs, no op-cost model).
  std::vector<kernel_record> gpu_memory_ops;
  /// Traces: the outermost host intervals (depth 0 on each thread), at most `max_host_intervals`
  /// kept (the longest), for the host-gap analysis.
  std::vector<host_interval> host;
  /// Traces: first GPU activity start to last GPU activity end (kernels, memcpy, memset: the window
  /// the GPU-busy fraction is taken over); a trace without GPU activity: first to last host event.
  std::optional<double> span_s;
  std::vector<std::string> skipped;    ///< what was not read and why (one line each), never silent
  std::string tool_version;            ///< e.g. "PyTorch 2.11.0+cu130" or "Nsight Compute", when recorded
  /// The GPU the file names (a trace's deviceProperties[0].name, an Nsight Compute export's
  /// "Device" column or device__attribute_display_name); "" when it names none.
  std::string gpu;
  /// Traces: kernel launches recorded on the host with no kernel in the trace (launches captured into
  /// a CUDA graph: capture runs nothing), in launch order, each with its op's cost as for a kernel
  /// (name "", start_s = the launch time, duration 0). Costs graph replays (count_source::capture).
  std::vector<kernel_record> captured;
  /// Traces: host annotations that mark steps (torch.profiler's `ProfilerStep#N`), in time order.
  std::vector<host_interval> step_marks;
  /// The file ended early (a truncated trace, an Nsight Compute export whose run failed): what was
  /// read is kept, and this says where and why it stopped ("" when the file is whole).
  std::string incomplete;
  /// Nsight Compute: the kernels it failed to profile, one line each ("kernel: message"); the
  /// `==ERROR==` lines of the export.
  std::vector<std::string> failures;
};

/// The longest host intervals a trace reader keeps (bounded memory on a 10^6-event trace).
inline constexpr std::size_t max_host_intervals = 4096;

/// Reads an Nsight Compute CSV export (long form or raw page; `==PROF==` lines and
/// `==WARNING==` lines skipped and reported). Per launch: duration from gpu__time_duration.sum (s),
/// SM clock (Hz), launch configuration, FLOPs per precision and engine (SASS add + mul + 2·fma on the
/// vector pipes; sm__ops_path_tensor_* on the tensor pipes, one op = one FLOP, sparsity-on kept out),
/// dram/l2/l1 bytes; the metrics and formulas are listed in docs/ingest.md ("Nsight Compute"). A value
/// "n/a" or empty gives no count (noted); a launch without a duration is skipped (a line in
/// `skipped`). Throws input_error naming the file and the field on `==ERROR==` lines, an empty,
/// non-CSV or truncated file, no launch with gpu__time_duration.sum, an unknown unit or a non-number
/// in a metric the reader uses, or two devices in one export.
ingest_result read_ncu_csv(const std::string& path);

/// The Nsight Compute metrics that make a complete answer for `roofline place` (`ncu --csv
/// --metrics <these, comma-joined>`): the duration; DRAM, L2 and L1 bytes; the SASS FMA/ADD/MUL
/// counters of fp64, fp32 and fp16 (the vector pipes); the all-path tensor-op counters per source
/// type (tensor-core FLOPs: one op is one FLOP, 2 per FMA; fp16, bf16, tf32, fp8, int8, fp64); the
/// SM clock each kernel ran at. The fp8 counter exists from compute capability 8.9 (Ada, Hopper):
/// drop it on Ampere, where ncu refuses a metric the GPU does not have.
const std::vector<std::string>& recommended_ncu_metrics();

/// Reads a Kineto chrome trace (.json or .json.gz), streaming: bounded memory in the number of
/// events. Throws input_error naming the file on a truncated or non-trace JSON.
ingest_result read_torch_trace(const std::string& path);

/// The element type a PyTorch kernel's functor names first, as a precision ("bf16", "fp32", …):
/// multi_tensor_apply's `FusedAdamMathFunctor<c10::BFloat16, 4, …>` → "bf16" (TensorList inputs
/// record no dtype, the kernel's template does); "" when the name has no functor or an unknown type.
std::string functor_precision(std::string_view kernel_name);

/// Reads roofline's own CSV (name, flops, bytes, time_s or seconds; optional precision): one record
/// per row, flops (engine "") and dram bytes with source counter, duration > 0 s. Throws input_error
/// naming the missing column or the bad value's column and row.
ingest_result read_kernel_csv(const std::string& path);

/// Picks the reader by content (not by extension) and reads `path`. Throws input_error when the
/// file is none of the formats above.
ingest_result read_any(const std::string& path);

}  // namespace roofline::ingest
