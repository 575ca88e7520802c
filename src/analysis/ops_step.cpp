// `roofline ops`' numbers: the step placed on the roofs, its totals, the tensor-parallel
// all-reduces, the fusion savings and the decode linear batch sweep (roofline/ops_step.hpp).
#include "roofline/ops_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/spec.hpp"
#include "roofline/units.hpp"

namespace roofline {

allreduce_link resolve_allreduce_link(const allreduce_link_request& q) {
  allreduce_link l{q.busbw_gb_per_s * 1e9, default_allreduce_latency_s, ""};
  std::string latency_source = "default 10 µs (NCCL's smallest all-reduce on NVLink)";
  if (!q.fleet_file.empty()) {
    const fleet::allreduce_roof roof = fleet::read_allreduce_roof(q.fleet_file);
    l.latency_s = roof.latency_s, l.busbw_bytes_per_s = roof.busbw_bytes_per_s;
    latency_source = "measured: " + q.fleet_file;
    l.source =
        "measured all_reduce roof of " + q.fleet_file + ": " + units::si(roof.busbw_bytes_per_s, "B/s") + " busbw";
  }
  if (q.latency_us) {
    if (!(*q.latency_us >= 0))
      throw input_error("", "--tp-latency", "must be >= 0 µs");  // NonNegativeNumber lets nan in
    l.latency_s = *q.latency_us * 1e-6;
    latency_source = fmt::format("--tp-latency {} µs", *q.latency_us);
  }
  if (!q.fleet_file.empty()) {
  } else if (l.busbw_bytes_per_s > 0) {
    l.source = fmt::format("--tp-busbw {} GB/s", q.busbw_gb_per_s);
  } else if (!q.device.empty()) {
    const auto link = fleet::nominal_link(gpu_nominal(q.device, "--device").device_name);
    if (!link.bytes_per_s)
      throw input_error("", "--tp-busbw", "needed: " + q.device + " link bandwidth " + link.reason);
    l.busbw_bytes_per_s = *link.bytes_per_s;
    l.source = "nominal link: " + link.formula;
  } else {
    throw input_error("", "--tp-busbw", "--tp needs the all-reduce bus bandwidth: --tp-busbw GB/s or --device NAME");
  }
  l.source += "; latency " + latency_source;
  return l;
}

namespace {

double op_time(const op_desc& op, const placement_roofs& r) { return r.lat.predict(op, r.peak, r.bandwidth).total_s; }

/// Predicted time a fusion saves per instance: the ops it replaces minus the fused op.
double fusion_time_saved(const fusion_saving& f, const placement_roofs& r) {
  double before = 0, after = 0;
  for (const auto& op : f.before_ops) before += op_time(op, r);
  for (const auto& op : f.after_ops) after += op_time(op, r);
  return before - after;
}

}  // namespace

ops_step compute_ops_step(const model_config& cfg, const catalogue_options& opt_in,
                          const std::optional<placement_roofs>& r, bool fusion, const allreduce_link_request& link) {
  ops_step s;
  s.cfg = cfg, s.roofs = r, s.opt = opt_in, s.fusion = fusion;
  const catalogue_options& opt = s.opt;
  const phase ph = opt.ph;
  const auto& ops = s.ops = build_catalogue(cfg, opt);
  s.weights = step_weights(cfg, opt);
  const memory_need& need = s.need = estimate_memory(cfg, opt, ops);
  if (r && r->memory_bytes > 0 && ph == phase::decode) s.fit = sequences_that_fit(cfg, opt, need, r->memory_bytes);
  if (r && r->memory_bytes > 0 && need.total() > r->memory_bytes)
    throw input_error(
        "", ph == phase::decode ? "--batch" : "--seq",
        fmt::format("{} cannot run on {}: it needs {} per GPU (weights {}, KV cache {}, activations {}{}) but "
                    "the device has {} ({}); lower --batch/{} or raise --tp",
                    cfg.name, r->source, units::si(need.total(), "B"), units::si(need.weights, "B"),
                    units::si(need.kv_cache, "B"), units::si(need.activations, "B"),
                    need.optimizer > 0 ? ", gradients + optimizer " + units::si(need.optimizer, "B") : std::string(),
                    units::si(r->memory_bytes, "B"), r->memory_source, ph == phase::decode ? "--context" : "--seq"));

  for (const auto& op : ops) {
    s.flops += op.flops * op.count;
    s.bytes += op.bytes() * op.count;
    if (r) {
      s.placed.push_back({r->lat.predict(op, r->peak, r->bandwidth), 0});
      s.total_s += s.placed.back().terms.total_s * op.count;
    }
  }
  s.tokens = ph == phase::decode ? opt.batch : opt.batch * opt.seq;
  const int kvb = dtype_bytes(s.kv_dtype());
  s.kv_per_token = kv_cache_bytes_per_token(cfg, kvb);
  s.model = model_flops_per_token(cfg, ph, ph == phase::decode ? opt.context : opt.seq,
                                  {flops_convention::params::matmul, opt.causal_halved, opt.mla, opt.last_logits});
  s.kv_total = double(opt.batch) * kv_cache_bytes_per_gpu(cfg, kvb, opt.context, opt.tp);  // this GPU's share
  s.causal = ph == phase::decode ? "decode: one query sees the whole cache (no mask)"
             : opt.causal_halved ? "halved: causal triangle n(n+1)/2 pairs counted"
                                 : "full: n² pairs counted (mask not exploited)";
  if (fusion) s.fusions = fusion_savings(ops);
  if (opt.tp != 1) {
    // The step's tensor-parallel all-reduces (Megatron-LM §3: two per layer forward).
    allreduce_link_request q = link;
    if (q.device.empty() && r) q.device = r->gpu_name;  // --results of a GPU run: that GPU's nominal link
    const allreduce_link l = resolve_allreduce_link(q);
    s.tp_source = l.source;
    s.tp = tp_allreduce_ops(cfg, ph, opt.batch, ph == phase::decode ? 1 : opt.seq, opt.tp, l.busbw_bytes_per_s,
                            opt.dtype, l.latency_s);
  }
  if (s.tp && r) s.total_s += s.tp->seconds_per_step;  // one GPU's ops, then its share of the all-reduces
  if (r) {
    for (std::size_t i = 0; i < ops.size(); ++i)
      s.placed[i].share = s.total_s > 0 ? s.placed[i].terms.total_s * ops[i].count / s.total_s : 0;
    for (const auto& f : s.fusions)
      s.fusion_times.push_back({fusion_time_saved(f, *r) * f.count, f.bytes_saved() * f.count / r->bandwidth});
  }
  return s;
}

ops_sweep compute_ops_sweep(const model_config& cfg, const catalogue_options& co, std::int64_t b0, std::int64_t b1,
                            const std::optional<placement_roofs>& r) {
  ops_sweep s;
  s.model = cfg.name, s.dtype = co.dtype, s.b0 = b0, s.b1 = b1, s.roofs = r, s.context = co.context;
  const auto pts = linear_batch_sweep(cfg, b0, b1, co);
  s.weights = step_weights(cfg, co);
  const int a = dtype_bytes(co.dtype);
  std::map<std::string, bool> seen;
  std::vector<std::int64_t> batches;
  for (const auto& p : pts)
    if (std::find(batches.begin(), batches.end(), p.batch) == batches.end()) batches.push_back(p.batch);
  for (const std::int64_t batch : batches) {
    // The whole decode step at this batch: its memory (does it fit?), its predicted time, and each
    // op's share of it; the attention op(s) listed beside the linears.
    catalogue_options c = co;
    c.ph = phase::decode, c.batch = batch;
    const auto ops = build_catalogue(cfg, c);
    sweep_batch sb;
    sb.batch = batch;
    sb.need = estimate_memory(cfg, c, ops);
    if (r && r->memory_bytes > 0) sb.fits = sb.need.total() <= r->memory_bytes;
    std::map<std::string, double> op_s;
    if (r) {
      double t = 0;
      for (const auto& op : ops) {
        const double x = r->lat.predict(op, r->peak, r->bandwidth).total_s * double(op.count);
        t += x;
        op_s[op.name] += x;
      }
      sb.step_s = t;
    }
    for (const auto& p : pts) {
      if (p.batch != batch) continue;
      ops_sweep_point sp{p, std::nullopt, "", std::nullopt, sb.fits};
      if (r) {
        sp.attainable_flops_per_s = std::min(r->peak, p.intensity() * r->bandwidth);
        sp.bound = p.intensity() < r->ridge() ? "bandwidth" : "compute";
        if (sb.step_s && *sb.step_s > 0 && op_s.count(p.name)) sp.share = op_s[p.name] / *sb.step_s;
      }
      s.points.push_back(sp);
      if (r && !seen[p.name]) {
        seen[p.name] = true;
        s.knees.push_back(
            {p.name, p.k, p.n, knee_batch(p.k, p.n, a, p.weight_bytes / (double(p.k) * double(p.n)), r->ridge())});
      }
    }
    for (const auto& op : ops) {
      if (op.kind != op_kind::attention_decode) continue;
      batch_point p;
      p.name = op.name, p.batch = batch, p.m = batch;
      p.flops = op.flops, p.bytes = op.bytes();
      ops_sweep_point sp{p, std::nullopt, "", std::nullopt, sb.fits};
      sp.attention = true;
      if (r) {
        sp.attainable_flops_per_s = std::min(r->peak, p.intensity() * r->bandwidth);
        sp.bound = p.intensity() < r->ridge() ? "bandwidth" : "compute";
        if (sb.step_s && *sb.step_s > 0) sp.share = op_s[op.name] / *sb.step_s;
      }
      s.points.push_back(sp);
    }
    s.batches.push_back(std::move(sb));
  }
  return s;
}

}  // namespace roofline
