// place.svg of `roofline place`: the user's kernels on the roofs they were judged against, numbered
// as in place.csv, with the key beside the figure. A pure function of one kernel_report; numbers
// through roofline/units.hpp; the drawing is report/plot_draw.cpp's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/plot.hpp"
#include "report/units.hpp"
#include "roofline/analysis.hpp"
#include "roofline/kernel_report.hpp"
#include "roofline/run_report.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

/// The parts of place.svg (render_kernel_svg): its roofs, its kernels, its baseline.
namespace kernel_svg {

using namespace report;

/// The device-memory roof the kernels were judged at: the best measured, else the nominal one.
struct memory_roof {
  std::optional<double> bw;
  std::string label;
  bool nominal = false;
};
memory_roof dram_roof(const results& r) {
  memory_roof m;
  std::optional<double>& dram = m.bw;
  std::string& dram_label = m.label;
  bool& dram_nominal = m.nominal;
  if (const bandwidth_result* b = best_device_bandwidth(r.measured)) {
    dram = b->bytes_per_s;
    dram_label = fmt::format("{} {} {}", memory_level_label(b->level), b->pattern, units::rate_bytes(b->bytes_per_s));
  } else if (r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0) {
    dram = r.nominal.memory_bandwidth_bytes_per_s;
    dram_label = fmt::format("{} nominal {}", memory_level_label("dram"), units::rate_bytes(*dram));
    dram_nominal = true;
  }
  return m;
}

/// Like with like: one roof per precision and compute roof the kernels were judged against (an ncu
/// export places its tensor-core GEMMs on the GEMM roof and its elementwise kernels on the vector
/// roof of the same precision: both drawn), the highest of a precision the thicker.
struct judged_roofs {
  std::map<std::pair<std::string, std::string>, const kernel_verdict*> roof_of;  ///< (precision, roof source) → first kernel
  std::map<std::string, double> highest;                                         ///< precision → its highest roof
};
judged_roofs roofs_judged(const kernel_report& k) {
  judged_roofs j;
  auto& roof_of = j.roof_of;
  auto& highest = j.highest;
  for (const auto& v : k.verdicts)
    if (v.compute_roof_unscaled) {
      roof_of.emplace(std::pair{v.precision, v.compute_roof_source}, &v);
      highest[v.precision] = std::max(highest[v.precision], *v.compute_roof_unscaled);
    }
  return j;
}

/// One roof per precision in use: the roof each kernel was judged against (unscaled), flat from its
/// ridge with device memory. Returns the highest.
double add_judged_roofs(plot& p, const judged_roofs& j, const std::optional<double>& dram) {
  const auto& highest = j.highest;
  double top = 0;
  int id = 0;
  for (const auto& [key, v] : j.roof_of) {
    const std::string& prec = key.first;
    const std::string& source = key.second;
    // the engine in words, from the roof's source ("measured fp16 GEMM n = 4096", "… vector", "nominal … tensor …")
    const std::string engine = source.find("GEMM") != std::string::npos     ? "GEMM"
                               : source.find("tensor") != std::string::npos ? "tensor"
                                                                            : "vector";
    plot_roof roof;
    const bool nominal = source.rfind("nominal", 0) == 0;
    const std::string ref = fmt::format("roof-{}-{}", prec.empty() ? "any" : prec, ++id);
    roof.label = fmt::format("{} {}: {} ({})", prec, engine, report::kernel_rate(*v->compute_roof_unscaled, prec), source);
    roof.short_label = fmt::format("{} {} {}", prec, engine, report::kernel_rate(*v->compute_roof_unscaled, prec));
    roof.color = precision_color(prec);
    roof.dashed = nominal;
    roof.peak = *v->compute_roof_unscaled;
    roof.bw = dram;
    roof.part = "flat";
    roof.width = roof.peak < highest.at(prec) ? 1.4 : 2.4;
    roof.cls = "compute " + ref;
    p.roofs.push_back(roof);
    p.legend.push_back({nominal ? legend_item::kind::dashed : legend_item::kind::solid, roof.color, roof.label, ref});
    top = std::max(top, roof.peak);
  }
  return top;
}

/// The nominal peaks of the same engines (dashed), from the ridge with the nominal memory roof, as
/// roofline.svg draws them: a GEMM roof's partner is the tensor peak (else the vector one), a vector
/// roof's the vector peak. Returns the highest.
double add_nominal_roofs(plot& p, const judged_roofs& j, const results& r, const std::optional<double>& nom_bw) {
  std::set<const nominal_peak*> nominal_drawn;
  double top_nominal = 0;
  for (const auto& [key, v] : j.roof_of) {
    if (key.second.rfind("nominal", 0) == 0) continue;  // the kernel was placed against the nominal peak itself
    const bool gemm = key.second.find("GEMM") != std::string::npos || key.second.find("tensor") != std::string::npos;
    const nominal_peak* np = gemm ? peak_for(r.nominal, key.first, peak_engine::tensor) : nullptr;
    if (!np) np = peak_for(r.nominal, key.first, peak_engine::vector);
    if (!np || !nominal_drawn.insert(np).second) continue;
    plot_roof nr;
    const std::string ref = fmt::format("roof-{}-{}-nominal", key.first.empty() ? "any" : key.first, np->engine);
    nr.label = nr.short_label =
        fmt::format("{} {} nominal {}", key.first, np->engine, report::kernel_rate(np->flops_per_s, key.first));
    nr.color = precision_color(key.first);
    nr.dashed = true;
    nr.peak = np->flops_per_s;
    nr.bw = nom_bw;
    nr.part = "flat";
    nr.width = 1.6;
    nr.cls = "compute nominal " + ref;
    p.roofs.push_back(nr);
    p.legend.push_back({legend_item::kind::dashed, nr.color, nr.label, ref});
    top_nominal = std::max(top_nominal, np->flops_per_s);
  }
  return top_nominal;
}

/// Device memory's own diagonals, labelled, in the memory colour (as in roofline.svg): the nominal one
/// (dashed) under the nominal peaks, the judged one under the judged roofs, and one diagonal per other
/// level the kernels' bytes were judged at.
void add_memory_roofs(plot& p, const kernel_report& k, const memory_roof& mem, const std::optional<double>& nom_bw, double top,
                      double top_nominal) {
  const std::optional<double>& dram = mem.bw;
  const std::string& dram_label = mem.label;
  const bool dram_nominal = mem.nominal;
  if (nom_bw && top_nominal > 0 && !dram_nominal) {
    plot_roof m;
    m.label = m.short_label = fmt::format("{} nominal {}", memory_level_label("dram"), units::rate_bytes(*nom_bw));
    m.color = level_color("dram");
    m.dashed = true;
    m.peak = top_nominal;
    m.bw = nom_bw;
    m.part = "diagonal";
    m.width = 1.6;
    m.cls = "memory nominal roof-dram-nominal";
    p.roofs.push_back(m);
    p.legend.push_back({legend_item::kind::dashed, m.color, m.label, "roof-dram-nominal"});
  }
  if (dram && top > 0) {
    plot_roof m;
    m.label = m.short_label = dram_label;
    m.color = level_color("dram");
    m.dashed = dram_nominal;
    m.peak = top;
    m.bw = dram;
    m.part = "diagonal";
    m.width = 2.4;
    m.cls = "memory roof-dram";
    p.roofs.push_back(m);
    p.legend.push_back(
        {dram_nominal ? legend_item::kind::dashed : legend_item::kind::solid, m.color, m.label, "roof-dram"});
  }
  std::set<std::string> levels;
  for (const auto& v : k.verdicts)
    for (const auto& l : v.levels)
      if (l.level != "dram" && levels.insert(l.level).second) {
        plot_roof lr;
        lr.label = fmt::format("{} {}", memory_level_label(l.level), units::rate_bytes(l.bandwidth));
        lr.short_label = lr.label;
        lr.color = level_color(l.level);
        lr.peak = top > 0 ? top : 1e18;
        lr.bw = l.bandwidth;
        lr.part = "diagonal";
        lr.cls = "memory roof-" + l.level;
        p.roofs.push_back(lr);
        p.legend.push_back({legend_item::kind::solid, lr.color, lr.label, "roof-" + l.level});
      }
}

/// The kernels: every one with FLOPs and bytes drawn; the top_n longest of them numbered (place.csv's
/// number) and listed in the key beside the figure, one group per precision (its colour). Returns how
/// many were drawn and numbered; `by_time_only` gets those without FLOPs or bytes.
std::pair<std::size_t, std::size_t> add_kernels(plot& p, const kernel_report& k, std::size_t top_n, std::size_t& by_time_only) {
  std::vector<const kernel_verdict*> plotted;
  for (const auto& v : k.verdicts) {
    if (v.intensity && *v.intensity > 0 && v.achieved_flops_per_s > 0)
      plotted.push_back(&v);
    else
      ++by_time_only;
  }
  std::vector<const kernel_verdict*> longest = plotted;
  std::stable_sort(longest.begin(), longest.end(), [](auto* a, auto* b) { return a->seconds > b->seconds; });
  if (longest.size() > top_n) longest.resize(top_n);
  std::set<std::size_t> numbered;
  // the key's names as the terminal's kernel table shortens them (namespaces and `void ` dropped, a tag
  // where two kernels would read the same): "cunn_SoftMaxBackward<4, float, …", not "void at::native::(anonymous nam…"
  std::vector<std::string> full_names;
  for (const auto* v : longest) full_names.push_back(v->name);
  const auto key_names = short_kernel_names(full_names, 32);
  std::size_t key_i = 0;
  for (const auto* v : longest) {
    numbered.insert(v->number);
    const std::string prec = v->precision.empty() ? "no precision" : v->precision;
    auto g = std::find_if(p.key.begin(), p.key.end(), [&](const key_group& x) { return x.title == prec; });
    if (g == p.key.end())
      g = p.key.insert(p.key.end(),
                       key_group{prec, v->precision.empty() ? "#444444" : precision_color(v->precision), {}});
    // with the model: the model op, and its model FLOPs ÷ the counted hardware FLOPs (padding, recompute)
    const std::string model = v->model_op.empty() ? ""
                              : v->model_over_hardware
                                  ? fmt::format(" {} · model {} of hardware FLOPs", v->model_op.substr(0, 24), units::percent(*v->model_over_hardware))
                                  : " " + v->model_op.substr(0, 24);
    g->entries.emplace_back(static_cast<int>(v->number),
                            fmt::format("{} ({}){}", key_names[key_i++], units::seconds(v->seconds), model));
  }
  p.key_title = fmt::format("Key: the {} longest kernels", longest.size());
  // unnumbered first, so the numbered points are drawn on top and labelled first
  std::stable_sort(plotted.begin(), plotted.end(),
                   [&](auto* a, auto* b) { return numbered.count(a->number) > numbered.count(b->number); });
  for (const auto* vp : plotted) {
    const kernel_verdict& v = *vp;
    const bool num = numbered.count(v.number) > 0;
    const std::string color = v.precision.empty() ? "#444444" : precision_color(v.precision);
    p.points.push_back({*v.intensity, v.achieved_flops_per_s, true, color, v.plausible ? "circle" : "square",
                        num ? 4.5 : 3, "kernel",
                        fmt::format("#{} {}: {}, {}, {} → {} ({})", v.number, v.name, units::flop_count(v.flops),
                                    units::intensity(*v.intensity), units::seconds(v.seconds),
                                    report::kernel_rate(v.achieved_flops_per_s, v.precision), to_string(v.cls)),
                        "", num ? static_cast<int>(v.number) : 0, static_cast<int>(v.number), report::shorten(v.name, 44)});
  }
  return {plotted.size(), longest.size()};
}

/// Baseline: a hollow point at the old place and a line to the new one.
void add_baseline(plot& p, const kernel_report& k) {
  std::map<std::size_t, const kernel_verdict*> old_by_number;
  for (const auto& v : k.baseline_verdicts) old_by_number[v.number] = &v;
  for (const auto& m : k.baseline->matched) {
    if (!m.old_intensity || !m.new_intensity || !(m.old_flops_per_s > 0) || !(m.new_flops_per_s > 0)) continue;
    const auto* o = old_by_number.count(m.old_number) ? old_by_number[m.old_number] : nullptr;
    const std::string color = o && !o->precision.empty() ? precision_color(o->precision) : "#444444";
    p.points.push_back({*m.old_intensity, m.old_flops_per_s, false, color, "circle", 4, "baseline",
                        fmt::format("#{} {} in the baseline: {} ({} saved)", m.new_number, m.name,
                                    units::seconds(m.old_s), units::seconds(m.saved_s)),
                        "", 0, static_cast<int>(m.new_number), ""});
    p.links.push_back({*m.old_intensity, m.old_flops_per_s, *m.new_intensity, m.new_flops_per_s, color});
  }
  p.legend.push_back(
      {legend_item::kind::hollow, "#444444", "the same kernel in the baseline (line: old → new)", "baseline"});
}

}  // namespace kernel_svg

std::string render_kernel_svg(const kernel_report& k, const results& r, const std::string& title, std::size_t top_n) {
  using namespace report;
  using namespace kernel_svg;
  plot p;
  p.title = title;
  const memory_roof dram = dram_roof(r);
  const auto nom_bw = r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0
                          ? r.nominal.memory_bandwidth_bytes_per_s
                          : std::nullopt;
  const judged_roofs judged = roofs_judged(k);
  const double top = add_judged_roofs(p, judged, dram.bw);
  const double top_nominal = add_nominal_roofs(p, judged, r, nom_bw);
  add_memory_roofs(p, k, dram, nom_bw, top, top_nominal);
  std::size_t by_time_only = 0;
  const auto [plotted, numbered] = add_kernels(p, k, top_n, by_time_only);
  p.legend.push_back({legend_item::kind::filled, "#444444", "your kernel (colour = its precision)", "kernel"});
  if (k.baseline) add_baseline(p, k);
  if (plotted > numbered)
    p.notes.push_back(fmt::format("the other {} kernels are drawn unnumbered (place.csv lists them all)",
                                  plotted - numbered));
  if (by_time_only > 0)
    p.notes.push_back(fmt::format(
        "{} kernel(s) without FLOPs or bytes are not drawn: placed by time only (place.csv lists them)", by_time_only));
  if (p.roofs.empty()) p.notes.push_back("no roof: no nominal peak and no measured result");
  // The subtitle says only what is drawn.
  const bool any_solid = std::any_of(p.roofs.begin(), p.roofs.end(), [](const plot_roof& x) { return !x.dashed; });
  const bool any_dashed = std::any_of(p.roofs.begin(), p.roofs.end(), [](const plot_roof& x) { return x.dashed; });
  const bool any_baseline =
      std::any_of(p.points.begin(), p.points.end(), [](const plot_point& x) { return !x.filled; });
  std::vector<std::string> says;
  if (any_solid || any_dashed)
    says.push_back(any_solid && any_dashed ? "solid = measured roof, dashed = nominal"
                   : any_solid             ? "solid = measured roof"
                                           : "dashed = nominal roof");
  says.push_back("filled = your kernel (colour = its precision)");
  if (numbered > 0) says.push_back("numbers = place.csv's #");
  if (any_baseline) says.push_back("hollow = the same kernel in the baseline");
  p.subtitle = fmt::format("{}", fmt::join(says, " · "));
  return draw_svg(p);
}

}  // namespace roofline
