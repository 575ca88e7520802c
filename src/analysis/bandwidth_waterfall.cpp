// The bandwidth gap, attributed: nominal → best pattern → read / write / copy / triad at device
// memory; L2 vs device memory; ECC; DRAM overheads software cannot see (documented estimates).
// docs/formulas-analysis.md §3.
#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "roofline/vocabulary.hpp"
#include "roofline/analysis.hpp"

namespace roofline {

namespace {

/// The ECC state with the field it came from, for results.analysis.bandwidth_waterfall.ecc.
json ecc_json(const results& r) {
  std::string source;
  if (const auto state = ecc_state(r, &source)) return {{"state", *state}, {"source", source}};
  return {{"state", "unknown"}, {"source", "not reported (device.properties.ecc absent)"}};
}

/// "hbm" / "gddr" / "" from the nominal memory factors and formula (e.g. "memory bus width (HBM3e)").
std::string memory_type(const results& r) {
  std::string text = r.nominal.memory_bandwidth_formula;
  for (const auto& f : r.nominal.memory_factors) text += " " + f.name + " " + f.source;
  for (const auto& f : r.nominal.factors) text += " " + f.name;
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text.find("hbm") != std::string::npos) return "hbm";
  if (text.find("gddr") != std::string::npos) return "gddr";
  return "";
}

/// DRAM overheads that no software counter shows. Estimates with their sources, never measurements.
json dram_estimates(const results& r) {
  json e = json::array();
  e.push_back({{"name", "refresh"}, {"label", "estimate"}, {"low_percent", 3.0}, {"high_percent", 5.0},
               {"source", "JEDEC JESD79-4 (DDR4): tRFC/tREFI, e.g. 350 ns / 7.8 µs = 4.5% for an 8 Gb die; "
                          "HBM (JESD235) refreshes per bank with similar tRFC/tREFI ratios"}});
  e.push_back({{"name", "row switches (precharge + activate)"}, {"label", "estimate"}, {"low_percent", 1.0},
               {"high_percent", 10.0},
               {"source", "Jacob, Ng, Wang, Memory Systems: Cache, DRAM, Disk (2008), ch. 12–13: tRP + tRCD per row miss; "
                          "small for sequential streams, larger for strided/random ones"}});
  e.push_back({{"name", "read/write turnaround"}, {"label", "estimate"}, {"low_percent", 0.0},
               {"high_percent", 10.0},
               {"source", "Jacob, Ng, Wang (2008), ch. 11: tWTR / tRTW bus turnaround; affects mixed streams "
                          "(copy, triad), not pure read or write"}});
  const json ecc = ecc_json(r);
  const bool on = ecc["state"] == "on";
  const bool hbm = memory_type(r) == "hbm";
  e.push_back({{"name", "ECC"}, {"label", "estimate"}, {"low_percent", 0.0}, {"high_percent", on && !hbm ? 6.25 : 0.0},
               {"source", on && hbm ? "HBM carries ECC bits side-band (JESD235): no data-bandwidth cost"
                          : on ? "HBM carries ECC bits side-band (JESD235: no data-bandwidth cost, 0%); GDDR parts store "
                               "in-line ECC in 1/16 of memory (6.25%: a Tesla K40 shows 11520 of 12288 MiB with ECC on in nvidia-smi) and "
                               "pay about that share of bandwidth (order of magnitude, not verified per part)"
                             : "ECC not on (or unknown): no ECC cost assumed"}});
  return e;
}

}  // namespace

json bandwidth_waterfall(const results& r) {
  json out = {{"unit", "% of nominal memory bandwidth"}};
  const auto nom = r.nominal.memory_bandwidth_bytes_per_s;
  out["nominal_bytes_per_s"] = num_or_null(nom);
  if (!nom) out["nominal_reason"] = r.nominal.memory_bandwidth_reason.empty() ? "unknown" : r.nominal.memory_bandwidth_reason;
  out["nominal_formula"] = r.nominal.memory_bandwidth_formula;
  auto pct = [&](double v) { return nom && *nom > 0 ? json(100.0 * v / *nom) : json(nullptr); };

  const bandwidth_result* best = best_device_bandwidth(r.measured);
  json steps = json::array();
  steps.push_back({{"step", "nominal"}, {"bytes_per_s", num_or_null(nom)}, {"percent_of_nominal", nom ? json(100.0) : json(nullptr)}});
  if (best) {
    steps.push_back({{"step", "best pattern (" + best->pattern + ")"}, {"pattern", best->pattern},
                     {"bytes_per_s", best->bytes_per_s}, {"percent_of_nominal", pct(best->bytes_per_s)}});
  }
  json patterns = json::array();
  for (const char* p : {"read", "write", "copy", "triad"}) {
    const bandwidth_result* b = best_device_bandwidth(r.measured, p);
    if (!b) {
      patterns.push_back({{"pattern", p}, {"bytes_per_s", nullptr}, {"note", "not measured"}});
      continue;
    }
    patterns.push_back({{"pattern", p},
                        {"level", b->level},
                        {"bytes_per_s", b->bytes_per_s},
                        {"median_bytes_per_s", b->median_bytes_per_s},
                        {"percent_of_nominal", pct(b->bytes_per_s)},
                        {"fraction_of_best", best ? json(b->bytes_per_s / best->bytes_per_s) : json(nullptr)},
                        {"bytes_convention", b->bytes_convention}});
  }
  out["steps"] = steps;
  out["patterns"] = patterns;
  if (!best) out["note"] = "no device-memory bandwidth measured";

  const bandwidth_result* l2 = best_level_bandwidth(r.measured, "l2");
  if (l2)
    out["l2"] = {{"bytes_per_s", l2->bytes_per_s}, {"pattern", l2->pattern}, {"working_set_bytes", l2->working_set_bytes},
                 {"ratio_to_dram", best ? json(l2->bytes_per_s / best->bytes_per_s) : json(nullptr)}};
  else
    out["l2"] = {{"bytes_per_s", nullptr}, {"note", "no L2 bandwidth measured"}};
  out["ecc"] = ecc_json(r);
  out["dram_overheads"] = dram_estimates(r);
  if (best && nom && *nom > 0) {
    double lo = 0, hi = 0;
    for (const auto& e : out["dram_overheads"]) {
      lo += e["low_percent"].get<double>();
      hi += e["high_percent"].get<double>();
    }
    const double gap = 100.0 - 100.0 * best->bytes_per_s / *nom;
    out["gap_percent"] = gap;
    out["estimated_overheads_percent"] = {lo, hi};
    out["unattributed_percent"] = {std::max(0.0, gap - hi), std::max(0.0, gap - lo)};  // controller, scheduling, the probe
    if (gap - hi < 0) out["unattributed_note"] = "the estimates' upper end exceeds the gap: they can explain all of it";
  }
  return out;
}

}  // namespace roofline
