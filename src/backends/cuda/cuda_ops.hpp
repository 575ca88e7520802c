// The CUDA backend's model-op runner (src/backends/cuda/ops_*.cu): each op kind at its real shape,
// fp16/bf16, verified against a reference before its time counts. Host-only interface.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <map>
#include <utility>
#include <string>

#include "roofline/backend.hpp"
#include "roofline/whole_step.hpp"

namespace roofline::cuda {

class telemetry_sampler;

/// The implementation each op shape ran with the first time it was chosen in this run, by key (op
/// kind, dtype, shape; e.g. "gemm 1 4x5632x2048" → our GEMV, "lt …" → a cuBLASLt heuristic rank,
/// "decode-attention …" → one of our plans or a cuDNN plan). Runners that choose among candidates by
/// timing them look here first: the op table, the gemm/rows and decode-attention probes and the whole
/// step then run the same kernel for the same shape, so a step is timed with the kernels its ops were
/// measured and predicted with (a choice among candidates a few percent apart, redone by each caller,
/// could otherwise land on kernels that differ by more when run cold). One per backend (per device).
struct choice_memo {
  std::map<std::string, int> chosen;
  /// Where two implementations were timed for `key`: {the chosen one's, the other's} seconds when the
  /// choice was made (kernel_choice::chosen_s, over_s of a later, kept choice).
  std::map<std::string, std::pair<double, double>> times;
  /// The value stored under `key`, or null.
  const int* find(const std::string& key) const {
    const auto it = chosen.find(key);
    return it == chosen.end() ? nullptr : &it->second;
  }
};

/// What the op runner may use: the device's stream and a cuBLASLt handle + workspace.
struct op_context {
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  size_t l2_bytes = 0;  ///< for buffer rotation so small ops are not timed out of a warm L2
  /// Whole-step chaining (whole_step.cpp): when set, the runner's timing step hands its launch
  /// function and buffer-set count to this hook instead of timing the op alone, and returns its result.
  const step_hook* step = nullptr;
  /// The energy counter read around a whole step's timed replays (run_step); null: not read.
  const telemetry_sampler* sampler = nullptr;
  /// Choices among candidate implementations kept for the run (null: every call chooses afresh).
  choice_memo* memo = nullptr;
};

/// Runs `op` (every op_kind) at its shape, checks its output against a reference (fp32 on the GPU or
/// the host), times it with CUDA events through time_repeated(). Throws probe_error on a failed
/// check or an unsupported kind; device_lost_error when the context is gone.
op_timing run_op(const op_desc& op, const timing_options& timing, const op_context& ctx);

/// A whole step (whole_step.cpp): every op of `step` verified by its runner, then every launch of
/// step_order() captured into one CUDA graph (per-layer ops on buffer set layer mod sets), the graph
/// replayed and timed with CUDA events. Throws probe_error when an op cannot be captured.
op_timing run_step(const std::vector<op_desc>& step, const timing_options& timing, const op_context& ctx);

/// The fewest bytes (read + written) the CUDA kernel for `op` moves through device memory, as counted
/// in the opening comment of its ops_<kind>.cu file (e.g. silu_mul 3·n·b, silu 2·n·b, mul 3·n·b:
/// fused SwiGLU moves 3/5 of the unfused pair). 0 for an op it cannot run.
double kernel_bytes(const op_desc& op);

/// Runs naive and fused prefill attention of `op` (kind attention_naive or attention_fused: the shape
/// is what counts) on the same random inputs; returns ‖fused − naive‖ / ‖naive‖ (inf if any fused
/// output is not finite). Throws probe_error on a CUDA failure.
double fused_vs_naive_attention(const op_desc& op, const op_context& ctx);

}  // namespace roofline::cuda
