// Fused attention's rate (measured.gemm_attention, gemm "sdpa"): the compute side of fused prefill
// attention on a GPU (docs/formulas-analysis.md §7.1–7.2). The backend's own attention_fused op
// (cuDNN's fused SDPA where it loads, else roofline's kernel: ops_attention_fused.cu) runs through the
// op runner — verified against its reference, timed as the op table times it — at causal prefill
// shapes of 16 heads (MHA), 1024 and 4096 tokens (16 and 4 sequences: 16,384 query rows × 16 heads
// either way), head_dim 64 and 128, fp16 and bf16. FLOPs are the catalogue's for that shape
// (docs/formulas-model.md §3: causal-halved pairs × (4·head_dim + 5)), so a model's fused attention at
// another sequence length reads this rate log-log in its length, as a GEMM reads the square sweep.
#include <algorithm>
#include <fmt/format.h>

#include "backends/cuda/cuda_ops.hpp"
#include "backends/cuda/probes.hpp"
#include "roofline/measure.hpp"
#include "roofline/model.hpp"

namespace roofline::cuda {

std::vector<gemm_attention_result> measure_attention_rates(const op_context& ctx, const timing_options& timing, bool quick,
                                                           const std::string& model_precision) {
  const std::vector<std::int64_t> dims = quick ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{64, 128};
  const std::vector<std::int64_t> seqs = quick ? std::vector<std::int64_t>{2048} : std::vector<std::int64_t>{1024, 4096};
  constexpr std::int64_t heads = 16, rows = 16384;
  // The model's precision alone where it is one of the two (the latency model reads the rates of the
  // op's own precision); both otherwise.
  std::vector<std::string> dtypes{"fp16", "bf16"};
  if (model_precision == "fp16" || model_precision == "bf16") dtypes = {model_precision};
  std::vector<gemm_attention_result> out;
  for (const std::string& dtype : dtypes)
    for (const std::int64_t d : dims)
      for (const std::int64_t seq : seqs) {
        const std::int64_t batch = std::max<std::int64_t>(1, rows / seq);
        op_desc op = attention_op(op_kind::attention_fused, batch, heads, heads, d, seq, seq, 2, 2, true);
        op.name = "attention_fused";
        op.ph = phase::prefill;
        op.batch = batch, op.seq = seq;
        op.dtype = dtype;
        const op_timing t = run_op(op, timing, ctx);  // throws probe_error on a failed check
        gemm_attention_result g;
        g.precision = dtype;
        g.gemm = "sdpa";
        g.head_dim = d, g.tile_rows = seq, g.keys = seq;
        g.flops_per_s = t.best_seconds > 0 ? op.flops / t.best_seconds : 0;
        g.median_flops_per_s = t.seconds > 0 ? op.flops / t.seconds : 0;
        g.spread = 0;
        g.repeats = t.repeats;
        g.verified = true;
        g.method = fmt::format("{} at {} × [{} heads × {}] · [{} × {}], causal; FLOPs {:.4g} (causal-halved pairs × "
                               "(4·head_dim + 5)); {}; {}",
                               t.implementation, batch, heads, d, seq, seq, op.flops, t.note, dtype);
        out.push_back(std::move(g));
      }
  return out;
}

}  // namespace roofline::cuda
