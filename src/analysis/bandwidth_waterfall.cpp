// The bandwidth gap, attributed: nominal → best pattern → read / write / copy / triad at device
// memory; L2 vs device memory; ECC; DRAM overheads software cannot see (documented estimates).
// docs/formulas-analysis.md §3.
#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "roofline/vocabulary.hpp"
#include "roofline/analysis.hpp"
#include "roofline/waterfall.hpp"

namespace roofline {

namespace {

/// The ECC state with the field it came from.
ecc_report ecc_of(const results& r) {
  std::string source;
  if (const auto state = ecc_state(r, &source)) return {*state, source};
  return {"unknown", "not reported (device.properties.ecc absent)"};
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
std::vector<dram_overhead> dram_estimates(const results& r, const ecc_report& ecc) {
  const bool on = ecc.state == "on", hbm = memory_type(r) == "hbm";
  return {{"refresh", "estimate", 3.0, 5.0,
           "JEDEC JESD79-4 (DDR4): tRFC/tREFI, e.g. 350 ns / 7.8 µs = 4.5% for an 8 Gb die; "
           "HBM (JESD235) refreshes per bank with similar tRFC/tREFI ratios"},
          {"row switches (precharge + activate)", "estimate", 1.0, 10.0,
           "Jacob, Ng, Wang, Memory Systems: Cache, DRAM, Disk (2008), ch. 12–13: tRP + tRCD per row miss; "
           "small for sequential streams, larger for strided/random ones"},
          {"read/write turnaround", "estimate", 0.0, 10.0,
           "Jacob, Ng, Wang (2008), ch. 11: tWTR / tRTW bus turnaround; affects mixed streams "
           "(copy, triad), not pure read or write"},
          {"ECC", "estimate", 0.0, on && !hbm ? 6.25 : 0.0,
           on && hbm ? "HBM carries ECC bits side-band (JESD235): no data-bandwidth cost"
           : on      ? "HBM carries ECC bits side-band (JESD235: no data-bandwidth cost, 0%); GDDR parts store "
                       "in-line ECC in 1/16 of memory (6.25%: a Tesla K40 shows 11520 of 12288 MiB with ECC on in nvidia-smi) and "
                       "pay about that share of bandwidth (order of magnitude, not verified per part)"
                     : "ECC not on (or unknown): no ECC cost assumed"}};
}

}  // namespace

bandwidth_waterfall analyse_bandwidth_waterfall(const results& r) {
  bandwidth_waterfall out;
  out.unit = "% of nominal memory bandwidth";
  const auto nom = r.nominal.memory_bandwidth_bytes_per_s;
  out.nominal_bytes_per_s = nom;
  if (!nom) out.nominal_reason = r.nominal.memory_bandwidth_reason.empty() ? "unknown" : r.nominal.memory_bandwidth_reason;
  out.nominal_formula = r.nominal.memory_bandwidth_formula;
  auto pct = [&](double v) { return nom && *nom > 0 ? std::optional<double>(100.0 * v / *nom) : std::nullopt; };

  const bandwidth_result* best = best_device_bandwidth(r.measured);
  out.steps.push_back({"nominal", "", nom, nom ? std::optional<double>(100.0) : std::nullopt});
  if (best) out.steps.push_back({"best pattern (" + best->pattern + ")", best->pattern, best->bytes_per_s, pct(best->bytes_per_s)});
  for (const char* p : {"read", "write", "copy", "triad"}) {
    const bandwidth_result* b = best_device_bandwidth(r.measured, p);
    if (!b) {
      out.patterns.push_back({p, "", std::nullopt, std::nullopt, std::nullopt, std::nullopt, "", "not measured"});
      continue;
    }
    out.patterns.push_back({p, b->level, b->bytes_per_s, b->median_bytes_per_s, pct(b->bytes_per_s),
                            best ? std::optional<double>(b->bytes_per_s / best->bytes_per_s) : std::nullopt,
                            b->bytes_convention, ""});
  }
  if (!best) out.note = "no device-memory bandwidth measured";

  if (const bandwidth_result* l2 = best_level_bandwidth(r.measured, "l2"))
    out.l2 = {l2->bytes_per_s, l2->pattern, l2->working_set_bytes,
              best ? std::optional<double>(l2->bytes_per_s / best->bytes_per_s) : std::nullopt, ""};
  else
    out.l2.note = "no L2 bandwidth measured";
  out.ecc = ecc_of(r);
  out.dram_overheads = dram_estimates(r, out.ecc);
  if (best && nom && *nom > 0) {
    double lo = 0, hi = 0;
    for (const auto& e : out.dram_overheads) lo += e.low_percent, hi += e.high_percent;
    const double gap = 100.0 - 100.0 * best->bytes_per_s / *nom;
    out.gap_percent = gap;
    out.estimated_overheads_low_percent = lo, out.estimated_overheads_high_percent = hi;
    // what the estimates leave: the controller, scheduling, the probe
    out.unattributed_low_percent = std::max(0.0, gap - hi), out.unattributed_high_percent = std::max(0.0, gap - lo);
    if (gap - hi < 0) out.unattributed_note = "the estimates' upper end exceeds the gap: they can explain all of it";
  }
  return out;
}

}  // namespace roofline
