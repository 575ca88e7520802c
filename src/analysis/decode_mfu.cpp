// MFU and HFU of the measured decode steps. docs/formulas-analysis.md §4.
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/decode_mfu.hpp"
#include "roofline/model_record.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

decode_mfu analyse_mfu(const results& r) {
  const roofline_summary& s = r.roofline;
  decode_mfu out;
  out.precision = s.precision;
  if (s.peak_nominal > 0) out.peak_nominal = s.peak_nominal;
  if (s.peak_measured > 0) out.peak_measured = s.peak_measured;
  out.convention = "model FLOPs = Σ op FLOPs × count of the decode step (the op catalogue: every linear, "
                   "attention over the KV cache, elementwise ops); tokens per step = batch; TPOT = the "
                   "user's --tpot at batch 1 when given, else the measured whole decode step (every op of every layer "
                   "as one CUDA graph / one CPU pass, whole_step[]) when measured, else Σ measured op time × count "
                   "(kernels back to back, no host overhead); HFU = MFU (inference recomputes nothing)";
  const std::vector<std::int64_t> batches = decode_batches(r);
  std::int64_t context = 0;
  for (const std::int64_t b : batches) {
    const decode_step d = decode_step_at(r, b);
    context = d.context;
    mfu_scenario& e = out.scenarios.emplace_back();
    e.batch = b, e.context = d.context, e.step_flops = d.flops, e.step_bytes = d.bytes;
    e.flops_per_token = d.flops / static_cast<double>(b);
    if (d.bytes > 0) e.intensity = d.flops / d.bytes;
    e.predicted_tpot_s = d.predicted_s;
    const double intensity = e.intensity.value_or(0);
    if (s.ridge_nominal && *s.ridge_nominal > 0 && intensity > 0)
      e.mfu_ceiling_nominal = std::min(1.0, intensity / *s.ridge_nominal);  // MFU ≈ intensity ÷ ridge
    if (s.ridge_measured > 0 && intensity > 0 && s.peak_nominal > 0)
      e.mfu_ceiling_measured_roofs = std::min(s.peak_measured, intensity * s.bandwidth_measured) / s.peak_nominal;
    e.sum_of_ops_tpot_s = d.sum_of_ops_s;
    e.whole_step_predicted_s = d.whole_step_predicted_s;
    if (!d.tpot_s) {
      e.tpot_source = d.whole_step_s ? "whole step" : "sum of isolated ops";
      e.note = d.why + ": no TPOT, no MFU";
      continue;
    }
    const double achieved = d.flops / *d.tpot_s;
    e.tpot_source = d.tpot_source;
    e.tpot_s = d.tpot_s;
    e.tokens_per_s = static_cast<double>(b) / *d.tpot_s;
    e.achieved_flops_per_s = achieved;
    if (s.peak_nominal > 0) e.mfu = e.hfu = achieved / s.peak_nominal;
    if (s.peak_measured > 0) e.fraction_of_measured_roof = achieved / s.peak_measured;
    if (e.mfu_ceiling_nominal && e.mfu) e.mfu_over_ceiling = *e.mfu / *e.mfu_ceiling_nominal;
    if (d.bytes > 0 && s.bandwidth_nominal && *s.bandwidth_nominal > 0) e.mbu = d.bytes / *d.tpot_s / *s.bandwidth_nominal;
    if (d.bytes > 0 && s.bandwidth_measured > 0) e.mbu_measured = d.bytes / *d.tpot_s / s.bandwidth_measured;
  }
  // The 2N rule of thumb from the one FLOPs-per-token model: its weights term, default convention.
  if (r.model) {
    std::string why;
    try {
      if (const auto cfg = stored_model_config(r, &why)) {
        const token_flops f = model_flops_per_token(*cfg, phase::decode, context > 0 ? context : 1);
        out.rule_of_thumb_flops_per_token = f.weights;
        out.rule_of_thumb = fmt::format("2N FLOPs per generated token, attention excluded: the weights term of "
                                        "model_flops_per_token, N = {} matmul weights (lm_head in, embedding gather out; "
                                        "PaLM app. B, Megatron-LM)", units::count(static_cast<std::int64_t>(f.n)));
      } else {
        out.rule_of_thumb = "none (" + why + ")";
      }
    } catch (const std::exception& e) {
      out.rule_of_thumb = std::string("none (") + e.what() + ")";
    }
  }
  if (batches.empty()) out.note = "no decode ops in the results";
  return out;
}

}  // namespace roofline
