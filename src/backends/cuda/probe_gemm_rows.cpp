// GEMM rate against rows at the model's own linear weights (measured.gemm_rows with `linears`): the
// compute side of decode-sized linears on a GPU (docs/formulas-analysis.md §7.2). For each distinct
// weight N × K of the decode step (TinyLlama: 2048 × 2048 for q_proj and o_proj, 256 × 2048 for
// k_proj and v_proj, …) and each batch M the op table and the step sweep run, the backend's gemm op
// runs through the op runner — the fastest verified of cuBLASLt's heuristic candidates and, for
// M ≤ 8, roofline's GEMV — with its weight cold (buffer sets rotated past L2), timed as CUDA-graph
// replays. A narrow weight at a few rows gives the library few output tiles to spread over the SMs,
// which the square sweep's rate at the same FLOPs does not show (H200: k_proj, 256 × 2048,
// ran 2.8× its prediction at M = 16 and 1.1× at M = 32); the latency model reads these points by
// (M, N, K). FLOPs 2·M·N·K (+ M·N with a bias: the catalogue's).
// The model's decode attention likewise (gemm/decode-attention): at few sequences a flash-decoding
// kernel splits the cache over blocks and combines the splits in a second phase, which a read of its
// bytes at the ramp's rate does not show (H200: 2.5× that prediction at batch 1, 1.3×
// at 16); the latency model reads these points by (heads, kv_heads, head_dim, kv_len), log-log in
// the batch.
#include <fmt/format.h>

#include "backends/cuda/cuda_ops.hpp"
#include "backends/cuda/probes.hpp"

namespace roofline::cuda {

std::vector<gemm_rows_result> measure_gemm_rows(const op_context& ctx, const std::vector<op_desc>& ops,
                                                const timing_options& timing) {
  std::vector<gemm_rows_result> out;
  for (const op_desc& op : ops) {
    const op_timing t = run_op(op, timing, ctx);  // throws probe_error on a failed check
    gemm_rows_result g;
    g.precision = op.dtype;
    g.m = op.m, g.n = op.n, g.k = op.k;
    g.flops_per_s = t.best_seconds > 0 ? op.flops / t.best_seconds : 0;
    g.median_flops_per_s = t.seconds > 0 ? op.flops / t.seconds : 0;
    g.spread = 0;
    g.repeats = t.repeats;
    g.verified = true;
    g.linears = op.name;
    g.method = fmt::format("{} {}: {}; {}", op.name, op.shape, t.implementation, t.note);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<gemm_attention_result> measure_decode_attention(const op_context& ctx, const std::vector<op_desc>& ops,
                                                            const timing_options& timing) {
  std::vector<gemm_attention_result> out;
  for (const op_desc& op : ops) {
    const op_timing t = run_op(op, timing, ctx);  // throws probe_error on a failed check
    gemm_attention_result g;
    g.precision = op.dtype;
    g.gemm = "decode";
    g.head_dim = op.head_dim, g.keys = op.kv_len;
    g.tile_rows = op.kv_heads > 0 ? op.heads / op.kv_heads : 1;
    g.batch = op.batch, g.heads = op.heads, g.kv_heads = op.kv_heads;
    g.flops_per_s = t.best_seconds > 0 ? op.flops / t.best_seconds : 0;
    g.median_flops_per_s = t.seconds > 0 ? op.flops / t.seconds : 0;
    g.repeats = t.repeats;
    g.verified = true;
    g.method = fmt::format("{} {}: {}; {}", op.name, op.shape, t.implementation, t.note);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace roofline::cuda
