// The numbers of `roofline compare`'s opening sentences (roofline/device_comparison.hpp).
#include "roofline/device_comparison.hpp"

#include "roofline/headline.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

std::optional<double> ratio_of(std::optional<double> b, std::optional<double> a) {
  if (!a || !b || !(*a > 0) || !(*b > 0)) return std::nullopt;
  return *b / *a;
}

std::optional<double> positive(std::optional<double> v) { return v && *v > 0 ? v : std::nullopt; }

}  // namespace

std::optional<double> device_comparison::compute_ratio() const {
  if (auto r = ratio_of(compute_measured_b, compute_measured_a)) return r;
  return ratio_of(compute_nominal_b, compute_nominal_a);
}

std::optional<double> device_comparison::bandwidth_ratio() const {
  if (auto r = ratio_of(bandwidth_measured_b, bandwidth_measured_a)) return r;
  return ratio_of(bandwidth_nominal_b, bandwidth_nominal_a);
}

device_comparison compare_devices(const results& a, const results& b) {
  device_comparison c;
  c.precision = !a.ops.empty() ? main_precision(a) : !b.ops.empty() ? main_precision(b) : "fp16";
  if (const nominal_peak* p = peak_for(a.nominal, c.precision)) c.compute_nominal_a = p->flops_per_s;
  if (const nominal_peak* p = peak_for(b.nominal, c.precision)) c.compute_nominal_b = p->flops_per_s;
  if (const compute_result* m = best_compute(a.measured, c.precision)) c.compute_measured_a = m->flops_per_s;
  if (const compute_result* m = best_compute(b.measured, c.precision)) c.compute_measured_b = m->flops_per_s;
  c.bandwidth_nominal_a = positive(a.nominal.memory_bandwidth_bytes_per_s);
  c.bandwidth_nominal_b = positive(b.nominal.memory_bandwidth_bytes_per_s);
  if (const bandwidth_result* m = best_device_bandwidth(a.measured)) c.bandwidth_measured_a = m->bytes_per_s, c.bandwidth_pattern_a = m->pattern;
  if (const bandwidth_result* m = best_device_bandwidth(b.measured)) c.bandwidth_measured_b = m->bytes_per_s, c.bandwidth_pattern_b = m->pattern;
  if (a.ops.empty() || b.ops.empty()) return c;
  const headline ha = compute_headline(a), hb = compute_headline(b);
  const auto r_compute = ratio_of(c.compute_measured_b, c.compute_measured_a);
  const auto r_bandwidth = ratio_of(c.bandwidth_measured_b, c.bandwidth_measured_a);
  for (const time_split& ta : ha.time) {
    for (const time_split& tb : hb.time) {
      if (ta.phase != tb.phase || ta.batch != tb.batch || ta.context != tb.context || ta.seq != tb.seq) continue;
      const double sa = ta.step_s.value_or(ta.total_s()), sb = tb.step_s.value_or(tb.total_s());
      if (!(sa > 0) || !(sb > 0) || !(ta.known_s() > 0)) break;
      compared_step s;
      s.phase = ta.phase, s.batch = ta.batch, s.context = ta.context, s.seq = ta.seq;
      s.a_s = sa, s.b_s = sb;
      s.a_source = ta.step_source, s.b_source = tb.step_source;
      s.compute_share = ta.compute_s / ta.known_s();
      s.bandwidth_share = ta.bandwidth_s / ta.known_s();
      s.latency_share = ta.latency_s / ta.known_s();
      if (r_compute && r_bandwidth)
        s.expected_speedup = 1 / (s.latency_share + s.bandwidth_share / *r_bandwidth + s.compute_share / *r_compute);
      c.steps.push_back(s);
      break;
    }
  }
  return c;
}

}  // namespace roofline
