// The whole step on the GPU: every op's runner allocates and verifies its op, then hands over its
// launch (op_context::step); with every launch alive, the launches of step_order() — embedding,
// layer 0's ops, layer 1's, …, final norm, LM head — are captured into ONE CUDA graph on the
// device's stream and the graph is replayed and timed with CUDA events through time_repeated().
// Per-layer ops launch on buffer set (layer mod sets): each layer reads its own weights and KV cache
// where the runner's rotation holds more than one set (sets are sized so their total exceeds 3 × L2).
#include <cuda_profiler_api.h>
#include <fmt/format.h>

#include <cstdlib>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/cuda_ops.hpp"
#include "backends/cuda/device_memory.hpp"
#include "backends/cuda/telemetry_sampler.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

namespace {

/// ROOFLINE_PROFILE_STEP=B (a decode batch, or "all"): the step at that batch replays once more, before
/// its timed replays and outside their energy window, between cudaProfilerStart and cudaProfilerStop, so
/// that `ncu --profile-from-start off` collects counters of exactly one whole step's kernels
/// (docs/methodology-gpu-ops.md, "Counters of one whole step").
bool profile_this_step(const std::vector<op_desc>& step) {
  const char* v = std::getenv("ROOFLINE_PROFILE_STEP");
  if (!v || !*v || step.empty() || step.front().ph != phase::decode) return false;
  return std::string(v) == "all" || std::atoll(v) == step.front().batch;
}

}  // namespace

op_timing run_step(const std::vector<op_desc>& step, const timing_options& timing, const op_context& ctx) {
  ROOFLINE_CUDA_CALL(cudaSetDevice(ctx.device));
  const auto order = step_order(step);
  const run_with_hook run = [&](const op_desc& op, const step_hook& hook) {
    op_context c = ctx;
    c.step = &hook;
    return cuda::run_op(op, timing, c);
  };
  const time_step_fn time_step = [&](const std::vector<captured_op>& ops) {
    cudaGraph_t graph = nullptr;
    ROOFLINE_CUDA_CALL(cudaStreamBeginCapture(ctx.stream, cudaStreamCaptureModeThreadLocal));
    std::string why;
    try {
      for (const auto& l : order) {
        const captured_op& c = ops[l.op];
        (*c.launch)(static_cast<int>(l.instance % c.n_sets));
      }
    } catch (const std::exception& e) {
      why = e.what();
    }
    const cudaError_t launch_err = cudaGetLastError();
    const cudaError_t end_err = cudaStreamEndCapture(ctx.stream, &graph);
    if (!why.empty()) {
      if (graph) (void)cudaGraphDestroy(graph);
      throw probe_error("whole step: capturing the step into a CUDA graph failed: " + why);
    }
    ROOFLINE_CUDA_CALL(launch_err);
    ROOFLINE_CUDA_CALL(end_err);
    cudaGraphExec_t exec = nullptr;
    const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    std::size_t nodes = 0;
    (void)cudaGraphGetNodes(graph, nullptr, &nodes);
    (void)cudaGraphDestroy(graph);
    ROOFLINE_CUDA_CALL(inst);
    std::vector<double> samples;
    std::optional<energy_window> energy;
    try {
      ROOFLINE_CUDA_CALL(cudaGraphUpload(exec, ctx.stream));
      if (profile_this_step(step)) {
        ROOFLINE_CUDA_CALL(cudaStreamSynchronize(ctx.stream));
        ROOFLINE_CUDA_CALL(cudaProfilerStart());
        ROOFLINE_CUDA_CALL(cudaGraphLaunch(exec, ctx.stream));
        ROOFLINE_CUDA_CALL(cudaStreamSynchronize(ctx.stream));
        ROOFLINE_CUDA_CALL(cudaProfilerStop());
      }
      // the energy counter around the replays (warm-up included: the window is all back-to-back replays)
      const energy_mark e0 = ctx.sampler ? ctx.sampler->mark() : energy_mark{now_s(), {}};
      samples = time_repeated(
          [&] { return time_on_stream(ctx.stream, [&] { ROOFLINE_CUDA_CALL(cudaGraphLaunch(exec, ctx.stream)); }); },
          timing);
      ROOFLINE_CUDA_CALL(cudaStreamSynchronize(ctx.stream));
      if (ctx.sampler) energy = ctx.sampler->energy_between(e0, ctx.sampler->mark());
    } catch (...) {
      (void)cudaGraphExecDestroy(exec);
      throw;
    }
    (void)cudaGraphExecDestroy(exec);
    const stats_summary st = summarize(samples);
    op_timing r;
    r.seconds = st.median;
    r.best_seconds = st.min;
    r.repeats = st.n;
    r.energy = energy;
    r.note = fmt::format(
        "one CUDA graph of {} launches ({} graph nodes) of {} distinct ops, each verified by its runner first; "
        "per-layer ops on buffer set (layer mod sets); each op reads its own inputs (not the previous op's output); "
        "replay timed with CUDA events, median of {}; {}",
        order.size(), nodes, step.size(), st.n, step_implementations(step, ops));
    return r;
  };
  return chain_step(step, run, time_step);
}

}  // namespace roofline::cuda
