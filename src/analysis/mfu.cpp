// MFU / HFU core. Sources: PaLM (Chowdhery et al. 2022) appendix B; Kaplan et al. 2020 §2.1.
#include "roofline/mfu.hpp"

#include <cmath>
#include <fmt/format.h>

#include "roofline/error.hpp"

namespace roofline {

std::string to_string(attention_convention c) {
  return c == attention_convention::full ? "full" : "causal_halved";
}

attention_convention parse_attention_convention(const std::string& s) {
  if (s == "full") return attention_convention::full;
  if (s == "halved" || s == "causal_halved") return attention_convention::causal_halved;
  throw input_error("", "--causal", "unknown convention '" + s + "' (expected full or halved)");
}

double attention_forward_flops_per_token(const transformer_dims& d, double T, attention_convention c) {
  // QKᵀ: 2·H·Q·T per token per layer; A·V: the same. Causal masking skips half the pairs on average.
  const double full = 4.0 * static_cast<double>(d.layers) * static_cast<double>(d.heads) *
                      static_cast<double>(d.head_dim) * T;
  return c == attention_convention::full ? full : full / 2.0;
}

double forward_flops_per_token(const transformer_dims& d, double T, attention_convention c) {
  return 2.0 * d.params + attention_forward_flops_per_token(d, T, c);
}

double training_flops_per_token(const transformer_dims& d, double T, attention_convention c) {
  return 3.0 * forward_flops_per_token(d, T, c);  // 6N + 12·L·H·Q·T (full)
}

double recompute_flops_per_token(const transformer_dims& d, double T, attention_convention c) {
  return forward_flops_per_token(d, T, c);
}

double model_flops_utilization(double flops_per_token, double tokens_per_s, double peak_flops_per_chip,
                               int chips, bool peak_is_sparse) {
  if (peak_is_sparse)
    throw input_error("", "--peak", "a sparse peak is not a peak: MFU is defined against the dense peak");
  auto check = [](double v, const char* field) {
    if (!std::isfinite(v) || v <= 0) throw input_error("", field, fmt::format("must be a finite number > 0 (got {})", v));
  };
  check(flops_per_token, "flops per token");
  check(tokens_per_s, "tokens/s");
  check(peak_flops_per_chip, "--peak");
  if (chips < 1) throw input_error("", "--gpus", fmt::format("must be >= 1 (got {})", chips));
  return flops_per_token * tokens_per_s / (peak_flops_per_chip * chips);
}

}  // namespace roofline
