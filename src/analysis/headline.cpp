// The report's three opening facts (roofline/headline.hpp), from the typed results only.
#include "roofline/headline.hpp"

#include <algorithm>
#include <map>

#include "roofline/text.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

machine_verdict machine_of(const results& r) {
  machine_verdict m;
  m.device = r.device.name;
  m.cpu = r.device.kind == "cpu";
  m.precision = main_precision(r);
  const nominal_peak* p = peak_for(r.nominal, m.precision);
  if (p) m.compute_nominal = p->flops_per_s, m.engine = p->engine;
  const compute_result* c = best_compute_on(r.measured, m.precision, "gemm");
  if (!c) c = best_compute(r.measured, m.precision);
  if (c) m.compute_measured = c->flops_per_s, m.gemm_n = c->size;
  if (r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0)
    m.bandwidth_nominal = r.nominal.memory_bandwidth_bytes_per_s;
  if (const bandwidth_result* b = best_device_bandwidth(r.measured)) m.bandwidth_measured = b->bytes_per_s, m.bandwidth_pattern = b->pattern;
  m.clock_nominal_mhz = nominal_clock_mhz(r.nominal, p);
  m.power_limit_w = property_number(r, {"power_limit_w", "enforced_power_limit_w", "power_limit", "tdp_w"});
  if (r.interference && r.interference->busy) {
    m.busy = true, m.busy_summary = r.interference->summary, m.rejected_results = r.interference->unreliable_results;
    m.ops_kept_out = r.interference->ops_kept_out, m.steps_kept_out = r.interference->steps_kept_out;
  }
  if (c) m.at_clock = match_clock(r.nominal, p, *c);
  if (!c || !c->telemetry) return m;
  const telemetry_summary& t = *c->telemetry;
  if (t.sm_clock_mhz) m.clock_mhz = t.sm_clock_mhz->median;
  if (t.power_w) m.power_w = t.power_w->median, m.power_max_w = t.power_w->max;
  m.throttled_fraction = t.throttled_fraction;
  m.throttle_reasons = t.throttle_reasons;
  bool power = false, thermal = false;
  for (const auto& s : t.throttle_reasons) power |= contains(s, "power"), thermal |= contains(s, "thermal");
  const bool slow_clock = m.clock_mhz && m.clock_nominal_mhz && *m.clock_mhz < 0.97 * *m.clock_nominal_mhz;
  // The cap binds only where the GEMM's own power shows it: near the limit. An unknown power or limit
  // cannot show it.
  const bool near_limit = m.power_w && m.power_limit_w && *m.power_w >= power_near_limit * *m.power_limit_w;
  if (power && (slow_clock || !m.clock_mhz)) m.limit = near_limit ? "power" : "power_reason";
  else if (thermal && (slow_clock || !m.clock_mhz)) m.limit = "thermal";
  else if (slow_clock) m.limit = "clock";
  else if (m.clock_mhz && m.clock_nominal_mhz) m.limit = "kernel";
  return m;
}

double op_time(const op_result& op) { return op.measured_s ? *op.measured_s : op.predicted_s; }

/// Time at the roof: the longer of FLOPs ÷ peak and bytes ÷ bandwidth (measured roofs, else nominal).
double roof_time(const op_result& op, const roofline_summary& s) {
  const double peak = s.peak_measured > 0 ? s.peak_measured : s.peak_nominal;
  const double bw = s.bandwidth_measured > 0 ? s.bandwidth_measured : s.bandwidth_nominal.value_or(0);
  double t = 0;
  if (peak > 0) t = std::max(t, op.flops / peak);
  if (bw > 0) t = std::max(t, op.bytes / bw);
  return t;
}

bool same_scenario(const op_result& op, const time_split& t) {
  return op.phase == t.phase && op.batch == t.batch && (op.phase == "decode" ? op.context == t.context : op.seq == t.seq);
}

}  // namespace

headline compute_headline(const results& r) {
  headline h;
  h.machine = machine_of(r);
  const double bw = r.roofline.bandwidth_measured;
  for (const op_result& op : r.ops) {
    if (!op.alternative_to.empty()) continue;  // measured beside the step, never part of it
    auto it = std::find_if(h.time.begin(), h.time.end(), [&](const time_split& t) { return same_scenario(op, t); });
    if (it == h.time.end()) {
      time_split t;
      t.phase = op.phase, t.batch = op.batch, t.context = op.context, t.seq = op.seq;
      h.time.push_back(t);
      it = h.time.end() - 1;
    }
    const double s = static_cast<double>(op.count) * op_time(op);
    ++it->ops;
    if (op.disturbed_s) ++it->disturbed_ops;
    if (op.measured_s) ++it->timed_ops;
    if (op.bound == "compute") it->compute_s += s;
    else if (op.bound == "latency") it->latency_s += s;
    else if (op.bound == "bandwidth" || op.bound == "memory") it->bandwidth_s += s;  // "memory": older files' word
    else it->unknown_s += s, ++it->unknown_ops;  // "unknown" or none: no roof says which
    it->bytes += static_cast<double>(op.count) * op.bytes;
    it->flops += static_cast<double>(op.count) * op.flops;
  }
  for (time_split& t : h.time) {
    for (const auto& w : r.whole_step) {
      if (w.phase != t.phase || w.batch != t.batch ||
          !(t.phase == "decode" ? w.context.value_or(t.context) == t.context : w.seq.value_or(t.seq) == t.seq))
        continue;
      if (w.measured_s) t.step_s = w.measured_s, t.step_source = "whole step";
      if (w.disturbed_s) t.step_disturbed = true;
    }
    if (!t.step_s && t.total_s() > 0) t.step_s = t.total_s(), t.step_source = "sum of ops";
    t.untimed_on_busy = h.machine.busy && t.timed_ops == 0 && t.step_source != "whole step";
    if (bw > 0) t.bytes_alone_s = t.bytes / bw;
  }
  // The next step: per scenario, the time above the roof summed by advice; the advice whose ops lose
  // the largest share of their step wins.
  double best_share = 0;
  for (const time_split& t : h.time) {
    std::map<std::string, next_step> by_advice;
    for (const op_result& op : r.ops) {
      if (!op.alternative_to.empty() || !same_scenario(op, t) || op.advice.empty() || !op.plausible) continue;
      if (op.advice.rfind("stop", 0) == 0 || op.advice.rfind("above the roof", 0) == 0 || op.advice.rfind("unknown", 0) == 0) continue;
      const double excess = static_cast<double>(op.count) * std::max(0.0, op_time(op) - roof_time(op, r.roofline));
      next_step& n = by_advice[op.advice];
      n.phase = t.phase, n.batch = t.batch, n.seq = t.seq, n.advice = op.advice;
      n.excess_s += excess;
      n.step_s = t.step_s.value_or(t.total_s());
      if (std::find(n.ops.begin(), n.ops.end(), op.name) == n.ops.end()) n.ops.push_back(op.name);
    }
    for (auto& [advice, n] : by_advice) {
      const double share = n.step_s > 0 ? n.excess_s / n.step_s : 0;
      if (share > best_share) best_share = share, h.next = n;
    }
  }
  const bool kept_out = std::any_of(h.time.begin(), h.time.end(), [](const time_split& t) { return t.disturbed(); });
  h.rerun_quiet = h.machine.busy && (!h.machine.compute_measured || !h.machine.bandwidth_measured || kept_out);
  return h;
}

}  // namespace roofline
