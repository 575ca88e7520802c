// GPU small-work probe (docs/formulas-analysis.md §7.2).
//  floor: a CUDA graph of 100 dependent chain_step kernels (each adds 1 to the counter the previous
//         one wrote), full grid (SMs × 4 blocks of 256) and one block; per kernel = replay time ÷ 100
//         (CUDA events); the counter must equal 100 × replays. Switch floor: the same chain with every
//         second kernel another function (128 threads, 96 KiB dynamic shared memory, SMs blocks), as
//         a model step alternates different kernels.
//  ramp:  for S = 4 KiB × 4^i up to 1 GiB: a CUDA graph of K cold_read kernels, each reading its own
//         S-byte slot of an index-filled pool (≥ 1 GiB and ≥ 3 × L2), K = clamp(64 MiB ÷ S, 2, 100);
//         before each replay (outside the events) a read of 3 × L2 from another buffer evicts the
//         L2, so every kernel reads from HBM. Per kernel = replay time ÷ K, floor included. The sum
//         of every timed read is checked against its closed form Σ i.
#include "backends/cuda/probe_latency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/device_memory.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

namespace {

struct graph_exec {
  cudaGraphExec_t exec = nullptr;
  ~graph_exec() {
    if (exec) (void)cudaGraphExecDestroy(exec);
  }
};

/// Captures `enqueue` on `s` into an instantiated, uploaded graph.
void capture(cudaStream_t s, const std::function<void()>& enqueue, graph_exec& g) {
  cudaGraph_t graph = nullptr;
  ROOFLINE_CUDA_CALL(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  enqueue();
  const cudaError_t launch_err = cudaGetLastError();
  const cudaError_t end_err = cudaStreamEndCapture(s, &graph);
  ROOFLINE_CUDA_CALL(launch_err);
  ROOFLINE_CUDA_CALL(end_err);
  const cudaError_t inst = cudaGraphInstantiate(&g.exec, graph, 0);
  (void)cudaGraphDestroy(graph);
  ROOFLINE_CUDA_CALL(inst);
  ROOFLINE_CUDA_CALL(cudaGraphUpload(g.exec, s));
}

unsigned long long closed_sum(unsigned long long a, unsigned long long n) {
  const unsigned long long tri = n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
  return n * a + tri;
}

/// Per-kernel seconds of a chain of `kernels` chain_step<<<blocks>>> in one graph (`alternate`: every
/// second kernel chain_step_smem<<<alt_blocks>>> instead); checks the counter.
std::vector<double> chain_floor(cuda_env& env, unsigned blocks, int kernels, const timing_options& t,
                                bool alternate = false, unsigned alt_blocks = 1) {
  if (alternate) prepare_chain_step_smem();
  device_buffer counter(sizeof(unsigned long long));
  ROOFLINE_CUDA_CALL(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), env.stream));
  graph_exec g;
  capture(env.stream, [&] {
    for (int k = 0; k < kernels; ++k)
      if (alternate && k % 2 == 1)
        launch_chain_step_smem(counter.as<unsigned long long>(), alt_blocks, env.stream);
      else
        launch_chain_step(counter.as<unsigned long long>(), blocks, env.stream);
  }, g);
  unsigned long long replays = 0;
  const auto samples = time_repeated(
      [&] {
        ++replays;
        return time_on_stream(env.stream, [&] { ROOFLINE_CUDA_CALL(cudaGraphLaunch(g.exec, env.stream)); }) / kernels;
      },
      t);
  unsigned long long got = 0;
  ROOFLINE_CUDA_CALL(cudaMemcpy(&got, counter.get(), sizeof got, cudaMemcpyDeviceToHost));
  if (got != replays * static_cast<unsigned long long>(kernels))
    throw probe_error(fmt::format("latency/small-work: the kernel chain counted {} instead of {}", got,
                                  replays * static_cast<unsigned long long>(kernels)));
  return samples;
}

}  // namespace

small_work_result measure_small_work(cuda_env& env, const timing_options& timing, bool quick) {
  env.activate();
  timing_options t = timing;
  t.warmups = std::max(t.warmups, 3);
  t.min_repeats = std::max(t.min_repeats, 20);
  t.min_time_s = std::min(t.min_time_s, 0.05);
  t.max_time_s = std::min(t.max_time_s, 0.5);
  const int sms = std::max(1, env.sms);
  const unsigned full_grid = static_cast<unsigned>(sms * 4);
  constexpr int chain_kernels = 100;

  small_work_result r;
  r.floor_s = median(chain_floor(env, full_grid, chain_kernels, t));
  r.floor_one_block_s = median(chain_floor(env, 1, chain_kernels, t));
  r.floor_switch_s = median(chain_floor(env, full_grid, chain_kernels, t, true, static_cast<unsigned>(sms)));

  const std::size_t l2 = static_cast<std::size_t>(std::max<std::int64_t>(env.l2_bytes, 1 << 20));
  const std::size_t max_bytes = quick ? (std::size_t{64} << 20) : (std::size_t{1} << 30);
  const std::size_t pool_bytes = std::max(max_bytes, 3 * l2);
  device_buffer pool(pool_bytes), flush(3 * l2), sum(sizeof(unsigned long long)), flush_sum(sizeof(unsigned long long));
  const std::size_t pool_words = pool_bytes / 4;
  launch_fill_index(pool.as<std::uint32_t>(), pool_words, env.stream);
  ROOFLINE_CUDA_LAUNCH_CHECK();
  launch_fill_index(flush.as<std::uint32_t>(), flush.bytes() / 4, env.stream);
  ROOFLINE_CUDA_LAUNCH_CHECK();
  const unsigned max_blocks = static_cast<unsigned>(sms * 8);

  for (std::size_t bytes = 4096; bytes <= max_bytes; bytes *= 4) {
    const std::size_t words = bytes / 4;
    const std::size_t slots = pool_words / words;
    const int k = static_cast<int>(std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 2, 100));
    const int kernels = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(k), slots));
    std::vector<std::size_t> firsts;
    unsigned long long per_replay = 0;
    for (int i = 0; i < kernels; ++i) {
      const std::size_t slot = static_cast<std::size_t>(i) * slots / static_cast<std::size_t>(kernels);
      firsts.push_back(slot * words);
      per_replay += closed_sum(slot * words, words);
    }
    ROOFLINE_CUDA_CALL(cudaMemsetAsync(sum.get(), 0, sizeof(unsigned long long), env.stream));
    graph_exec g;
    capture(env.stream, [&] {
      for (const std::size_t f : firsts)
        launch_cold_read(pool.as<std::uint32_t>(), f, words, sum.as<unsigned long long>(), max_blocks, env.stream);
    }, g);
    unsigned long long replays = 0;
    const auto samples = time_repeated(
        [&] {
          // evict the L2 (a read of 3 × L2 of another buffer), outside the timed region
          launch_cold_read(flush.as<std::uint32_t>(), 0, flush.bytes() / 4, flush_sum.as<unsigned long long>(),
                           max_blocks, env.stream);
          ROOFLINE_CUDA_LAUNCH_CHECK();
          ++replays;
          return time_on_stream(env.stream, [&] { ROOFLINE_CUDA_CALL(cudaGraphLaunch(g.exec, env.stream)); }) / kernels;
        },
        t);
    unsigned long long got = 0;
    ROOFLINE_CUDA_CALL(cudaMemcpy(&got, sum.get(), sizeof got, cudaMemcpyDeviceToHost));
    if (got != replays * per_replay)
      throw probe_error(fmt::format("latency/small-work: cold reads of {} B summed to {} instead of {}", bytes, got,
                                    replays * per_replay));
    r.ramp.push_back({static_cast<double>(bytes), median(samples)});
  }
  r.verified = true;
  r.method = fmt::format(
      "floor: CUDA graph of {} dependent kernels (thread 0 adds 1 to the counter the previous kernel wrote), "
      "<<<{} x 256>>> (one-block variant <<<1 x 256>>> in floor_one_block_s; every second kernel another function, "
      "<<<{} x 128>>> with 96 KiB dynamic shared memory, in floor_switch_s), replay time / {} (events), median; "
      "ramp: CUDA graph of K = clamp(64 MiB / S, 2, 100) kernels each summing its own S-byte slot of a {} MiB pool "
      "(16-byte loads, <= {} blocks), L2 evicted before each replay by a read of 3 x L2 outside the events, per "
      "kernel = replay / K, floor included, median; every sum checked against its closed form",
      chain_kernels, full_grid, sms, chain_kernels, pool_bytes >> 20, max_blocks);
  return r;
}

}  // namespace roofline::cuda
