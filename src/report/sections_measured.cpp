// Measured roofs (bandwidth per pattern and level, compute per precision and size, telemetry) and
// the roofline summary (roofs and ridge points per precision).
#include <fmt/format.h>

#include <algorithm>

#include "report/plot.hpp"
#include "roofline/model.hpp"
#include "roofline/vocabulary.hpp"
#include "report/sections.hpp"
#include "report/units.hpp"

namespace roofline::report {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
  return s.empty() ? "—" : s;
}

cell stat_cell(const std::optional<stats_summary>& st, const char* unit, int digits = 3) {
  if (!st) return cell("—");
  return cell(fmt::format("{} {} ({}–{})", sig(st->median, digits), unit, sig(st->min, digits), sig(st->max, digits)), st->median);
}

cell notes_cell(table& t, const compute_result& c) {
  std::string notes;
  for (const auto& f : c.flags) notes += (notes.empty() ? "" : " ") + t.note(f);
  if (!c.verified) notes += (notes.empty() ? "" : " ") + t.note("not verified against a reference result");
  return cell(notes.empty() ? "—" : notes);
}

}  // namespace

section measured_section(const results& r) {
  section s{"Measured roofs", "measured", {}};
  const auto& m = r.measured;
  s.heading("Bandwidth");
  if (m.bandwidth.empty()) {
    s.para("No bandwidth results.");
  } else {
    const auto nom = r.nominal.memory_bandwidth_bytes_per_s;
    table t;
    t.header = {"pattern", "level", "working set", "best", "median", "spread", "repeats", "% of nominal", "roof?", "notes"};
    for (const auto& b : m.bandwidth) {
      const bool device = is_device_memory(b.level);
      std::string notes;
      if (!b.bytes_convention.empty()) notes += t.note("bytes counted: " + b.bytes_convention);
      for (const auto& f : b.flags) notes += (notes.empty() ? "" : " ") + t.note(f);
      if (!b.verified) notes += (notes.empty() ? "" : " ") + t.note("not verified against the closed-form value");
      std::string roof = usable_as_roof(b) ? "yes" : "no";
      if (b.rejected) roof = "rejected " + t.note("rejected: " + (b.rejected_reason.empty() ? std::string("no reason recorded") : b.rejected_reason));
      else if (is_transition_level(b.level)) roof = "no " + t.note("a transition between two levels: never a roof");
      t.rows.push_back({cell(b.pattern), cell(b.level),
                        cell(bytes_binary(static_cast<double>(b.working_set_bytes)), static_cast<double>(b.working_set_bytes)),
                        cell(rate_bytes(b.bytes_per_s), b.bytes_per_s), cell(rate_bytes(b.median_bytes_per_s), b.median_bytes_per_s),
                        cell(percent(b.spread), b.spread), cell(std::to_string(b.repeats), b.repeats),
                        device && nom && *nom > 0 ? cell(percent(b.bytes_per_s / *nom), b.bytes_per_s / *nom) : cell("—"), cell(roof),
                        cell(notes.empty() ? "—" : notes)});
    }
    s.add(std::move(t));
  }
  s.heading("Compute");
  if (m.compute.empty()) {
    s.para("No compute results.");
  } else {
    table t;
    t.header = {"precision", "engine", "n", "best", "median", "spread", "% of nominal", r.device.kind == "cpu" ? "clock" : "SM clock", "power", "temperature",
                "throttle", "method", "notes"};
    for (const auto& c : m.compute) {
      const nominal_peak* p = c.engine == "vector" ? peak_for(r.nominal, c.precision, peak_engine::vector) : peak_for(r.nominal, c.precision);
      if (!p) p = peak_for(r.nominal, c.precision);
      const auto& tel = c.telemetry;
      std::string throttle = "—";
      if (tel) {
        throttle = tel->throttle_reasons.empty() ? "none" : join(tel->throttle_reasons);
        throttle += fmt::format(" ({} of samples)", percent(tel->throttled_fraction));
      }
      t.rows.push_back({cell(c.precision), cell(c.engine),
                        c.size ? cell(std::to_string(*c.size), static_cast<double>(*c.size)) : cell("—"),
                        cell(rate_flops(c.flops_per_s), c.flops_per_s), cell(rate_flops(c.median_flops_per_s), c.median_flops_per_s),
                        cell(percent(c.spread), c.spread),
                        p ? cell(percent(c.flops_per_s / p->flops_per_s), c.flops_per_s / p->flops_per_s) : cell("—"),
                        tel ? stat_cell(tel->sm_clock_mhz, "MHz", 4) : cell("—"), tel ? stat_cell(tel->power_w, "W") : cell("—"),
                        tel ? stat_cell(tel->temperature_c, "°C") : cell("—"), cell(throttle),
                        cell(c.method.empty() ? "—" : c.method), notes_cell(t, c)});
    }
    s.add(std::move(t));
    s.para("Best = the roof (work ÷ fastest repeat); median = work ÷ median time; spread = (max − min) ÷ median of the repeats' times. Telemetry: median (min–max) over the probe.");
  }
  if (!m.gemm_rows.empty()) {
    s.heading("GEMM rate against rows");
    table t;
    t.header = {"precision", "M (rows)", "N × K", "weight", "best", "median", "spread", "repeats", "method"};
    for (const auto& g : m.gemm_rows)
      t.rows.push_back({cell(g.precision), cell(std::to_string(g.m), static_cast<double>(g.m)),
                        cell(fmt::format("{} × {}", g.n, g.k)), cell(g.linears.value_or("fixed")),
                        cell(rate_flops(g.flops_per_s), g.flops_per_s),
                        cell(rate_flops(g.median_flops_per_s), g.median_flops_per_s), cell(percent(g.spread), g.spread),
                        cell(std::to_string(g.repeats), g.repeats), cell(g.method.empty() ? "—" : g.method)});
    s.add(std::move(t));
    s.para("A linear layer at batch M: the weight is read cold and used M times. Predictions of GEMMs whose M lies "
           "in this range use the median rate at their M (less the floor), on the curve of their own weight N × K "
           "where one was measured, else the fixed weight's; not the square sweep's rate at the same FLOPs "
           "(docs/formulas-analysis.md §7.2).");
  }
  const bool fused = std::any_of(m.gemm_attention.begin(), m.gemm_attention.end(), [](const auto& g) { return g.gemm == "sdpa"; });
  if (fused) {
    s.heading("Fused attention rate");
    table t;
    t.header = {"precision", "head_dim", "tokens", "best", "median", "repeats", "method"};
    for (const auto& g : m.gemm_attention) {
      if (g.gemm != "sdpa") continue;
      t.rows.push_back({cell(g.precision), cell(std::to_string(g.head_dim), static_cast<double>(g.head_dim)),
                        cell(std::to_string(g.tile_rows), static_cast<double>(g.tile_rows)),
                        cell(rate_flops(g.flops_per_s), g.flops_per_s),
                        cell(rate_flops(g.median_flops_per_s), g.median_flops_per_s),
                        cell(std::to_string(g.repeats), g.repeats), cell(g.method.empty() ? "—" : g.method)});
    }
    s.add(std::move(t));
    s.para("The backend's fused attention op at causal prefill shapes. Predictions of fused attention read the "
           "median rate at their length and head_dim, not the peak (docs/formulas-analysis.md §7.1).");
  }
  if (std::any_of(m.gemm_attention.begin(), m.gemm_attention.end(), [](const auto& g) { return g.gemm == "decode"; })) {
    s.heading("Decode attention rate");
    table t;
    t.header = {"precision", "batch", "heads / KV heads", "head_dim", "cached tokens", "time", "median", "repeats", "method"};
    for (const auto& g : m.gemm_attention) {
      if (g.gemm != "decode") continue;
      const double flops = attention_op(op_kind::attention_decode, g.batch.value_or(1), g.heads.value_or(1),
                                        g.kv_heads.value_or(1), g.head_dim, 1, g.keys, 2, 2, false).flops;
      const double secs = g.median_flops_per_s > 0 ? flops / g.median_flops_per_s : 0;
      t.rows.push_back({cell(g.precision), cell(std::to_string(g.batch.value_or(0)), static_cast<double>(g.batch.value_or(0))),
                        cell(fmt::format("{} / {}", g.heads.value_or(0), g.kv_heads.value_or(0))),
                        cell(std::to_string(g.head_dim), static_cast<double>(g.head_dim)),
                        cell(std::to_string(g.keys), static_cast<double>(g.keys)), cell(seconds(secs), secs),
                        cell(rate_flops(g.median_flops_per_s), g.median_flops_per_s),
                        cell(std::to_string(g.repeats), g.repeats), cell(g.method.empty() ? "—" : g.method)});
    }
    s.add(std::move(t));
    s.para("The backend's decode attention op at the model's shape and the step sweep's batches. Predictions of "
           "decode attention of that shape read the median rate at their batch, less the floor "
           "(docs/formulas-analysis.md §7.1).");
  }
  if (std::any_of(m.gemm_attention.begin(), m.gemm_attention.end(), [](const auto& g) { return g.gemm != "sdpa" && g.gemm != "decode"; })) {
    s.heading("Rates at attention's tile shapes");
    table t;
    t.header = {"precision", "step", "head_dim", "M × N × K (softmax: rows × keys)", "best", "median", "spread", "repeats", "method"};
    for (const auto& g : m.gemm_attention) {
      if (g.gemm == "sdpa" || g.gemm == "decode") continue;
      const bool qk = g.gemm == "qk", sm = g.gemm == "softmax";
      t.rows.push_back({cell(g.precision), cell(qk ? "S = Q·Kᵀ" : sm ? "softmax" : "O = P·V"),
                        cell(std::to_string(g.head_dim), static_cast<double>(g.head_dim)),
                        cell(qk   ? fmt::format("{} × {} × {}", g.tile_rows, g.keys, g.head_dim)
                             : sm ? fmt::format("{} × {}", g.tile_rows, g.keys)
                                  : fmt::format("{} × {} × {}", g.tile_rows, g.head_dim, g.keys)),
                        cell(rate_flops(g.flops_per_s), g.flops_per_s),
                        cell(rate_flops(g.median_flops_per_s), g.median_flops_per_s), cell(percent(g.spread), g.spread),
                        cell(std::to_string(g.repeats), g.repeats), cell(g.method.empty() ? "—" : g.method)});
    }
    s.add(std::move(t));
    s.para("The two GEMMs of a query tile of fused prefill attention and the softmax between them (5 FLOPs per "
           "score), issued as the CPU kernel issues them. Predictions of fused attention at a measured head_dim "
           "add the three steps' times at their median rates, the GEMMs over the pairs the causal tiles compute, "
           "not the peak (docs/formulas-analysis.md §7.1).");
  }
  if (m.launch) {
    s.heading("Launch overhead");
    std::vector<std::string> items = {"empty kernel, launch to completion: " + seconds(m.launch->kernel_s)};
    if (m.launch->graph_s) items.push_back("per kernel inside a CUDA graph: " + seconds(*m.launch->graph_s));
    if (!m.launch->method.empty()) items.push_back("method: " + m.launch->method);
    s.bullets(items);
  }
  if (m.telemetry->is_object() && !m.telemetry->empty()) {
    s.heading("Device-wide telemetry");
    add_json(s, m.telemetry, "", 0);
  }
  return s;
}

section roofline_section(const results& r) {
  section s{"Roofs and ridge points", "roofline", {}};
  s.para("Ridge point = peak ÷ device-memory bandwidth (FLOP/B): ops below it are memory-bound. Measured roofs use "
         "the best compute result of each precision and the best device-memory bandwidth of any pattern.");
  table t;
  t.header = {"precision", "nominal peak", "measured peak", "nominal bandwidth", "measured bandwidth", "nominal ridge",
              "measured ridge", "ridge moved"};
  std::vector<std::string> precs = nominal_precisions(r.nominal);
  for (const auto& p : measured_precisions(r.measured)) precs.push_back(p);
  std::vector<std::string> seen;
  for (const auto& p : precs) {
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    const ridge_pair rp = ridge_for(r, p);
    auto opt = [](const std::optional<double>& v, std::string (*f)(double)) { return v ? cell(f(*v), *v) : cell("—"); };
    t.rows.push_back({cell(p), opt(rp.peak_nominal, rate_flops), opt(rp.peak_measured, rate_flops), opt(rp.bw_nominal, rate_bytes),
                      opt(rp.bw_measured, rate_bytes), opt(rp.nominal, intensity), opt(rp.measured, intensity),
                      rp.nominal && rp.measured ? cell(fmt::format("{:+.1f}%", 100.0 * (*rp.measured / *rp.nominal - 1)),
                                                       *rp.measured / *rp.nominal - 1)
                                                : cell("—")});
  }
  s.add(std::move(t));
  const auto& rs = r.roofline;
  std::vector<std::string> items;
  if (!rs.precision.empty())
    items.push_back(fmt::format("ops are placed against the {} roofs: peak {} measured ({} nominal), bandwidth {} measured ({} nominal)",
                                rs.precision, rs.peak_measured > 0 ? rate_flops(rs.peak_measured) : std::string("unknown"),
                                rs.peak_nominal > 0 ? rate_flops(rs.peak_nominal) : std::string("unknown"),
                                rs.bandwidth_measured > 0 ? rate_bytes(rs.bandwidth_measured) : std::string("unknown"),
                                rs.bandwidth_nominal && *rs.bandwidth_nominal > 0 ? rate_bytes(*rs.bandwidth_nominal) : std::string("unknown")));
  for (const auto& lvl : cache_levels(r.measured))
    if (const bandwidth_result* b = best_level_bandwidth(r.measured, lvl))
      items.push_back(fmt::format("{} roof: {} ({}, {} working set)", memory_level_label(lvl), rate_bytes(b->bytes_per_s), b->pattern,
                                  bytes_binary(static_cast<double>(b->working_set_bytes))));
  s.bullets(items);
  ridge_block(s, r);
  return s;
}

}  // namespace roofline::report
