// The energy roofline (Choi, Bedard, Fowler, Vuduc, "A roofline model of energy", IPDPS 2013) from the
// measured energy windows, and a whole step's predicted energy (roofline/energy_analysis.hpp;
// docs/formulas-analysis.md §8.1, §10).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/energy_analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/text.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

std::optional<double> counter_power_w(const energy_window& w) {
  if (!w.counter_j || !(w.window_s >= min_energy_window_s)) return std::nullopt;
  return *w.counter_j / w.window_s;
}

std::optional<double> integrated_power_w(const energy_window& w) {
  if (!w.integrated_j || !(w.window_s >= min_energy_window_s)) return std::nullopt;
  return *w.integrated_j / w.window_s;
}

std::optional<double> joules_per_token(const energy_window& w, double step_s, std::int64_t tokens) {
  const auto p = counter_power_w(w);
  if (!p || !(step_s > 0) || tokens < 1) return std::nullopt;
  return *p * step_s / static_cast<double>(tokens);
}

double predicted_energy_j(double idle_w, double seconds, double joules_per_byte, double bytes, double joules_per_flop,
                          double flops) {
  return idle_w * seconds + joules_per_byte * bytes + joules_per_flop * flops;
}

step_energy_charge charge_step(const energy_roofline& e, const whole_step_result& w) {
  step_energy_charge c;
  if (!e.complete() || !w.flops || !w.bytes) return c;
  c.tensor_flops = *w.flops;
  if (w.flops_executed_tensor && w.flops_executed_cuda_cores) {
    c.tensor_flops = *w.flops_executed_tensor;
    c.cuda_core_flops = *w.flops_executed_cuda_cores;
  }
  // without a CUDA-core J/FLOP, the CUDA cores' FLOPs are charged at the tensor cores' (and said); a decode
  // step's at the decode GEMMs' own where read (§10.3)
  const bool decode = w.phase == "decode";
  const double j_t = decode && e.joules_per_flop_decode_tensor ? *e.joules_per_flop_decode_tensor : *e.joules_per_flop;
  const double j_cc = decode && e.joules_per_flop_decode_cuda_cores ? *e.joules_per_flop_decode_cuda_cores
                                                                    : e.joules_per_flop_cuda_cores.value_or(*e.joules_per_flop);
  c.joules = predicted_energy_j(*e.idle_w, w.predicted_s, *e.joules_per_byte, *w.bytes, j_t, c.tensor_flops) +
             j_cc * c.cuda_core_flops;
  return c;
}

decode_gemm_joules decode_gemm_coefficients(const energy_roofline& e, const std::vector<whole_step_result>& linear_layers) {
  decode_gemm_joules d;
  if (!e.complete()) return d;
  struct replay {
    std::int64_t batch;
    double t, power, bytes, ft, fc, d;
  };
  std::vector<replay> rs, capped;
  for (const auto& w : linear_layers) {
    if (!w.measured_s || !(*w.measured_s > 0) || !w.energy || !w.bytes) continue;
    const auto p = counter_power_w(*w.energy);
    if (!p) {
      d.notes.push_back(fmt::format("decode linear layers at batch {}: {}", w.batch, no_power_reason(*w.energy)));
      continue;
    }
    const double ft = w.flops_executed_tensor ? *w.flops_executed_tensor : w.flops.value_or(0);
    const double fc = w.flops_executed_cuda_cores.value_or(0);
    const double t = *w.measured_s;
    const replay x{w.batch, t, *p, *w.bytes, ft, fc, (*p - *e.idle_w) * t - *e.joules_per_byte * *w.bytes};
    (at_power_cap(*w.energy, e.power_limit_w) ? capped : rs).push_back(x);
  }
  // A replay at the power cap ran at the cap's clock, not the steps': not used, unless no replay below the cap
  // ran mostly on the tensor cores; then the largest capped one is (its clock is still nearer the steps' than
  // the roof GEMM's), and said.
  // the replay of `set` that runs more than half of its FLOPs on the engine (tensor cores or CUDA cores), the one
  // with the most of them; nullptr when none
  const auto most_on = [](const std::vector<replay>& set, bool tensor) -> const replay* {
    const replay* best = nullptr;
    for (const auto& x : set) {
      const double f = tensor ? x.ft : x.fc;
      if (f > 0.5 * (x.ft + x.fc) && (!best || f > (tensor ? best->ft : best->fc))) best = &x;
    }
    return best;
  };
  const replay* fallback = most_on(rs, true) ? nullptr : most_on(capped, true);
  for (const auto& x : capped)
    d.notes.push_back(&x == fallback
                          ? fmt::format("decode linear layers at batch {}: used although at the power cap (replayed alone "
                                        "they drew {} of the {} limit; no replay below the cap ran mostly on the tensor "
                                        "cores)",
                                        x.batch, units::si(x.power, "W"), units::si(*e.power_limit_w, "W"))
                          : fmt::format("decode linear layers at batch {}: not used (replayed alone they drew {}, at the "
                                        "{} power limit: the cap set their clock, not the steps')",
                                        x.batch, units::si(x.power, "W"), units::si(*e.power_limit_w, "W")));
  if (fallback) rs.push_back(*fallback);
  if (rs.empty()) {
    d.notes.push_back("decode GEMMs' J/FLOP not read (no linear-layer replay with an energy reading): decode steps' FLOPs "
                      "are charged at the probes' J/FLOP");
    return d;
  }
  std::sort(rs.begin(), rs.end(), [](const replay& a, const replay& b) { return a.batch < b.batch; });
  std::string read;
  for (const auto& x : rs)
    read += fmt::format("{}batch {}: {} at {} a replay, {}, {} on the tensor cores and {} on the CUDA cores",
                        read.empty() ? "" : "; ", x.batch, units::si(x.power, "W"), units::seconds(x.t),
                        units::si(x.bytes, "B"), units::si(x.ft, "FLOP"), units::si(x.fc, "FLOP"));
  const replay& a = rs.front();
  const replay& b = rs.back();
  const double det = a.ft * b.fc - b.ft * a.fc;
  const double scale = std::max(std::fabs(a.ft * b.fc), std::fabs(b.ft * a.fc));
  std::string how;
  if (rs.size() >= 2 && scale > 0 && std::fabs(det) >= 0.1 * scale) {
    const double jt = (a.d * b.fc - b.d * a.fc) / det;
    const double jc = (a.ft * b.d - b.ft * a.d) / det;
    if (jt > 0) d.tensor = jt;
    else d.notes.push_back(fmt::format("decode GEMMs' tensor J/FLOP not kept: solved {} (not above 0)", units::si(jt, "J/FLOP")));
    if (jc > 0) d.cuda_cores = jc;
    else d.notes.push_back(fmt::format("decode GEMMs' CUDA-core J/FLOP not kept: solved {} (not above 0)", units::si(jc, "J/FLOP")));
    how = "both engines solved from the two replays";
  } else {
    // one engine at a time, from the replay where it runs most of the FLOPs (more than half), the other engine's FLOPs
    // at its probe coefficient (the tensor one solved first)
    std::vector<std::string> parts;
    if (const replay* g = most_on(rs, true)) {
      const double jc = e.joules_per_flop_cuda_cores.value_or(*e.joules_per_flop);
      const double jt = (g->d - jc * g->fc) / g->ft;
      if (jt > 0) d.tensor = jt, parts.push_back(fmt::format("the tensor cores' from batch {}", g->batch));
      else d.notes.push_back(fmt::format("decode GEMMs' tensor J/FLOP not kept: {} (not above 0)", units::si(jt, "J/FLOP")));
    }
    if (const replay* g = most_on(rs, false)) {
      const double jt = d.tensor.value_or(*e.joules_per_flop);
      const double jc = (g->d - jt * g->ft) / g->fc;
      if (jc > 0) d.cuda_cores = jc, parts.push_back(fmt::format("the CUDA cores' from batch {}", g->batch));
      else d.notes.push_back(fmt::format("decode GEMMs' CUDA-core J/FLOP not kept: {} (not above 0)", units::si(jc, "J/FLOP")));
    }
    std::string which;
    for (const auto& x : parts) which += (which.empty() ? "" : ", ") + x;
    how = fmt::format("{} (the replays do not separate the engines; the other engine's FLOPs at its coefficient)",
                      which.empty() ? std::string("neither engine") : which);
  }
  if (d.tensor || d.cuda_cores)
    d.source = fmt::format("the decode step's linear layers replayed alone, (P − idle) × t − J/B × bytes = J/FLOP × "
                           "FLOPs per engine: {}; {}", read, how);
  return d;
}

std::optional<double> device_power_limit_w(const results& r) {
  if (auto p = property_number(r, {"power_limit_w", "enforced_power_limit_w", "power_limit", "tdp_w"})) return p;
  const json& t = r.measured.telemetry;
  if (t.is_object() && t.contains("power_limit_w") && t["power_limit_w"].is_number())
    return t["power_limit_w"].get<double>();
  return std::nullopt;
}

bool at_power_cap(const energy_window& w, std::optional<double> limit_w) {
  const auto p = counter_power_w(w);
  return p && limit_w && *limit_w > 0 && *p >= power_cap_share * *limit_w;
}

std::string no_power_reason(const energy_window& w) {
  if (w.window_s > 0 && w.window_s < min_energy_window_s && (w.counter_j || w.integrated_j))
    return fmt::format("window {} shorter than the {} an energy reading needs (NVML's power average is 1 s)",
                       units::seconds(w.window_s), units::seconds(min_energy_window_s));
  return w.note.empty() ? std::string("no reading") : w.note;
}

namespace {

probe_energy probe_of(const std::string& label, const energy_window& w, const std::optional<double>& limit) {
  probe_energy p;
  p.probe = label;
  p.window_s = w.window_s;
  p.power_w = counter_power_w(w);
  p.integrated_power_w = integrated_power_w(w);
  if (p.power_w && p.integrated_power_w && *p.power_w > 0)
    p.counter_vs_integrated = *p.integrated_power_w / *p.power_w - 1;
  if (p.power_w && limit && *limit > 0) p.power_cap_share = *p.power_w / *limit;
  p.note = p.power_w ? w.note : no_power_reason(w);
  return p;
}

std::string bandwidth_label(const bandwidth_result& b) {
  return fmt::format("bandwidth/{} {} {}", b.pattern, b.level,
                     units::bytes_binary(static_cast<double>(b.working_set_bytes)));
}
std::string gemm_label(const compute_result& c) {
  return c.size ? fmt::format("gemm {} n = {}", c.precision, *c.size) : fmt::format("{} {}", c.precision, c.engine);
}

/// A row's power over an energy window long enough to read (min_energy_window_s) and the rate it
/// held there: the timed runs' own window at the median rate, else the sustained run's window at its
/// mean rate (results.hpp sustained_energy). nullopt when neither window gives a power.
struct powered_window {
  double power_w = 0, rate = 0;
  const energy_window* window = nullptr;
  const char* which = "";
};
template <class Row>
std::optional<powered_window> powered(const Row& row, double median_rate) {
  if (row.energy && median_rate > 0)
    if (auto p = counter_power_w(*row.energy)) return powered_window{*p, median_rate, &*row.energy, "timed runs"};
  if (row.sustained_energy && row.sustained_energy_rate && *row.sustained_energy_rate > 0)
    if (auto p = counter_power_w(*row.sustained_energy))
      return powered_window{*p, *row.sustained_energy_rate, &*row.sustained_energy, "sustained run"};
  return std::nullopt;
}

/// "…: the power cap bound (sw_power_cap in 84% of samples); SM clock 1320 MHz against 1980 MHz max"
/// when a power reason is among the throttle reasons; "" otherwise.
std::string cap_note(const results& r, const std::string& label, const std::optional<telemetry_summary>& t) {
  if (!t) return "";
  std::string reasons;
  for (const auto& s : t->throttle_reasons)
    if (contains(s, "power")) reasons += (reasons.empty() ? "" : ", ") + s;
  if (reasons.empty()) return "";
  const auto max_clock = property_number(r, {"max_sm_clock_mhz"});
  std::string clock = t->sm_clock_mhz
                          ? fmt::format("SM clock {} MHz (median)", units::plain(std::round(t->sm_clock_mhz->median)))
                          : "SM clock not sampled";
  if (t->sm_clock_mhz && max_clock) clock += fmt::format(" against {} MHz max", units::plain(*max_clock));
  return fmt::format("{}: the power cap bound ({} in {} of the samples); {}", label, reasons,
                     units::percent(t->throttled_fraction), clock);
}

/// "gemm fp16 n = 8192, sustained: normal(0,1) inputs draw 697 W and hold 1388 MHz (671 TFLOP/s); all-zero
/// inputs draw 450 W and hold 1635 MHz (809 TFLOP/s, 1.21× the random-data rate); the roof is the random-data
/// one" from compute_result::sustained_by_input; "" with fewer than two runs.
std::string input_note(const compute_result& c) {
  if (c.sustained_by_input.size() < 2) return "";
  std::string s;
  std::optional<double> random_rate;
  for (const sustained_run& x : c.sustained_by_input) {
    const bool zeros = x.inputs == inputs_zeros;
    if (!zeros && !random_rate) random_rate = x.flops_per_s;
    const auto& t = x.telemetry;
    const std::string power = t && t->power_w ? "draw " + units::value(t->power_w->median, "W") : "draw an unknown power";
    const std::string clock = t && t->sm_clock_mhz ? "hold " + units::value(t->sm_clock_mhz->median, "MHz") : "hold an unknown clock";
    std::string rate = units::compute_rate(x.flops_per_s, c.precision);
    if (zeros && random_rate && *random_rate > 0) rate += ", " + units::ratio(x.flops_per_s / *random_rate) + " the random-data rate";
    s += fmt::format("{}{} inputs {} and {} ({})", s.empty() ? "" : "; ", zeros ? "all-zero" : x.inputs, power, clock, rate);
  }
  return fmt::format("{}, sustained: {}; the roof is the random-data one", gemm_label(c), s);
}

/// The largest non-rejected GEMM of `precision` with a usable energy window (powered): compute
/// dominates its time most. nullptr when none.
const compute_result* largest_powered_gemm(const measured_roofs& m, const std::string& precision) {
  const compute_result* g = nullptr;
  for (const auto& c : m.compute)
    if (!c.rejected && c.precision == precision && is_gemm_engine(c.engine) && powered(c, c.median_flops_per_s) &&
        (!g || c.size.value_or(0) > g->size.value_or(0)))
      g = &c;
  return g;
}

}  // namespace

energy_roofline analyse_energy(const results& r) {
  energy_roofline e;
  e.definition =
      "energy roofline (Choi, Bedard, Fowler, Vuduc, IPDPS 2013): E = idle W × time + J/B × bytes + J/FLOP × FLOPs; "
      "idle W from the counter over a pause before the probes; J/B = (P − idle W) ÷ median B/s of the device-memory "
      "bandwidth roof's window; J/FLOP = (P − idle W) ÷ median FLOP/s of the largest GEMM of the main precision; "
      "P = counter increase ÷ window, over the timed runs where they last at least 1 s, else over the probe's "
      "sustained run at its mean rate";
  e.power_limit_w = device_power_limit_w(r);
  const std::string precision = main_precision(r);

  if (r.measured.idle_energy) {
    const energy_window& w = *r.measured.idle_energy;
    if (auto p = counter_power_w(w)) {
      e.idle_w = p;
      e.idle_source = fmt::format("energy counter over a {} pause before the probes", units::seconds(w.window_s));
    } else if (auto q = integrated_power_w(w)) {
      e.idle_w = q;
      e.idle_source = fmt::format("power samples integrated over a {} pause before the probes (no counter: {})",
                                  units::seconds(w.window_s), w.note);
    } else {
      e.notes.push_back("idle power unknown (" + no_power_reason(w) + ")");
    }
  } else {
    e.notes.push_back("idle power unknown (no idle read in this file)");
  }

  for (const auto& b : r.measured.bandwidth) {
    if (b.energy && !b.rejected) e.probes.push_back(probe_of(bandwidth_label(b), *b.energy, e.power_limit_w));
    if (b.sustained_energy && !b.rejected)
      e.probes.push_back(probe_of(bandwidth_label(b) + " (sustained run)", *b.sustained_energy, e.power_limit_w));
  }
  for (const auto& c : r.measured.compute) {
    if (c.energy && !c.rejected) e.probes.push_back(probe_of(gemm_label(c), *c.energy, e.power_limit_w));
    if (c.sustained_energy && !c.rejected)
      e.probes.push_back(probe_of(gemm_label(c) + " (sustained run)", *c.sustained_energy, e.power_limit_w));
    for (const sustained_run& x : c.sustained_by_input)  // the random-data run is the sustained run above
      if (x.inputs != inputs_normal && x.energy && !c.rejected)
        e.probes.push_back(probe_of(fmt::format("{} (sustained run, {} inputs)", gemm_label(c), x.inputs), *x.energy, e.power_limit_w));
    if (c.precision == precision && !c.rejected)
      if (auto n = input_note(c); !n.empty()) e.power_cap.push_back(n);
  }

  // J/B: the device-memory roof's window, else the fastest device-memory point with a usable window
  const bandwidth_result* bw = best_device_bandwidth(r.measured);
  if (!bw || !powered(*bw, bw->median_bytes_per_s)) {
    bw = nullptr;
    for (const auto& b : r.measured.bandwidth)
      if (usable_as_roof(b) && is_device_memory(b.level) && powered(b, b.median_bytes_per_s) &&
          (!bw || b.bytes_per_s > bw->bytes_per_s))
        bw = &b;
  }
  if (bw && e.idle_w) {
    const powered_window pw = *powered(*bw, bw->median_bytes_per_s);
    e.joules_per_byte = (pw.power_w - *e.idle_w) / pw.rate;
    e.bytes_source = fmt::format("{} ({}, {}): {} at {} (idle {})", bandwidth_label(*bw), pw.which,
                                 units::seconds(pw.window->window_s), units::si(pw.power_w, "W"),
                                 units::rate_bytes(pw.rate), units::si(*e.idle_w, "W"));
    if (*e.joules_per_byte <= 0) {  // a coefficient ≤ 0 would predict energy below idle: unknown instead
      e.notes.push_back(fmt::format("J/B unknown (the bandwidth probe drew {}, not above the idle {})",
                                    units::si(pw.power_w, "W"), units::si(*e.idle_w, "W")));
      e.joules_per_byte.reset();
    }
    if (auto n = cap_note(r, bandwidth_label(*bw), bw->telemetry); !n.empty()) e.power_cap.push_back(n);
  } else {
    e.notes.push_back(bw ? "J/B unknown (no idle power)"
                         : fmt::format("J/B unknown (no device-memory bandwidth point with an energy window of at least {})",
                                       units::seconds(min_energy_window_s)));
  }

  // J/FLOP: the largest GEMM of the main precision with a usable window (compute dominates its time most)
  const compute_result* g = largest_powered_gemm(r.measured, precision);
  if (g && e.idle_w) {
    const powered_window pw = *powered(*g, g->median_flops_per_s);
    e.joules_per_flop = (pw.power_w - *e.idle_w) / pw.rate;
    e.flops_source = fmt::format("{} ({}, {}): {} at {} (idle {}); its own operand traffic is counted in J/FLOP",
                                 gemm_label(*g), pw.which, units::seconds(pw.window->window_s), units::si(pw.power_w, "W"),
                                 units::compute_rate(pw.rate, precision), units::si(*e.idle_w, "W"));
    if (*e.joules_per_flop <= 0) {
      e.notes.push_back(fmt::format("J/FLOP unknown (the GEMM drew {}, not above the idle {})", units::si(pw.power_w, "W"),
                                    units::si(*e.idle_w, "W")));
      e.joules_per_flop.reset();
    }
    if (auto n = cap_note(r, gemm_label(*g), g->telemetry); !n.empty()) e.power_cap.push_back(n);
  } else {
    e.notes.push_back(g ? "J/FLOP unknown (no idle power)"
                        : fmt::format("J/FLOP unknown (no {} GEMM with an energy window of at least {})", precision,
                                      units::seconds(min_energy_window_s)));
  }

  // J/FLOP of the CUDA cores: the largest fp32 GEMM (SGEMM runs on the CUDA cores, not the tensor
  // cores) with a usable window — what a step's FLOPs on CUDA cores (a GEMV) are charged at (§10.2)
  if (const compute_result* v = precision == "fp32" ? nullptr : largest_powered_gemm(r.measured, "fp32"); v && e.idle_w) {
    const powered_window pw = *powered(*v, v->median_flops_per_s);
    const double j = (pw.power_w - *e.idle_w) / pw.rate;
    if (j > 0) {
      e.joules_per_flop_cuda_cores = j;
      e.cuda_cores_source = fmt::format("{} ({}, {}): {} at {} (idle {})", gemm_label(*v), pw.which,
                                        units::seconds(pw.window->window_s), units::si(pw.power_w, "W"),
                                        units::compute_rate(pw.rate, "fp32"), units::si(*e.idle_w, "W"));
    }
  }

  if (e.complete() && r.step_sweep && !r.step_sweep->linear_layers.empty()) {
    decode_gemm_joules d = decode_gemm_coefficients(e, r.step_sweep->linear_layers);
    e.joules_per_flop_decode_tensor = d.tensor;
    e.joules_per_flop_decode_cuda_cores = d.cuda_cores;
    e.decode_source = std::move(d.source);
    for (auto& n : d.notes) e.notes.push_back(std::move(n));
  }

  if (e.complete())
    for (const auto& op : r.ops) {
      if (!op.alternative_to.empty()) continue;
      op_energy o;
      o.name = op.name, o.phase = op.phase, o.batch = op.batch, o.count = op.count;
      o.predicted_j =
          predicted_energy_j(*e.idle_w, op.predicted_s, *e.joules_per_byte, op.bytes, *e.joules_per_flop, op.flops);
      if (op.measured_s)
        o.measured_time_j =
            predicted_energy_j(*e.idle_w, *op.measured_s, *e.joules_per_byte, op.bytes, *e.joules_per_flop, op.flops);
      e.ops.push_back(std::move(o));
    }
  return e;
}

}  // namespace roofline
