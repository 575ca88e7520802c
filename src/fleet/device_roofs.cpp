// One device's roofs, read out of its results: the numbers a fleet compares across devices.
#include <algorithm>
#include <set>

#include "roofline/fleet.hpp"
#include "roofline/json.hpp"
#include "roofline/measure.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::fleet {

namespace {

std::string first_string(const json& props, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (props.is_object() && props.contains(k) && props[k].is_string()) return props[k].get<std::string>();
  return "";
}

}  // namespace

device_roofs extract_roofs(const results& r, int rank) {
  device_roofs d;
  d.rank = rank;
  d.host = r.host.hostname;
  d.kind = r.device.kind;
  d.id = r.device.id;
  d.name = r.device.name;
  d.uuid = first_string(r.device.properties, {"uuid", "pci_bus_id"});
  d.status = r.status;

  if (const bandwidth_result* b = best_device_bandwidth(r.measured)) {
    d.dram_bytes_per_s = b->bytes_per_s;
    d.dram_pattern = b->pattern;
  }

  d.gemm_precision = main_precision(r);
  const telemetry_summary* gemm_tel = nullptr;
  if (const compute_result* g = best_compute(r.measured, d.gemm_precision); g && is_gemm_engine(g->engine)) {
    d.gemm_flops_per_s = g->flops_per_s;
    if (g->telemetry) gemm_tel = &*g->telemetry;
  }
  for (const auto& c : r.measured.compute) {
    if (c.rejected || is_gemm_engine(c.engine)) continue;
    double& v = d.fma_flops_per_s[c.engine + " " + c.precision];
    v = std::max(v, c.flops_per_s);
  }

  // Telemetry: the GEMM roof's own samples when it has them (the sustained clock under the heaviest
  // load), else the median over every probe that carries telemetry.
  std::vector<double> clocks, powers;
  std::set<std::string> reasons;
  auto take = [&](const telemetry_summary& t) {
    if (t.sm_clock_mhz) clocks.push_back(t.sm_clock_mhz->median);
    if (t.power_w) powers.push_back(t.power_w->median);
    reasons.insert(t.throttle_reasons.begin(), t.throttle_reasons.end());
  };
  for (const auto& b : r.measured.bandwidth)
    if (b.telemetry) take(*b.telemetry);
  for (const auto& c : r.measured.compute)
    if (c.telemetry) take(*c.telemetry);
  if (gemm_tel && gemm_tel->sm_clock_mhz) d.sustained_clock_mhz = gemm_tel->sm_clock_mhz->median;
  else if (!clocks.empty()) d.sustained_clock_mhz = median(clocks);
  if (gemm_tel && gemm_tel->power_w) d.power_w = gemm_tel->power_w->median;
  else if (!powers.empty()) d.power_w = median(powers);
  d.throttle_reasons.assign(reasons.begin(), reasons.end());
  if (!d.sustained_clock_mhz && !d.power_w)
    d.telemetry_note = d.kind == "cpu" ? "unknown (the CPU probes carry no clock/power telemetry)"
                                       : "unknown (no telemetry in this rank's results)";
  return d;
}

std::vector<roof_value> named_roofs(const device_roofs& d) {
  std::vector<roof_value> v;
  if (d.dram_bytes_per_s) v.push_back({"dram bandwidth", *d.dram_bytes_per_s, "B/s"});
  if (d.gemm_flops_per_s) v.push_back({"gemm " + d.gemm_precision, *d.gemm_flops_per_s, "FLOP/s"});
  for (const auto& [k, x] : d.fma_flops_per_s)
    if (x > 0) v.push_back({"fma " + k, x, "FLOP/s"});
  return v;
}

}  // namespace roofline::fleet
