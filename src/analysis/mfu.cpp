// MFU / HFU. Source: PaLM (Chowdhery et al. 2022) appendix B.
#include "roofline/mfu.hpp"

#include <cmath>
#include <fmt/format.h>

#include "roofline/error.hpp"

namespace roofline {

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
