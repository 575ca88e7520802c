// Model FLOPs utilization (MFU) and hardware FLOPs utilization (HFU): pure functions.
// Formulas and sources: docs/formulas-analysis.md §4.
#pragma once
#include <cstdint>
#include <string>

namespace roofline {

/// How attention FLOPs are counted for a sequence of T tokens.
///  - full: every query attends to all T keys (PaLM appendix B: 12·L·H·Q·T per training token);
///  - causal_halved: a causal mask skips the upper triangle, halving the attention term.
enum class attention_convention { full, causal_halved };
std::string to_string(attention_convention c);
/// "full" | "halved" (also "causal_halved"); throws input_error(field "--causal").
attention_convention parse_attention_convention(const std::string& s);

/// Shape of a dense decoder-only transformer as the FLOP formulas need it.
struct transformer_dims {
  double params = 0;           ///< N: parameters counted as matmul weights (see each caller's convention)
  std::int64_t layers = 0;     ///< L
  std::int64_t heads = 0;      ///< H (query heads)
  std::int64_t head_dim = 0;   ///< Q
};

/// Attention score + value FLOPs per token per forward pass: 4·L·H·Q·T (QKᵀ and A·V, 2 FLOP per
/// multiply-add each), halved under causal_halved. T in tokens (sequence, or KV length in decode).
double attention_forward_flops_per_token(const transformer_dims& d, double T, attention_convention c);

/// Forward FLOPs per token: 2N + attention term (Kaplan et al. 2020, "Scaling Laws", §2.1 table 1:
/// C_forward ≈ 2N + 2·n_layer·n_ctx·d_attn, with both QKᵀ and A·V counted here as in PaLM).
double forward_flops_per_token(const transformer_dims& d, double T, attention_convention c);

/// Training FLOPs per token (forward + backward = 3 × forward): 6N + 12·L·H·Q·T
/// (Chowdhery et al. 2022, "PaLM", appendix B), 6N + 6·L·H·Q·T under causal_halved.
double training_flops_per_token(const transformer_dims& d, double T, attention_convention c);

/// FLOPs added by full activation recomputation (one extra forward): 2N + attention term. HFU counts
/// them, MFU does not (PaLM appendix B: 46.2% MFU vs 57.8% HFU for PaLM 540B).
double recompute_flops_per_token(const transformer_dims& d, double T, attention_convention c);

/// MFU = model FLOPs per token × tokens/s ÷ (dense peak FLOP/s per chip × chips) (PaLM appendix B).
/// `tokens_per_s` is the throughput of all `chips` together. Throws input_error when the peak is
/// marked sparse ("--peak": a sparse peak is not a peak), or any input is not finite and > 0.
double model_flops_utilization(double flops_per_token, double tokens_per_s, double peak_flops_per_chip,
                               int chips, bool peak_is_sparse = false);

}  // namespace roofline
