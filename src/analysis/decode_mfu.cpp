// MFU and HFU of the measured decode steps. docs/formulas-analysis.md §4.
#include <fmt/format.h>
#include <set>

#include "roofline/analysis.hpp"

namespace roofline {

json decode_mfu(const results& r) {
  const roofline_summary& s = r.roofline;
  json out = {{"precision", s.precision},
              {"peak_nominal", s.peak_nominal > 0 ? json(s.peak_nominal) : json(nullptr)},
              {"peak_measured", s.peak_measured > 0 ? json(s.peak_measured) : json(nullptr)},
              {"convention", "model FLOPs = Σ op FLOPs × count of the decode step (the op catalogue: every linear, "
                             "attention over the KV cache, elementwise ops); tokens per step = batch; TPOT = the "
                             "measured whole decode step (every op of every layer as one CUDA graph / one CPU pass, "
                             "whole_step[]) when measured, else Σ measured op time × count (kernels back to back, no "
                             "host overhead); HFU = MFU (inference recomputes nothing)"},
              {"scenarios", json::array()}};
  std::set<std::int64_t> batches;
  for (const auto& op : r.ops)
    if (op.phase == "decode") batches.insert(op.batch);
  for (const std::int64_t b : batches) {
    double flops = 0, bytes = 0, measured = 0, predicted = 0;
    std::int64_t context = 0;
    int missing = 0;
    for (const auto& op : r.ops) {
      if (op.phase != "decode" || op.batch != b || !op.alternative_to.empty()) continue;  // beside, not in, the step
      const double c = static_cast<double>(op.count);
      flops += op.flops * c;
      bytes += op.bytes * c;
      predicted += op.predicted_s * c;
      context = std::max(context, op.context);
      if (op.measured_s) measured += *op.measured_s * c;
      else ++missing;
    }
    json e = {{"batch", b}, {"context", context}, {"step_flops", flops}, {"step_bytes", bytes},
              {"flops_per_token", flops / static_cast<double>(b)},
              {"intensity", bytes > 0 ? json(flops / bytes) : json(nullptr)},
              {"predicted_tpot_s", predicted}};
    const double intensity = bytes > 0 ? flops / bytes : 0;
    if (s.ridge_nominal && *s.ridge_nominal > 0 && intensity > 0)
      e["mfu_ceiling_nominal"] = std::min(1.0, intensity / *s.ridge_nominal);  // MFU ≈ intensity ÷ ridge
    if (s.ridge_measured > 0 && intensity > 0 && s.peak_nominal > 0)
      e["mfu_ceiling_measured_roofs"] = std::min(s.peak_measured, intensity * s.bandwidth_measured) / s.peak_nominal;
    const whole_step_result* whole = nullptr;
    for (const auto& w : r.whole_step)
      if (w.phase == "decode" && w.batch == b && w.measured_s && *w.measured_s > 0) whole = &w;
    if (missing == 0 && measured > 0) e["sum_of_ops_tpot_s"] = measured;
    if (whole) {
      e["whole_step_predicted_s"] = whole->predicted_s;
      measured = *whole->measured_s;
      missing = 0;
    }
    e["tpot_source"] = whole ? "whole step" : "sum of isolated ops";
    if (missing > 0 || !(measured > 0)) {
      e["tpot_s"] = nullptr;
      e["mfu"] = nullptr;
      e["note"] = fmt::format("{} op(s) of this step not measured: no TPOT, no MFU", missing);
    } else {
      const double achieved = flops / measured;
      e["tpot_s"] = measured;
      e["tokens_per_s"] = static_cast<double>(b) / measured;
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
