// The small-work model: per-kernel floor + latency-limited memory time (docs/formulas-analysis.md §7).
//   t = max(FLOPs ÷ P(shape), bytes ÷ BW(bytes)) + floor
// BW(bytes) from the measured cold-read ramp (bytes ÷ (t_read(bytes) − floor)); without a ramp the
// latency-bandwidth form t_mem = L + bytes ÷ BW (Hockney, Parallel Computing 20(3), 1994, §2), which
// is Little's law (Little, Operations Research 9(3), 1961) read backwards: a kernel that moves fewer
// than BW × L bytes cannot keep enough bytes in flight to reach BW.
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>
#include <fmt/format.h>

#include "roofline/vocabulary.hpp"
#include "roofline/error.hpp"
#include "roofline/latency.hpp"
#include "roofline/measure.hpp"

namespace roofline {

namespace {

/// Interpolates y at x on the log-log line through (x0, y0)–(x1, y1) (all > 0).
double loglog(double x, double x0, double y0, double x1, double y1) {
  if (x1 <= x0) return y0;
  const double f = (std::log(x) - std::log(x0)) / (std::log(x1) - std::log(x0));
  return std::exp(std::log(y0) + f * (std::log(y1) - std::log(y0)));
}

/// y at x on sorted points {x, y} (all > 0, non-empty): log-log between the two that bracket x,
/// the first point's y below it, the last point's y beyond it.
double loglog_at(const std::vector<std::pair<double, double>>& pts, double x) {
  if (x <= pts.front().first) return pts.front().second;
  for (std::size_t i = 1; i < pts.size(); ++i)
    if (x <= pts[i].first) return loglog(x, pts[i - 1].first, pts[i - 1].second, pts[i].first, pts[i].second);
  return pts.back().second;
}

// Documented defaults (docs/formulas-analysis.md §7.3).
constexpr double gpu_floor_s = 0.6e-6;    // per dependent kernel in a CUDA graph
constexpr double gpu_latency_s = 0.8e-6;  // a cold read's first bytes + the kernel's tail
constexpr double cpu_floor_s = 2e-6;      // per OpenMP parallel region (fork + join barrier)
constexpr double cpu_latency_s = 0.1e-6;  // DRAM load-to-use latency

/// Memory time of `bytes` on a non-empty ramp (ascending bytes), never below bytes ÷ bw.
double ramp_time(const std::vector<ramp_point>& ramp, double bytes, double bw) {
  const double flat = bw > 0 ? bytes / bw : 0;
  // Below the first point: the latency of the smallest read (a kernel cannot beat it).
  if (bytes <= ramp.front().bytes) return std::max(ramp.front().seconds, flat);
  for (std::size_t i = 1; i < ramp.size(); ++i)
    if (bytes <= ramp[i].bytes)
      return std::max(flat, loglog(bytes, ramp[i - 1].bytes, ramp[i - 1].seconds, ramp[i].bytes, ramp[i].seconds));
  // Beyond the last point: scale with the bytes at the last point's rate (it is already at the
  // asymptote), never below bytes ÷ bw.
  const ramp_point& last = ramp.back();
  return std::max(flat, last.seconds * bytes / last.bytes);
}

/// Ramp points sorted by bytes, non-positive ones dropped, seconds kept non-decreasing (noise must
/// not make more bytes cheaper) and at least `min_s`, each after subtracting `minus_s`.
std::vector<ramp_point> monotone_ramp(std::vector<ramp_point> pts, double minus_s, double min_s) {
  std::sort(pts.begin(), pts.end(), [](const ramp_point& a, const ramp_point& b) { return a.bytes < b.bytes; });
  std::vector<ramp_point> out;
  double last = 0;
  for (const auto& p : pts) {
    if (!(p.bytes > 0) || !(p.seconds > 0)) continue;
    const double s = std::max({p.seconds - minus_s, min_s, last});
    out.push_back({p.bytes, s});
    last = s;
  }
  return out;
}

/// Attention's tile rates at head_dim d (log-log between the measured head dims): {QKᵀ, P·V,
/// softmax (0 unless measured at every head dim)}; nullopt outside the measured range or without points.
struct tile_rates {
  double qk = 0, pv = 0, softmax = 0;
};
std::optional<tile_rates> tile_rates_at(const std::vector<latency_model::attention_rate>& rates, double d) {
  if (rates.empty() || d < rates.front().head_dim || d > rates.back().head_dim) return std::nullopt;
  std::vector<std::pair<double, double>> qk, pv, sm;
  for (const auto& a : rates) {
    qk.emplace_back(a.head_dim, a.qk), pv.emplace_back(a.head_dim, a.pv);
    if (a.softmax > 0) sm.emplace_back(a.head_dim, a.softmax);
  }
  return tile_rates{loglog_at(qk, d), loglog_at(pv, d), sm.size() == rates.size() ? loglog_at(sm, d) : 0};
}

}  // namespace

double latency_model::memory_time(double bytes, double bw) const {
  if (!(bytes > 0)) return 0;
  if (ramp.empty()) return latency_s + (bw > 0 ? bytes / bw : 0);
  return ramp_time(ramp, bytes, bw);
}

double latency_model::traffic_bytes(const op_desc& op) const {
  if (!write_cost) return op.bytes();
  const bool in_place = std::find(write_in_place.begin(), write_in_place.end(), to_string(op.kind)) != write_in_place.end();
  const double w = in_place ? std::max(0.0, *write_cost - 1.0) : std::max(0.0, *write_cost);
  return op.bytes_read + w * op.bytes_written;
}

bool latency_model::runs_serial(const op_desc& op) const {
  if (serial_below_elements <= 0 || serial_ramp.empty() || op.dtype_bytes <= 0) return false;
  switch (op.kind) {
    case op_kind::gemm:
    case op_kind::attention_decode:
    case op_kind::attention_naive:
    case op_kind::attention_fused: return false;
    default: break;
  }
  return op.bytes_written / op.dtype_bytes < static_cast<double>(serial_below_elements);
}

time_terms latency_model::predict(const op_desc& op, double peak, double bw) const {
  if (const double gemms = naive_gemm_seconds(op); gemms > 0) {
    // Naive attention is three kernels in turn: QKᵀ, the softmax over the written scores, P·V. The
    // GEMMs at their tile rates over full rows (their scores traffic runs under their arithmetic),
    // the softmax as its own op.
    time_terms t = predict(attention_softmax_op(op), peak, bw);
    t.compute_s += gemms;
    t.total_s += gemms;
    t.bound = gemms >= t.memory_s ? "compute" : t.bound;
    return t;
  }
  double rate = compute_rate(op, peak);
  const double traffic = traffic_bytes(op);
  if (runs_serial(op)) {
    const double mem = traffic > 0 ? ramp_time(serial_ramp, traffic, bw) : 0;
    return predict_time(op.flops, traffic, rate, bw, serial_floor_s, mem, class_bandwidth(bw));
  }
  double mem = memory_time(traffic, bw);
  if ((op.kind == op_kind::gemm || op.kind == op_kind::attention_decode) && peak > 0 && bw > 0 &&
      op.intensity() < peak / bw) {
    // A GEMM (or decode attention) below the ridge point streams its weight (its KV cache): the rate
    // measured at its shape is the rate at which its bytes really move, so it bounds the memory
    // term, and the op stays bandwidth-bound (same total time as reading it as a compute rate).
    if ((op.kind == op_kind::gemm && op.m > 0 &&
         rows_rate(static_cast<double>(op.m), static_cast<double>(op.n), static_cast<double>(op.k)) > 0) ||
        decode_attention_rate(op) > 0) {  // compute_rate read it
      mem = std::max(mem, op.flops / rate);
      rate = peak;
    }
  }
  return predict_time(op.flops, traffic, rate, bw, floor_s, mem, class_bandwidth(bw));
}

double latency_model::naive_gemm_seconds(const op_desc& op) const {
  if (op.kind != op_kind::attention_naive || op.head_dim <= 0) return 0;
  const double d = static_cast<double>(op.head_dim);
  const auto r = tile_rates_at(attention_rates, d);
  if (!r) return 0;
  // every (query, key) pair of full rows, 2·d FLOPs in each GEMM
  const double half = double(op.batch) * double(op.heads) * double(op.q_len) * double(op.kv_len) * 2 * d;
  return half / r->qk + half / r->pv;
}

const latency_model::rows_curve* latency_model::rows_curve_for(double n, double k) const {
  const rows_curve* fixed = nullptr;
  for (const auto& c : gemm_rows) {
    if (n > 0 && c.n == n && c.k == k && !c.points.empty()) return &c;
    if (c.linears.empty() && !c.points.empty() && !fixed) fixed = &c;
  }
  return fixed;
}

double latency_model::decode_attention_rate(const op_desc& op) const {
  if (op.kind != op_kind::attention_decode || decode_rates.empty()) return 0;
  std::vector<std::pair<double, double>> pts;
  for (const auto& d : decode_rates)
    if (d.heads == double(op.heads) && d.kv_heads == double(op.kv_heads) && d.head_dim == double(op.head_dim) &&
        d.keys == double(op.kv_len))
      pts.emplace_back(d.batch, d.flops_per_s);
  const double b = static_cast<double>(op.batch);
  if (pts.empty() || b < pts.front().first || b > pts.back().first) return 0;
  return loglog_at(pts, b);
}

double latency_model::rows_rate(double m, double n, double k) const {
  const rows_curve* c = rows_curve_for(n, k);
  if (!c || m < c->points.front().first || m > c->points.back().first) return 0;
  return loglog_at(c->points, m);
}

double latency_model::compute_rate(const op_desc& op, double peak) const {
  auto capped = [peak](double rate) { return peak > 0 ? std::min(rate, peak) : rate; };
  if (const double r = decode_attention_rate(op); r > 0) return capped(r);
  if (op.kind == op_kind::attention_decode && op.kv_heads > 0 && op.heads > 0) {
    // QKᵀ and P·V of one KV head are GEMMs whose rows are the query heads that share it (GQA).
    const double group = static_cast<double>(op.heads / op.kv_heads) * static_cast<double>(std::max<std::int64_t>(1, op.q_len));
    const double r = rows_rate(group);
    return r > 0 ? capped(r) : peak;
  }
  if (op.kind == op_kind::attention_fused && op.head_dim > 0 && op.q_len > 0 && !fused_rates.empty()) {
    // per measured head_dim, the rate at the op's length (log-log in tokens); then log-log in head_dim
    std::vector<std::pair<double, double>> by_dim;
    for (std::size_t i = 0; i < fused_rates.size();) {
      std::vector<std::pair<double, double>> pts;
      const double d = fused_rates[i].head_dim;
      for (; i < fused_rates.size() && fused_rates[i].head_dim == d; ++i) pts.emplace_back(fused_rates[i].tokens, fused_rates[i].flops_per_s);
      by_dim.emplace_back(d, loglog_at(pts, static_cast<double>(op.q_len)));
    }
    const double d = static_cast<double>(op.head_dim);
    if (d >= by_dim.front().first && d <= by_dim.back().first) return capped(loglog_at(by_dim, d));
  }
  if (op.kind == op_kind::attention_fused && op.head_dim > 0 && !attention_rates.empty()) {
    const double d = static_cast<double>(op.head_dim);
    const auto r = tile_rates_at(attention_rates, d);
    if (!r) return peak;
    // QKᵀ and P·V carry equal FLOPs (2·d per scored pair each), the softmax softmax_flops_per_element
    const double per_pair = 4 * d + softmax_flops_per_element;
    const double gemm_flops = op.flops * 4 * d / per_pair, softmax_flops = op.flops - gemm_flops;
    // A causal kernel of T-row tiles computes every key up to each tile's last row: n(n + T)/2 pairs
    // for n = q_len = kv_len, against the pairs op.flops counts.
    double computed = 1;
    const double tile = attention_rates.front().tile_rows;
    if (op.causal && op.q_len == op.kv_len && op.q_len > 1 && tile > 0 && op.batch > 0 && op.heads > 0) {
      const double n = static_cast<double>(op.q_len), counted = op.flops / (double(op.batch) * double(op.heads) * per_pair);
      computed = n * (n + std::min(tile, n)) / 2 / counted;
    }
    double t = computed * (gemm_flops / 2 / r->qk + gemm_flops / 2 / r->pv);
    if (r->softmax > 0) t += softmax_flops / r->softmax;
    return capped(op.flops / t);
  }
  if (op.kind != op_kind::gemm || op.m <= 0 || op.n <= 0 || op.k <= 0) return peak;
  if (const double r = rows_rate(static_cast<double>(op.m), static_cast<double>(op.n), static_cast<double>(op.k)); r > 0)
    return capped(r);
  if (gemm_rate.empty()) return peak;
  return capped(loglog_at(gemm_rate, std::cbrt(double(op.m) * double(op.n) * double(op.k))));
}

double latency_model::class_bandwidth(double roof_bw) const {
  if (ramp.empty() || !(ramp.back().seconds > 0)) return roof_bw;
  const double streaming = ramp.back().bytes / ramp.back().seconds;
  return roof_bw > 0 ? std::min(roof_bw, streaming) : streaming;
}

time_terms predict_time(double flops, double bytes, double peak, double bw, double floor_s, double memory_s,
                        double class_bw) {
  time_terms t;
  t.floor_s = std::max(0.0, floor_s);
  t.compute_s = peak > 0 ? flops / peak : 0;
  t.bandwidth_s = bw > 0 ? bytes / bw : 0;
  t.memory_s = std::max(memory_s, t.bandwidth_s);
  t.total_s = std::max(t.compute_s, t.memory_s) + t.floor_s;
  const double streaming_s = class_bw > 0 ? bytes / class_bw : t.bandwidth_s;
  if (!(peak > 0) || !(bw > 0)) {
    t.bound = "unknown";
  } else if (std::max(t.compute_s, streaming_s) < 0.5 * t.total_s) {
    t.bound = "latency";  // most of the time is the floor and the bytes that are not yet in flight
  } else {
    t.bound = t.compute_s >= t.memory_s ? "compute" : "bandwidth";
  }
  return t;
}

latency_model default_latency_model(const std::string& device_class) {
  latency_model m;
  if (device_class == "gpu" || device_class == "cuda") {
    m.floor_s = gpu_floor_s;
    m.latency_s = gpu_latency_s;
    m.source = "default for a CUDA GPU (no measurement): floor 0.6 µs per kernel in a CUDA graph, memory latency "
               "0.8 µs (docs/formulas-analysis.md §7.3)";
  } else if (device_class == "cpu") {
    m.floor_s = cpu_floor_s;
    m.latency_s = cpu_latency_s;
    m.source = "default for a CPU (no measurement): floor 2 µs per parallel region, memory latency 0.1 µs "
               "(docs/formulas-analysis.md §7.3)";
  } else {
    throw input_error("", "device class", "'" + device_class + "' is not gpu or cpu");
  }
  return m;
}

latency_model latency_model_from(const measured_roofs& meas, const std::string& device_kind,
                                 const std::string& precision) {
  latency_model m = default_latency_model(device_kind == "cpu" ? "cpu" : "gpu");
  if (meas.small_work && meas.small_work->floor_s > 0) {
    const small_work_result& sw = *meas.small_work;
    m.floor_s = sw.floor_s;
    // memory part = per-kernel time − floor, at least a tenth of the floor (a read is never free)
    m.ramp = monotone_ramp(sw.ramp, sw.floor_s, 0.1 * sw.floor_s);
    m.latency_s = m.ramp.empty() ? m.latency_s : m.ramp.front().seconds;
    m.source = fmt::format("measured: floor {:.2f} µs per dependent kernel, cold-read ramp of {} points "
                           "(measured.small_work)", sw.floor_s * 1e6, m.ramp.size());
    if (sw.floor_switch_s && *sw.floor_switch_s > sw.floor_s) {
      m.switch_s = *sw.floor_switch_s - sw.floor_s;
      m.source += fmt::format("; a whole step adds {:.2f} µs per kernel (a chain alternating two different kernels, "
                              "{:.2f} µs per kernel, measured.small_work.floor_switch_s)", m.switch_s * 1e6,
                              *sw.floor_switch_s * 1e6);
    }
    if (sw.serial_below_elements > 0 && sw.serial_floor_s > 0 && !sw.serial_ramp.empty()) {
      m.serial_below_elements = sw.serial_below_elements;
      m.serial_floor_s = sw.serial_floor_s;
      m.serial_ramp = monotone_ramp(sw.serial_ramp, 0, 0);  // the one-thread reads have no region in them
      m.source += fmt::format("; ops writing fewer than {} elements run on one thread: floor {:.2f} µs per region, "
                              "one-thread cold-read ramp of {} points", m.serial_below_elements,
                              m.serial_floor_s * 1e6, m.serial_ramp.size());
    }
    if (sw.write_cost && std::isfinite(*sw.write_cost)) {
      m.write_cost = *sw.write_cost;
      m.write_in_place = sw.write_in_place;
      m.source += fmt::format("; a written byte costs {:.2f} read bytes (write-allocate, measured.small_work.write_cost)",
                              *m.write_cost);
    }
  } else if (meas.launch && meas.launch->graph_s && *meas.launch->graph_s > 0) {
    m.floor_s = *meas.launch->graph_s;
    m.source = fmt::format("measured floor {:.2f} µs (empty kernel in a CUDA graph, measured.launch); memory latency "
                           "{:.2f} µs by default (no ramp measured)", m.floor_s * 1e6, m.latency_s * 1e6);
  }
  // A size's burst rate where measured (GPU, n >= 2048): the rate over the window of load each op is
  // timed over (ops_timing()), not the power-capped rate of seconds of load.
  std::size_t bursts = 0;
  for (const auto& c : meas.compute) {
    if (c.precision != precision || !is_gemm_engine(c.engine) || !c.size || *c.size <= 0 || !(c.flops_per_s > 0)) continue;
    const bool burst = c.burst_flops_per_s && *c.burst_flops_per_s > 0 && std::isfinite(*c.burst_flops_per_s);
    bursts += burst ? 1 : 0;
    m.gemm_rate.emplace_back(static_cast<double>(*c.size), burst ? *c.burst_flops_per_s : c.flops_per_s);
  }
  if (bursts > 0)
    m.source += fmt::format("; square GEMM sizes read at their burst rate where measured ({} of the precision's "
                            "points: first {} s after {} s idle, measured.compute burst_flops_per_s)", bursts,
                            burst_window_s, burst_idle_s);
  std::sort(m.gemm_rate.begin(), m.gemm_rate.end());
  // one rate per size (the best), rates non-decreasing in size
  std::vector<std::pair<double, double>> rates;
  for (const auto& r : m.gemm_rate) {
    if (!rates.empty() && rates.back().first == r.first) rates.back().second = std::max(rates.back().second, r.second);
    else rates.push_back(r);
  }
  for (std::size_t i = 1; i < rates.size(); ++i) rates[i].second = std::max(rates[i].second, rates[i - 1].second);
  m.gemm_rate = rates;
  // GEMM rate against rows, one curve per weight: the rate of the kernel's time less the floor
  // (predict() adds the floor back), one point per m (the best median).
  std::size_t row_points = 0;
  for (const auto& g : meas.gemm_rows) {
    if (g.precision != precision || !g.verified || g.m <= 0 || g.n <= 0 || g.k <= 0 || !(g.median_flops_per_s > 0)) continue;
    const std::string linears = g.linears.value_or("");
    auto it = std::find_if(m.gemm_rows.begin(), m.gemm_rows.end(), [&](const auto& c) {
      return c.n == double(g.n) && c.k == double(g.k) && c.linears == linears;
    });
    if (it == m.gemm_rows.end()) it = m.gemm_rows.insert(m.gemm_rows.end(), {double(g.n), double(g.k), linears, {}});
    const double flops = 2.0 * double(g.m) * double(g.n) * double(g.k), t = flops / g.median_flops_per_s;
    const double rate = t > m.floor_s ? flops / (t - m.floor_s) : g.median_flops_per_s;
    auto p = std::find_if(it->points.begin(), it->points.end(), [&](const auto& q) { return q.first == double(g.m); });
    if (p == it->points.end()) it->points.emplace_back(double(g.m), rate), ++row_points;
    else p->second = std::max(p->second, rate);
  }
  for (auto& c : m.gemm_rows) std::sort(c.points.begin(), c.points.end());
  std::sort(m.gemm_rows.begin(), m.gemm_rows.end(), [](const auto& a, const auto& b) {
    return a.linears != b.linears ? a.linears < b.linears : a.n * a.k < b.n * b.k;
  });
  if (!m.gemm_rows.empty()) {
    std::string shapes;
    for (const auto& c : m.gemm_rows)
      shapes += fmt::format("{}{} × {}{} (M {} to {})", shapes.empty() ? "" : ", ", c.n, c.k,
                            c.linears.empty() ? "" : ": " + c.linears, c.points.front().first, c.points.back().first);
    m.source += fmt::format("; GEMMs read the GEMM rate against rows at their weight's N × K, else at the fixed "
                            "weight, less the floor ({} points: {}; measured.gemm_rows)", row_points, shapes);
  }
  // attention's tile rates: one {head_dim, qk, pv} where both GEMMs of a head_dim were measured
  for (const auto& g : meas.gemm_attention) {
    if (g.precision != precision || !g.verified || g.head_dim <= 0 || !(g.median_flops_per_s > 0)) continue;
    if (g.gemm == "decode") {
      if (!g.batch || !g.heads || !g.kv_heads || *g.batch <= 0 || g.keys <= 0) continue;
      // the catalogue's FLOPs of the point, so that the time less the floor gives the rate the model
      // reads (predict() adds the floor back)
      const double flops =
          attention_op(op_kind::attention_decode, *g.batch, *g.heads, *g.kv_heads, g.head_dim, 1, g.keys, 2, 2, false).flops;
      const double t = flops / g.median_flops_per_s;
      m.decode_rates.push_back({double(*g.heads), double(*g.kv_heads), double(g.head_dim), double(g.keys),
                                double(*g.batch), t > m.floor_s ? flops / (t - m.floor_s) : g.median_flops_per_s});
      continue;
    }
    if (g.gemm == "sdpa") {
      if (g.tile_rows > 0) m.fused_rates.push_back({static_cast<double>(g.head_dim), static_cast<double>(g.tile_rows), g.median_flops_per_s});
      continue;
    }
    if (g.gemm != "qk" && g.gemm != "pv" && g.gemm != "softmax") continue;
    const double d = static_cast<double>(g.head_dim);
    auto it = std::find_if(m.attention_rates.begin(), m.attention_rates.end(), [d](const auto& a) { return a.head_dim == d; });
    if (it == m.attention_rates.end()) it = m.attention_rates.insert(m.attention_rates.end(), {d, 0, 0, 0, 0});
    (g.gemm == "qk" ? it->qk : g.gemm == "pv" ? it->pv : it->softmax) = g.median_flops_per_s;
    it->tile_rows = static_cast<double>(g.tile_rows);
  }
  std::sort(m.decode_rates.begin(), m.decode_rates.end(), [](const auto& a, const auto& b) {
    return std::tie(a.heads, a.kv_heads, a.head_dim, a.keys, a.batch) < std::tie(b.heads, b.kv_heads, b.head_dim, b.keys, b.batch);
  });
  if (!m.decode_rates.empty())
    m.source += fmt::format("; decode attention reads its own rate at batch {} to {} (measured.gemm_attention, "
                            "decode), less the floor", m.decode_rates.front().batch, m.decode_rates.back().batch);
  std::erase_if(m.attention_rates, [](const auto& a) { return !(a.qk > 0) || !(a.pv > 0); });
  std::sort(m.attention_rates.begin(), m.attention_rates.end(),
            [](const auto& a, const auto& b) { return a.head_dim < b.head_dim; });
  if (!m.attention_rates.empty())
    m.source += fmt::format("; fused and naive prefill attention at head_dim {} to {} read the tile rates{} "
                            "(measured.gemm_attention)", m.attention_rates.front().head_dim,
                            m.attention_rates.back().head_dim,
                            m.attention_rates.front().softmax > 0 ? " of QKᵀ, the softmax and P·V" : " of QKᵀ and P·V");
  std::sort(m.fused_rates.begin(), m.fused_rates.end(), [](const auto& a, const auto& b) {
    return a.head_dim != b.head_dim ? a.head_dim < b.head_dim : a.tokens < b.tokens;
  });
  if (!m.fused_rates.empty()) {
    const auto [lo, hi] = std::minmax_element(m.fused_rates.begin(), m.fused_rates.end(),
                                              [](const auto& a, const auto& b) { return a.tokens < b.tokens; });
    m.source += fmt::format("; fused prefill attention at head_dim {} to {} reads its own rate at {} to {} tokens "
                            "(measured.gemm_attention, sdpa)", m.fused_rates.front().head_dim, m.fused_rates.back().head_dim,
                            lo->tokens, hi->tokens);
  }
  return m;
}

}  // namespace roofline
