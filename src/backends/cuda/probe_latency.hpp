// The GPU's small-work regime (measured.small_work): the per-kernel floor of a chain of dependent
// kernels inside a CUDA graph, and the time of a cold read from device memory, 4 KiB … 1 GiB (the
// ramp). Kernels in probe_latency.cu, the probe in probe_latency.cpp. docs/formulas-analysis.md §7.2.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/cuda_env.hpp"
#include "roofline/backend.hpp"

namespace roofline::cuda {

/// chain_step<<<blocks, 256>>>: thread 0 of block 0 adds 1 to *counter (every other thread exits):
/// a kernel that does nothing but depend on the one before it. The caller checks the launch.
void launch_chain_step(unsigned long long* counter, unsigned blocks, cudaStream_t s);
/// Dynamic shared memory of chain_step_smem (96 KiB: above the 48 KiB default, so opted in).
inline constexpr int chain_smem_bytes = 96 * 1024;
/// Opts chain_step_smem in to chain_smem_bytes of dynamic shared memory (once, before capture).
void prepare_chain_step_smem();
/// chain_step_smem<<<blocks, 128, chain_smem_bytes>>>: adds 1 to the counter like chain_step.
void launch_chain_step_smem(unsigned long long* counter, unsigned blocks, cudaStream_t s);

/// cold_read: sums the 32-bit words [first, first + words) of `pool` (16-byte loads, grid-stride,
/// 4 loads in flight per thread) and atomically adds the sum to *sum (one atomic per block).
/// `words` must be a multiple of 4 and `first` 4-aligned. Grid: enough 256-thread blocks for the
/// bytes, at most `max_blocks`.
void launch_cold_read(const std::uint32_t* pool, std::size_t first, std::size_t words, unsigned long long* sum,
                      unsigned max_blocks, cudaStream_t s);

/// pool[i] = i for i < words (so a read of [a, a + n) sums to n·a + n(n − 1)/2).
void launch_fill_index(std::uint32_t* pool, std::size_t words, cudaStream_t s);

/// Measures floor and ramp on env's device (quick: ramp up to 64 MiB). Throws probe_error on a CUDA
/// failure or a failed check (the chain's counter, the reads' sums).
small_work_result measure_small_work(cuda_env& env, const timing_options& timing, bool quick);

}  // namespace roofline::cuda
