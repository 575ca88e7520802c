// batch.svg: the decode step against batch (results.analysis.step_sweep) in three stacked log-log
// charts — step time, tokens/s and J/token — measured (filled points) and predicted (hollow points on
// a dashed line), the knees of both curves marked (docs/formulas-analysis.md §8.1, §10). Drawn with
// the roofline figure's machinery (plot.hpp); every number through roofline/units.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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
  plot_trace pred_line;
  pred_line.color = predicted_color;
  pred_line.cls = "batch-pred-line";
  pred_line.label = "predicted";
  int n_meas = 0, n_pred = 0;
  double lo = 0, hi = 0;
  for (const auto& pt : s.points) {
    const double b = static_cast<double>(pt.batch);
    if (auto m = measured(pt); m && *m > 0) {
      p.points.push_back({b, *m, true, measured_color, "circle", 5, "batch-meas",
                          fmt::format("batch {}: measured {}", pt.batch, fmt_value(*m)), "", 0, -1, ""});
      ++n_meas;
      lo = lo > 0 ? std::min(lo, *m) : *m, hi = std::max(hi, *m);
    }
    if (auto q = predicted(pt); q && *q > 0) {
      p.points.push_back({b, *q, false, predicted_color, "circle", 5, "batch-pred",
                          fmt::format("batch {}: predicted {}", pt.batch, fmt_value(*q)), "", 0, -1, ""});
      pred_line.pts.emplace_back(b, *q);
      ++n_pred;
      lo = lo > 0 ? std::min(lo, *q) : *q, hi = std::max(hi, *q);
    }
  }
  if (n_meas < 2 && n_pred < 2) return "";
  p.traces.push_back(std::move(pred_line));
  p.legend.push_back({legend_item::kind::filled, measured_color, "measured", "batch-meas"});
  p.legend.push_back({legend_item::kind::hollow, predicted_color, "predicted", "batch-pred"});
  auto knee = [&](const std::optional<double>& k, const char* which, const char* color, const char* cls) {
    if (!k || !(*k > 0) || !(lo > 0)) return;
    plot_trace t;
    t.color = color;
    t.cls = cls;
    t.label = fmt::format("{} knee: batch {}", which, units::sig(*k));
    t.pts = {{*k, lo}, {*k, hi}};
    p.legend.push_back({legend_item::kind::dashed, color, t.label, cls});
    p.traces.push_back(std::move(t));
  };
  knee(s.knee_measured, "measured", measured_color, "batch-knee-meas");
  knee(s.knee_predicted, "predicted", predicted_color, "batch-knee-pred");
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

/// Stacks SVG documents vertically in one: each becomes a nested <svg> at its y offset.
std::string stack(const std::vector<std::string>& parts) {
  double y = 0, width = 0;
  std::string body;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    const auto num_attr = [&](const char* key) {
      const auto at = part.find(key);
      if (at == std::string::npos) return 0.0;
      return std::atof(part.c_str() + at + std::char_traits<char>::length(key));
    };
    const double h = num_attr(" height=\""), w = num_attr(" width=\"");
    std::string s = part;
    s.replace(s.find("<svg "), 5, fmt::format("<svg x=\"0\" y=\"{:.1f}\" ", y));
    body += s;
    y += h;
    width = std::max(width, w);
  }
  if (body.empty()) return "";
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0:.1f}\" height=\"{1:.1f}\" "
      "viewBox=\"0 0 {0:.1f} {1:.1f}\">\n<title>decode step against batch</title>\n{2}</svg>\n",
      width, y, body);
}

}  // namespace

std::string render_batch_svg(const results& r) {
  const std::optional<step_sweep_analysis>& s = r.analysis.step_sweep;
  if (!s) return "";
  const auto secs = [](double x) { return units::seconds(x); };
  const auto rate = [](double x) { return units::sig(x) + " tokens/s"; };
  const auto joules = [](double x) { return units::si(x, "J"); };
  return stack({
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
  });
}

}  // namespace roofline
