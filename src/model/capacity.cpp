// Device-memory need of one step, per GPU (docs/formulas-model.md §8.1): weights + KV cache +
// activations (+ gradients and optimizer state in training).
#include <algorithm>
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

namespace roofline {

memory_need estimate_memory(const model_config& cfg, const catalogue_options& opt, const std::vector<op_desc>& ops) {
  memory_need m;
  const int b = dtype_bytes(opt.dtype);
  const int kvb = opt.kv_dtype.empty() ? b : dtype_bytes(opt.kv_dtype);
  const double tp = opt.tp > 0 ? opt.tp : 1;
  const double P = double(cfg.parameters());  // every expert is resident, routed or not
  m.weights = P * b / tp;
  // MLA: every GPU keeps the whole latent cache (one row shared by all heads, replicated under tp).
  const double kv_share =
      cfg.mla() ? 1.0 : (cfg.kv_heads % opt.tp == 0 ? double(cfg.kv_heads) / tp : 1.0) / double(cfg.kv_heads);
  const std::int64_t cached = opt.ph == phase::decode ? opt.context + 1 : opt.seq;
  if (opt.ph != phase::train) m.kv_cache = double(opt.batch) * kv_cache_bytes(cfg, kvb, cached) * kv_share;
  if (opt.ph == phase::train) {
    // Mixed-precision Adam: fp16/bf16 weights (counted above) + gradients 2Ψ + fp32 master weights,
    // momentum and variance 12Ψ (ZeRO, Rajbhandari et al. 2020 §3.1: 16Ψ in all).
    m.optimizer = P * (2.0 + 12.0) / tp;
    // Saved activations per layer (Korthikanti et al. 2022, "Reducing Activation Recomputation",
    // §4.1 eq. 2-3, tensor parallel without sequence parallelism): s·b·h·(10 + 24/t + 5·a·s/(h·t))
    // bytes at 2-byte activations; the 5·a·s/h score term is absent with fused attention, and full
    // recompute keeps only each layer's input: 2·s·b·h.
    const double sbh = double(opt.seq) * double(opt.batch) * double(cfg.hidden);
    const double scores = opt.fused_attention ? 0 : 5.0 * double(cfg.heads) * double(opt.seq) / (double(cfg.hidden) * tp);
    const double per_layer = opt.recompute ? 2 * sbh : sbh * (10 + 24 / tp + scores);
    m.activations = double(cfg.layers) * per_layer * b / 2.0;
    m.activations += 2.0 * double(opt.batch) * double(opt.seq) * double(cfg.vocab) / tp * b;  // logits + their gradient
    m.note = "training: weights + gradients + fp32 Adam state (16 B/parameter, ZeRO §3.1) + saved activations "
             "(Korthikanti et al. 2022 eq. 2-3) + logits";
  } else {
    // Inference keeps one op's working set live at a time: the largest op's activations (inputs and
    // outputs, weights excluded).
    for (const auto& op : ops) {
      double act = op.bytes();
      if (op.kind == op_kind::gemm) act = (double(op.m) * double(op.k) + double(op.m) * double(op.n)) * op.dtype_bytes;
      const bool attention =
          op.kind == op_kind::attention_decode || op.kind == op_kind::attention_fused || op.kind == op_kind::attention_naive;
      if (attention && op.v_head_dim > 0)  // MLA: the queries and the output (the keys are the cache or kv_b_proj's output)
        act = double(op.batch) * double(op.q_len) * double(op.heads) * double(op.head_dim + op.v_head_dim) * op.dtype_bytes;
      else if (attention)
        act -= 2.0 * double(op.batch) * double(op.kv_len) * double(op.kv_heads) * double(op.head_dim) * op.kv_dtype_bytes;
      if (op.kind == op_kind::gemm && op.groups > 1) act *= double(op.groups);
      m.activations = std::max(m.activations, act);
    }
    m.note = "inference: weights + KV cache + the largest op's activations";
  }
  return m;
}

}  // namespace roofline
