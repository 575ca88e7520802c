// The main job, as a library call: detect → nominal → measure → ops → analyse → (write).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "roofline/backend.hpp"
#include "roofline/latency.hpp"
#include "roofline/model.hpp"
#include "roofline/results.hpp"
#include "roofline/timing_windows.hpp"

namespace roofline::job {

struct run_options {
  std::string device = "auto";
  std::string model = "tinyllama-1.1b";
  std::string out = "out";
  bool quick = false;
  bool measure_ops = true;
  bool model_part = true;  ///< false (measure): no ops, no model, no batch sweep
  std::vector<std::string> only;  ///< probe groups; empty = all
  bool judge_interference = true; ///< CPU: judge other processes and steal around each probe
  int repeat = 1;                 ///< --repeat N: whole measurements (per-roof median and spread across runs)
  std::string uarch;              ///< --uarch: the CPU microarchitecture, when detection cannot tell
  std::string memory;             ///< --memory "12 x DDR5-4800": the DRAM configuration, likewise
  double step_budget_s = 0;       ///< --step-budget: whole steps predicted longer than this are not run (0 = 5 s CPU, 1 s GPU)
  double tpot_s = 0;              ///< --tpot: a measured TPOT (s) for the record table's TPOT → MFU row
  double tpot_target_s = 0;       ///< --tpot-target: the step sweep's largest batch meeting it (0 = none)
  std::vector<std::int64_t> step_batches;  ///< --step-batches: the decode step sweep's batches (empty: step_sweep_batches' default)
  // The model part (run only): decode at each of `batches` with a KV context of `context` tokens,
  // prefill of one sequence of `seq` tokens, ops in `dtype` ("" = fp32 on a CPU, fp16 on a GPU).
  std::vector<std::int64_t> batches = {1, 32};
  std::int64_t context = 2048, seq = 2048;
  std::string dtype;
  std::string weights;  ///< --weights: only a dtype the kernels run (runnable_weights), overriding a quantized config
  int threads = 0;  ///< --threads: OpenMP / OpenBLAS threads of the whole run (0 = one per core)
  std::string command;            ///< the command line, recorded in results.host
  /// Test hook: a probe whose name contains this string throws probe_error (ROOFLINE_FAIL_PROBE).
  std::string fail_probe;
};

/// Runs the whole job. Probe failures are recorded in results.errors (status "partial"); SIGINT or
/// SIGTERM stops between probes and leaves status "interrupted" with the rest marked not run.
/// `cfg` is the model, loaded (and so validated) by the caller before anything is written.
results run_pipeline(const run_options& opt, const model_config& cfg, const std::string& model_path);

/// Loads the model named by opt.model; throws input_error naming the file and field.
model_config load_run_model(const run_options& opt, std::string& model_path);

/// The small-work model ops are placed with (pipeline_whole_step.cpp): measured.small_work, else
/// the backend's launch floor with the default latency of its kind; recorded in
/// r.analysis.latency_model.
latency_model op_latency_model(backend& be, results& r, const std::string& precision);

/// The decode step sweep's batches: opt.step_batches (ascending, once each) when given, else 1, 2,
/// 4, … 256 (opt.quick: 1, 8, 64).
std::vector<std::int64_t> step_sweep_batches(const run_options& opt);
/// The sweep's plan (results.step_sweep): opt.context, the batches, the KV-cache capacity (device
/// memory − weights) ÷ KV bytes per sequence at `precision`, opt.tpot_target_s.
step_sweep_plan plan_step_sweep(const results& r, const model_config& cfg, const std::string& precision,
                                const run_options& opt);
/// True when decode batch `b`'s KV cache fits beside the weights (b ≤ plan.kv_capacity_batch), or the
/// capacity is unknown: the one rule for which sweep batches run and which the probes measure.
bool kv_cache_fits(const step_sweep_plan& plan, std::int64_t b);
/// The device at rest before the probes: the backend's energy counter over a 0.5 s pause (quick
/// 0.2 s) into r.measured.idle_energy.
void measure_idle_energy(backend& be, results& r, const run_options& opt);

/// Whole steps (pipeline_whole_step.cpp): the decode step sweep (step_sweep_batches at opt.context,
/// bounded by the KV-cache capacity and, on a CPU, by a time budget) and prefill of opt.seq, each run
/// as one unit through backend::run_step, into r.whole_step with the prediction (Σ placed op time ×
/// count), the step's FLOPs and bytes, the sum of the isolated measured ops and the energy counter
/// around the replays; the plan into r.step_sweep. Failures go to r.errors. Each step timing (and the
/// drift check's) is judged in `windows`: one taken while the machine was busy is kept out
/// (whole_step_result::disturbed_s; the drift check: not recorded, a note says why).
void measure_whole_steps(backend& be, results& r, const model_config& cfg, const std::string& precision,
                         const latency_model& lat, const run_options& opt, bool& lost, const progress_fn& progress,
                         const std::function<bool()>& interrupted, timing_windows& windows);

/// Header fields every results.json carries (tool, host).
void fill_provenance(results& r, const std::string& command);

/// Progress on stderr: "[roofline  42%] bandwidth/copy: 64 MiB". With `warn`, also sets it to write
/// "roofline: warning: LINE" on a line of its own (a progress line open on a terminal is ended first).
progress_fn stderr_progress(std::function<void(const std::string&)>* warn = nullptr);

}  // namespace roofline::job
