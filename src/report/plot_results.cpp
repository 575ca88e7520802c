// roofline.svg: the roofs of one device with its ops placed on them.
#include "report/plot_results.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/query.hpp"
#include "report/units.hpp"
#include "roofline/report.hpp"

namespace roofline::report {

namespace {

std::optional<double> num_of(const json& o, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = o.find(k);
    if (it != o.end() && it->is_number() && it->get<double>() > 0) return it->get<double>();
  }
  return std::nullopt;
}

std::string scenario_of(const op_result& op) {
  return op.phase == "decode" ? fmt::format("{} b{}", op.phase, op.batch)
                              : fmt::format("{} b{} s{}", op.phase, op.batch, op.seq);
}

}  // namespace

std::string device_color(int i, bool nominal) {
  if (i == 0) return nominal ? "#6b8fd6" : "#1f4fa8";
  return nominal ? "#f2a25c" : "#d35400";
}

void add_device_roofs(plot& p, const results& r, const std::string& tag, int palette, const std::vector<std::string>& extra_nominal) {
  const auto nom_bw = r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0
                          ? r.nominal.memory_bandwidth_bytes_per_s
                          : std::nullopt;
  const bandwidth_result* dram = best_device_bandwidth(r.measured);
  const auto measured = measured_precisions(r.measured);
  std::vector<std::string> precs;
  for (const auto& pr : nominal_precisions(r.nominal))
    if (std::find(extra_nominal.begin(), extra_nominal.end(), pr) != extra_nominal.end() ||
        std::find(measured.begin(), measured.end(), pr) != measured.end())
      precs.push_back(pr);
  const std::string mem = r.device.kind == "cpu" ? "DRAM" : "memory";
  double top = 0;
  for (const auto& pr : precs) {
    const nominal_peak* np = peak_for(r.nominal, pr);
    const compute_result* mc = best_compute(r.measured, pr);
    const std::string color_nom = palette >= 0 ? device_color(palette, true) : precision_color(pr);
    const std::string color_meas = palette >= 0 ? device_color(palette, false) : precision_color(pr);
    const std::string eng = np->engine == "tensor" ? " tensor" : "";
    plot_roof nr;
    nr.label = fmt::format("{}{}{} nominal: {}{}", tag, pr, eng, rate_flops(np->flops_per_s),
                           nom_bw ? ", " + mem + " " + rate_bytes(*nom_bw) : std::string(", memory bandwidth unknown"));
    nr.short_label = fmt::format("{}{}{} nominal {}", tag, pr, eng, rate_flops(np->flops_per_s));
    nr.color = color_nom;
    nr.dashed = true;
    nr.peak = np->flops_per_s;
    nr.bw = nom_bw;
    nr.cls = "nominal";
    p.roofs.push_back(nr);
    p.legend.push_back({legend_item::kind::dashed, color_nom, nr.short_label});
    top = std::max(top, np->flops_per_s);
    if (nom_bw)
      p.points.push_back({np->flops_per_s / *nom_bw, np->flops_per_s, false, color_nom, "diamond", 5, "ridge",
                          fmt::format("{}{} nominal ridge: {} = {} ÷ {}", tag, pr, intensity(np->flops_per_s / *nom_bw),
                                      rate_flops(np->flops_per_s), rate_bytes(*nom_bw)),
                          "", 0, -1, ""});
    if (mc) {
      plot_roof mr;
      mr.label = fmt::format("{}{} measured: {} ({}{}){}", tag, pr, rate_flops(mc->flops_per_s), mc->engine,
                             mc->size ? fmt::format(" n = {}", *mc->size) : std::string(),
                             dram ? ", " + mem + " " + rate_bytes(dram->bytes_per_s) + " (" + dram->pattern + ")" : std::string());
      mr.short_label = fmt::format("{}{} measured {}", tag, pr, rate_flops(mc->flops_per_s));
      mr.color = color_meas;
      mr.peak = mc->flops_per_s;
      if (dram) mr.bw = dram->bytes_per_s;
      mr.cls = "measured";
      mr.width = 2.4;
      p.roofs.push_back(mr);
      p.legend.push_back({legend_item::kind::solid, color_meas, mr.short_label});
      top = std::max(top, mc->flops_per_s);
      if (dram)
        p.points.push_back({mc->flops_per_s / dram->bytes_per_s, mc->flops_per_s, true, color_meas, "diamond", 5, "ridge",
                            fmt::format("{}{} measured ridge: {} = {} ÷ {}", tag, pr, intensity(mc->flops_per_s / dram->bytes_per_s),
                                        rate_flops(mc->flops_per_s), rate_bytes(dram->bytes_per_s)),
                            "", 0, -1, ""});
    }
  }
  // Measured precisions without a nominal peak still get their measured roof.
  for (const auto& pr : measured) {
    if (std::find(precs.begin(), precs.end(), pr) != precs.end()) continue;
    const compute_result* mc = best_compute(r.measured, pr);
    plot_roof mr;
    mr.label = fmt::format("{}{} measured: {} (no nominal peak)", tag, pr, rate_flops(mc->flops_per_s));
    mr.short_label = fmt::format("{}{} measured {}", tag, pr, rate_flops(mc->flops_per_s));
    mr.color = palette >= 0 ? device_color(palette, false) : precision_color(pr);
    mr.peak = mc->flops_per_s;
    if (dram) mr.bw = dram->bytes_per_s;
    mr.cls = "measured";
    p.roofs.push_back(mr);
    p.legend.push_back({legend_item::kind::solid, mr.color, mr.short_label});
    top = std::max(top, mc->flops_per_s);
  }
  // Cache-level roofs under the highest compute roof (one path per measured level).
  for (const auto& lvl : cache_levels(r.measured)) {
    const bandwidth_result* b = best_level_bandwidth(r.measured, lvl);
    if (!b || top <= 0) continue;
    plot_roof cr;
    std::string up = lvl;
    std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return std::toupper(c); });
    cr.label = fmt::format("{}{} roof (measured {}): {}", tag, up, b->pattern, rate_bytes(b->bytes_per_s));
    cr.color = palette >= 0 ? device_color(palette, true) : "#7a7a7a";
    cr.short_label = fmt::format("{}{} {}", tag, up, rate_bytes(b->bytes_per_s));
    cr.peak = top;
    cr.bw = b->bytes_per_s;
    cr.cls = "cache";
    cr.width = 1.4;
    p.roofs.push_back(cr);
    p.legend.push_back({legend_item::kind::solid, cr.color, fmt::format("{}{} {}", tag, up, rate_bytes(b->bytes_per_s))});
  }
  if (dram)
    p.legend.push_back({legend_item::kind::text, "", fmt::format("{}{} measured {} ({})", tag, mem, rate_bytes(dram->bytes_per_s), dram->pattern)});
  if (nom_bw) p.legend.push_back({legend_item::kind::text, "", fmt::format("{}{} nominal {}", tag, mem, rate_bytes(*nom_bw))});
  else if (!r.nominal.peaks.empty())
    p.notes.push_back(tag + "nominal bandwidth unknown: nominal roofs flat");
}

int add_ops(plot& p, const results& r, const std::string& tag, bool labels, int palette) {
  std::vector<std::string> scenarios;
  int skipped = 0;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    const std::string sc = scenario_of(op);
    auto it = std::find(scenarios.begin(), scenarios.end(), sc);
    std::size_t si = static_cast<std::size_t>(it - scenarios.begin());
    if (it == scenarios.end()) scenarios.push_back(sc);
    if (op.flops <= 0 || op.bytes <= 0 || op.predicted_s <= 0) {
      ++skipped;
      continue;
    }
    const std::string color = palette >= 0 ? device_color(palette, false) : scenario_color(si);
    const double x = op.flops / op.bytes;
    const int number = static_cast<int>(i + 1);
    const std::string name = fmt::format("{}{} ({})", tag, op.name, sc);
    const std::string base = fmt::format("#{} {}: {}, {}, {}", number, name, flop_count(op.flops), bytes_binary(op.bytes), intensity(x));
    const double yp = op.flops / op.predicted_s;
    p.points.push_back({x, yp, false, color, "circle", 4.5, "op-pred", base + fmt::format("; predicted {} ({})", seconds(op.predicted_s), rate_flops(yp)),
                        labels ? op.name : "", labels ? number : 0, static_cast<int>(i), name});
    if (op.measured_s && *op.measured_s > 0) {
      const double ym = op.flops / *op.measured_s;
      p.points.push_back({x, ym, true, color, "circle", 4.5, "op-meas",
                          base + fmt::format("; measured {} ({}), {} of predicted", seconds(*op.measured_s), rate_flops(ym),
                                             ratio(*op.measured_s / op.predicted_s)),
                          labels ? op.name : "", labels ? number : 0, static_cast<int>(i), name});
      p.links.push_back({x, yp, x, ym, color});
    }
  }
  if (palette < 0)
    for (std::size_t i = 0; i < scenarios.size(); ++i) p.legend.push_back({legend_item::kind::filled, scenario_color(i), "ops: " + scenarios[i]});
  return skipped;
}

bool add_batch_sweep(plot& p, const json& sweep, const std::string& color) {
  const json* arr = &sweep;
  if (sweep.is_object())
    for (const char* k : {"points", "rows", "sweep", "batches", "decode"}) {
      auto it = sweep.find(k);
      if (it != sweep.end() && it->is_array()) {
        arr = &*it;
        break;
      }
    }
  if (!arr->is_array()) return false;
  plot_trace t;
  t.color = color;
  std::vector<plot_point> pts;
  for (const auto& e : *arr) {
    if (!e.is_object()) continue;
    auto x = num_of(e, {"intensity", "arithmetic_intensity", "intensity_flop_per_byte"});
    auto y = num_of(e, {"measured_flops_per_s", "achieved_flops_per_s", "flops_per_s", "predicted_flops_per_s", "attainable_flops_per_s"});
    const auto flops = num_of(e, {"flops", "flops_per_token", "flops_per_step"});
    const auto bytes = num_of(e, {"bytes", "bytes_per_step"});
    const auto secs = num_of(e, {"measured_s", "time_s", "tpot_s", "predicted_s", "step_s"});
    if (!x && flops && bytes) x = *flops / *bytes;
    if (!y && flops && secs) y = *flops / *secs;
    if (!x || !y) continue;
    const auto batch = num_of(e, {"batch"});
    const std::string b = batch ? fmt::format("batch {}", sig(*batch, 6)) : "point";
    t.pts.emplace_back(*x, *y);
    pts.push_back({*x, *y, true, color, "square", 3.5, "sweep-point", fmt::format("decode {}: {}, {}", b, intensity(*x), rate_flops(*y)),
                   "", 0, -1, ""});
  }
  if (t.pts.size() < 2) return false;
  t.label = fmt::format("decode batch sweep ({} points)", t.pts.size());
  p.traces.push_back(t);
  for (auto& pt : pts) p.points.push_back(pt);
  p.legend.push_back({legend_item::kind::square, color, "decode batch sweep"});
  return true;
}

}  // namespace roofline::report

namespace roofline {

std::string render_svg(const results& r) {
  using namespace report;
  plot p;
  p.title = "Roofline: " + (r.device.name.empty() ? std::string("unknown device") : r.device.name);
  p.subtitle = fmt::format("{}{} · roofline {} · dashed = nominal, solid = measured · hollow = predicted op, filled = measured op",
                           r.host.hostname.empty() ? "" : r.host.hostname + " · ", r.host.timestamp.empty() ? "time unknown" : r.host.timestamp,
                           r.tool.version.empty() ? "?" : r.tool.version);
  add_device_roofs(p, r, "", -1);
  p.legend.push_back({legend_item::kind::diamond, "#444444", "ridge point (hollow = nominal)"});
  p.legend.push_back({legend_item::kind::hollow, "#444444", "op predicted"});
  p.legend.push_back({legend_item::kind::filled, "#444444", "op measured"});
  if (r.analysis.is_object()) {
    auto it = r.analysis.find("batch_sweep");
    if (it != r.analysis.end() && !it->is_null()) add_batch_sweep(p, *it, "#00838f");
  }
  const int skipped = add_ops(p, r, "", true, -1);
  if (skipped > 0) p.notes.push_back(fmt::format("{} op(s) not plotted (0 FLOP or 0 B)", skipped));
  if (p.roofs.empty()) p.notes.push_back("no roof: no precision has both a nominal peak and a measured result");
  return draw_svg(p);
}

}  // namespace roofline
