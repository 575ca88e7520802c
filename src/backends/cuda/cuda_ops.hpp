// The CUDA backend's model-op runner (src/backends/cuda/ops_*.cu): each op kind at its real shape,
// fp16/bf16, verified against a reference before its time counts. Host-only interface.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime.h>

#include "roofline/backend.hpp"

namespace roofline::cuda {

/// What the op runner may use: the device's stream and a cuBLASLt handle + workspace.
struct op_context {
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  size_t l2_bytes = 0;  ///< for buffer rotation so small ops are not timed out of a warm L2
};

/// Runs `op` (every op_kind) at its shape, checks its output against a reference (fp32 on the GPU or
/// the host), times it with CUDA events through time_repeated(). Throws probe_error on a failed
/// check or an unsupported kind; device_lost_error when the context is gone.
op_timing run_op(const op_desc& op, const timing_options& timing, const op_context& ctx);

/// The fewest bytes (read + written) the CUDA kernel for `op` moves through device memory, as counted
/// in the opening comment of its ops_<kind>.cu file (e.g. silu_mul 3·n·b, silu 2·n·b, mul 3·n·b:
/// fused SwiGLU moves 3/5 of the unfused pair). 0 for an op it cannot run.
double kernel_bytes(const op_desc& op);

/// Runs naive and fused prefill attention of `op` (kind attention_naive or attention_fused: the shape
/// is what counts) on the same random inputs; returns ‖fused − naive‖ / ‖naive‖ (inf if any fused
/// output is not finite). Throws probe_error on a CUDA failure.
double fused_vs_naive_attention(const op_desc& op, const op_context& ctx);

}  // namespace roofline::cuda
