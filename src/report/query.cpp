#include "report/query.hpp"

#include <algorithm>
#include <array>

namespace roofline::report {

decode_step decode_batch1(const results& r) {
  decode_step d;
  for (const auto& op : r.ops) {
    if (op.phase != "decode" || op.batch != 1 || !op.alternative_to.empty()) continue;
    ++d.ops;
    d.flops += op.flops * static_cast<double>(op.count);
    d.bytes += op.bytes * static_cast<double>(op.count);
    if (op.measured_s) ++d.measured;
  }
  if (d.ops == 0) {
    d.why = "no decode ops at batch 1 in the results";
  } else if (d.measured < d.ops) {
    d.why = std::to_string(d.ops - d.measured) + " of " + std::to_string(d.ops) + " decode ops not run";
  } else {
    double t = 0;
    for (const auto& op : r.ops)
      if (op.phase == "decode" && op.batch == 1 && op.alternative_to.empty()) t += *op.measured_s * static_cast<double>(op.count);
    d.tpot_s = t;
  }
  return d;
}

ridge_pair ridge_for(const results& r, const std::string& precision) {
  ridge_pair rp;
  if (const nominal_peak* p = peak_for(r.nominal, precision)) rp.peak_nominal = p->flops_per_s;
  if (const compute_result* c = best_compute(r.measured, precision)) rp.peak_measured = c->flops_per_s;
  if (r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0)
    rp.bw_nominal = r.nominal.memory_bandwidth_bytes_per_s;
  if (const bandwidth_result* b = best_device_bandwidth(r.measured)) rp.bw_measured = b->bytes_per_s;
  // The roofs the ops were placed against (results.roofline) win, so every ridge in the report is
  // the one the op table used.
  if (r.roofline.precision == precision && r.roofline.peak_measured > 0 && r.roofline.bandwidth_measured > 0) {
    rp.peak_measured = r.roofline.peak_measured;
    rp.bw_measured = r.roofline.bandwidth_measured;
  }
  if (rp.peak_nominal && rp.bw_nominal) rp.nominal = *rp.peak_nominal / *rp.bw_nominal;
  if (rp.peak_measured && rp.bw_measured) rp.measured = *rp.peak_measured / *rp.bw_measured;
  return rp;
}

double achieved(double flops, double s) { return s > 0 ? flops / s : 0; }

}  // namespace roofline::report
