// The decode step over batch and the energy roofline (analysis.step_sweep, analysis.energy): computed
// by analyse() (src/analysis/step_sweep.cpp, energy.cpp); worded here, numbers through roofline/units.hpp.
#include <fmt/format.h>

#include "report/sections.hpp"
#include "report/typed_table.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/units.hpp"

namespace roofline::report {

namespace {

std::string signed_percent(double x) {
  std::string out = x > 0 ? "+" : "";  // appended, not inserted: GCC 12's -Wrestrict misfires on "+" + string
  out += units::percent(x);
  return out;
}
std::string joules(double x) { return units::si(x, "J"); }
std::string watts(double x) { return units::si(x, "W"); }
std::string batch_text(double b) { return units::sig(b); }

}  // namespace

std::string drift_text(const step_sweep_analysis& a) {
  if (!a.drift || !a.drift_change) return "";
  const drift_check& d = *a.drift;
  std::string t = fmt::format("{} ({}, {}; predicted {} from the roofs) took {} in the op table and {} again after the "
                              "steps ({}): ",
                              d.op, d.scenario, units::si(d.bytes, "B"), units::seconds(d.predicted_s),
                              units::seconds(d.table_s), units::seconds(d.after_s), signed_percent(*a.drift_change));
  if (a.drift_moved)
    return t + fmt::format("the machine's own speed moved by more than {} during the run, so the steps did not run "
                           "on the machine the roofs describe; a bandwidth-bound step's error of that size is the "
                           "machine's, not the prediction's",
                           units::percent(drift_threshold));
  return t + fmt::format("steady within {}", units::percent(drift_threshold));
}

namespace {

void render_sweep(section& s, const step_sweep_analysis& a) {
  std::vector<std::string> items;
  item(items, "KV-cache capacity at context " + std::to_string(a.context),
       a.kv_capacity_batch ? std::optional<std::string>(fmt::format("{} sequences", *a.kv_capacity_batch))
                           : std::optional<std::string>("unknown (device memory unknown)"));
  item(items, "knee (where the step leaves the bandwidth slope), measured",
       a.knee_measured ? std::optional<std::string>("batch " + batch_text(*a.knee_measured))
                       : std::optional<std::string>("unknown (needs a batch <= 8 and one above 8 measured)"));
  item(items, "knee, predicted", fmt_opt(a.knee_predicted, [](double k) { return "batch " + batch_text(k); }));
  if (a.tpot_target_s) {
    const auto largest = [](const std::optional<std::int64_t>& b) {
      return b ? "batch " + std::to_string(*b) : std::string("none (batch 1 is already slower)");
    };
    items.push_back(fmt::format("largest batch meeting TPOT {}: measured {}, predicted {}",
                                units::seconds(*a.tpot_target_s), largest(a.largest_batch_measured),
                                largest(a.largest_batch_predicted)));
  }
  for (const auto& n : a.notes) items.push_back(n);
  if (const std::string d = drift_text(a); !d.empty()) items.push_back(fmt::format("drift check: {}", d));
  s.bullets(items);
  using P = step_sweep_point;
  s.add(typed_table<P>(
      a.points,
      {{"batch", [](const P& x) { return num(double(x.batch), integer); }},
       {"measured step (TPOT)", [](const P& x) { return num(x.measured_s, units::seconds); }},
       {"predicted step", [](const P& x) { return num(x.predicted_s, units::seconds); }},
       {"error", [](const P& x) { return num(x.error, signed_percent); }},
       {"tokens/s measured", [](const P& x) { return num(x.measured_tokens_per_s, tokens_rate); }},
       {"tokens/s predicted", [](const P& x) { return num(x.predicted_tokens_per_s, tokens_rate); }},
       {"power", [](const P& x) { return num(x.power_w, watts); }},
       {"of power cap", [](const P& x) { return num(x.power_cap_share, units::percent); }},
       {"J/token measured", [](const P& x) { return num(x.j_per_token_measured, joules); }},
       {"J/token predicted", [](const P& x) { return num(x.j_per_token_predicted, joules); }},
       {"energy error", [](const P& x) { return num(x.energy_error, signed_percent); }},
       {"FLOPs charged: tensor + CUDA cores",
        [](const P& x) {
          if (!x.flops_charged_tensor) return std::optional<cell>();
          return text(units::flop_count(*x.flops_charged_tensor) + " + " + units::flop_count(x.flops_charged_cuda_cores.value_or(0)));
        }},
       {"integrated power vs counter", [](const P& x) { return num(x.counter_vs_integrated, signed_percent); }},
       {"note", [](const P& x) { return x.measured_s ? std::optional<cell>() : text(x.note); }}}));
}

void render_energy(section& s, const energy_roofline& e) {
  s.heading("Energy roofline");
  std::vector<std::string> items;
  item(items, "idle power", fmt_opt(e.idle_w, [&](double w) { return watts(w) + " (" + e.idle_source + ")"; }));
  item(items, "energy per byte moved",
       fmt_opt(e.joules_per_byte, [&](double j) { return units::si(j, "J/B") + " (" + e.bytes_source + ")"; }));
  item(items, "energy per FLOP",
       fmt_opt(e.joules_per_flop, [&](double j) { return units::si(j, "J/FLOP") + " (" + e.flops_source + ")"; }));
  item(items, "energy per FLOP on the CUDA cores", fmt_opt(e.joules_per_flop_cuda_cores, [&](double j) {
         return units::si(j, "J/FLOP") + " (" + e.cuda_cores_source + ")";
       }));
  if (e.joules_per_flop_decode_tensor || e.joules_per_flop_decode_cuda_cores)
    items.push_back(fmt::format("energy per FLOP in the decode step's GEMMs, what decode steps are charged: tensor cores {}, "
                                "CUDA cores {} ({})",
                                fmt_opt(e.joules_per_flop_decode_tensor, [](double j) { return units::si(j, "J/FLOP"); })
                                    .value_or("unknown"),
                                fmt_opt(e.joules_per_flop_decode_cuda_cores, [](double j) { return units::si(j, "J/FLOP"); })
                                    .value_or("unknown"),
                                e.decode_source));
  item(items, "power limit (read only)", fmt_opt(e.power_limit_w, watts));
  for (const auto& c : e.power_cap) items.push_back(c);
  for (const auto& n : e.notes) items.push_back(n);
  s.bullets(items);
  s.para(e.definition);
}

void render_probe_energy(section& s, const energy_roofline& e) {
  using R = probe_energy;
  if (!e.probes.empty())
    s.add(typed_table<R>(
        e.probes, {{"probe", [](const R& x) { return text(x.probe); }},
                   {"window", [](const R& x) { return num(x.window_s, units::seconds); }},
                   {"power (counter)", [](const R& x) { return num(x.power_w, watts); }},
                   {"power (integrated samples)", [](const R& x) { return num(x.integrated_power_w, watts); }},
                   {"integrated vs counter", [](const R& x) { return num(x.counter_vs_integrated, signed_percent); }},
                   {"of power cap", [](const R& x) { return num(x.power_cap_share, units::percent); }},
                   {"note", [](const R& x) { return x.power_w ? std::optional<cell>() : text(x.note); }}}));
}

/// The user's step time (analysis.step_input from `report --tpot --batch`, else analysis.tpot_input
/// from `run --tpot`, batch 1) placed on the measured step curve; "" when neither is given.
std::string user_step_line(const results& r, const step_sweep_analysis& a) {
  for (const auto& in : {r.analysis.step_input, r.analysis.tpot_input}) {
    if (!in || !(in->tpot_s > 0)) continue;
    const double t = in->tpot_s;
    const std::int64_t b = in->batch;
    std::string why;
    const auto p = place_on_step_curve(a, b, t, why);
    if (!p) return fmt::format("your {} at batch {}: not placed ({})", units::seconds(t), b, why);
    return fmt::format("your {} at batch {} is {} roofline's attainable {} ({})", units::seconds(t), b,
                       units::ratio(p->ratio), units::seconds(p->curve_s), p->how);
  }
  return "";
}

}  // namespace

section step_sweep_section(const results& r) {
  section s{"Decode step over batch, and energy", "batch", {}};
  render_block(
      s, r, "step_sweep", r.analysis.step_sweep,
      [&](const step_sweep_analysis& a) {
        if (const std::string u = user_step_line(r, a); !u.empty()) s.para(u);
        render_sweep(s, a);
      },
      "");
  render_block(
      s, r, "energy", r.analysis.energy, [&](const energy_roofline& e) { render_energy(s, e); }, "");
  return s;
}

section probe_energy_section(const results& r) {
  section s{"Energy of each probe", "probe-energy", {}};
  render_block(
      s, r, "energy", r.analysis.energy, [&](const energy_roofline& e) { render_probe_energy(s, e); }, "");
  return s;
}

}  // namespace roofline::report
