// MFU and HFU of the measured decode steps. docs/formulas-analysis.md §4.
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

json decode_mfu(const results& r) {
  const roofline_summary& s = r.roofline;
  json out = {{"precision", s.precision},
              {"peak_nominal", s.peak_nominal > 0 ? json(s.peak_nominal) : json(nullptr)},
              {"peak_measured", s.peak_measured > 0 ? json(s.peak_measured) : json(nullptr)},
              {"convention", "model FLOPs = Σ op FLOPs × count of the decode step (the op catalogue: every linear, "
                             "attention over the KV cache, elementwise ops); tokens per step = batch; TPOT = the "
                             "user's --tpot at batch 1 when given, else the measured whole decode step (every op of every layer "
                             "as one CUDA graph / one CPU pass, whole_step[]) when measured, else Σ measured op time × count "
                             "(kernels back to back, no host overhead); HFU = MFU (inference recomputes nothing)"},
              {"scenarios", json::array()}};
  const std::vector<std::int64_t> batches = decode_batches(r);
  for (const std::int64_t b : batches) {
    const decode_step d = decode_step_at(r, b);
    json e = {{"batch", b}, {"context", d.context}, {"step_flops", d.flops}, {"step_bytes", d.bytes},
              {"flops_per_token", d.flops / static_cast<double>(b)},
              {"intensity", d.bytes > 0 ? json(d.flops / d.bytes) : json(nullptr)},
              {"predicted_tpot_s", d.predicted_s}};
    const double intensity = d.bytes > 0 ? d.flops / d.bytes : 0;
    if (s.ridge_nominal && *s.ridge_nominal > 0 && intensity > 0)
      e["mfu_ceiling_nominal"] = std::min(1.0, intensity / *s.ridge_nominal);  // MFU ≈ intensity ÷ ridge
    if (s.ridge_measured > 0 && intensity > 0 && s.peak_nominal > 0)
      e["mfu_ceiling_measured_roofs"] = std::min(s.peak_measured, intensity * s.bandwidth_measured) / s.peak_nominal;
    if (d.sum_of_ops_s) e["sum_of_ops_tpot_s"] = *d.sum_of_ops_s;
    if (d.whole_step_predicted_s) e["whole_step_predicted_s"] = *d.whole_step_predicted_s;
    if (!d.tpot_s) {
      e["tpot_source"] = d.whole_step_s ? "whole step" : "sum of isolated ops";
      e["tpot_s"] = nullptr;
      e["mfu"] = nullptr;
      e["note"] = d.why + ": no TPOT, no MFU";
    } else {
      const double achieved = d.flops / *d.tpot_s;
      e["tpot_source"] = d.tpot_source;
      e["tpot_s"] = *d.tpot_s;
      e["tokens_per_s"] = static_cast<double>(b) / *d.tpot_s;
      e["achieved_flops_per_s"] = achieved;
      e["mfu"] = s.peak_nominal > 0 ? json(achieved / s.peak_nominal) : json(nullptr);
      e["hfu"] = e["mfu"];
      e["fraction_of_measured_roof"] = s.peak_measured > 0 ? json(achieved / s.peak_measured) : json(nullptr);
      if (e.contains("mfu_ceiling_nominal") && e["mfu"].is_number())
        e["mfu_over_ceiling"] = e["mfu"].get<double>() / e["mfu_ceiling_nominal"].get<double>();
    }
    out["scenarios"].push_back(e);
  }
  if (r.model && r.model->parameters > 0) {
    out["rule_of_thumb_flops_per_token"] = 2.0 * static_cast<double>(r.model->parameters);
    out["rule_of_thumb"] = "2N FLOPs per generated token (N = all parameters), attention excluded";
  }
  if (batches.empty()) out["note"] = "no decode ops in the results";
  return out;
}

}  // namespace roofline
