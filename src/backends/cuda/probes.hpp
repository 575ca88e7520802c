// The CUDA probes (one file each): they append to measured_roofs, time through time_repeated with
// CUDA events on env.stream, verify every output, and attach the NVML telemetry of their window.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_env.hpp"
#include "backends/cuda/cuda_ops.hpp"
#include "roofline/backend.hpp"
#include "roofline/json.hpp"

namespace roofline::cuda {

/// bandwidth/read, bandwidth/write, bandwidth/copy, bandwidth/triad (probe_bandwidth.cpp).
std::vector<probe> bandwidth_probes(cuda_env& env, const probe_options& opt);
/// compute/fp64, compute/fp32, compute/fp16 (probe_compute.cpp).
std::vector<probe> compute_probes(cuda_env& env, const probe_options& opt);
/// gemm/fp16, gemm/fp16-acc16, gemm/bf16, gemm/tf32, gemm/fp8, gemm/int8 (probe_gemm.cpp).
std::vector<probe> gemm_probes(cuda_env& env, const probe_options& opt);

/// The GEMM probe's chosen algorithm for one square size, held ready to run (probe_gemm.cpp): the
/// same buffer sets (rotated, > 3× L2), the same candidates (up to 8 cuBLASLt heuristic algorithms per
/// layout, each verified) and the same trial and final round as the probe. bench/gemm_pair.cpp uses
/// it to time roofline's choice in alternation with PyTorch's matmul in one process.
class gemm_choice {
 public:
  /// `probe`: a GEMM probe's name without "gemm/" ("fp16", "fp16-acc16", "bf16", "fp32", "tf32",
  /// "fp8", "int8"); n: M = N = K. Throws probe_error for an unknown name, a type this GPU lacks, too
  /// little device memory, or no candidate that runs and verifies.
  gemm_choice(cuda_env& env, const std::string& probe, std::int64_t n);
  ~gemm_choice();
  gemm_choice(const gemm_choice&) = delete;
  gemm_choice& operator=(const gemm_choice&) = delete;
  /// Seconds per matmul: `inner` (>= 1) matmuls back to back on env.stream, timed by CUDA events
  /// (synchronous).
  double seconds_per_matmul(int inner);
  /// The chosen algorithm as compute_result::algo records it (tile, cluster, stages, split-K, layout,
  /// heuristic rank, candidates tried, library and version).
  json config() const;
  /// Runs the chosen algorithm once more into a poisoned output and checks 16 entries; throws probe_error.
  void verify();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Fused attention's rate (probe_attention.cpp, probe "gemm/attention"): the backend's attention_fused
/// op through the op runner at causal prefill shapes (16 heads, 1024 and 4096 tokens, head_dim 64 and
/// 128; quick: 2048 tokens, head_dim 64), fp16 and bf16, as measured.gemm_attention entries with gemm
/// "sdpa", tile_rows = keys = tokens, FLOP/s from the catalogue's FLOPs. Throws probe_error on a
/// failed check.
/// `model_precision` "fp16" or "bf16": that precision's shapes only; anything else: both.
std::vector<gemm_attention_result> measure_attention_rates(const op_context& ctx, const timing_options& timing, bool quick,
                                                           const std::string& model_precision = "");

/// GEMM rate against rows at the model's linear weights (probe_gemm_rows.cpp, probe "gemm/rows"): each
/// op of `ops` (the gemm ops of probe_options::model_decode_ops: one per weight N × K and batch M) through the op runner,
/// as measured.gemm_rows entries with `linears` = the op's name, FLOP/s from the catalogue's FLOPs
/// over the best and the median replay. Throws probe_error on a failed check.
std::vector<gemm_rows_result> measure_gemm_rows(const op_context& ctx, const std::vector<op_desc>& ops,
                                                const timing_options& timing);
/// The model's decode attention at each batch (probe_gemm_rows.cpp, probe "gemm/decode-attention"):
/// each attention_decode op of `ops` through the op runner (roofline's flash-decoding kernel or
/// cuDNN's fused SDPA, the faster verified), as measured.gemm_attention entries with gemm "decode",
/// batch, heads, kv_heads, head_dim, keys = kv_len, tile_rows = heads ÷ kv_heads, FLOP/s from the
/// catalogue's FLOPs. Throws probe_error on a failed check.
std::vector<gemm_attention_result> measure_decode_attention(const op_context& ctx, const std::vector<op_desc>& ops,
                                                            const timing_options& timing);

/// Launch floor (probe_launch.cpp): the empty kernel alone (host clock, launch to synchronize) and per
/// kernel in a CUDA graph of 100.
launch_result measure_launch(cuda_env& env, const timing_options& timing);

}  // namespace roofline::cuda
