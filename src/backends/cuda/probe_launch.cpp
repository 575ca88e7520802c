// Launch floor: an empty kernel <<<1, 1>>>.
//  alone: host clock from before the launch to the return of cudaStreamSynchronize (what one
//         dependent op pays), median over the repeats;
//  graph: a CUDA graph of 100 empty kernels, replay timed with events, divided by 100;
//  stream: 1000 back-to-back launches timed with events, divided by 1000 (reported in `method`).
#include <fmt/format.h>

#include "backends/cuda/launch_kernels.hpp"
#include "backends/cuda/probes.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

namespace {

struct graph_holder {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~graph_holder() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

}  // namespace

launch_result measure_launch(cuda_env& env, const timing_options& timing) {
  env.activate();
  timing_options t = timing;
  t.warmups = std::max(t.warmups, 10);
  t.min_repeats = std::max(t.min_repeats, 100);
  t.max_repeats = std::max(t.max_repeats, 1000);
  t.min_time_s = std::min(t.min_time_s, 0.05);
  const auto alone = time_repeated(
      [&] {
        const double t0 = now_s();
        launch_empty(env.stream);
        ROOFLINE_CUDA_LAUNCH_CHECK();
        ROOFLINE_CUDA_CALL(cudaStreamSynchronize(env.stream));
        return now_s() - t0;
      },
      t);

  constexpr int stream_batch = 1000;
  timing_options tb = timing;
  tb.min_time_s = std::min(tb.min_time_s, 0.05);
  const auto streamed = time_repeated(
      [&] {
        return time_on_stream(env.stream, [&] {
                 for (int i = 0; i < stream_batch; ++i) launch_empty(env.stream);
               }) / stream_batch;
      },
      tb);

  constexpr int graph_kernels = 100;
  graph_holder g;
  ROOFLINE_CUDA_CALL(cudaStreamBeginCapture(env.stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < graph_kernels; ++i) launch_empty(env.stream);
  const cudaError_t launch_err = cudaGetLastError();
  const cudaError_t end_err = cudaStreamEndCapture(env.stream, &g.graph);
  ROOFLINE_CUDA_CALL(launch_err);
  ROOFLINE_CUDA_CALL(end_err);
  ROOFLINE_CUDA_CALL(cudaGraphInstantiate(&g.exec, g.graph, 0));
  ROOFLINE_CUDA_CALL(cudaGraphUpload(g.exec, env.stream));
  const auto graphed = time_repeated(
      [&] { return time_on_stream(env.stream, [&] { ROOFLINE_CUDA_CALL(cudaGraphLaunch(g.exec, env.stream)); }) / graph_kernels; },
      tb);

  launch_result r;
  r.kernel_s = median(alone);
  r.graph_s = median(graphed);
  r.back_to_back_s = median(streamed);
  r.method = fmt::format(
      "empty kernel <<<1,1>>>: alone = host clock from launch to cudaStreamSynchronize return, median of {} "
      "(min {:.2f} µs); back-to-back on one stream = {:.2f} µs per kernel (events over {} launches, median of {}); "
      "graph = events around a replay of a {}-kernel CUDA graph / {}, median of {}",
      alone.size(), summarize(alone).min * 1e6, median(streamed) * 1e6, stream_batch, streamed.size(), graph_kernels,
      graph_kernels, graphed.size());
  return r;
}

}  // namespace roofline::cuda
