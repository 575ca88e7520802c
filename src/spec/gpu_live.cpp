// Nominal roofs for the GPU in the machine (CUDA runtime + NVML factors, see live_gpu).
// Table row when the name matches (live values added as "detected: ..." factors, differences noted);
// else derived from the live factors and the architecture's per-clock rates, picked by compute
// capability; an unknown architecture gives no peaks and a note "unknown (why)".
//
// Memory clock -> per-pin data rate: NVML's max memory clock (NVML_CLOCK_MEM) and
// cudaDeviceProp::memoryClockRate report half the per-pin data rate for every memory type in the
// table (HBM2/2e/3/3e, GDDR6, GDDR6X, GDDR7), so rate = 2 × clock. Checked against the table:
// A100 80GB 1593 MHz -> 3.186 Gbit/s (2039 GB/s), H200 3201 MHz -> 6.402 Gbit/s, T4 5001 MHz -> 10 Gbit/s,
// RTX 3090 9751 MHz -> 19.5 Gbit/s. This is the CUDA samples' bandwidthTest/deviceQuery convention.
#include <cmath>

#include <fmt/format.h>

#include "roofline/spec.hpp"
#include "spec/gpu_derivation.hpp"
#include "spec/name_match.hpp"

namespace roofline {
namespace {

using spec_detail::num;

constexpr double mem_clock_to_data_rate = 2.0;  // see the file comment
const std::string detected = "detected: ";

void add_live_factors(const live_gpu& g, nominal_roofs& n) {
  n.factors.push_back({"SMs (live)", static_cast<double>(g.sms), "", detected + "cudaDevAttrMultiProcessorCount"});
  n.factors.push_back({"compute capability (live)", g.cc_major + g.cc_minor / 10.0, "", detected + "cudaDeviceProp major.minor"});
  if (g.max_sm_clock_mhz) n.factors.push_back({"max SM clock (live)", *g.max_sm_clock_mhz, "MHz", detected + "NVML max SM clock"});
  if (g.max_mem_clock_mhz) n.factors.push_back({"max memory clock (live)", *g.max_mem_clock_mhz, "MHz", detected + "NVML max memory clock"});
  if (g.bus_width_bits) n.factors.push_back({"memory bus width (live)", static_cast<double>(*g.bus_width_bits), "bit", detected + "cudaDevAttrGlobalMemoryBusWidth"});
  if (g.memory_bytes) n.factors.push_back({"memory size (live)", *g.memory_bytes / (1024.0 * 1024.0 * 1024.0), "GiB", detected + "cudaDeviceProp::totalGlobalMem (datasheets print GiB-sized memory as GB)"});
  if (g.l2_bytes) n.factors.push_back({"L2 cache (live)", *g.l2_bytes / (1024.0 * 1024.0), "MiB", detected + "cudaDevAttrL2CacheSize"});
  if (g.power_limit_w) n.factors.push_back({"power limit (live)", *g.power_limit_w, "W", detected + "NVML enforced power limit"});
  if (g.ecc_enabled) n.factors.push_back({"ECC enabled (live)", *g.ecc_enabled ? 1.0 : 0.0, "", detected + "NVML ECC mode"});
}

/// Live bandwidth from bus width and memory clock, when both are known.
std::optional<double> live_bandwidth(const live_gpu& g, std::string& formula, std::vector<factor>& factors) {
  if (!g.bus_width_bits || !g.max_mem_clock_mhz || *g.bus_width_bits <= 0 || *g.max_mem_clock_mhz <= 0) return std::nullopt;
  const double rate_gbps = *g.max_mem_clock_mhz * mem_clock_to_data_rate / 1e3;
  factors = {{"memory bus width (live)", static_cast<double>(*g.bus_width_bits), "bit", detected + "cudaDevAttrGlobalMemoryBusWidth"},
             {"memory data rate per pin (live)", rate_gbps, "Gbit/s",
              detected + "NVML max memory clock " + num(*g.max_mem_clock_mhz) + " MHz × 2 (DDR convention)"}};
  return spec_detail::derive_bandwidth(*g.bus_width_bits, rate_gbps, formula);
}

bool differs(double a, double b, double rel) { return std::fabs(a - b) > rel * std::fabs(b); }

nominal_roofs from_table(const spec_detail::device_table& t, const spec_detail::sku_row& s, const live_gpu& g) {
  nominal_roofs n = spec_detail::derive_table_row(t, s);
  n.device_name = g.name.empty() ? s.name : g.name;
  n.notes.insert(n.notes.begin(), "matched the table row '" + s.name + "' by name; table factors are marked 'table:', live ones 'detected:'");
  add_live_factors(g, n);
  if (g.sms > 0 && g.sms != static_cast<int>(s.sms.value))
    n.notes.push_back(fmt::format("live SM count {} differs from the table's {} (MIG instance or a different SKU?)", g.sms, num(s.sms.value)));
  if (g.max_sm_clock_mhz && differs(*g.max_sm_clock_mhz, s.boost_clock_mhz.value, 0.01))
    n.notes.push_back(fmt::format("live max SM clock {} MHz differs from the table's boost clock {} MHz", num(*g.max_sm_clock_mhz),
                                  num(s.boost_clock_mhz.value)));
  if (s.ecc && g.ecc_enabled && *g.ecc_enabled && n.memory_bandwidth_bytes_per_s) {
    const auto& e = *s.ecc;
    const std::string bw = e.bandwidth_factor
                               ? fmt::format("at most {} × {} = {}", num(*n.memory_bandwidth_bytes_per_s / 1e9) + " GB/s",
                                             num(e.bandwidth_factor->value),
                                             num(*n.memory_bandwidth_bytes_per_s * e.bandwidth_factor->value / 1e9) + " GB/s")
                               : "a bandwidth cost that is not documented for this part";
    n.notes.push_back(fmt::format("ECC is on on this device (NVML): expect {} and {} of the memory ({})", bw,
                                  num(e.capacity_factor.value),
                                  e.bandwidth_factor ? e.bandwidth_factor->source : e.capacity_factor.source));
  }
  std::string formula;
  std::vector<factor> mf;
  if (auto bw = live_bandwidth(g, formula, mf)) {
    for (auto& f : mf) n.memory_factors.push_back(f);
    if (n.memory_bandwidth_bytes_per_s && differs(*bw, *n.memory_bandwidth_bytes_per_s, 0.01))
      n.notes.push_back(fmt::format("live memory bandwidth {} = {} GB/s differs from the table's {} GB/s", formula, num(*bw / 1e9),
                                    num(*n.memory_bandwidth_bytes_per_s / 1e9)));
  }
  return n;
}

}  // namespace

nominal_roofs gpu_nominal_live(const live_gpu& g) {
  const auto t = spec_detail::load_default_table();
  if (const auto* s = spec_detail::match_exact(t, g.name)) return from_table(t, *s, g);

  nominal_roofs n;
  n.device_name = g.name;
  n.source = "derived (live factors + architecture rates)";
  add_live_factors(g, n);
  const std::string cc = fmt::format("{}.{}", g.cc_major, g.cc_minor);
  const auto* chip = t.chip_for_cc(cc);
  if (!chip) {
    n.notes.push_back("peaks: unknown (compute capability " + cc + " has no per-clock rates in the device table; add its architecture to data/devices/)");
  } else if (g.sms <= 0 || !g.max_sm_clock_mhz || *g.max_sm_clock_mhz <= 0) {
    n.notes.push_back("peaks: unknown (SM count or max SM clock not detected)");
  } else {
    spec_detail::gpu_factors f;
    f.sms = {"SMs", static_cast<double>(g.sms), "", detected + "cudaDevAttrMultiProcessorCount"};
    f.boost_clock_mhz = {"max SM clock", *g.max_sm_clock_mhz, "MHz", detected + "NVML max SM clock"};
    f.geforce = g.name.find("GeForce") != std::string::npos;
    n.peaks = spec_detail::derive_peaks(*chip, f, "derived: " + chip->architecture + " " + chip->chip + " rate, ");
    if (!chip->fp64_lanes_per_sm) n.notes.push_back("fp64 vector peak: unknown (" + chip->fp64_reason + ")");
    n.notes.push_back(fmt::format("'{}' is not in the device table: peaks derived from the live SM count and max SM clock and the {} {} "
                                  "per-clock rates (compute capability {})",
                                  g.name, chip->architecture, chip->chip, cc));
    n.notes.push_back("derived at the max SM clock; datasheets of some parts assume a lower clock for tensor peaks (e.g. H100 SXM: 1830 vs 1980 MHz)");
    if (f.geforce && chip->geforce_fp32_accumulate_factor)
      n.notes.push_back("GeForce (from the name): fp32-accumulate tensor rates scaled by " + num(chip->geforce_fp32_accumulate_factor->value));
  }
  std::string formula;
  std::vector<factor> mf;
  if (auto bw = live_bandwidth(g, formula, mf)) {
    n.memory_bandwidth_bytes_per_s = bw;
    n.memory_bandwidth_formula = formula;
    n.memory_factors = mf;
  } else {
    n.memory_bandwidth_reason = "memory bus width or max memory clock not detected";
  }
  return n;
}

}  // namespace roofline
