// fleet.html: the fleet report's tables (fleet_document, the same as fleet.md) with two figures
// drawn by the report's figure code (src/report/plot*.hpp): every rank's roofs on one roofline, and
// each collective's time against message bytes with its communication roof.
#include <fmt/format.h>

#include <algorithm>

#include "fleet/fleet_document.hpp"
#include "report/html_page.hpp"
#include "report/plot.hpp"
#include "report/plot_results.hpp"
#include "roofline/fleet.hpp"
#include "roofline/units.hpp"

namespace roofline::fleet {

namespace {

/// The roofs the collectives chart draws (see render_collectives_svg), and a note when some are left out.
std::vector<const interconnect_result::roof*> drawn_roofs(const interconnect_result& ic, std::string& note) {
  std::vector<const interconnect_result::roof*> all, out;
  for (const auto& r : ic.roofs) all.push_back(&r);
  if (all.size() <= 12) return all;
  for (const auto* r : all)
    if (!is_point_to_point(r->op)) out.push_back(r);
  for (const collective c : {collective::send_recv, collective::send_recv_bidir}) {
    const interconnect_result::roof* worst = nullptr;
    for (const auto* r : all)
      if (r->op == c && (!worst || r->busbw < worst->busbw)) worst = r;
    if (worst) out.push_back(worst);
  }
  note = fmt::format("{} more send/recv pairs in the tables below (drawn: the slowest pair of each pattern)", all.size() - out.size());
  return out;
}

}  // namespace

std::string render_fleet_roofline_svg(const fleet_report& f, const std::vector<results>& per_rank) {
  report::plot p;
  p.title = fmt::format("Fleet roofline: {} rank(s)", f.ranks);
  p.subtitle = "every rank's roofs, one colour per rank: nominal dashed, measured solid; compute flat, memory diagonal";
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    report::add_device_roofs(p, per_rank[r], fmt::format("rank {}: ", r), static_cast<int>(r));
  return report::draw_svg(p);
}

std::string render_collectives_svg(const fleet_report& f) {
  const auto& ic = f.interconnect;
  if (ic.status != "measured" || ic.points.empty()) return "";
  report::plot p;
  p.title = "Collective time against message size";
  p.subtitle = fmt::format("{} ranks, {}, {}: points = median time per call (slowest rank); dashed = latency + S × factor ÷ busbw",
                           ic.ranks, ic.library, ic.dtype);
  p.x_label = "message size S (bytes, log scale)";
  p.y_label = "time per call (s, log scale)";
  p.x_unit = "B";
  p.y_unit = "s";
  p.max_x_decades = 11;
  std::string note;
  const auto roofs = drawn_roofs(ic, note);
  for (std::size_t k = 0; k < roofs.size(); ++k) {
    const auto& r = *roofs[k];
    const std::string name = series_name(r.op, r.src, r.dst), color = report::scenario_color(k);
    const std::string id = fmt::format("coll-{}", k);
    report::plot_trace fit;
    fit.color = color;
    fit.cls = "coll-fit " + id + "-fit";
    fit.label = fmt::format("{}: {} + S × {:g} ÷ {}", name, units::seconds(r.latency_s), bus_factor(r.op, ic.ranks), units::rate_bytes(r.busbw));
    for (const auto& pt : ic.points) {
      if (pt.op != r.op || pt.src != r.src || pt.dst != r.dst || pt.bytes <= 0 || pt.seconds <= 0) continue;
      const double s = static_cast<double>(pt.bytes);
      p.points.push_back({s, pt.seconds, true, color, "circle", 3.5, "coll-point " + id + "-pt",
                          fmt::format("{} {}: {} (algbw {}, busbw {})", name, units::bytes_binary(s), units::seconds(pt.seconds),
                                      units::rate_bytes(pt.algbw), units::rate_bytes(pt.busbw)),
                          "", 0, -1, ""});
      if (r.busbw > 0) fit.pts.emplace_back(s, predict_collective_s(r.op, s, ic.ranks, r.busbw, r.latency_s));
    }
    p.legend.push_back({report::legend_item::kind::filled, color, name + " measured", id + "-pt"});
    p.legend.push_back({report::legend_item::kind::dashed, color, fit.label, id + "-fit"});
    p.traces.push_back(std::move(fit));
  }
  if (!note.empty()) p.notes.push_back(note);
  return report::draw_svg(p);
}

std::string render_fleet_html(const fleet_report& f, const std::vector<results>& per_rank) {
  report::document doc = fleet_document(f);
  doc.figure_html = render_fleet_roofline_svg(f, per_rank) + render_collectives_svg(f);
  doc.figure_after = 1;  // after the devices table
  return report::html_page(doc.title, report::to_html(doc));
}

}  // namespace roofline::fleet
