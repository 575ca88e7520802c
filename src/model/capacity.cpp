// Device-memory need of one step, per GPU (docs/formulas-model.md §8.1): weights + KV cache +
// activations (+ gradients and optimizer state in training).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"
#include "roofline/units.hpp"

namespace roofline {

namespace {

/// One GPU's linear weights (every layer, every resident expert, in their formats) and the unsharded
/// model's linear parameters: from the catalogue's own GEMMs, so memory and the step's bytes read the
/// same weights (the one weight-format path, linear_format). `note` says which formats were counted.
struct linear_weights {
  double bytes_per_gpu = 0;      ///< Σ weight_tensor_bytes of this GPU's shards × count × resident instances
  double parameters = 0;         ///< Σ k·n of the whole model's linears (every expert)
};
linear_weights count_linears(const model_config& cfg, const catalogue_options& opt, std::string& note) {
  catalogue_options one = opt;
  one.ph = phase::decode, one.batch = 1, one.context = 1, one.last_logits = false;
  one.mla = catalogue_options::mla_form::automatic;
  const weight_scheme scheme = step_weights(cfg, one);
  linear_weights w;
  double linear = 0, kept = 0;
  auto count = [&](const std::vector<op_desc>& ops, int ep, bool per_gpu) {
    for (const op_desc& op : ops) {
      if (op.kind != op_kind::gemm) continue;
      const bool routed = op.name.rfind("expert_", 0) == 0;
      // the grouped expert GEMMs carry the expected experts' weights: count each resident expert once
      const double resident = routed ? double(cfg.experts) / double(ep) : 1.0;
      std::string why;
      const std::string module = op.name == "q_absorb" || op.name == "v_absorb" ? "kv_b_proj" : op.name;
      const weight_quant q = linear_format(cfg, scheme, opt.dtype, module, &why);
      const double per_instance = weight_tensor_bytes(q, op.k, op.n) * double(op.groups);
      if (per_gpu) {
        w.bytes_per_gpu += per_instance * double(op.count) * resident;
        (why.empty() ? linear : kept) += per_instance * double(op.count) * resident;
      } else {
        w.parameters += double(op.k) * double(op.n) * double(op.groups) * double(op.count) * (routed ? double(cfg.experts) : 1.0);
      }
    }
  };
  catalogue_options whole = one;
  whole.tp = 1, whole.ep = 1;
  count(build_catalogue(cfg, whole), 1, false);
  count(build_catalogue(cfg, one), one.ep, true);
  if (!scheme.quantized)
    note = fmt::format("every weight in {}", opt.dtype);
  else
    note = fmt::format("linears {}: {}; in {}: lm_head and unconverted linears {}, the embedding table, norms, biases",
                       scheme.linear.label(), units::si(linear, "B"), opt.dtype, units::si(kept, "B"));
  if (opt.tp > 1) note += fmt::format(" (per GPU at tp {}{})", opt.tp, opt.ep > 1 ? fmt::format(", ep {}", opt.ep) : "");
  return w;
}

}  // namespace

memory_need estimate_memory(const model_config& cfg, const catalogue_options& opt, const std::vector<op_desc>& ops) {
  memory_need m;
  const int b = dtype_bytes(opt.dtype);
  const int kvb = opt.kv_dtype.empty() ? b : dtype_bytes(opt.kv_dtype);
  const double tp = opt.tp > 0 ? opt.tp : 1;
  const double P = double(cfg.parameters());  // every expert is resident, routed or not
  // This GPU's linears as the catalogue shards them, plus the rest (embedding table, norms, biases:
  // vocab-parallel or replicated, ÷ tp: the replicated norms are < 0.01 % of a model).
  const linear_weights lw = count_linears(cfg, opt, m.weights_note);
  m.linear_weights = lw.bytes_per_gpu;
  m.weights = lw.bytes_per_gpu + (P - lw.parameters) * b / tp;
  // One KV share for every attention kind: tp_shard's K/V heads (MLA: the whole latent on every GPU).
  const std::int64_t cached = opt.ph == phase::decode ? opt.context + 1 : opt.seq;
  if (opt.ph != phase::train) m.kv_cache = double(opt.batch) * kv_cache_bytes_per_gpu(cfg, kvb, cached, opt.tp);
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

std::int64_t sequences_that_fit(const model_config& cfg, const catalogue_options& opt, const memory_need& need,
                                double device_bytes) {
  const int kvb = dtype_bytes(opt.kv_dtype.empty() ? opt.dtype : opt.kv_dtype);
  const double per_sequence = kv_cache_bytes_per_gpu(cfg, kvb, opt.context + 1, opt.tp);
  const double room = device_bytes - need.weights - need.activations;
  if (!(room > 0) || !(per_sequence > 0)) return 0;
  return std::int64_t(std::floor(room / per_sequence));
}

}  // namespace roofline
