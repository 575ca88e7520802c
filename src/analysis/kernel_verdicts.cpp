// One verdict per user kernel: the roofs of its own precision and engine (clock-matched when both
// clocks are known), the time at the roof, the fraction reached and its class
// (docs/formulas-analysis.md, "Kernel verdicts").
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include "roofline/analysis.hpp"
#include "roofline/clock_match.hpp"
#include "roofline/kernel_analysis.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

#include "roofline/text.hpp"

namespace roofline {

namespace {


/// "3.92 µs" after "back-to-back" in the launch probe's method text (files written before
/// measured.launch.back_to_back_s was a field); nullopt when absent.
std::optional<double> back_to_back_s(const std::string& method) {
  static const std::regex re(R"(back-to-back[^=]*=\s*([0-9.]+)\s*(ns|µs|us|ms|s)\b)");
  std::smatch m;
  if (!std::regex_search(method, m, re)) return std::nullopt;
  const double v = std::stod(m[1].str());
  const std::string u = m[2].str();
  const double scale = u == "ns" ? 1e-9 : (u == "µs" || u == "us") ? 1e-6 : u == "ms" ? 1e-3 : 1.0;
  return v * scale;
}

struct compute_roof {
  std::optional<double> peak;
  std::string source;
  std::optional<double> clock_mhz;  ///< the SM clock the roof was reached at
  std::string clock_source;
  std::optional<double> clock_rate;  ///< the rate of the interval clock_mhz describes (null: `peak`)
};

/// The compute roof of `precision` on `engine`: measured (best_compute_on), else the nominal peak
/// of that engine (peak_for, peak_engine::vector or ::roof), with the clock it was reached at.
compute_roof roof_for(const results& r, const std::string& precision, const std::string& engine) {
  compute_roof out;
  if (const compute_result* c = best_compute_on(r.measured, precision, engine)) {
    out.peak = c->flops_per_s;
    out.source = c->size ? fmt::format("measured {} GEMM n = {}", precision, *c->size) : fmt::format("measured {} {}", precision, c->engine);
    if (c->telemetry && c->telemetry->sm_clock_mhz && c->telemetry->sm_clock_mhz->median > 0) {
      out.clock_mhz = c->telemetry->sm_clock_mhz->median;
      out.clock_source = "median SM clock during that measurement";
    }
    // A GEMM that paired its repeats with their own clocks: a rate and the clock of one interval.
    if (c->repeat_clock)
      if (const clock_matched m = match_clock(r.nominal, peak_for(r.nominal, precision), *c);
          m.rate && m.clock_mhz && m.interval != clock_interval::timed_runs) {
        out.clock_mhz = m.clock_mhz;
        out.clock_rate = m.rate;
        out.clock_source = m.interval == clock_interval::fastest_repeat
                               ? "the SM clock of its fastest repeat"
                               : fmt::format("{} at the SM clock of its fastest repeat the telemetry resolves",
                                             units::compute_rate(*m.rate, precision));
      }
    return out;
  }
  const nominal_peak* p = engine == "vector" ? peak_for(r.nominal, precision, peak_engine::vector) : peak_for(r.nominal, precision);
  if (p && engine == "tensor" && p->engine != "tensor") p = nullptr;  // no tensor path at this precision
  if (p && p->flops_per_s > 0) {
    out.peak = p->flops_per_s;
    out.source = fmt::format("nominal {} {} peak (not measured)", precision, p->engine);
    if (const auto mhz = nominal_clock_mhz(r.nominal, p)) {
      out.clock_mhz = *mhz;
      out.clock_source = "the clock of the nominal peak";
    }
    return out;
  }
  out.source = fmt::format("unknown: no measured or nominal {} {}roof", precision, engine.empty() ? "" : engine + " ");
  return out;
}

struct level_bw {
  std::optional<double> bw;
  std::string source;
};

level_bw bandwidth_for(const results& r, const std::string& level) {
  const bandwidth_result* b = is_device_memory(level) ? best_device_bandwidth(r.measured) : best_level_bandwidth(r.measured, level);
  if (b) return {b->bytes_per_s, fmt::format("measured {} {} at {}", b->pattern, b->level, units::bytes_binary(static_cast<double>(b->working_set_bytes)))};
  if (is_device_memory(level) && r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0)
    return {*r.nominal.memory_bandwidth_bytes_per_s, "nominal (not measured)"};
  return {std::nullopt, ""};
}

const ingest::flop_count* largest(const std::vector<ingest::flop_count>& v) {
  const ingest::flop_count* best = nullptr;
  for (const auto& f : v)
    if (f.flops > 0 && (!best || f.flops > best->flops)) best = &f;
  return best;
}

std::optional<double> sum_of(const std::vector<ingest::flop_count>& v) {
  double s = 0;
  for (const auto& f : v) s += std::max(0.0, f.flops);
  return s > 0 ? std::optional<double>(s) : std::nullopt;
}

}  // namespace

std::string to_string(verdict_class c) {
  switch (c) {
    case verdict_class::at_roof: return "at_roof";
    case verdict_class::bandwidth: return "bandwidth";
    case verdict_class::compute: return "compute";
    case verdict_class::below_both: return "below_both";
    case verdict_class::launch_bound: return "launch_bound";
    case verdict_class::unattributed: return "unattributed";
  }
  return "unattributed";
}

const std::array<verdict_class, verdict_class_count>& verdict_classes() {
  static const std::array<verdict_class, verdict_class_count> all = {verdict_class::at_roof, verdict_class::bandwidth, verdict_class::compute, verdict_class::below_both,
                                                                     verdict_class::launch_bound, verdict_class::unattributed};
  return all;
}

std::string verdict_advice(verdict_class c) {
  switch (c) {
    case verdict_class::at_roof: return "stop, or find a faster algorithm / less work: the roof binds";
    case verdict_class::bandwidth: return "move fewer bytes: fuse with neighbours, smaller dtypes";
    case verdict_class::compute:
      return "compute-bound below the roof: wave/tile quantization and prologue/epilogue; larger or fused GEMMs, shapes in "
             "multiples of the tile";
    case verdict_class::below_both:
      return "latency, occupancy or instruction mix: neither roof binds (compare with the measured floors)";
    case verdict_class::launch_bound: return "batch more work per launch, or capture the sequence in a CUDA graph";
    case verdict_class::unattributed: return "placed by time only: no counters and no cost model; profile with FLOP and byte counters";
  }
  return "";
}

std::string kernel_floors::text() const {
  std::string s;
  if (launch_back_to_back_s) s += "launch " + units::seconds(*launch_back_to_back_s) + " back-to-back";
  if (launch_alone_s) s += (s.empty() ? "launch " + units::seconds(*launch_alone_s) + " alone" : " (" + units::seconds(*launch_alone_s) + " alone)");
  if (small_work_s) s += (s.empty() ? "" : ", ") + std::string("small-work floor ") + units::seconds(*small_work_s) + " per dependent kernel";
  return s.empty() ? "no floor measured (no --results, or launch and small-work not run)" : s;
}

kernel_floors floors_of(const results& r) {
  kernel_floors f;
  if (r.measured.launch) {
    if (r.measured.launch->kernel_s > 0) f.launch_alone_s = r.measured.launch->kernel_s;
    f.launch_back_to_back_s = r.measured.launch->back_to_back_s ? r.measured.launch->back_to_back_s
                                                                : back_to_back_s(r.measured.launch->method);  // older files
  }
  if (r.measured.small_work && r.measured.small_work->floor_s > 0) f.small_work_s = r.measured.small_work->floor_s;
  // Back-to-back is what a kernel in a stream of kernels pays (a trace's kernels are timed on the
  // GPU, without the host's launch-to-sync); alone includes the host's synchronisation.
  if (f.launch_back_to_back_s) {
    f.launch_s = f.launch_back_to_back_s;
    f.launch_source = "back-to-back on one stream";
  } else if (f.launch_alone_s) {
    f.launch_s = f.launch_alone_s;
    f.launch_source = "alone (launch to synchronise)";
  }
  return f;
}

bool is_gemm_like(const ingest::kernel_record& k) {
  const std::string cm = lowercase(k.cost_model), op = lowercase(k.framework_op), n = lowercase(k.name);
  if (cm.find("gemm") != std::string::npos || cm.find("attention") != std::string::npos) return true;
  for (const char* o : {"aten::mm", "aten::addmm", "aten::bmm", "aten::linear", "aten::matmul", "aten::baddbmm", "scaled_dot_product", "attention"})
    if (op.find(o) != std::string::npos) return true;
  for (const char* w : {"gemm", "nvjet", "cutlass", "xmma", "gemv", "flash", "fmha", "attention", "attn", "_mma", "matmul", "cublas"})
    if (n.find(w) != std::string::npos) return true;
  return false;
}

kernel_verdict judge_kernel(const ingest::kernel_record& k, const results& r, const std::string& default_precision, const kernel_floors& floors) {
  kernel_verdict v;
  v.name = k.name;
  v.id = k.id;
  v.shapes = k.shapes;
  v.framework_op = k.framework_op;
  v.note = k.note;
  v.cost_from = k.cost_from;
  v.model_op = k.model_op;
  v.seconds = k.duration_s;
  v.start_s = k.start_s;
  v.stream = k.stream;
  v.gemm_like = is_gemm_like(k);

  // FLOPs: hardware counts place the kernel; model counts are kept beside them (model ÷ hardware).
  v.hardware_flops = sum_of(k.flops);
  v.model_flops = sum_of(k.model_flops);
  if (v.hardware_flops && v.model_flops) v.model_over_hardware = *v.model_flops / *v.hardware_flops;
  const ingest::flop_count* placed = largest(k.flops);
  if (!placed) placed = largest(k.model_flops);
  if (placed) {
    v.flops = placed->flops;
    v.precision = placed->precision.empty() ? default_precision : placed->precision.str();
    v.engine = placed->engine;
    v.flops_source = ingest::to_string(placed->source);
    v.flops_metric = placed->metric;
    if (placed->precision.empty()) v.flops_metric += (v.flops_metric.empty() ? "" : "; ") + ("no precision recorded: placed at " + v.precision);
  }

  // The compute roof of that precision and engine, clock-matched when both clocks are known.
  if (v.flops > 0) {
    const compute_roof c = roof_for(r, v.precision, v.engine);
    v.compute_roof_source = c.source;
    v.compute_roof = v.compute_roof_unscaled = c.peak;
    if (c.peak && k.sm_clock_hz && *k.sm_clock_hz > 0 && c.clock_mhz) {
      const double kernel_mhz = *k.sm_clock_hz / 1e6;
      v.clock_scale = kernel_mhz / *c.clock_mhz;
      v.compute_roof = c.clock_rate.value_or(*c.peak) * *v.clock_scale;
      v.clock_note = fmt::format("compute roof scaled by the kernel's SM clock ÷ the roof's: {} ÷ {} ({}) = {}; "
                                 "memory roofs not scaled (the memory clock is not the SM clock)",
                                 units::value(kernel_mhz, "MHz"), units::value(*c.clock_mhz, "MHz"), c.clock_source, units::sig(*v.clock_scale, 4));
      // Never above the nominal peak at the kernel's clock (the bound no rate may pass): a roof clock
      // below the clock its rate ran at scales the roof past it.
      const nominal_peak* bound = peak_for(r.nominal, v.precision, v.engine == "vector" ? peak_engine::vector : peak_engine::highest);
      if (const auto cap = bound ? peak_at_clock(r.nominal, *bound, kernel_mhz) : std::nullopt; cap && *v.compute_roof > *cap) {
        v.clock_note += fmt::format("; capped at the nominal peak at the kernel's clock, {} ({} × {} ÷ {}), which the scaled {} "
                                    "exceeded (the roof's clock was below the clock its rate ran at)",
                                    units::compute_rate(*cap, v.precision), units::compute_rate(bound->flops_per_s, v.precision),
                                    units::value(kernel_mhz, "MHz"), units::value(*nominal_clock_mhz(r.nominal, bound), "MHz"),
                                    units::compute_rate(*v.compute_roof, v.precision));
        v.compute_roof = cap;
      }
    } else if (c.peak) {
      v.clock_note = !k.sm_clock_hz ? "not clock-matched: the kernel's SM clock was not recorded"
                                    : "not clock-matched: no SM clock recorded for the roof's measurement";
    }
  }

  // The memory roofs of every level with bytes.
  for (const auto& b : k.bytes) {
    if (!(b.bytes > 0)) continue;
    const std::string level = is_device_memory(b.level) ? "dram" : b.level;
    if (level == "dram" && !v.dram_bytes) v.dram_bytes = b.bytes;
    const level_bw bw = bandwidth_for(r, level);
    if (!bw.bw) {
      v.unjudged.push_back(fmt::format("{} at {}: no {} roof measured", units::si(b.bytes, "B"), level, level));
      continue;
    }
    v.levels.push_back({level, b.bytes, ingest::to_string(b.source), *bw.bw, bw.source, b.bytes / *bw.bw});
  }
  if (!v.dram_bytes && !v.levels.empty()) v.dram_bytes = v.levels.front().bytes;
  if (v.dram_bytes && *v.dram_bytes > 0) v.intensity = v.flops / *v.dram_bytes;
  if (v.seconds > 0) v.achieved_flops_per_s = v.flops / v.seconds;

  // Time at the roof: the longest of the compute time and each level's memory time.
  double t = 0, t_unscaled = 0;
  if (v.flops > 0 && v.compute_roof && *v.compute_roof > 0) {
    t = v.flops / *v.compute_roof;
    t_unscaled = v.flops / *v.compute_roof_unscaled;
    v.binding = "compute";
  }
  for (const auto& l : v.levels) {
    if (l.time_s > t) {
      t = l.time_s;
      v.binding = l.level;
    }
    t_unscaled = std::max(t_unscaled, l.time_s);
  }
  v.time_at_roof_s = t;
  if (t > 0 && v.seconds > 0) {
    v.fraction = t / v.seconds;
    v.fraction_unscaled = t_unscaled / v.seconds;
  }

  // Impossible: above the compute roof, or above a level's roof with bytes a counter measured at that
  // level, beyond the noise. Modelled DRAM bytes above the DRAM roof are not impossible: a cache served them.
  std::vector<std::string> above;
  if (v.compute_roof && v.seconds > 0 && v.flops / v.seconds > (1 + roof_noise) * *v.compute_roof)
    above.push_back(fmt::format("{} of the {} {} roof", units::percent(v.flops / v.seconds / *v.compute_roof), v.precision,
                                v.clock_scale ? "clock-matched" : "compute"));
  for (const auto& l : v.levels)
    if (l.bytes_source == "counter" && l.time_s > (1 + roof_noise) * v.seconds)
      above.push_back(fmt::format("{} of the {} roof", units::percent(l.time_s / v.seconds), l.level));
  if (!above.empty()) {
    v.plausible = false;
    std::string what;
    for (const auto& a : above) what += (what.empty() ? "" : " and ") + a;
    v.causes.push_back("impossible: " + what);
    for (auto& c : above_roof_causes()) v.causes.push_back(std::move(c));
  }

  // The class. Order: nothing known → unattributed; at the roof; launch-bound; on the slope; below both.
  const std::string frac_text = v.fraction ? units::percent(*v.fraction) : "unknown";
  if (k.tensor_flops_not_counted && v.flops == 0 && v.gemm_like) {
    // A GEMM with no counted FLOPs did its work on the tensor cores, which the export did not count:
    // placing it by its bytes alone would call a compute-bound kernel "move fewer bytes".
    v.cls = verdict_class::unattributed;
    v.binding.clear();
    v.fraction.reset();
    v.fraction_unscaled.reset();
    v.why = "a GEMM whose tensor-core FLOPs this export does not count (no sm__ops_path_tensor_* metric; the SASS "
            "FMA/ADD/MUL counters do not see tensor-core work): profile with the metrics of `roofline place --ncu-metrics`";
  } else if (v.binding.empty()) {
    v.cls = verdict_class::unattributed;
    v.why = v.flops > 0 || !v.unjudged.empty() ? "counts known but no roof for them: " + (v.compute_roof_source.empty() ? std::string("no bandwidth roof") : v.compute_roof_source)
                                               : "no FLOPs and no bytes: no counters and no cost model";
  } else if (v.fraction && *v.fraction >= at_roof_threshold) {
    v.cls = verdict_class::at_roof;
    v.why = fmt::format("{} of the {} roof (at the roof from {})", frac_text, v.binding, units::percent(at_roof_threshold));
  } else if (floors.launch_s && v.seconds <= launch_multiple * *floors.launch_s) {
    v.cls = verdict_class::launch_bound;
    v.why = fmt::format("{} ≤ {} × the launch floor {} ({})", units::seconds(v.seconds), units::plain(launch_multiple),
                        units::seconds(*floors.launch_s), floors.launch_source);
  } else if (v.binding != "compute" && v.fraction && *v.fraction >= slope_threshold) {
    v.cls = verdict_class::bandwidth;
    v.why = fmt::format("{} of the {} slope", frac_text, v.binding);
  } else if (v.binding == "compute" && v.fraction && *v.fraction >= slope_threshold) {
    v.cls = verdict_class::compute;
    v.why = fmt::format("{} of the {} compute roof", frac_text, v.precision);
  } else {
    v.cls = verdict_class::below_both;
    v.why = fmt::format("{} of the attainable ({} binds by intensity); measured floors: {}", frac_text, v.binding, floors.text());
  }
  return v;
}

std::vector<kernel_verdict> judge_kernels(const std::vector<ingest::kernel_record>& ks, const results& r, const std::string& default_precision) {
  const kernel_floors floors = floors_of(r);
  std::vector<kernel_verdict> out;
  out.reserve(ks.size());
  for (std::size_t i = 0; i < ks.size(); ++i) {
    out.push_back(judge_kernel(ks[i], r, default_precision, floors));
    out.back().number = i + 1;
  }
  // A kernel whose op is counted on a sibling (a split-K reduce, a lean reduction) is judged with it:
  // its op is attributed, its time goes to the op's class.
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const auto c = ks[i].counted_with;
    if (!c || *c >= out.size() || *c == i || out[i].cls != verdict_class::unattributed) continue;
    out[i].cls = out[*c].cls;
    out[i].why = fmt::format("counted with #{}, its op's kernel that carries the counts ({})", *c + 1, to_string(out[*c].cls));
  }
  return out;
}

}  // namespace roofline
