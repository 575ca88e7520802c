// CPU nominal roofs from detected factors (docs/formulas-spec.md §3):
//   peak(fp32|fp64) = cores × FMA units/core × SIMD lanes × 2 FLOP/FMA × clock,
//     lanes = simd_bits / 32 (fp32) or / 64 (fp64)   [Intel/AMD optimization manuals: one FMA
//     instruction per FMA pipe per cycle on a full-width vector]
//   DRAM bandwidth = channels × MT/s × 8 B (64-bit DDR channel), null with the reason when unknown.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <regex>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {
namespace {

std::string g(double v) { return fmt::format("{:g}", v); }

std::string missing_factors(const cpu_description& c) {
  std::string m;
  auto add = [&](bool bad, const char* what) {
    if (bad) m += (m.empty() ? "" : ", ") + std::string(what);
  };
  add(c.cores <= 0, "core count");
  add(c.fma_units <= 0, "FMA units per core");
  add(c.simd_bits <= 0, "SIMD width");
  add(!(c.clock_hz > 0), "clock");
  return m;
}

nominal_peak cpu_peak(const cpu_description& c, const std::string& precision, int bits_per_lane) {
  nominal_peak p;
  p.precision = precision;
  p.accumulate = precision;
  p.engine = "vector";
  const int lanes = c.simd_bits / bits_per_lane;
  const std::string isa = c.isa.empty() ? "SIMD" : c.isa;
  p.factors = {
      {"cores", static_cast<double>(c.cores), "", "detected: physical cores used by the probes"},
      {"FMA units per core", static_cast<double>(c.fma_units), "", c.fma_units_source.empty() ? "unknown source" : c.fma_units_source},
      {precision + " SIMD lanes", static_cast<double>(lanes), "",
       fmt::format("detected: {} {}-bit vectors / {} bit", isa, c.simd_bits, bits_per_lane)},
      {"FLOP per FMA", 2, "FLOP", "definition: one fused multiply-add is 2 FLOP"},
      {"clock", c.clock_hz / 1e6, "MHz", c.clock_source.empty() ? "unknown source" : c.clock_source}};
  p.flops_per_s = static_cast<double>(c.cores) * c.fma_units * lanes * 2 * c.clock_hz;
  p.formula = fmt::format("{} cores × {} FMA/clk × {} lanes × 2 FLOP/FMA × {} GHz", c.cores, c.fma_units, lanes, g(c.clock_hz / 1e9));
  return p;
}

}  // namespace

nominal_roofs cpu_nominal(const cpu_description& c) {
  nominal_roofs n;
  n.device_name = c.model;
  n.source = "cpu-detected";
  n.factors = {{"cores", static_cast<double>(c.cores), "", "detected: physical cores used by the probes"},
               {"threads", static_cast<double>(c.threads), "", "detected: logical processors"},
               {"SIMD width", static_cast<double>(c.simd_bits), "bit", "detected: " + (c.isa.empty() ? std::string("?") : c.isa)},
               {"FMA units per core", static_cast<double>(c.fma_units), "", c.fma_units_source},
               {"clock", c.clock_hz / 1e6, "MHz", c.clock_source}};
  if (c.l1d_bytes > 0) n.factors.push_back({"L1d per core", c.l1d_bytes / 1024.0, "KiB", "detected"});
  if (c.l2_bytes > 0) n.factors.push_back({"L2 per core", c.l2_bytes / 1024.0, "KiB", "detected"});
  if (c.l3_bytes > 0) n.factors.push_back({"L3 total", c.l3_bytes / (1024.0 * 1024.0), "MiB", "detected"});

  if (const std::string m = missing_factors(c); !m.empty()) {
    n.notes.push_back("fp32/fp64 peaks: unknown (" + m + " not detected)");
  } else {
    n.peaks.push_back(cpu_peak(c, "fp64", 64));
    n.peaks.push_back(cpu_peak(c, "fp32", 32));
  }

  if (c.memory_channels && c.memory_mt_per_s && *c.memory_channels > 0 && *c.memory_mt_per_s > 0) {
    const std::string src = c.memory_source.empty() ? "detected" : c.memory_source;
    const factor ch{"memory channels", static_cast<double>(*c.memory_channels), "", src};
    const factor mt{"memory transfer rate", *c.memory_mt_per_s, "MT/s", src};
    const factor w{"bytes per transfer per channel", 8, "B", "DDR4/DDR5 channel: 64 data bits"};
    n.memory_factors = {ch, mt, w};
    n.memory_bandwidth_bytes_per_s = ch.value * mt.value * 1e6 * 8;
    n.memory_bandwidth_formula = fmt::format("{} channels × {} MT/s × 8 B", *c.memory_channels, g(*c.memory_mt_per_s));
  } else {
    n.memory_bandwidth_reason = c.memory_reason.empty() ? "memory channels or transfer rate not detected" : c.memory_reason;
  }
  return n;
}

memory_config parse_memory_config(const std::string& text, const std::string& flag) {
  // "<channels> x <type>-<MT/s>"; the multiplication sign may be x, X, × or *.
  static const std::regex re(R"(^\s*(\d+)\s*(?:x|X|\*|×)\s*(DDR[345])-(\d+)\s*$)", std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw input_error("", flag, "'" + text + "' is not a memory configuration (expected e.g. \"12 x DDR5-4800\": channels x type-MT/s)");
  memory_config c;
  c.channels = std::stoi(m[1].str().substr(0, 4));
  c.type = m[2].str();
  for (auto& ch : c.type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  c.mt_per_s = std::stod(m[3].str().substr(0, 6));
  c.text = text;
  if (c.channels < 1 || c.channels > 64)
    throw input_error("", flag, fmt::format("'{}': {} channels is outside 1..64", text, c.channels));
  if (c.mt_per_s < 200 || c.mt_per_s > 20000)
    throw input_error("", flag, fmt::format("'{}': {} MT/s is outside 200..20000", text, c.mt_per_s));
  return c;
}

int cpu_nominal_from_measured(nominal_roofs& n, const cpu_description& c, const std::vector<compute_result>& measured) {
  int added = 0;
  for (const auto& [precision, bits] : std::array<std::pair<const char*, int>, 2>{{{"fp64", 64}, {"fp32", 32}}}) {
    if (peak_for(n, precision, peak_engine::vector)) continue;
    const compute_result* best = nullptr;
    for (const auto& m : measured)
      if (m.engine == "vector" && m.precision == precision && m.flops_per_s > 0 && !m.rejected &&
          (!best || m.flops_per_s > best->flops_per_s))
        best = &m;
    if (!best) continue;
    nominal_peak p;
    p.precision = p.accumulate = precision;
    p.engine = "vector";
    const std::string src = fmt::format("measured, no datasheet: the FMA probe's best {:.4g} GFLOP/s ({})",
                                        best->flops_per_s / 1e9, best->method);
    const int lanes = c.simd_bits > 0 ? c.simd_bits / bits : 0;
    const double per_unit = static_cast<double>(c.cores) * lanes * 2 * c.clock_hz;  // FLOP/s of one FMA/clk/core
    double units = 0;
    if (per_unit > 0)
      for (const double u : {0.5, 1.0, 2.0, 3.0, 4.0})
        if (std::abs(best->flops_per_s / per_unit / u - 1) <= 0.15) units = u;
    if (units > 0) {
      p.factors = {{"cores", static_cast<double>(c.cores), "", "detected: physical cores used by the probes"},
                   {"FMA units per core", units, "", src + fmt::format(" ÷ (cores × lanes × 2 × clock) = {:.2f}, rounded", best->flops_per_s / per_unit)},
                   {std::string(precision) + " SIMD lanes", static_cast<double>(lanes), "", "detected: " + c.isa},
                   {"FLOP per FMA", 2, "FLOP", "definition: one fused multiply-add is 2 FLOP"},
                   {"clock", c.clock_hz / 1e6, "MHz", c.clock_source}};
      p.flops_per_s = per_unit * units;
      p.formula = fmt::format("{} cores × {:g} FMA/clk (measured, no datasheet) × {} lanes × 2 FLOP/FMA × {} GHz", c.cores,
                              units, lanes, g(c.clock_hz / 1e9));
    } else {
      p.factors = {{"measured FMA rate", best->flops_per_s / 1e9, "GFLOP/s", src}};
      p.flops_per_s = best->flops_per_s;
      p.formula = fmt::format("{:.4g} GFLOP/s (measured, no datasheet: FMA units per core not inferable)", best->flops_per_s / 1e9);
    }
    n.peaks.push_back(std::move(p));
    ++added;
  }
  if (added > 0)
    n.notes.push_back("fp32/fp64 peaks: measured, no datasheet (the FMA table does not know this part; pass --uarch to use a table row)");
  return added;
}

}  // namespace roofline
