// The decode step sweep over batch (results.step_sweep and the decode whole steps at its context):
// time, tokens/s and J/token measured beside predicted, the knees, the largest batch within a TPOT
// target, and a user's step placed on the curve (roofline/energy_analysis.hpp; docs/formulas-analysis.md
// §8.1, §10). Its energy prediction is the energy roofline's (energy.cpp, charge_step).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/energy_analysis.hpp"
#include "roofline/results.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

std::optional<std::int64_t> largest_batch_within(const std::vector<batch_time>& points, double target_s) {
  std::optional<std::int64_t> best;
  for (const auto& p : points)
    if (p.seconds > 0 && p.seconds <= target_s && (!best || p.batch > *best)) best = p.batch;
  return best;
}

std::optional<step_sweep_analysis> analyse_step_sweep(const results& r, const energy_roofline& e) {
  if (!r.step_sweep) return std::nullopt;
  const step_sweep_plan& plan = *r.step_sweep;
  step_sweep_analysis s;
  s.definition =
      "decode step at each batch, one CUDA graph (GPU) / one pass (CPU); TPOT = step time; tokens/s = batch ÷ step; "
      "J/token = counter power over the replays × step time ÷ batch; knee: knee_of (flat line of B <= 8 meets the line "
      "through the largest batch); predicted J/token = (idle W × predicted step + J/B × bytes + J/FLOP × FLOPs the "
      "tensor cores execute (a GEMM's tile padding included) + the CUDA cores' J/FLOP × FLOPs on CUDA cores (a "
      "GEMV)) ÷ batch; a step whose kernels did not say charges its model FLOPs at J/FLOP";
  s.context = plan.context;
  s.tpot_target_s = plan.tpot_target_s;
  s.kv_capacity_batch = plan.kv_capacity_batch;
  s.notes = plan.notes;
  if (plan.drift && plan.drift->table_s > 0) {
    s.drift = plan.drift;
    s.drift_change = plan.drift->after_s / plan.drift->table_s - 1;
    s.drift_moved = std::abs(*s.drift_change) > drift_threshold;
  }
  const auto limit = e.power_limit_w;
  std::vector<batch_time> measured, predicted;
  bool cc_unknown_said = false;
  for (const auto& w : r.whole_step) {
    if (w.phase != "decode" || w.context.value_or(-1) != plan.context) continue;
    step_sweep_point p;
    p.batch = w.batch;
    p.predicted_s = w.predicted_s;
    const double tokens = static_cast<double>(w.batch);
    if (w.predicted_s > 0)
      p.predicted_tokens_per_s = tokens / w.predicted_s, predicted.push_back({w.batch, w.predicted_s});
    if (w.measured_s && *w.measured_s > 0) {
      p.measured_s = w.measured_s;
      p.error = w.predicted_s / *w.measured_s - 1;
      p.measured_tokens_per_s = tokens / *w.measured_s;
      measured.push_back({w.batch, *w.measured_s});
      if (w.energy) {
        p.power_w = counter_power_w(*w.energy);
        if (p.power_w && limit && *limit > 0) p.power_cap_share = *p.power_w / *limit;
        p.j_per_token_measured = joules_per_token(*w.energy, *w.measured_s, w.batch);
        if (auto q = integrated_power_w(*w.energy)) p.j_per_token_integrated = *q * *w.measured_s / tokens;
        if (p.j_per_token_measured && p.j_per_token_integrated && *p.j_per_token_measured > 0)
          p.counter_vs_integrated = *p.j_per_token_integrated / *p.j_per_token_measured - 1;
        if (!p.j_per_token_measured) p.note = no_power_reason(*w.energy);
      } else {
        p.note = "energy not read";
      }
    } else {
      p.note = w.note;
    }
    if (e.complete() && w.flops && w.bytes) {
      const step_energy_charge c = charge_step(e, w);
      if (c.cuda_core_flops > 0 && !e.joules_per_flop_cuda_cores && !cc_unknown_said) {
        s.notes.push_back("the CUDA cores' J/FLOP is unknown (no fp32 GEMM with an energy window of at least " +
                          units::seconds(min_energy_window_s) + "): their FLOPs are charged at the tensor cores' J/FLOP");
        cc_unknown_said = true;
      }
      p.flops_charged_tensor = c.tensor_flops, p.flops_charged_cuda_cores = c.cuda_core_flops;
      p.j_per_token_predicted = c.joules / tokens;
    }
    if (p.j_per_token_predicted && p.j_per_token_measured && *p.j_per_token_measured > 0)
      p.energy_error = *p.j_per_token_predicted / *p.j_per_token_measured - 1;
    s.points.push_back(std::move(p));
  }
  std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.batch < b.batch; });
  s.knee_measured = knee_of(measured);
  s.knee_predicted = knee_of(predicted);
  if (s.tpot_target_s) {
    s.largest_batch_measured = largest_batch_within(measured, *s.tpot_target_s);
    s.largest_batch_predicted = largest_batch_within(predicted, *s.tpot_target_s);
  }
  return s;
}

std::optional<step_placement> place_on_step_curve(const step_sweep_analysis& s, std::int64_t batch, double user_s,
                                                  std::string& why) {
  const step_sweep_point* lo = nullptr;
  const step_sweep_point* hi = nullptr;
  for (const auto& p : s.points) {
    if (!p.measured_s || !(*p.measured_s > 0)) continue;
    if (p.batch <= batch && (!lo || p.batch > lo->batch)) lo = &p;
    if (p.batch >= batch && (!hi || p.batch < hi->batch)) hi = &p;
  }
  if (!lo || !hi) {
    why = lo || hi ? fmt::format("batch {} is outside the measured step sweep", batch)
                   : std::string("no measured decode step in the step sweep");
    return std::nullopt;
  }
  step_placement out;
  out.batch = batch;
  out.user_s = user_s;
  if (lo->batch == hi->batch) {
    out.curve_s = *lo->measured_s;
    out.how = fmt::format("measured at batch {}: the whole decode step as one CUDA graph / one CPU pass, context {}",
                          batch, s.context);
  } else {
    const double f = std::log(double(batch) / double(lo->batch)) / std::log(double(hi->batch) / double(lo->batch));
    out.curve_s = std::exp(std::log(*lo->measured_s) + f * (std::log(*hi->measured_s) - std::log(*lo->measured_s)));
    out.how =
        fmt::format("interpolated (log-log) between the measured steps at batch {} ({}) and batch {} ({}), context {}",
                    lo->batch, units::seconds(*lo->measured_s), hi->batch, units::seconds(*hi->measured_s), s.context);
  }
  out.ratio = user_s / out.curve_s;
  return out;
}

}  // namespace roofline
