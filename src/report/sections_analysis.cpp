// Sections over the typed blocks of r.analysis (computed once by analyse(): roofline/waterfall.hpp,
// ridge_analysis.hpp, decode_mfu.hpp, fusion_analysis.hpp, accuracy.hpp): the two attribution
// waterfalls, the ridge, MFU/HFU, fusion, accuracy, and any other key. Absent blocks give a one-line
// "not computed" note; a block of another shape one line naming it.
#include <fmt/format.h>

#include <algorithm>

#include "report/sections.hpp"
#include "report/typed_table.hpp"
#include "roofline/accuracy.hpp"
#include "roofline/decode_mfu.hpp"
#include "roofline/fusion_analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/ridge_analysis.hpp"
#include "roofline/vocabulary.hpp"
#include "roofline/waterfall.hpp"

namespace roofline::report {

namespace {

using std::nullopt;
using opt = std::optional<cell>;

void render(section& s, const compute_waterfall& w) {
  std::vector<std::string> items;
  item(items, "note", w.note), item(items, "tile assumption", w.tile_assumption), item(items, "unit", w.unit);
  s.bullets(items);
  if (w.per_precision.empty()) return;
  using P = compute_waterfall_precision;
  auto peak = [](const P& p, double v) { return p.note.empty() ? opt(cell(compute_rate(v, p.precision), v)) : nullopt; };
  s.heading("per precision");
  s.add(typed_table<P>(w.per_precision,
                       {{"method", [](const P& p) { return text(p.method); }},
                        {"nominal engine", [](const P& p) { return text(p.nominal_engine); }},
                        {"note", [](const P& p) { return text(p.note); }},
                        {"precision", [](const P& p) { return text(p.precision); }},
                        {"remainder trend", [](const P& p) { return text(p.remainder_trend); }},
                        {"best size", [](const P& p) { return p.note.empty() ? num(double(p.best_size), integer) : nullopt; }},
                        {"datasheet clock mhz", [](const P& p) { return num(p.datasheet_clock_mhz, mhz); }},
                        {"measured flops per s", [&](const P& p) { return peak(p, p.measured_flops_per_s); }},
                        {"measured percent of nominal",
                         [](const P& p) { return p.note.empty() ? num(p.measured_percent_of_nominal, percent_value) : nullopt; }},
                        {"nominal flops per s", [&](const P& p) { return peak(p, p.nominal_flops_per_s); }}}));
  for (const P& p : w.per_precision) {
    using G = gemm_size_factors;
    if (!p.size_sweep.empty()) {
      s.heading("size sweep (" + p.precision + ")");
      s.add(typed_table<G>(p.size_sweep, {{"note", [](const G& g) { return text(g.note); }},
                                          {"tile", [](const G& g) { return text(g.tile); }},
                                          {"clock factor", [](const G& g) { return num(g.clock_factor, factor_text); }},
                                          {"flops per s", [&](const G& g) { return opt(cell(compute_rate(g.flops_per_s, p.precision), g.flops_per_s)); }},
                                          {"n", [](const G& g) { return num(double(g.n), integer); }},
                                          {"percent of nominal", [](const G& g) { return num(g.percent_of_nominal, percent_value); }},
                                          {"remainder factor", [](const G& g) { return num(g.remainder_factor, factor_text); }},
                                          {"tile factor", [](const G& g) { return num(g.tile_factor, factor_text); }},
                                          {"wave factor", [](const G& g) { return num(g.wave_factor, factor_text); }}}));
    }
    using W = waterfall_step;
    if (!p.steps.empty()) {
      s.heading("steps (" + p.precision + ")");
      s.add(typed_table<W>(p.steps, {{"detail", [](const W& x) { return text(x.detail); }},
                                     {"step", [](const W& x) { return text(x.step); }},
                                     {"factor", [](const W& x) { return num(x.factor, factor_text); }},
                                     {"percent of nominal", [](const W& x) { return num(x.percent_of_nominal, percent_value); }}}));
    }
  }
}

void render(section& s, const bandwidth_waterfall& w) {
  std::vector<std::string> items;
  if (w.estimated_overheads_low_percent && w.estimated_overheads_high_percent)
    items.push_back("estimated overheads percent: " + percent_value(*w.estimated_overheads_low_percent) + ", " +
                    percent_value(*w.estimated_overheads_high_percent));
  item(items, "gap percent", fmt_opt(w.gap_percent, percent_value));
  item(items, "nominal bytes per s", fmt_opt(w.nominal_bytes_per_s, rate_bytes));
  item(items, "nominal formula", w.nominal_formula), item(items, "nominal reason", w.nominal_reason);
  item(items, "note", w.note), item(items, "unattributed note", w.unattributed_note);
  if (w.unattributed_low_percent && w.unattributed_high_percent)
    items.push_back("unattributed percent: " + percent_value(*w.unattributed_low_percent) + ", " +
                    percent_value(*w.unattributed_high_percent));
  item(items, "unit", w.unit);
  s.bullets(items);
  using D = dram_overhead;
  if (!w.dram_overheads.empty()) {
    s.heading("dram overheads");
    s.add(typed_table<D>(w.dram_overheads, {{"label", [](const D& d) { return text(d.label); }},
                                            {"name", [](const D& d) { return text(d.name); }},
                                            {"source", [](const D& d) { return text(d.source); }},
                                            {"high percent", [](const D& d) { return num(d.high_percent, percent_value); }},
                                            {"low percent", [](const D& d) { return num(d.low_percent, percent_value); }}}));
  }
  items.clear();
  item(items, "source", w.ecc.source), item(items, "state", w.ecc.state);
  if (!items.empty()) s.heading("ecc");
  s.bullets(items);
  items.clear();
  item(items, "bytes per s", fmt_opt(w.l2.bytes_per_s, rate_bytes)), item(items, "note", w.l2.note);
  if (w.l2.bytes_per_s) {
    item(items, "pattern", w.l2.pattern), item(items, "ratio to dram", fmt_opt(w.l2.ratio_to_dram, units::ratio));
    items.push_back("working set bytes: " + bytes_binary(static_cast<double>(w.l2.working_set_bytes)));
  }
  if (!items.empty()) s.heading("l2");
  s.bullets(items);
  using P = bandwidth_pattern;
  if (!w.patterns.empty()) {
    s.heading("patterns");
    s.add(typed_table<P>(w.patterns, {{"bytes convention", [](const P& p) { return text(p.bytes_convention); }},
                                      {"level", [](const P& p) { return text(p.level); }},
                                      {"note", [](const P& p) { return text(p.note); }},
                                      {"pattern", [](const P& p) { return text(p.pattern); }},
                                      {"bytes per s", [](const P& p) { return num(p.bytes_per_s, rate_bytes); }},
                                      {"fraction of best", [](const P& p) { return num(p.fraction_of_best, percent); }},
                                      {"median bytes per s", [](const P& p) { return num(p.median_bytes_per_s, rate_bytes); }},
                                      {"percent of nominal", [](const P& p) { return num(p.percent_of_nominal, percent_value); }}}));
  }
  using S = bandwidth_step;
  if (!w.steps.empty()) {
    s.heading("steps");
    s.add(typed_table<S>(w.steps, {{"step", [](const S& x) { return text(x.step); }},
                                   {"pattern", [](const S& x) { return text(x.pattern); }},
                                   {"bytes per s", [](const S& x) { return num(x.bytes_per_s, rate_bytes); }},
                                   {"percent of nominal", [](const S& x) { return num(x.percent_of_nominal, percent_value); }}}));
  }
}

void render(section& s, const ridge_analysis& a) {
  std::vector<std::string> items;
  item(items, "default precision", a.default_precision), item(items, "expectation", a.expectation);
  std::string gaps;
  for (const auto& g : a.gaps) gaps += (gaps.empty() ? "" : ", ") + g;
  item(items, "gaps", gaps), item(items, "unit", a.unit);
  s.bullets(items);
  if (a.per_precision.empty()) return;
  using R = ridge_row;
  auto rate = [](const R& x, double v) { return opt(cell(compute_rate(v, x.precision), v)); };
  auto ridge = [](const R& x, std::optional<double> v) { return num(v, x.precision == "int8" ? intensity_ops : intensity); };
  s.heading("per precision");
  s.add(typed_table<R>(a.per_precision, {{"engine measured", [](const R& x) { return text(x.engine_measured); }},
                                         {"engine nominal", [](const R& x) { return text(x.engine_nominal); }},
                                         {"precision", [](const R& x) { return text(x.precision); }},
                                         {"verdict", [](const R& x) { return text(x.verdict); }},
                                         {"bandwidth ratio", [](const R& x) { return num(x.bandwidth_ratio, units::ratio); }},
                                         {"measured size", [](const R& x) { return num(x.measured_size ? std::optional<double>(double(*x.measured_size)) : nullopt, integer); }},
                                         {"peak measured", [&](const R& x) { return rate(x, x.peak_measured); }},
                                         {"peak nominal", [&](const R& x) { return rate(x, x.peak_nominal); }},
                                         {"peak ratio", [](const R& x) { return num(x.peak_ratio, units::ratio); }},
                                         {"relative move", [](const R& x) { return num(x.relative_move, percent); }},
                                         {"ridge measured", [&](const R& x) { return ridge(x, x.ridge_measured); }},
                                         {"ridge nominal", [&](const R& x) { return ridge(x, x.ridge_nominal); }},
                                         {"within 10 percent", [](const R& x) { return yes_no(x.within_10_percent); }},
                                         {"within 20 percent", [](const R& x) { return yes_no(x.within_20_percent); }}}));
}

void render(section& s, const decode_mfu& m) {
  std::vector<std::string> items;
  auto rate = [&](double v) { return compute_rate(v, m.precision); };
  item(items, "convention", m.convention), item(items, "note", m.note);
  item(items, "peak measured", fmt_opt(m.peak_measured, rate)), item(items, "peak nominal", fmt_opt(m.peak_nominal, rate));
  item(items, "precision", m.precision), item(items, "rule of thumb", m.rule_of_thumb);
  item(items, "rule of thumb flops per token", fmt_opt(m.rule_of_thumb_flops_per_token, flop_count));
  s.bullets(items);
  if (m.scenarios.empty()) return;
  using M = mfu_scenario;
  s.heading("scenarios");
  s.add(typed_table<M>(m.scenarios, {{"note", [](const M& x) { return text(x.note); }},
                                     {"tpot source", [](const M& x) { return text(x.tpot_source); }},
                                     {"achieved flops per s", [&](const M& x) { return x.achieved_flops_per_s ? opt(cell(rate(*x.achieved_flops_per_s), *x.achieved_flops_per_s)) : nullopt; }},
                                     {"batch", [](const M& x) { return num(double(x.batch), integer); }},
                                     {"context", [](const M& x) { return num(double(x.context), integer); }},
                                     {"flops per token", [](const M& x) { return num(x.flops_per_token, flop_count); }},
                                     {"fraction of measured roof", [](const M& x) { return num(x.fraction_of_measured_roof, percent); }},
                                     {"hfu", [](const M& x) { return num(x.hfu, percent); }},
                                     {"intensity", [](const M& x) { return num(x.intensity, intensity); }},
                                     {"mfu", [](const M& x) { return num(x.mfu, percent); }},
                                     {"mbu", [](const M& x) { return num(x.mbu, percent); }},
                                     {"mbu measured", [](const M& x) { return num(x.mbu_measured, percent); }},
                                     {"mfu ceiling measured roofs", [](const M& x) { return num(x.mfu_ceiling_measured_roofs, percent); }},
                                     {"mfu ceiling nominal", [](const M& x) { return num(x.mfu_ceiling_nominal, percent); }},
                                     {"mfu over ceiling", [](const M& x) { return num(x.mfu_over_ceiling, units::ratio); }},
                                     {"predicted tpot s", [](const M& x) { return num(x.predicted_tpot_s, seconds); }},
                                     {"step bytes", [](const M& x) { return num(x.step_bytes, bytes_binary); }},
                                     {"step flops", [](const M& x) { return num(x.step_flops, flop_count); }},
                                     {"sum of ops tpot s", [](const M& x) { return num(x.sum_of_ops_tpot_s, seconds); }},
                                     {"tokens per s", [](const M& x) { return num(x.tokens_per_s, tokens_rate); }},
                                     {"tpot s", [](const M& x) { return num(x.tpot_s, seconds); }},
                                     {"whole step predicted s", [](const M& x) { return num(x.whole_step_predicted_s, seconds); }}}));
}

void render(section& s, const fusion_analysis& f) {
  std::vector<std::string> items;
  item(items, "expected byte ratio", units::ratio(f.expected_byte_ratio)), item(items, "note", f.note), item(items, "why", f.why);
  s.bullets(items);
  items.clear();
  item(items, "bandwidth bytes per s", fmt_opt(f.predicted.bandwidth_bytes_per_s, rate_bytes));
  item(items, "latency model", f.predicted.latency_model), item(items, "note", f.predicted.note);
  if (!items.empty()) s.heading("predicted");
  s.bullets(items);
  using P = predicted_saving;
  if (!f.predicted.savings.empty()) {
    s.heading("savings");
    s.add(typed_table<P>(f.predicted.savings,
                         {{"description", [](const P& x) { return text(x.description); }},
                          {"name", [](const P& x) { return text(x.name); }},
                          {"ops", [](const P& x) { return text(x.ops); }},
                          {"phase", [](const P& x) { return text(x.phase); }},
                          {"batch", [](const P& x) { return num(double(x.batch), integer); }},
                          {"bytes after", [](const P& x) { return num(x.bytes_after, bytes_binary); }},
                          {"bytes before", [](const P& x) { return num(x.bytes_before, bytes_binary); }},
                          {"bytes saved per step", [](const P& x) { return num(x.bytes_saved_per_step, bytes_binary); }},
                          {"count", [](const P& x) { return num(double(x.count), integer); }},
                          {"fraction saved", [](const P& x) { return num(x.fraction_saved, percent); }},
                          {"time saved bytes only per step s", [](const P& x) { return num(x.time_saved_bytes_only_per_step_s, seconds); }},
                          {"time saved per step s", [](const P& x) { return num(x.time_saved_per_step_s, seconds); }}}));
  }
  using F = silu_mul_fusion;
  if (!f.silu_mul.empty()) {
    s.heading("silu mul");
    s.add(typed_table<F>(f.silu_mul, {{"note", [](const F& x) { return text(x.note); }},
                                      {"phase", [](const F& x) { return text(x.phase); }},
                                      {"batch", [](const F& x) { return num(double(x.batch), integer); }},
                                      {"byte ratio", [](const F& x) { return num(x.byte_ratio, units::ratio); }},
                                      {"fused bytes", [](const F& x) { return num(x.fused_bytes, bytes_binary); }},
                                      {"fused measured s", [](const F& x) { return num(x.fused_measured_s, seconds); }},
                                      {"fused predicted s", [](const F& x) { return num(x.fused_predicted_s, seconds); }},
                                      {"predicted saved s per step", [](const F& x) { return num(x.predicted_saved_s_per_step, seconds); }},
                                      {"saved s per step", [](const F& x) { return num(x.saved_s_per_step, seconds); }},
                                      {"time ratio", [](const F& x) { return num(x.time_ratio, units::ratio); }},
                                      {"unfused bytes", [](const F& x) { return num(x.unfused_bytes, bytes_binary); }},
                                      {"unfused measured s", [](const F& x) { return num(x.unfused_measured_s, seconds); }},
                                      {"unfused predicted s", [](const F& x) { return num(x.unfused_predicted_s, seconds); }}}));
  }
}

void render(section& s, const prediction_accuracy& a) {
  std::vector<std::string> items;
  item(items, "median abs error", fmt_opt(a.median_abs_error, percent));
  item(items, "median abs error long", fmt_opt(a.median_abs_error_long, percent));
  if (a.meets_target) items.push_back(std::string("meets target: ") + (*a.meets_target ? "yes" : "no"));
  if (a.meets_target_long) items.push_back(std::string("meets target long: ") + (*a.meets_target_long ? "yes" : "no"));
  item(items, "note", a.note);
  items.push_back("ops counted: " + std::to_string(a.ops_counted));
  items.push_back("ops long: " + std::to_string(a.ops_long));
  item(items, "target", percent(a.target)), item(items, "target long", percent(a.target_long));
  item(items, "target whole step", percent(a.target_whole_step)), item(items, "threshold s", seconds(a.threshold_s));
  s.bullets(items);
  using O = op_accuracy;
  if (!a.per_op.empty()) {
    s.heading("per op");
    s.add(typed_table<O>(a.per_op, {{"bound", [](const O& x) { return text(x.bound); }},
                                    {"name", [](const O& x) { return text(x.name); }},
                                    {"phase", [](const O& x) { return text(x.phase); }},
                                    {"abs error", [](const O& x) { return num(x.abs_error, percent); }},
                                    {"batch", [](const O& x) { return num(double(x.batch), integer); }},
                                    {"counted", [](const O& x) { return yes_no(x.counted); }},
                                    {"headroom", [](const O& x) { return num(x.headroom, units::ratio); }},
                                    {"long", [](const O& x) { return yes_no(x.long_op); }},
                                    {"measured s", [](const O& x) { return num(x.measured_s, seconds); }},
                                    {"on launch floor", [](const O& x) { return yes_no(x.on_launch_floor); }},
                                    {"predicted s", [](const O& x) { return num(x.predicted_s, seconds); }},
                                    {"ratio", [](const O& x) { return num(x.ratio, units::ratio); }},
                                    {"roof fraction", [](const O& x) { return num(x.roof_fraction, percent); }}}));
  }
  using W = step_accuracy;
  if (!a.whole_step.empty()) {
    s.heading("whole step");
    s.add(typed_table<W>(a.whole_step, {{"phase", [](const W& x) { return text(x.phase); }},
                                        {"abs error", [](const W& x) { return num(x.abs_error, percent); }},
                                        {"batch", [](const W& x) { return num(double(x.batch), integer); }},
                                        {"measured s", [](const W& x) { return num(x.measured_s, seconds); }},
                                        {"meets target", [](const W& x) { return yes_no(x.meets_target); }},
                                        {"predicted s", [](const W& x) { return num(x.predicted_s, seconds); }},
                                        {"ratio", [](const W& x) { return num(x.ratio, units::ratio); }},
                                        {"sum of ops s", [](const W& x) { return num(x.sum_of_ops_s, seconds); }}}));
  }
}

template <class T>
void render_into(section& s, const results& r, const char* key, const std::optional<T>& block, const std::string& absent) {
  render_block(s, r, key, block, [&](const T& b) { render(s, b); }, absent);
}

}  // namespace

void ridge_block(section& s, const results& r) {
  render_block(s, r, "ridge", r.analysis.ridge, [&](const ridge_analysis& a) {
    s.heading("Ridge analysis");
    render(s, a);
  }, "");
}

void accuracy_block(section& s, const results& r) {
  render_block(s, r, "accuracy", r.analysis.accuracy, [&](const prediction_accuracy& a) {
    s.heading("Prediction accuracy");
    render(s, a);
  }, "");
}

section attribution_section(const results& r) {
  section s{"Where the gap goes: attribution", "attribution", {}};
  s.heading("Compute: nominal → clock → wave and tile quantization → remainder");
  render_into(s, r, "compute_waterfall", r.analysis.compute_waterfall, "Not computed (no analysis.compute_waterfall in the results).");
  s.heading("Bandwidth: nominal → best pattern → read, copy, triad; cache vs device memory; ECC");
  render_into(s, r, "bandwidth_waterfall", r.analysis.bandwidth_waterfall, "Not computed (no analysis.bandwidth_waterfall in the results).");
  return s;
}

section mfu_section(const results& r) {
  section s{"MFU and HFU", "mfu", {}};
  const decode_step d = decode_step_at(r, 1);
  const std::string p = main_precision(r);
  const nominal_peak* peak = peak_for(r.nominal, p);
  const compute_result* meas = best_compute(r.measured, p);
  std::vector<std::string> items;
  if (d.ops > 0) {
    items.push_back(fmt::format("decode, batch 1: {} and {} per token over {} op kinds", flop_count(d.flops), bytes_binary(d.bytes), d.ops));
    if (d.tpot_s) {
      const double f = d.flops / *d.tpot_s;
      items.push_back(fmt::format("TPOT ({}): {} → {}", d.tpot_source, seconds(*d.tpot_s), rate_flops(f)));
      if (peak) items.push_back(fmt::format("MFU vs the nominal {} peak ({}): {}", p, rate_flops(peak->flops_per_s), percent(f / peak->flops_per_s)));
      if (meas) items.push_back(fmt::format("fraction of the measured {} roof ({}): {}", p, rate_flops(meas->flops_per_s), percent(f / meas->flops_per_s)));
    } else {
      items.push_back("TPOT: not measured (" + d.why + ")");
    }
  }
  s.bullets(items);
  render_into(s, r, "mfu", r.analysis.mfu, items.empty() ? "Not computed (no decode ops and no analysis.mfu in the results)." : "");
  s.para("MFU = model FLOPs ÷ time ÷ (nominal dense peak × devices); HFU also counts recomputed FLOPs "
         "(PaLM, Chowdhery et al. 2022, appendix B).");
  return s;
}

section fusion_section(const results& r) {
  section s{"Fusion: what fusing ops would save", "fusion", {}};
  render_into(s, r, "fusion", r.analysis.fusion, "Not computed (no analysis.fusion in the results).");
  return s;
}

section other_analysis_section(const results& r) {
  section s{"Other analysis", "other", {}};
  static const char* shown[] = {"compute_waterfall", "bandwidth_waterfall", "ridge", "mfu", "fusion", "accuracy", "record_table",
                                "energy", "step_sweep"};
  const json a = r.analysis;  // the blocks as results.json holds them, keys in its order
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (std::find(std::begin(shown), std::end(shown), it.key()) != std::end(shown) || it.value().is_null()) continue;
    if (it.key() == "roofline_gaps" && it.value().is_array() && it.value().empty()) continue;  // nothing missing
    s.heading(it.key());
    add_json(s, it.value(), it.key(), 0);
  }
  return s;
}

}  // namespace roofline::report
