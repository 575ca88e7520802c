// The result model: one struct tree, serialised to results.json (the single source of truth that
// every report view renders from). Field names follow shared/DESIGN.md; docs/results-schema.md
// documents them. Units: seconds, bytes, FLOP, B/s, FLOP/s, MHz, W, °C — never scaled.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/analysis_results.hpp"
#include "roofline/json_fwd.hpp"

namespace roofline {

inline constexpr const char* schema_version = "1.2";

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

/// Summary of a series of samples (seconds, or a rate). `spread` is robust: the interquartile
/// range over the median, IQR / median (quartiles by linear interpolation, Hyndman & Fan 1996
/// type 7); `range` = (max − min) / median, which one outlier decides.
struct stats_summary {
  int n = 0;
  double min = 0, max = 0, median = 0, mean = 0, spread = 0, range = 0;
};

/// What else the machine did while one probe ran (CPU: /proc/stat against /proc/self/stat).
/// Fractions are of the machine's whole CPU time over the probe's wall time (logical CPUs × s).
struct interference_sample {
  std::string probe;
  double wall_s = 0;
  double other_cpu_fraction = 0;  ///< CPU time used by other processes
  double steal_fraction = 0;      ///< time a hypervisor gave this VM's CPUs to others
  int attempts = 1;               ///< 2 when the probe was re-run because it was disturbed or noisy
  std::string verdict;            ///< "clean" | "re-run, clean" | "unreliable: <why>"
  /// Other processes holding the device while the probe ran (GPU: NVML's running compute and
  /// graphics processes), each "pid 1234 (python3, 12.0 GiB)"; empty on a CPU or a quiet GPU.
  std::vector<std::string> device_processes;
};

/// The run-level verdict on interference: read before measuring (an idle check), summed over every
/// probe and over the windows the op and whole-step timings were judged in. `busy` is true when the
/// idle check found the machine busy, a probe stayed disturbed after its re-run, or a timing was kept out.
struct interference_report {
  bool busy = false;
  std::string summary;  ///< one line for the report's top and the exit status text (summarize_interference)
  interference_sample before;
  int unreliable_results = 0;  ///< bandwidth/compute rows kept out of the roofs
  std::vector<interference_sample> probes;
  /// The windows (at least interference_policy::min_wall_s each) the op, batch-sweep and whole-step
  /// timings were judged in (CPU runs of `run`); `probe` names the timings ("ops 1–14 of 60"). Empty in
  /// older files and where nothing was timed.
  std::vector<interference_sample> timings;
  int ops_kept_out = 0;    ///< op timings (ops[], the linear batch sweep) taken busy: kept out (op_result::disturbed_s)
  int steps_kept_out = 0;  ///< whole-step timings taken busy: kept out (whole_step_result::disturbed_s)
};

/// Telemetry (NVML on GPUs, cpufreq/measured on CPUs) over one probe.
struct telemetry_summary {
  int samples = 0;
  double sample_hz = 0;
  std::optional<stats_summary> sm_clock_mhz, mem_clock_mhz, power_w, temperature_c;
  std::vector<std::string> throttle_reasons;  ///< union of the NVML reasons seen, e.g. "sw_power_cap"
  double throttled_fraction = 0;              ///< share of samples with any active slowdown reason
};

/// The energy of one timed window (docs/formulas-analysis.md §10): the device's energy counter read
/// just before and just after the window (NVML nvmlDeviceGetTotalEnergyConsumption on a GPU, RAPL
/// energy_uj on a CPU), and, where the device samples its power (the GPU's 50 Hz telemetry), the
/// power integrated over the same window as a cross-check. The window holds the warm-up runs and
/// the timed runs of time_repeated (host gaps between runs included). Joules, seconds, watts.
struct energy_window {
  double window_s = 0;                ///< host seconds between the two counter reads
  std::optional<double> counter_j;    ///< the counter's energy over the window (J; wrap undone); null: no counter
                                      ///< (see note). Where the counter moved ≥ 2 times inside the window
                                      ///< (counter_updates), its power between the first and last update × window_s;
                                      ///< else its increase read at the window's two ends
  std::optional<int> counter_updates; ///< the update intervals counter_j was read over (absent: read at the ends)
  std::optional<double> ends_j;       ///< the increase read at the window's two ends, beside counter_j when that is
                                      ///< read between updates (NVML's counter moves every ~100 ms: ±Δ/W at the ends)
  std::optional<double> temperature_c;  ///< mean GPU temperature of the telemetry samples in the window (°C)
  std::optional<double> integrated_j; ///< ∫ power dt of the telemetry samples over the window (trapezoid)
  int power_samples = 0;              ///< telemetry samples inside the window
  std::string source;                 ///< what was read, e.g. "NVML nvmlDeviceGetTotalEnergyConsumption (mJ)"
  std::string note;                   ///< why a value is missing: "not available (<reason>)"
};

struct bandwidth_result {
  std::string pattern;  ///< read | write | copy | triad
  std::string level;    ///< l1 | l2 | llc | dram | hbm ("dram" for the device memory roof); "a+b" is a
                        ///< transition between levels a and b (e.g. "l2+dram"), never a roof
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
  bool rejected = false;           ///< breaks a physical rule (roofline/sanity.hpp) or was measured disturbed twice: never a roof
  std::string rejected_reason;     ///< the rule and the numbers, or the interference, when rejected
  std::optional<stats_summary> across_runs;  ///< --repeat N: the best rate of each whole run
  std::optional<energy_window> energy;       ///< around the timed runs (absent: not read)
  /// The energy over the probe's sustained run (GPU: run_burst's back-to-back run of ~1.5 s after an
  /// idle pause) and the run's mean rate (work ÷ run time, bytes/s): the window the energy roofline
  /// reads when the timed runs' own window is shorter than min_energy_window_s (absent: no such run).
  std::optional<energy_window> sustained_energy;
  std::optional<double> sustained_energy_rate;
};

/// The SM clock paired with each timed repeat of a GEMM (GPU): the telemetry's clock time-weighted
/// over the repeat's own host window, so that a rate and the clock printed beside it describe one
/// interval (roofline/repeat_clock.hpp pairs them; docs/methodology-gpu.md, "The clock of a repeat").
/// A repeat's clock is resolved when the samples around it (the last before it, those inside it and the
/// first after it) agree within clock_agreement; otherwise it is uncertain and no clock is given.
struct repeat_clocks {
  int repeats = 0;       ///< timed repeats paired
  int resolved = 0;      ///< repeats whose clock the samples resolve
  double period_s = 0;   ///< the telemetry's sampling period (s)
  /// The fastest repeat (the one flops_per_s comes from): its clock (MHz), null when the samples around
  /// it do not resolve it (`fastest_why` says why); the lowest and highest sample around it; its window.
  std::optional<double> fastest_mhz;
  double fastest_low_mhz = 0, fastest_high_mhz = 0;
  double fastest_window_s = 0;
  std::string fastest_why;
  /// The fastest repeat whose clock the samples resolve: its rate (work/s) and clock (MHz); null when
  /// no repeat's clock is resolved.
  std::optional<double> resolved_flops_per_s, resolved_mhz;
};

/// The input distributions a GPU GEMM is measured on (compute_result::inputs, sustained_run::inputs):
/// normal(0,1), what torch.randn draws, for the roof; all zeros, the data that toggles the fewest bits.
inline constexpr const char* inputs_normal = "normal(0,1)";
inline constexpr const char* inputs_zeros = "zeros";

/// A sustained run of a GEMM on one input distribution (GPU, the model's precision at n = 8192):
/// back-to-back calls of the chosen algorithm for `duration_s` after an idle pause, the rate, clock and
/// power over its second half (docs/methodology-gpu.md, "Input data"). The same algorithm on other
/// data draws another power, and under a power cap holds another clock.
struct sustained_run {
  std::string inputs;        ///< the distribution: inputs_normal, inputs_zeros, …
  double flops_per_s = 0;    ///< work/s over the second half of the run
  double duration_s = 0;     ///< the whole run (GPU time)
  std::optional<telemetry_summary> telemetry;  ///< over the second half
  std::optional<energy_window> energy;         ///< the energy counter over the whole run
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
  /// GEMMs through a library that reports its choice (cuBLASLt): the chosen algorithm's configuration,
  /// e.g. {"layout":"TN","algo_id":66,"tile":"128x256x64","tile_m":128,"tile_n":256,"cluster":"2x1x1",
  /// "cluster_m":2,"cluster_n":1,"split_k":1,"stages":"…"}; null where nothing is reported.
  json_value algo;
  std::optional<double> burst_flops_per_s;
  std::optional<telemetry_summary> telemetry;
  std::vector<std::string> flags;
  bool rejected = false;  ///< measured disturbed or impossible: never a roof
  std::string rejected_reason;
  std::optional<stats_summary> across_runs;  ///< --repeat N: the best rate of each whole run
  std::optional<energy_window> energy;       ///< around the timed runs (absent: not read)
  /// The energy over the probe's sustained run (GPU: run_burst's back-to-back run of ~1.5 s after an
  /// idle pause) and the run's mean rate (work ÷ run time, FLOP/s): the window the energy roofline
  /// reads when the timed runs' own window is shorter than min_energy_window_s (absent: no such run).
  std::optional<energy_window> sustained_energy;
  std::optional<double> sustained_energy_rate;
  /// GEMMs: the distribution of the inputs the rates were measured on ("normal(0,1)", "uniform
  /// [−1, 1)", "uniform integers in [−16, 15]"); absent in files written before it was recorded.
  std::optional<std::string> inputs;
  /// GPU GEMMs: each timed repeat's own clock (see repeat_clocks); absent where not paired.
  std::optional<repeat_clocks> repeat_clock;
  /// GPU, the model's precision at n = 8192: sustained runs on random and on all-zero inputs (the
  /// roof stays the random-data one); empty where not run.
  std::vector<sustained_run> sustained_by_input;
};

struct launch_result {
  double kernel_s = 0;  ///< median launch-to-completion of an empty kernel
  std::optional<double> graph_s;  ///< per kernel inside a CUDA graph
  /// per kernel launched back-to-back on one stream (what a kernel in a profile pays); null in files
  /// written before it was a field (its value is then only in `method`)
  std::optional<double> back_to_back_s;
  std::string method;
};

/// The small-work regime (measured.small_work): what one dependent kernel costs when it does
/// (almost) nothing, and the time of a cold read from 4 KiB to 1 GiB.
struct small_work_result {
  double floor_s = 0;  ///< per dependent kernel in a CUDA graph (full grid) / per OpenMP parallel region
  std::optional<double> floor_one_block_s;  ///< GPU: the same chain with a <<<1, 32>>> kernel
  /// GPU: per kernel in the same chain with every second kernel another function (another block size
  /// and shared-memory carve-out), as a model step alternates different kernels; absent where not
  /// measured (the CPU, older files).
  std::optional<double> floor_switch_s;
  std::vector<ramp_point> ramp;             ///< seconds per kernel, floor included
  /// CPU: ops that write fewer than `serial_below_elements` elements run on one thread, in an
  /// OpenMP region whose `if` clause is false (the backend's kernels: elementwise, norms, softmax,
  /// RoPE, the embedding gather). Their floor is `serial_floor_s` (per such region) and their
  /// memory time the one-thread cold-read ramp `serial_ramp` (seconds per read, no region
  /// included). 0 / empty: every op runs on all threads (GPU, or not measured).
  std::int64_t serial_below_elements = 0;
  double serial_floor_s = 0;
  std::vector<ramp_point> serial_ramp;
  /// CPU: what a byte written with ordinary stores costs, in cold-read bytes. A store to a line the
  /// op did not read first fetches the line before the line is written back (write-allocate), so a
  /// cold copy of S bytes into a cold buffer (`write_copy`: S read + S written, seconds per copy,
  /// floor included) takes as long as a cold read of (1 + write_cost)·S bytes on the ramp. nullopt:
  /// not measured (GPU: its L2 takes whole-sector writes without a fetch), and a written byte is
  /// counted as a read byte (docs/formulas-analysis.md §7.1).
  std::optional<double> write_cost;
  std::optional<ramp_point> write_copy;
  /// The op kinds (to_string(op_kind)) the backend writes in place, over lines it has just read:
  /// those writes pay the write-back but no allocate fetch (write_cost − 1 read bytes each).
  std::vector<std::string> write_in_place;
  std::string method;
  bool verified = false;  ///< the chain's counter and the read sums matched their closed forms
};

/// One point of the GEMM rate against the number of rows (measured.gemm_rows): C(M×N) = A(M×K)·B(K×N)
/// as a linear layer runs it at batch M, with B cold (copies rotated past the last-level cache), at a
/// fixed weight (the CPU: N = K = 2048) or at the weight of the model's own linears (the GPU: each
/// distinct N × K of the decode step, `linears` naming them). FLOPs = 2·M·N·K. The prediction's
/// compute side for GEMM ops of few rows (decode), where a square sweep's rate at the same FLOPs
/// overstates what the library reaches: docs/formulas-analysis.md §7.2.
struct gemm_rows_result {
  std::string precision;  ///< fp32 (CPU)
  std::int64_t m = 0, n = 0, k = 0;
  double flops_per_s = 0;         ///< best
  double median_flops_per_s = 0;  ///< the rate predictions use
  double spread = 0;
  int repeats = 0;
  bool verified = false;
  std::string method;
  /// The model's linears of this N × K ("k_proj, v_proj"); absent: a fixed weight.
  std::optional<std::string> linears;
};

/// One point of the GEMM rate at attention's tile shapes (measured.gemm_attention, CPU): the two
/// GEMMs of a query tile of fused prefill attention, as the CPU kernel issues them (each thread
/// its own tile at once in OpenBLAS's OpenMP build; one call on OpenBLAS's threads otherwise):
/// S = Q·Kᵀ, C(M×N) with M = tile rows, N = keys, K = head_dim ("qk"), and O = P·V, M = tile rows,
/// N = head_dim, K = keys ("pv"). The compute side of attention_fused: docs/formulas-analysis.md §7.2.
/// On a GPU: "sdpa" (fused prefill attention, tile_rows = keys = tokens) and "decode" (the model's
/// decode attention at `batch` sequences of `heads` query and `kv_heads` KV heads against keys cached
/// tokens, through the op runner; tile_rows = heads ÷ kv_heads, the query rows per KV head).
struct gemm_attention_result {
  std::string precision;  ///< fp32 (CPU)
  std::string gemm;       ///< "qk" | "pv" | "softmax" (CPU), "sdpa" | "decode" (GPU)
  std::int64_t head_dim = 0, tile_rows = 0, keys = 0;
  double flops_per_s = 0;         ///< best, all threads together
  double median_flops_per_s = 0;  ///< the rate predictions use
  double spread = 0;
  int repeats = 0;
  bool verified = false;
  std::string method;
  std::optional<std::int64_t> batch, heads, kv_heads;  ///< "decode" only
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
  std::optional<small_work_result> small_work;
  std::vector<gemm_rows_result> gemm_rows;  ///< GEMM rate against rows at a fixed weight (CPU)
  std::vector<gemm_attention_result> gemm_attention;  ///< GEMM rate at attention's tile shapes (CPU)
  json_value telemetry{json_kind::object};  ///< device-wide: sampler rate, ECC, power limit, ...
  std::vector<probe_status> skipped;
  /// The device at rest before the probes: the energy counter over a short idle pause (the idle
  /// power of the energy roofline, docs/formulas-analysis.md §10); absent: not read.
  std::optional<energy_window> idle_energy;
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
  json_value per_precision{json_kind::array};  ///< [{precision, peak_nominal, peak_measured, ridge_nominal, ridge_measured}]
};

/// How the kernel of an op was chosen when two implementations can run it and the faster is kept for
/// the run (the CUDA backend: our GEMV or cuBLASLt for a GEMM of M ≤ 8; our decode attention or a
/// cuDNN plan; our fused prefill attention or a cuDNN plan). Both are verified; each is timed once
/// over the op's buffer sets. Numbers only: report::choice_text words it.
struct kernel_choice {
  std::string over;         ///< the implementation not run: "cuBLASLt", "our GEMV", "our kernel", "cuDNN"
  std::string over_detail;  ///< what it is, and its verification; empty when not known
  /// their times when the choice was made (s; for a kept choice, when it was first made); absent when not timed
  std::optional<double> chosen_s, over_s;
  bool kept = false;  ///< chosen when this shape first ran in this run (op_context's memo), not timed again
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
  std::string bound;         ///< "compute" | "bandwidth" | "latency" (docs/formulas-analysis.md §7)
  double predicted_s = 0;    ///< max(flops/P(shape), bytes/BW(bytes)) + per-kernel floor
  std::optional<double> measured_s;
  std::string measured_note;  ///< why null, or verification notes
  /// What ran when measured: our kernel, its variant and launch configuration ("roofline cuda
  /// decode_attention mma.sync m16n8k16, 4 warps/block, grid 4×4×32, …"), or the library and its
  /// version and choice ("cuBLASLt 13.0.0 algo 66 tile 128x128x64 …", "OpenBLAS 0.3.21 sgemm");
  /// empty when not run.
  std::string implementation;
  std::optional<kernel_choice> choice;  ///< how `implementation` was chosen, where two could run it
  std::optional<double> launch_floor_s;
  std::optional<double> memory_s;   ///< bytes ÷ BW(bytes): the latency-aware memory term
  std::optional<double> compute_s;  ///< FLOPs ÷ P(shape)
  std::string advice;
  /// false when the measured op is physically impossible: faster than the nominal compute peak of its
  /// precision, or moving bytes faster than the fastest memory level measured, beyond roof_noise
  /// (roofline/analysis.hpp). `causes` then names the likely causes; no advice is built on it.
  bool plausible = true;
  std::vector<std::string> causes;
  /// "" for an op of the model's step; else the op(s) of the same scenario it is measured beside
  /// (e.g. silu_mul beside "silu + mul"): shown in the op table, never added to a step total.
  std::string alternative_to;
  /// The time measured while the machine was busy (results.interference.timings), kept out of
  /// `measured_s` (then null, `measured_note` saying why): every view treats the op as not measured,
  /// as a rejected probe is not a roof. Absent when the timing was clean or not judged.
  std::optional<double> disturbed_s;
};

/// One measured whole step (decode: every layer's ops against a real KV cache of `context` tokens;
/// prefill: `seq` tokens), run as one CUDA graph on the GPU / one pass on the CPU, timed as a unit.
struct whole_step_result {
  std::string phase;  ///< decode | prefill
  std::int64_t batch = 1;
  std::optional<std::int64_t> context;  ///< decode
  std::optional<std::int64_t> seq;      ///< prefill
  std::optional<double> measured_s;     ///< median (null when it failed: see note)
  std::optional<double> best_s;
  double predicted_s = 0;               ///< Σ predicted op time × count
  std::optional<double> sum_of_ops_s;   ///< Σ isolated measured op time × count (null when an op was not measured)
  std::int64_t kernels = 0;             ///< ops launched per step
  std::string note;                     ///< how it ran / why it did not
  std::optional<energy_window> energy;  ///< around the timed replays (absent: not read)
  /// FLOPs and bytes of the whole step (Σ op × count of the catalogue), for its energy prediction;
  /// absent in files written before they were recorded.
  std::optional<double> flops, bytes;
  /// What the step's kernels executed, by engine (op_timing::executed of run_step): FLOPs on the tensor
  /// cores, tile padding included, and on the CUDA cores (docs/formulas-analysis.md §10.2). Absent where
  /// the runners do not say (a CPU step, files written before they were recorded): then the step's
  /// energy is charged by `flops`.
  std::optional<double> flops_executed_tensor, flops_executed_cuda_cores;
  /// The median step time measured while the machine was busy, kept out of `measured_s` (then null,
  /// `note` saying why), as op_result::disturbed_s. Absent when clean or not judged.
  std::optional<double> disturbed_s;
};

/// What `roofline run` planned for the decode step sweep (results.step_sweep): the batches asked for,
/// the bound the device memory sets (docs/formulas-analysis.md §8.1), the user's TPOT target, and
/// what was not run and why. The measurements are the decode entries of whole_step[] at `context`.
struct step_sweep_plan {
  std::int64_t context = 0;                  ///< KV length of every decode step (tokens)
  std::vector<std::int64_t> batches;         ///< asked for, before the capacity bound
  std::optional<double> memory_bytes;        ///< device memory the bound used (null: unknown, not bounded)
  double weights_bytes = 0;                  ///< parameters × dtype bytes
  double kv_bytes_per_sequence = 0;          ///< KV cache of one sequence at context + 1 tokens
  /// ⌊(memory_bytes − weights_bytes) ÷ kv_bytes_per_sequence⌋: sequences whose KV cache fits beside
  /// the weights (null: memory unknown)
  std::optional<std::int64_t> kv_capacity_batch;
  std::optional<double> tpot_target_s;       ///< --tpot-target (s); null: none given
  std::vector<std::string> notes;            ///< batches not run and why
  std::optional<drift_check> drift;          ///< null: not run (no op-table time for the op, an older file)
  /// The decode step's linear layers alone (its gemm ops: q…down_proj, lm_head), captured and replayed as a
  /// whole step at the sweep's smallest and largest measured batch (GPU, not --quick): what a FLOP of the
  /// decode GEMMs costs at the clock the steps run at (docs/formulas-analysis.md §10.3). Empty: not run.
  std::vector<whole_step_result> linear_layers;
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
  json_value properties{json_kind::object};  ///< cores, ISA, caches / SMs, CC, L2, driver, ECC, power limit
};

struct model_summary {
  std::string name;
  std::string source;  ///< path of the config.json on the machine that ran it
  std::string family;  ///< llama | gpt2 | ...
  /// The model's parsed config (every field of model_config, roofline/model.hpp), written by `run`
  /// (model_config_json, roofline/model_record.hpp) and read back typed (model_config_from_json), so
  /// that the analysis rebuilds the model's catalogue from the file alone. Files written before it was
  /// stored hold an 8-key summary with HuggingFace names (hidden_size, …) here: not a parsed config.
  json_value config{json_kind::object};
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
  std::vector<whole_step_result> whole_step;
  analysis_results analysis;  ///< what analyse() and `run` computed from the fields above
  std::vector<error_entry> errors;
  std::optional<interference_report> interference;  ///< CPU runs: what else the machine did
  int repeat = 1;  ///< --repeat N: whole measurements taken
  std::optional<step_sweep_plan> step_sweep;  ///< `run`'s decode step sweep (absent in older files)
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
void to_json(json& j, const interference_sample& v);
void from_json(const json& j, interference_sample& v);
void to_json(json& j, const interference_report& v);
void from_json(const json& j, interference_report& v);
void to_json(json& j, const telemetry_summary& v);
void from_json(const json& j, telemetry_summary& v);
void to_json(json& j, const energy_window& v);
void from_json(const json& j, energy_window& v);
void to_json(json& j, const bandwidth_result& v);
void from_json(const json& j, bandwidth_result& v);
void to_json(json& j, const repeat_clocks& v);
void from_json(const json& j, repeat_clocks& v);
void to_json(json& j, const sustained_run& v);
void from_json(const json& j, sustained_run& v);
void to_json(json& j, const compute_result& v);
void from_json(const json& j, compute_result& v);
void to_json(json& j, const launch_result& v);
void from_json(const json& j, launch_result& v);
void to_json(json& j, const gemm_rows_result& v);
void from_json(const json& j, gemm_rows_result& v);
void to_json(json& j, const small_work_result& v);
void from_json(const json& j, small_work_result& v);
void to_json(json& j, const whole_step_result& v);
void from_json(const json& j, whole_step_result& v);
void to_json(json& j, const probe_status& v);
void from_json(const json& j, probe_status& v);
void to_json(json& j, const measured_roofs& v);
void from_json(const json& j, measured_roofs& v);
void to_json(json& j, const roofline_summary& v);
void from_json(const json& j, roofline_summary& v);
void to_json(json& j, const kernel_choice& v);
void from_json(const json& j, kernel_choice& v);
void to_json(json& j, const op_result& v);
void from_json(const json& j, op_result& v);
void to_json(json& j, const drift_check& v);
void from_json(const json& j, drift_check& v);
void to_json(json& j, const step_sweep_plan& v);
void from_json(const json& j, step_sweep_plan& v);
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
