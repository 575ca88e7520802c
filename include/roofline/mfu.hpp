// Model FLOPs utilization (MFU) and hardware FLOPs utilization (HFU). Model FLOPs per token come
// from the one model, model_flops_per_token (roofline/model.hpp). Formulas: docs/formulas-analysis.md §4.
#pragma once

namespace roofline {

/// MFU = model FLOPs per token × tokens/s ÷ (dense peak FLOP/s per chip × chips) (PaLM, Chowdhery
/// et al. 2022, appendix B); HFU is the same with the recomputed FLOPs added to the numerator.
/// `tokens_per_s` is the throughput of all `chips` together. Throws input_error when the peak is
/// marked sparse ("--peak": a sparse peak is not a peak), or any input is not finite and > 0.
double model_flops_utilization(double flops_per_token, double tokens_per_s, double peak_flops_per_chip,
                               int chips, bool peak_is_sparse = false);

}  // namespace roofline
