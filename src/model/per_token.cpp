// Per-token FLOPs and KV-cache bytes of a model (docs/formulas-model.md §5).
#include <algorithm>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

namespace roofline {

std::int64_t matmul_parameters(const model_config& c) {
  const std::int64_t h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim, f = c.intermediate;
  const std::int64_t per_layer = c.family == "gpt2" ? h * 3 * q + q * h + 2 * h * f  // c_attn, c_proj, c_fc, c_proj
                                                    : h * q + 2 * h * kv + q * h + 3 * h * f;
  return c.layers * per_layer + c.vocab * h;  // lm_head multiplies even when tied to the embedding
}

double model_flops_per_token(const model_config& c, phase ph, std::int64_t t, bool causal_halved) {
  if (t <= 0) throw input_error("", ph == phase::decode ? "--context" : "--seq", "must be positive");
  const double N = double(matmul_parameters(c));
  const double lhq = double(c.layers) * double(c.heads) * double(c.head_dim);
  const double T = double(t);
  switch (ph) {
    case phase::decode:  // one query against T cached keys (the last `sliding_window` of them): no mask
      return 2 * N + 4 * lhq * (c.sliding_window > 0 ? std::min(T, double(c.sliding_window)) : T);
    case phase::prefill:  // average context of a causal sequence: T/2
      return 2 * N + 4 * lhq * (causal_halved ? T / 2 : T);
    case phase::train:  // PaLM appendix B: 6N + 12·L·H·Q·T; halved: 6·L·H·Q·T
      return 6 * N + 12 * lhq * (causal_halved ? T / 2 : T);
  }
  return 0;
}

double kv_cache_bytes_per_token(const model_config& c, int kv_dtype_bytes) {
  return 2.0 * double(c.layers) * double(c.kv_heads) * double(c.head_dim) * kv_dtype_bytes;
}

}  // namespace roofline
