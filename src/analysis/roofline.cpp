// The roofs: attainable performance, ridge points and the summary ops are placed against.
// Williams, Waterman, Patterson, "Roofline: an insightful visual performance model for multicore
// architectures", CACM 52(4), 2009.
#include <algorithm>
#include <fmt/format.h>

#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"
#include "roofline/analysis.hpp"

namespace roofline {

double attainable_flops(double intensity, double peak_flops, double bandwidth) {
  return std::min(peak_flops, intensity * bandwidth);
}

double ridge_point(double peak_flops, double bandwidth) {
  return bandwidth > 0 ? peak_flops / bandwidth : 0.0;
}

roofline_summary summarize_roofline(const nominal_roofs& nom, const measured_roofs& meas,
                                    const std::string& precision) {
  roofline_summary s;
  s.precision = precision;
  if (const auto* p = peak_for(nom, precision)) s.peak_nominal = p->flops_per_s;
  if (const auto* c = best_compute(meas, precision)) s.peak_measured = c->flops_per_s;
  if (nom.memory_bandwidth_bytes_per_s && *nom.memory_bandwidth_bytes_per_s > 0)
    s.bandwidth_nominal = *nom.memory_bandwidth_bytes_per_s;
  if (const auto* b = best_device_bandwidth(meas)) s.bandwidth_measured = b->bytes_per_s;
  if (const auto* l2 = best_level_bandwidth(meas, "l2")) s.l2_bandwidth_measured = l2->bytes_per_s;
  if (s.peak_nominal > 0 && s.bandwidth_nominal) s.ridge_nominal = ridge_point(s.peak_nominal, *s.bandwidth_nominal);
  if (s.peak_measured > 0 && s.bandwidth_measured > 0) s.ridge_measured = ridge_point(s.peak_measured, s.bandwidth_measured);

  // Every precision with both a nominal peak and a measured result.
  s.per_precision = json::array();
  std::vector<std::string> seen;
  for (const auto& c : meas.compute) {
    if (std::find(seen.begin(), seen.end(), c.precision) != seen.end()) continue;
    seen.push_back(c.precision);
    const auto* p = peak_for(nom, c.precision);
    const auto* m = best_compute(meas, c.precision);
    if (!p || !m) continue;
    json e = {{"precision", c.precision},
              {"engine_nominal", p->engine},
              {"engine_measured", m->engine},
              {"peak_nominal", p->flops_per_s},
              {"peak_measured", m->flops_per_s},
              {"measured_size", m->size ? json(*m->size) : json(nullptr)},
              {"ridge_nominal", nullptr},
              {"ridge_measured", nullptr}};
    if (s.bandwidth_nominal) e["ridge_nominal"] = ridge_point(p->flops_per_s, *s.bandwidth_nominal);
    if (s.bandwidth_measured > 0) e["ridge_measured"] = ridge_point(m->flops_per_s, s.bandwidth_measured);
    s.per_precision->push_back(e);
  }
  return s;
}

std::vector<std::string> roofline_gaps(const roofline_summary& s) {
  std::vector<std::string> g;
  if (!(s.peak_nominal > 0)) g.push_back(fmt::format("peak_nominal: no nominal {} peak for this device", s.precision));
  if (!(s.peak_measured > 0)) g.push_back(fmt::format("peak_measured: no {} GEMM, tensor or vector result measured", s.precision));
  if (!s.bandwidth_nominal) g.push_back("bandwidth_nominal: unknown (see nominal.memory_bandwidth_reason)");
  if (!(s.bandwidth_measured > 0)) g.push_back("bandwidth_measured: no device-memory (dram/hbm) bandwidth measured");
  if (!s.l2_bandwidth_measured) g.push_back("l2_bandwidth_measured: no L2 bandwidth measured");
  if (!s.ridge_nominal) g.push_back("ridge_nominal: needs both nominal roofs");
  if (!(s.ridge_measured > 0)) g.push_back("ridge_measured: needs both measured roofs");
  return g;
}

}  // namespace roofline
