// roofline.svg: the roofs of one device with its ops placed on them.
#include "report/plot_results.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "roofline/vocabulary.hpp"
#include "report/units.hpp"
#include "roofline/error.hpp"
#include "roofline/report.hpp"

namespace roofline::report {

namespace {

using rate_fn = std::string (*)(double);

std::string scenario_of(const op_result& op) {
  return op.phase == "decode" ? fmt::format("{} b{}", op.phase, op.batch)
                              : fmt::format("{} b{} s{}", op.phase, op.batch, op.seq);
}

}  // namespace

std::string device_color(int i, bool nominal) {
  // A blue, B orange (a comparison); further devices (a fleet's ranks) green, purple, teal, red,
  // brown, slate, then round again.
  static constexpr const char* measured[] = {"#1f4fa8", "#d35400", "#2e7d32", "#7b1fa2", "#00838f", "#c62828", "#6d4c41", "#455a64"};
  static constexpr const char* nominal_[] = {"#6b8fd6", "#f2a25c", "#81c784", "#ba68c8", "#4dd0e1", "#e57373", "#a1887f", "#90a4ae"};
  const int k = ((i % 8) + 8) % 8;
  return nominal ? nominal_[k] : measured[k];
}

void add_device_roofs(plot& p, const results& r, const std::string& tag, int palette, const std::vector<std::string>& extra_nominal,
                      const std::vector<std::string>& only, bool device_memory_only) {
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
  for (const auto& pr : measured)  // measured precisions without a nominal peak still get their roof
    if (std::find(precs.begin(), precs.end(), pr) == precs.end()) precs.push_back(pr);
  if (!only.empty())
    precs.erase(std::remove_if(precs.begin(), precs.end(),
                               [&](const std::string& pr) { return std::find(only.begin(), only.end(), pr) == only.end(); }),
                precs.end());
  const std::string dev = palette >= 0 ? fmt::format("dev{}-", palette) : "";
  const std::string mem = memory_level_label(dram ? dram->level : r.device.kind == "cpu" ? "dram" : "memory");
  double top_nominal = 0, top_measured = 0;
  // Compute roofs: the flat part of min(peak, I × bw), from the ridge with the device memory of the
  // same kind (nominal with nominal, measured with measured) rightwards; the diagonals are the
  // memory roofs below, one per level. Like with like: per precision, one pair per engine: the
  // tensor (or, without one, the vector) nominal peak with the best GEMM, the vector peak with the
  // best FMA chain. A peak or a measurement without its partner is drawn alone and says so.
  for (const auto& pr : precs) {
    const nominal_peak* tensor_peak = peak_for(r.nominal, pr, peak_engine::tensor);
    const nominal_peak* vector_peak = peak_for(r.nominal, pr, peak_engine::vector);
    const compute_result* gemm = best_compute_on(r.measured, pr, "gemm");
    const compute_result* fma = best_compute_on(r.measured, pr, "vector");
    struct pairing {
      std::string engine;  // "tensor" | "vector": the engine both sides ran on
      const nominal_peak* nominal;
      const compute_result* meas;
      std::string what;  // "GEMM n = 8192" | "FMA chains"
    };
    std::vector<pairing> pairs;
    // what the measured roof ran, in its legend entry too: on a CPU the fp32 "vector" roof is the
    // GEMM's, not the FMA chains' of the compute table's vector row
    const std::string gemm_what = gemm && gemm->size ? fmt::format("GEMM n = {}", *gemm->size) : "GEMM";
    if (tensor_peak) {
      pairs.push_back({"tensor", tensor_peak, gemm, gemm_what});
      pairs.push_back({"vector", vector_peak, fma, "FMA chains"});
    } else {  // no tensor cores at this precision: the GEMM runs on the vector units too
      const compute_result* best = gemm ? gemm : fma;
      pairs.push_back({"vector", vector_peak, best, !best ? "" : gemm ? gemm_what : "FMA chains"});
    }
    const std::string color_nom = palette >= 0 ? device_color(palette, true) : precision_color(pr);
    const std::string color_meas = palette >= 0 ? device_color(palette, false) : precision_color(pr);
    for (const auto& pair : pairs) {
      if (!pair.nominal && !pair.meas) continue;
      // the vector pair of a tensor precision is drawn only where both sides exist (a 2nd line pair)
      if (pair.engine == "vector" && tensor_peak && (device_memory_only || !(pair.nominal && pair.meas))) continue;
      const std::string eng = " " + pair.engine;
      const std::string id = pair.engine == "tensor" || !tensor_peak ? pr : pr + "-vector";
      const rate_fn rate = pr == "int8" ? rate_ops : rate_flops;
      if (pair.nominal) {
        const nominal_peak* np = pair.nominal;
        plot_roof nr;
        nr.label = fmt::format("{}{}{} nominal: {}", tag, pr, eng, rate(np->flops_per_s));
        nr.short_label = fmt::format("{}{}{} nominal {}{}", tag, pr, eng, rate(np->flops_per_s), pair.meas ? "" : ", not measured");
        nr.color = color_nom;
        nr.dashed = true;
        nr.peak = np->flops_per_s;
        nr.bw = nom_bw;
        nr.part = "flat";
        nr.cls = fmt::format("compute nominal {}roof-{}-nominal", dev, id);
        p.roofs.push_back(nr);
        p.legend.push_back({legend_item::kind::dashed, color_nom, nr.short_label, fmt::format("{}roof-{}-nominal", dev, id)});
        top_nominal = std::max(top_nominal, np->flops_per_s);
        if (nom_bw && pair.engine == (tensor_peak ? "tensor" : "vector"))
          p.points.push_back({np->flops_per_s / *nom_bw, np->flops_per_s, false, color_nom, "diamond", 5, "ridge ridge-nominal",
                              fmt::format("{}{} nominal ridge: {} = {} ÷ {}", tag, pr, compute_intensity(np->flops_per_s / *nom_bw, pr),
                                          rate(np->flops_per_s), rate_bytes(*nom_bw)),
                              "", 0, -1, ""});
      }
      if (pair.meas) {
        const compute_result* mc = pair.meas;
        plot_roof mr;
        mr.label = fmt::format("{}{}{} measured: {} ({}){}", tag, pr, eng, rate(mc->flops_per_s), pair.what,
                               pair.nominal ? "" : " (no nominal " + pair.engine + " peak)");
        mr.short_label = fmt::format("{}{}{} measured {} ({})", tag, pr, eng, rate(mc->flops_per_s), pair.what);
        mr.color = color_meas;
        mr.peak = mc->flops_per_s;
        if (dram) mr.bw = dram->bytes_per_s;
        mr.part = "flat";
        mr.cls = fmt::format("compute measured {}roof-{}-measured", dev, id);
        mr.width = pair.engine == "vector" && tensor_peak ? 1.6 : 2.4;
        p.roofs.push_back(mr);
        p.legend.push_back({legend_item::kind::solid, color_meas, mr.short_label, fmt::format("{}roof-{}-measured", dev, id)});
        top_measured = std::max(top_measured, mc->flops_per_s);
        if (dram && mc == best_compute(r.measured, pr))
          p.points.push_back({mc->flops_per_s / dram->bytes_per_s, mc->flops_per_s, true, color_meas, "diamond", 5, "ridge ridge-measured",
                              fmt::format("{}{} measured ridge: {} = {} ÷ {}", tag, pr, compute_intensity(mc->flops_per_s / dram->bytes_per_s, pr),
                                          rate(mc->flops_per_s), rate_bytes(dram->bytes_per_s)),
                              "", 0, -1, ""});
      }
    }
  }
  // Memory roofs: the nominal device memory (dashed), then one measured roof per level (the best
  // usable point of the level: never a rejected point, never a transition such as "l2+dram"),
  // each in its level's colour and labelled with level and pattern.
  if (nom_bw && top_nominal > 0) {
    plot_roof m;
    m.label = fmt::format("{}{} nominal: {}", tag, mem, rate_bytes(*nom_bw));
    m.short_label = fmt::format("{}{} nominal {}", tag, mem, rate_bytes(*nom_bw));
    m.color = palette >= 0 ? device_color(palette, true) : level_color("dram");
    m.dashed = true;
    m.peak = top_nominal;
    m.bw = nom_bw;
    m.part = "diagonal";
    m.width = 1.6;
    m.cls = fmt::format("memory nominal {}roof-memory-nominal", dev);
    p.roofs.push_back(m);
    p.legend.push_back({legend_item::kind::dashed, m.color, m.short_label, fmt::format("{}roof-memory-nominal", dev)});
  } else if (!r.nominal.peaks.empty()) {
    p.notes.push_back(tag + "nominal memory bandwidth unknown: no nominal memory roof");
  }
  const double top = std::max(top_measured, top_nominal);
  std::vector<std::pair<std::string, const bandwidth_result*>> levels;
  if (!device_memory_only)
    for (const auto& lvl : cache_levels(r.measured)) levels.emplace_back(lvl, best_level_bandwidth(r.measured, lvl));
  if (dram) levels.emplace_back(dram->level, dram);
  for (const auto& [lvl, b] : levels) {
    if (!b || top <= 0) continue;
    plot_roof cr;
    const std::string name = memory_level_label(lvl);
    cr.label = fmt::format("{}{} roof, measured {}: {} ({} working set)", tag, name, b->pattern, rate_bytes(b->bytes_per_s),
                           bytes_binary(static_cast<double>(b->working_set_bytes)));
    cr.short_label = fmt::format("{}{} {} {}", tag, name, b->pattern, rate_bytes(b->bytes_per_s));
    cr.color = palette >= 0 ? device_color(palette, false) : level_color(lvl);
    cr.peak = top_measured > 0 ? top_measured : top;
    cr.bw = b->bytes_per_s;
    cr.part = "diagonal";
    cr.width = is_device_memory(lvl) ? 2.4 : 1.6;
    cr.cls = fmt::format("memory measured {}roof-level-{}", dev, lvl);
    p.roofs.push_back(cr);
    p.legend.push_back({legend_item::kind::solid, cr.color, cr.short_label, fmt::format("{}roof-level-{}", dev, lvl)});
  }
}

void add_bandwidth_chart(plot& p, const results& r) {
  std::vector<std::string> patterns, levels;
  bool rejected = false;
  for (const auto& b : r.measured.bandwidth) {
    if (b.working_set_bytes <= 0 || b.bytes_per_s <= 0) continue;
    p.bandwidth.push_back({static_cast<double>(b.working_set_bytes), b.bytes_per_s, b.pattern, b.level, b.rejected,
                           fmt::format("{} {} at {}: {}{}", memory_level_label(b.level), b.pattern, bytes_binary(static_cast<double>(b.working_set_bytes)),
                                       rate_bytes(b.bytes_per_s),
                                       b.rejected ? " — rejected, not a roof: " + (b.rejected_reason.empty() ? std::string("no reason recorded")
                                                                                                            : b.rejected_reason)
                                                  : std::string())});
    if (std::find(patterns.begin(), patterns.end(), b.pattern) == patterns.end()) patterns.push_back(b.pattern);
    if (b.rejected) rejected = true;
    else if (std::find(levels.begin(), levels.end(), b.level) == levels.end()) levels.push_back(b.level);
  }
  for (const auto& pat : patterns) p.legend.push_back({legend_item::kind::solid, pattern_color(pat), "bandwidth: " + pat, "bw-pattern-" + pat});
  for (const auto& lvl : levels)
    p.legend.push_back({legend_item::kind::filled, level_color(lvl),
                        "bandwidth at " + memory_level_label(lvl) + (is_transition_level(lvl) ? " (transition)" : ""),
                        "bw-level-" + lvl});
  if (rejected) p.legend.push_back({legend_item::kind::cross, "#c00000", "bandwidth point rejected", "bw-rejected"});
}

int add_ops(plot& p, const results& r, const std::string& tag, bool labels, int palette) {
  std::vector<std::string> scenarios;
  std::vector<std::string> measured_in;  // scenarios with a measured (filled) point
  key_group not_plotted{"not plotted (0 FLOP, 0 B or no time)", "#555555", {}};  // named in the key too: it lists every op
  int skipped = 0;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    const std::string sc = scenario_of(op);
    auto it = std::find(scenarios.begin(), scenarios.end(), sc);
    std::size_t si = static_cast<std::size_t>(it - scenarios.begin());
    if (it == scenarios.end()) scenarios.push_back(sc);
    if (op.flops <= 0 || op.bytes <= 0 || op.predicted_s <= 0) {
      ++skipped;
      not_plotted.entries.emplace_back(static_cast<int>(i + 1), op.name);
      continue;
    }
    const std::string color = palette >= 0 ? device_color(palette, false) : scenario_color(si);
    const double x = op.flops / op.bytes;
    const int number = static_cast<int>(i + 1);
    const std::string name = fmt::format("{}{} ({})", tag, op.name, sc);
    const std::string base = fmt::format("#{} {}: {}, {}, {}", number, name, flop_count(op.flops), bytes_binary(op.bytes), intensity(x));
    const double yp = op.flops / op.predicted_s;
    const bool latency = op.bound == "latency";
    const std::string sc_cls = palette >= 0 ? fmt::format("dev{}-ops", palette) : fmt::format("scenario-{}", si);
    // Points carry their op-table number (drawn beside them); the key lists number and op.
    if (labels) {
      if (p.key.size() <= si) p.key.resize(si + 1);
      p.key[si].title = sc, p.key[si].color = color;
      p.key[si].entries.emplace_back(number, op.name);
    }
    p.points.push_back({x, yp, false, color, latency ? "triangle" : "circle", 4.5,
                        fmt::format("op-pred{} {}", latency ? " op-latency" : "", sc_cls),
                        base + fmt::format("; predicted {} ({}, {}-bound)", seconds(op.predicted_s), rate_flops(yp), op.bound),
                        "", labels ? number : 0, static_cast<int>(i), name});
    if (op.measured_s && *op.measured_s > 0) {
      const double ym = op.flops / *op.measured_s;
      p.points.push_back({x, ym, true, color, "circle", 4.5, "op-meas " + sc_cls,
                          base + fmt::format("; measured {} ({}), {} of predicted", seconds(*op.measured_s), rate_flops(ym),
                                             ratio(*op.measured_s / op.predicted_s)),
                          "", labels ? number : 0, static_cast<int>(i), name});
      p.links.push_back({x, yp, x, ym, color});
      measured_in.push_back(sc);
    }
  }
  if (labels && !not_plotted.entries.empty()) {
    p.key.resize(scenarios.size());  // the scenarios' groups keep their index
    p.key.push_back(std::move(not_plotted));
  }
  if (palette < 0)
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      p.legend.push_back({std::find(measured_in.begin(), measured_in.end(), scenarios[i]) != measured_in.end() ? legend_item::kind::filled
                                                                                                                 : legend_item::kind::hollow,
                          scenario_color(i), "ops: " + scenarios[i], fmt::format("scenario-{}", i)});
  return skipped;
}

bool add_batch_sweep(plot& p, const batch_sweep& sweep, const std::string& color) {
  if (sweep.shapes.empty()) return false;
  plot_trace t;
  t.color = color;
  std::vector<plot_point> pts;
  for (const sweep_point& e : sweep.shapes.front().points) {  // the model's own linear
    // the measured rate; a batch not run is drawn at its predicted one
    const double secs = e.measured_s ? *e.measured_s : e.predicted_s;
    const std::optional<double> y = e.measured_flops_per_s ? e.measured_flops_per_s
                                    : secs > 0                 ? std::optional<double>(e.flops / secs)
                                                               : std::nullopt;
    const double x = e.intensity > 0 ? e.intensity : (e.bytes > 0 ? e.flops / e.bytes : 0);
    if (!(x > 0) || !y || !(*y > 0)) continue;
    t.pts.emplace_back(x, *y);
    pts.push_back({x, *y, true, color, "square", 3.5, "sweep-point",
                   fmt::format("decode batch {}: {}, {}", e.batch, intensity(x), rate_flops(*y)), "", 0, -1, ""});
  }
  if (t.pts.size() < 2) return false;
  t.label = fmt::format("decode batch sweep ({} points)", t.pts.size());
  p.traces.push_back(t);
  for (auto& pt : pts) p.points.push_back(pt);
  p.legend.push_back({legend_item::kind::square, color, "decode batch sweep", "sweep-point"});
  return true;
}

}  // namespace roofline::report

namespace roofline {

std::vector<std::string> other_figure_precisions(const results& r) {
  std::vector<std::string> out;
  const std::string main = main_precision(r);
  for (const auto& p : measured_precisions(r.measured))
    if (p != main) out.push_back(p);
  return out;
}

std::string render_svg(const results& r, const std::string& wanted) {
  using namespace report;
  const std::string model_precision = main_precision(r);
  const std::string precision = wanted.empty() ? model_precision : wanted;
  if (!wanted.empty() && wanted != model_precision) {
    const auto m = measured_precisions(r.measured);
    const bool nominal = std::any_of(r.nominal.peaks.begin(), r.nominal.peaks.end(),
                                     [&](const nominal_peak& k) { return k.precision == wanted; });
    if (std::find(m.begin(), m.end(), wanted) == m.end() && !nominal)
      throw input_error("", "--precision", fmt::format("'{}' has no measured or nominal roof in these results (measured: {})", wanted,
                                                       fmt::join(m, ", ")));
  }
  const bool model_panel = precision == model_precision;
  plot p;
  p.title = "Roofline: " + (r.device.name.empty() ? std::string("unknown device") : r.device.name);
  if (!model_panel) p.title += " · " + precision;
  // the axes in the precision's unit of work (int8: OP/s against OP/B, as its roofs)
  const std::string work = work_unit(precision);
  p.x_label = fmt::format("arithmetic intensity ({}/B, log scale)", work);
  p.y_label = fmt::format("performance ({}/s, log scale)", work);
  p.y_unit = work + "/s";
  p.subtitle = fmt::format("{}{} · roofline {} · dashed = nominal, solid = measured · "
                           "numbers = the op table's #",
                           r.host.hostname.empty() ? "" : r.host.hostname + " · ", r.host.timestamp.empty() ? "time unknown" : r.host.timestamp,
                           r.tool.version.empty() ? "?" : r.tool.version);
  // One panel: the compute roofs of one precision (by default the model's, the op table's), every
  // memory level.
  add_device_roofs(p, r, "", -1, {}, {precision});
  p.legend.push_back({legend_item::kind::hollow_diamond, "#444444", "nominal ridge point", "ridge-nominal"});
  p.legend.push_back({legend_item::kind::diamond, "#444444", "measured ridge point", "ridge-measured"});
  if (model_panel) {
    p.legend.push_back({legend_item::kind::hollow, "#444444", "op predicted", "op-pred"});
    p.legend.push_back({legend_item::kind::triangle, "#444444", "op predicted latency-bound", "op-latency"});
    p.legend.push_back({legend_item::kind::filled, "#444444", "op measured", "op-meas"});
    if (r.analysis.batch_sweep) add_batch_sweep(p, *r.analysis.batch_sweep, "#00838f");
    const int skipped = add_ops(p, r, "", true, -1);
    if (skipped > 0) p.notes.push_back(fmt::format("{} op(s) not plotted (0 FLOP, 0 B or no time): named in the key", skipped));
  } else if (!r.ops.empty()) {
    p.notes.push_back(fmt::format("roofs only: the model's ops ran in {} and are on its panel", model_precision));
  }
  const auto others = measured_precisions(r.measured);
  if (others.size() > 1)
    p.notes.push_back(fmt::format("{} roofs only; every precision's roofs are in the report's roofs table", precision));
  if (p.roofs.empty()) p.notes.push_back("no roof: no nominal peak and no measured result");
  if (model_panel) add_bandwidth_chart(p, r);  // once, under the model's panel
  return draw_svg(p);
}

}  // namespace roofline

namespace roofline {

std::string render_place_svg(const results& r, const std::string& title) {
  using namespace report;
  plot p;
  p.title = title;
  p.subtitle = "dashed = nominal, solid = measured · filled = your kernel's measured point, hollow = the same work at the roof";
  add_device_roofs(p, r, "", -1);
  int skipped = 0;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    if (op.flops <= 0 || op.bytes <= 0 || !op.measured_s || *op.measured_s <= 0) {
      ++skipped;
      continue;
    }
    const double x = op.flops / op.bytes, ym = op.flops / *op.measured_s;
    const int n = static_cast<int>(i + 1);
    const std::string color = scenario_color(0);
    if (op.predicted_s > 0) {
      const double yr = op.flops / op.predicted_s;
      p.points.push_back({x, yr, false, color, "circle", 4, "kernel-roof", fmt::format("#{} {} at the roof: {}", n, op.name, rate_flops(yr)),
                          "", 0, static_cast<int>(i), ""});
      p.links.push_back({x, yr, x, ym, color});
    }
    p.points.push_back({x, ym, true, color, "circle", 4.5, "kernel",
                        fmt::format("#{} {}: {}, {}, {}; {} → {} ({})", n, op.name, flop_count(op.flops), bytes_binary(op.bytes), intensity(x),
                                    seconds(*op.measured_s), rate_flops(ym), op.advice),
                        "", n, static_cast<int>(i), op.name});
  }
  p.legend.push_back({legend_item::kind::filled, scenario_color(0), "your kernel (measured)", "kernel"});
  p.legend.push_back({legend_item::kind::hollow, scenario_color(0), "the same work at the roof", "kernel-roof"});
  p.legend.push_back({legend_item::kind::hollow_diamond, "#444444", "nominal ridge point", "ridge-nominal"});
  p.legend.push_back({legend_item::kind::diamond, "#444444", "measured ridge point", "ridge-measured"});
  if (skipped > 0) p.notes.push_back(fmt::format("{} kernel(s) not plotted (0 FLOP or 0 B)", skipped));
  return draw_svg(p);
}

}  // namespace roofline
