// A run, not only its kernels: a trace's kernels split into steps; each step joined to the model's
// own step (the catalogue, roofline/model.hpp) when the model is named; per step the wall time, GPU
// busy, host idle summed and split by what the host did, kernel time by class, model FLOPs beside
// the kernels' (hardware) FLOPs, MFU, HFU, MBU (decode) and the attainable step on the roofs; the
// time per model op measured beside predicted; and the fusion candidates grouped by their op
// pattern. Numbers only: report/run_report.cpp words them. Rules and formulas: docs/ingest.md
// ("Steps and the run") and docs/formulas-analysis.md §4 (MFU/HFU/MBU).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/command_roofs.hpp"
#include "roofline/ingest.hpp"
#include "roofline/kernel_analysis.hpp"
#include "roofline/model.hpp"

namespace roofline {

/// What a step of a run did.
enum class step_kind { train, prefill, decode, unknown };
std::string to_string(step_kind k);

/// How the steps of a trace were found, in the order tried.
enum class step_rule {
  profiler_step,  ///< torch.profiler's ProfilerStep#N annotations (its `schedule`)
  optimizer,      ///< training without annotations: each optimizer update ends a step
  forward,        ///< inference: each model forward (an embedding launch, a CUDA-graph replay)
  whole,          ///< nothing marks steps: the whole trace is one step
};
std::string to_string(step_rule r);

/// GPU idle time inside a step while the host was in one operation.
struct host_wait {
  std::string host;  ///< the innermost host op (or annotation) open during the idle time
  double seconds = 0;
};

/// Kernels of one model op group in a step, measured beside the catalogue's prediction.
struct model_op_time {
  std::string group;  ///< embedding | attention projections | attention | RoPE | norms | MLP | residual adds | LM head | loss | optimizer | other
  std::size_t kernels = 0;
  double measured_s = 0;                ///< Σ kernel time
  std::optional<double> predicted_s;    ///< Σ the group's catalogue ops × count on the roofs (null: no catalogue op or no roofs)
  double at_roof_s = 0;                 ///< Σ the kernels' time at their roof (kernels with a roof)
  double above_roof_s = 0;              ///< Σ (kernel time − time at its roof) over kernels with a roof
  double bytes = 0, flops = 0;          ///< Σ the kernels' placed DRAM bytes and FLOPs
};

/// One step of the run.
struct run_step {
  std::string name;  ///< "ProfilerStep#2", "replay 3", "forward 2"
  step_kind kind = step_kind::unknown;
  std::string kind_from;  ///< how the kind was told: "backward ops", "attention q_len 1", "a CUDA-graph replay"
  bool graphed = false;   ///< its model kernels ran as one CUDA-graph replay
  double start_s = 0;  ///< its first kernel's start (s, the file's origin)
  /// The step's period on the GPU: its first kernel's start to the next step's first kernel's start
  /// (the last step: its kernels' span, or its host window when longer), s.
  double wall_s = 0;
  double host_s = 0;   ///< the host's window (a ProfilerStep annotation's duration), s; 0 when none
  std::vector<std::size_t> kernels;   ///< 0-based indices into the file's kernels (and the verdicts)
  double kernel_s = 0, busy_s = 0;    ///< Σ kernel durations; the union of their intervals
  double gpu_s = 0;                   ///< first kernel start to last kernel end
  double idle_s = 0;                  ///< wall − busy: time the GPU did not run this step's kernels
  std::vector<host_wait> idle_by_host;  ///< GPU gaps inside the step by the host op open meanwhile, largest first
  std::array<double, verdict_class_count> time_by_class{};
  double hardware_flops = 0;  ///< Σ the kernels' placed FLOPs (counters, or the cost model of what ran)
  double dram_bytes = 0;      ///< Σ the kernels' DRAM bytes
  double unattributed_s = 0;  ///< kernel time with no FLOPs or bytes
  // ---- with the model (--model) ----
  std::optional<std::int64_t> batch, seq, context;  ///< sequences; prefill/train tokens per sequence; decode KV length
  std::string shape_from;      ///< where batch/seq/context came from ("the trace's attention shapes", "--context")
  std::optional<double> model_flops;      ///< the catalogue's model FLOPs of the step (model_flops_per_token × tokens)
  std::optional<double> mfu, hfu;         ///< model / hardware FLOPs ÷ (wall × nominal dense peak)
  std::optional<double> mbu;              ///< decode: the step's catalogue bytes ÷ wall ÷ nominal bandwidth
  std::optional<double> attainable_s;     ///< the catalogue's step predicted on the roofs
  std::vector<model_op_time> ops;         ///< by model op group, largest measured first
  std::string model_why;                  ///< why the model numbers are missing ("" when present)
};

/// A run of memory-bound kernels between GEMM/attention kernels, named by its framework ops, with
/// every run of the same op pattern grouped.
struct fusion_pattern {
  std::string name;                ///< "unfused RMSNorm", "SwiGLU activation", "RoPE", "elementwise chain"
  std::vector<std::string> ops;    ///< the run's framework ops in order, aten:: dropped ("add", "copy_", "pow", …)
  std::size_t runs = 0;            ///< times the pattern occurs
  std::size_t kernels = 0;         ///< kernels over all runs
  double seconds = 0;              ///< their time now
  double bytes_saved = 0;          ///< DRAM bytes a fused kernel would not move (Σ over runs with bytes)
  double time_saved_s = 0;         ///< bytes_saved ÷ the DRAM roof
};

/// The model a run is joined to, and the roofs its attainable step is predicted on.
struct run_model {
  model_config cfg;
  std::string source;  ///< the model's name or file
  /// What the trace does not say: --batch, --seq, --context (used when the trace's shapes do not tell)
  std::optional<std::int64_t> batch, seq, context;
  step_kind kind = step_kind::unknown;   ///< --phase: the kind of steps the file does not tell (an Nsight Compute export)
  std::optional<placement_roofs> roofs;  ///< --results / --device: the attainable step (null: none)
};

/// The whole answer.
struct run_answer {
  step_rule rule = step_rule::whole;
  std::vector<run_step> steps;
  std::size_t outside_steps = 0;      ///< kernels launched outside every step (the profiler's warm-up tail)
  double outside_steps_s = 0;
  std::string precision;              ///< the run's precision (most kernel FLOPs), the peak's
  double peak_flops = 0;              ///< its nominal dense peak, FLOP/s (0: unknown)
  std::string peak_engine;            ///< the peak's engine ("tensor", "vector")
  double bandwidth = 0;               ///< nominal device-memory bandwidth, B/s (0: unknown)
  std::vector<fusion_pattern> fusion; ///< most time saved first
  double fusion_bytes_saved = 0, fusion_time_saved_s = 0;
  std::string model;                  ///< the joined model's name ("" without --model)
  /// The steps the answer speaks for: those of the most common kind (training over inference), with
  /// their medians.
  step_kind main_kind = step_kind::unknown;
  std::vector<std::size_t> main_steps;
  std::optional<double> median_wall_s, median_mfu, median_hfu, median_mbu, median_attainable_s;
};

/// The steps of a trace and how they were found: ProfilerStep#N marks (each step: the kernels
/// launched inside its window); else, when optimizer kernels ran, each optimizer update ends a step;
/// else each CUDA-graph replay is a step and the other kernels start a forward at each embedding
/// kernel; else the whole trace. Each step's kind from its kernels: backward or optimizer kernels →
/// train; forward attention with one query → decode, with more → prefill; a replay → decode.
std::vector<run_step> find_steps(const ingest::ingest_result& in, step_rule& rule);

/// Joins each step of a known kind to the model's catalogue: batch and sequence/context from the
/// step's attention shapes, else the trace's, else the model's flags (run_step::shape_from says
/// which). Kernels with no cost of their own (replays without captures, Triton kernels, an Nsight
/// Compute export's kernels without counters of a kind) are costed from the step's ops in order
/// (count_source::catalogue) and every matched kernel gets its kernel_record::model_op. Call it
/// before judging the kernels. Errors go to run_step::model_why; never throws on a trace.
void join_model(ingest::ingest_result& in, std::vector<run_step>& steps, const run_model& model);

/// The numbers of each step and of the run: busy, idle by host op, time by class, FLOPs, and with
/// the model MFU, HFU, MBU, the attainable step and the time per model op group; the fusion runs of
/// `summary` grouped by op pattern; the medians of the main kind's steps. `v`: the verdicts of
/// `in`'s kernels (same order); `roofs`: the roofs they were judged on (the nominal peak and
/// bandwidth of MFU, HFU and MBU). Never throws on a trace: what cannot be computed is null.
run_answer analyse_run(const ingest::ingest_result& in, const std::vector<kernel_verdict>& v, const command_roofs& roofs,
                       const trace_summary& summary, std::vector<run_step> steps, step_rule rule, const run_model* model);

/// The op pattern of a fusion run (framework ops, aten:: dropped): "unfused cross-entropy loss" when
/// it holds log_softmax or nll_loss (the logits cast, log-softmax, NLL and their backward: what a fused
/// cross-entropy kernel does in one pass); "unfused RMSNorm" when it holds
/// pow, mean and rsqrt; "unfused LayerNorm" (native_layer_norm split, or var_mean); "SwiGLU
/// activation" (silu then mul); "GELU activation" (tanh or erf with mul/add); "RoPE" (cos/sin, or
/// neg with cat); "elementwise chain" otherwise.
std::string fusion_pattern_name(const std::vector<std::string>& ops);

/// The model op group of a catalogue op name (q_proj → "attention projections", gate_proj → "MLP",
/// input_norm → "norms", lm_head → "LM head", loss → "loss", …; a backward op's suffix .bwd /
/// .grad_input / .grad_weight / .recompute is its forward's group).
std::string model_op_group(const std::string& catalogue_op);

}  // namespace roofline
