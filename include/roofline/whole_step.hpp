// Whole-step measurement (results.whole_step[]): every op of one decode or prefill step, launched in
// the model's order — embedding, then each layer's ops layer by layer, then the final norm and the
// LM head — and timed as a unit (docs/formulas-analysis.md §8).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/measure.hpp"
#include "roofline/op_shapes.hpp"
#include "roofline/op_timing.hpp"
#include "roofline/results.hpp"

namespace roofline {

/// One launch of a whole step: op `op` (index into the step's op list), its `instance`-th launch in
/// the step (the layer index for per-layer ops, 0 for the others).
struct step_launch {
  std::size_t op = 0;
  std::int64_t instance = 0;
};

/// The launch order of `step` (one build_catalogue result): the ops before the first per-layer op
/// (count > 1) once, the contiguous block of per-layer ops `count` times (layer 0's ops, layer 1's,
/// …), the ops after it once. TinyLlama-1.1B decode: 1 + 22 × 15 + 2 = 333 launches.
/// Throws probe_error when the per-layer ops are not one contiguous block of equal counts, or an op
/// outside it has count ≠ 1.
std::vector<step_launch> step_order(const std::vector<op_desc>& step);

/// What an op's runner chose to launch: the implementation's text (op_timing::implementation) and,
/// where the runner knows it, what one launch executes (op_timing::executed). Built from the text
/// alone where the FLOPs are the model's.
struct step_kernel {
  std::string implementation;
  std::optional<executed_flops> executed;
  step_kernel(std::string impl = {}, std::optional<executed_flops> e = std::nullopt)  // NOLINT: implicit from text
      : implementation(std::move(impl)), executed(e) {}
  step_kernel(const char* impl) : implementation(impl) {}  // NOLINT: implicit from text
};

/// Runs one op's runner with a hook; the runner calls the hook with its launch function (launch(set)
/// runs the op once on buffer set `set`), the number of buffer sets and the kernel it chose, after
/// verifying the op and while its buffers are alive, and returns what the hook returns.
using step_launch_fn = std::function<void(int set)>;
using step_hook = std::function<op_timing(int n_sets, const step_launch_fn& launch, const step_kernel& kernel)>;
using run_with_hook = std::function<op_timing(const op_desc& op, const step_hook& hook)>;
/// What the timing function gets: per op of the step, its launch function, number of sets and
/// kernel.
struct captured_op {
  int n_sets = 1;
  const step_launch_fn* launch = nullptr;
  std::string implementation;
  std::optional<executed_flops> executed;  ///< per launch; absent: the op's model FLOPs
};

/// What the whole `step` executes (Σ over ops of count × executed per launch; an op whose runner did
/// not say counts its model FLOPs, op_desc::flops, as tensor); absent when no runner said (a CPU step).
std::optional<executed_flops> step_executed(const std::vector<op_desc>& step, const std::vector<captured_op>& ops);

/// "ops as run: name — implementation | …" over `step`'s ops (each implementation up to its first
/// "; ", the part that names the kernel), for a whole step's note: what the step ran, to set beside
/// what each op was measured with alone. Ops without an implementation are left out.
std::string step_implementations(const std::vector<op_desc>& step, const std::vector<captured_op>& ops);
using time_step_fn = std::function<op_timing(const std::vector<captured_op>& ops)>;

/// Chains the runners: op 0's hook runs op 1's runner, …, the last op's hook calls `time_step` with
/// every launch function alive at once (each op verified first). Throws probe_error naming the op
/// whose runner returned without calling its hook (it cannot be part of a whole step).
op_timing chain_step(const std::vector<op_desc>& step, const run_with_hook& run, const time_step_fn& time_step);

/// How one whole step's replays are timed (docs/formulas-analysis.md §8, §10).
struct step_replay_plan {
  timing_options timing;
  /// Replayed for at least `energy_window_s` (× 1.05), so the energy counter's window gives a power and the
  /// step a measured J/token: every decode step on a GPU (not --quick).
  bool energy = false;
  /// The replays' predicted cost (s): the warm-up step and the longer of the minimum repeats × the step
  /// and the minimum replay time. What a sweep budget counts before running the step.
  double cost_s = 0;
};

/// The replay plan of one whole step predicted to take `predicted_s`: --quick: quick_timing(); a CPU:
/// 1 warm-up, 3–10 repeats over at least 0.2 s; a GPU decode step: 1 warm-up, at least 10 replays and
/// 1.05 × `energy_window_s` of them (at most 4 s), for its energy reading; a GPU prefill step: 1 warm-up,
/// 10–200 replays over at least 0.2 s, for its time. Worked: a 1.23 ms decode step, window 1 s → at least
/// 1.05 s of replays, cost 1.23 ms + max(10 × 1.23 ms, 1.05 s) = 1.0512 s.
step_replay_plan plan_step_replays(bool gpu, bool quick, bool decode, double predicted_s, double energy_window_s);

/// Σ predicted_s × count over `step`'s placed ops.
double sum_predicted(const std::vector<op_result>& placed);
/// The whole step's prediction (s): sum_predicted(placed) + kernels × switch_s, `kernels` the step's
/// launches (step_order) and switch_s the per-kernel cost of a chain of different kernels beyond the
/// floor each op's prediction holds (latency_model::switch_s; docs/formulas-analysis.md §7.1).
double predict_step(const std::vector<op_result>& placed, std::int64_t kernels, double switch_s);

}  // namespace roofline
