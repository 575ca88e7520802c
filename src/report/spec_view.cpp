// `roofline spec`'s views (roofline/command_views.hpp): the derivation, the dense peaks with their
// ridges, the live factors beside the table's, the --list table. Computed in src/spec
// (gpu_nominal, nominal_ridge, live_vs_table, spec_list).
#include <fmt/format.h>

#include <algorithm>

#include "report/units.hpp"
#include "roofline/command_views.hpp"
#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

// Peaks, bandwidths and ridges print through roofline/units.hpp, as in ops, mfu, place and the
// reports: the same value reads the same in every command (3 significant digits).
std::string peak_text(const nominal_peak& p) { return units::compute_rate(p.flops_per_s, p.precision); }

std::string side_by_side(const nominal_roofs& n) {
  std::string out;
  for (const auto& f : live_vs_table(n))
    out += fmt::format("  {:<34} {:>10g} {:>10g} {:<7}\n", f.name, f.live, f.table, f.unit);
  if (out.empty()) return out;
  return fmt::format("\nLive vs table\n  {:<34} {:>10} {:>10}\n", "factor", "live", "table") + out;
}

}  // namespace

json spec_json(const nominal_roofs& n, const std::optional<ecc_ceiling>& ecc) {
  json j = n;
  j["name"] = n.device_name;
  if (ecc)
    j["ecc"] = {{"when", ecc->when},
                {"default_on", ecc->default_on},
                {"bandwidth_factor", num_or_null(ecc->bandwidth_factor)},
                {"bandwidth_bytes_per_s", num_or_null(ecc->bandwidth_bytes_per_s)},
                {"capacity_factor", ecc->capacity_factor},
                {"memory_size_gb", ecc->memory_gb},
                {"bandwidth_source", ecc->bandwidth_source},
                {"capacity_source", ecc->capacity_source}};
  json ridges = json::array();
  for (const auto& p : n.peaks)
    ridges.push_back({{"precision", p.precision},
                      {"accumulate", p.accumulate},
                      {"engine", p.engine},
                      {"flop_per_byte", nominal_ridge(n, p)}});
  j["ridge_points"] = ridges;
  return j;
}

std::string spec_text(const nominal_roofs& n) {
  std::string out = fmt::format("{} — nominal roofs (source: {})\n\nDerivation factors\n", n.device_name, n.source);
  out += fmt::format("  {:<52} {:>10} {:<7} {}\n", "factor", "value", "unit", "source");
  for (const auto& f : n.factors) out += fmt::format("  {:<52} {:>10g} {:<7} {}\n", f.name, f.value, f.unit, f.source);
  for (const auto& f : n.memory_factors)
    if (f.source.rfind("detected", 0) == 0 &&
        std::none_of(n.factors.begin(), n.factors.end(), [&](const factor& g) { return g.name == f.name; }))
      out += fmt::format("  {:<52} {:>10g} {:<7} {}\n", f.name, f.value, f.unit, f.source);

  out += side_by_side(n);

  out += "\nDense peaks (ridge = peak ÷ memory bandwidth)\n";
  out +=
      fmt::format("  {:<6} {:<6} {:<7} {:>15} {:>14}   {}\n", "dtype", "accum", "engine", "peak", "ridge", "formula");
  for (const auto& p : n.peaks) {
    const auto r = nominal_ridge(n, p);
    out += fmt::format(
        "  {:<6} {:<6} {:<7} {:>15} {:>14}   {}\n", p.precision, p.accumulate, p.engine, peak_text(p),
        r ? (p.precision == "int8" ? units::intensity_ops(*r) : units::intensity(*r)) : std::string("unknown"),
        p.formula);
    if (p.sparse_flops_per_s)
      out += fmt::format("  {:<22} sparse (2:4, not a peak): {}\n", "",
                         units::compute_rate(*p.sparse_flops_per_s, p.precision));
    if (!p.note.empty()) out += fmt::format("  {:<22} note: {}\n", "", p.note);
  }
  if (n.peaks.empty()) out += "  (none)\n";

  out += "\nMemory bandwidth: ";
  if (n.memory_bandwidth_bytes_per_s)
    out += fmt::format("{} = {}\n", units::rate_bytes(*n.memory_bandwidth_bytes_per_s), n.memory_bandwidth_formula);
  else
    out += "unknown (" + n.memory_bandwidth_reason + ")\n";
  if (!n.notes.empty()) {
    out += "\nNotes\n";
    for (const auto& s : n.notes) out += "  - " + s + "\n";
  }
  return out;
}

json spec_list_json(const std::vector<spec_list_row>& rows) {
  json out = json::array();
  for (const auto& r : rows)
    out.push_back({{"key", r.key},
                   {"name", r.name},
                   {"vendor", r.vendor},
                   {"architecture", r.architecture},
                   {"aliases", r.aliases},
                   {"fp16_dense_flops_per_s", r.fp16_dense ? json(*r.fp16_dense) : json(nullptr)},
                   {"fp32_vector_flops_per_s", r.fp32_vector ? json(*r.fp32_vector) : json(nullptr)},
                   {"memory_bandwidth_bytes_per_s", r.memory_bandwidth ? json(*r.memory_bandwidth) : json(nullptr)}});
  return out;
}

std::string spec_list_text(const std::vector<spec_list_row>& rows) {
  // Rows come sorted by vendor and generation (spec_list); the generation is the second column, and
  // each text column is as wide as its longest entry.
  std::size_t wk = 3, wg = 10, wn = 4;
  for (const auto& r : rows) {
    wk = std::max(wk, r.key.size());
    wg = std::max(wg, (r.vendor + " " + r.architecture).size());
    wn = std::max(wn, r.name.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<{}} {:>16} {:>14} {:>12}\n", "key", wk, "generation", wg, "name", wn,
                                "fp16 dense", "fp32", "memory");
  for (const auto& r : rows)
    out += fmt::format("{:<{}}  {:<{}}  {:<{}} {:>16} {:>14} {:>12}\n", r.key, wk, r.vendor + " " + r.architecture, wg, r.name, wn,
                       r.fp16_dense ? report::rate_flops(*r.fp16_dense) : "—",
                       r.fp32_vector ? report::rate_flops(*r.fp32_vector) : "—",
                       r.memory_bandwidth ? report::rate_bytes(*r.memory_bandwidth) : "—");
  return out;
}

}  // namespace roofline
