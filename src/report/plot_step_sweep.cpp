// batch.svg: the decode step against batch (results.analysis.step_sweep) in three stacked log-log
// charts — step time, tokens/s and J/token — measured (filled points) and predicted (hollow points on
// a dashed line), the knees of both curves marked across each chart and labelled in it
// (docs/formulas-analysis.md §8.1, §10). The x axis runs from the first batch of the sweep to the last,
// each batch a tick; each y axis fits its data (plot.hpp, draw_svg). Drawn with
// the roofline figure's machinery (plot.hpp); every number through roofline/units.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "report/plot.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/report.hpp"
#include "roofline/units.hpp"

namespace roofline {

namespace {

using report::legend_item;
using report::plot;
using report::plot_point;
using report::plot_trace;

constexpr const char* measured_color = "#1f4e9c";
constexpr const char* predicted_color = "#c0392b";
constexpr const char* target_color = "#555555";

using value_fn = std::function<std::optional<double>(const step_sweep_point&)>;

/// One chart: `measured` and `predicted` of every point against batch; the knees as vertical lines.
/// Empty when neither series has two points.
std::string chart(const step_sweep_analysis& s, const std::string& title, const std::string& y_label,
                  const std::string& y_unit, const value_fn& measured, const value_fn& predicted,
                  const std::function<std::string(double)>& fmt_value, std::optional<double> target = std::nullopt) {
  plot p;
  p.title = title;
  p.subtitle = fmt::format(
      "decode at context {}, one point per batch; measured filled, predicted hollow on the dashed line", s.context);
  p.x_label = "batch (sequences per step, log scale)";
  p.y_label = y_label;
  p.x_unit = "";
  p.y_unit = y_unit;
  p.max_x_decades = 5;
  for (const auto& pt : s.points)  // the batches (1 … 256), ascending
    if (p.x_ticks.empty() || static_cast<double>(pt.batch) > p.x_ticks.back()) p.x_ticks.push_back(static_cast<double>(pt.batch));
  plot_trace pred_line;
  pred_line.color = predicted_color;
  pred_line.cls = "batch-pred-line";
  pred_line.label = "predicted";
  int n_meas = 0, n_pred = 0;
  for (const auto& pt : s.points) {
    const double b = static_cast<double>(pt.batch);
    if (auto m = measured(pt); m && *m > 0) {
      p.points.push_back({b, *m, true, measured_color, "circle", 5, "batch-meas",
                          fmt::format("batch {}: measured {}", pt.batch, fmt_value(*m)), "", 0, -1, ""});
      ++n_meas;
    }
    if (auto q = predicted(pt); q && *q > 0) {
      p.points.push_back({b, *q, false, predicted_color, "circle", 5, "batch-pred",
                          fmt::format("batch {}: predicted {}", pt.batch, fmt_value(*q)), "", 0, -1, ""});
      pred_line.pts.emplace_back(b, *q);
      ++n_pred;
    }
  }
  if (n_meas < 2 && n_pred < 2) return "";
  p.traces.push_back(std::move(pred_line));
  p.legend.push_back({legend_item::kind::filled, measured_color, "measured", "batch-meas"});
  p.legend.push_back({legend_item::kind::hollow, predicted_color, "predicted", "batch-pred"});
  // The knees: a dashed line across the whole chart, labelled in the chart (the measured one at the
  // top, the predicted one at the bottom, so that two close knees keep both labels).
  auto knee = [&](const std::optional<double>& k, const char* which, const char* color, const char* cls, bool top) {
    if (!k || !(*k > 0)) return;
    report::plot_vline v;
    v.x = *k;
    v.color = color;
    v.cls = cls;
    v.label = fmt::format("{} knee: batch {}", which, units::sig(*k));
    v.label_at_top = top;
    p.legend.push_back({legend_item::kind::dashed, color, v.label, cls});
    p.vlines.push_back(std::move(v));
  };
  knee(s.knee_measured, "measured", measured_color, "batch-knee-meas", true);
  knee(s.knee_predicted, "predicted", predicted_color, "batch-knee-pred", false);
  if (target && *target > 0 && !s.points.empty()) {  // the TPOT target across the batches
    plot_trace t;
    t.color = target_color;
    t.cls = "batch-target";
    t.label = "TPOT target " + fmt_value(*target);
    t.pts = {{static_cast<double>(s.points.front().batch), *target},
             {static_cast<double>(s.points.back().batch), *target}};
    p.legend.push_back({legend_item::kind::dashed, target_color, t.label, "batch-target"});
    p.traces.push_back(std::move(t));
  }
  if (s.tpot_target_s)
    p.notes.push_back(fmt::format("TPOT target {}: largest batch measured {}, predicted {}",
                                  units::seconds(*s.tpot_target_s),
                                  s.largest_batch_measured ? std::to_string(*s.largest_batch_measured) : "none",
                                  s.largest_batch_predicted ? std::to_string(*s.largest_batch_predicted) : "none"));
  if (s.kv_capacity_batch) p.notes.push_back(fmt::format("KV-cache capacity: {} sequences", *s.kv_capacity_batch));
  return report::draw_svg(p);
}

}  // namespace

std::string render_step_sweep_svg(const results& r) {
  const std::optional<step_sweep_analysis>& s = r.analysis.step_sweep;
  if (!s) return "";
  const auto secs = [](double x) { return units::seconds(x); };
  const auto rate = [](double x) { return units::sig(x) + " tokens/s"; };
  const auto joules = [](double x) { return units::si(x, "J"); };
  return report::stack_svgs({
      chart(
          *s, "Decode step time against batch (TPOT)", "step time = TPOT (s, log scale)", "s",
          [](const step_sweep_point& p) { return p.measured_s; },
          [](const step_sweep_point& p) { return std::optional<double>(p.predicted_s); }, secs, s->tpot_target_s),
      chart(
          *s, "Throughput against batch", "tokens/s (log scale)", "tokens/s",
          [](const step_sweep_point& p) { return p.measured_tokens_per_s; },
          [](const step_sweep_point& p) { return std::optional<double>(p.predicted_tokens_per_s); }, rate),
      chart(
          *s, "Energy per token against batch", "J/token (log scale)", "J",
          [](const step_sweep_point& p) { return p.j_per_token_measured; },
          [](const step_sweep_point& p) { return p.j_per_token_predicted; }, joules),
  }, "decode step against batch");
}

}  // namespace roofline
