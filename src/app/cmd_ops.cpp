// `roofline ops`: every op of one model step with FLOPs, bytes, intensity and, given roofs (--device
// nominal or --results measured), bound and predicted time = max(FLOPs ÷ peak, bytes ÷ bandwidth).
#include <cstdio>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "report/units.hpp"
#include "roofline/units.hpp"
#include "roofline/report.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/io.hpp"
#include "roofline/latency.hpp"
#include "roofline/model.hpp"
#include "roofline/results.hpp"
#include "roofline/spec.hpp"

namespace roofline::app {

namespace {

using report::si;

struct ops_options {
  std::string model = "tinyllama-1.1b";
  std::string phase = "decode";
  std::string batch = "1";
  std::int64_t context = catalogue_options{}.context, seq = catalogue_options{}.seq;
  std::string dtype = "fp16", kv_dtype;
  std::string weights, group_size;  ///< --weights, --group-size ("" = the config's, else --dtype)
  std::string attention = "fused", causal = "halved";
  std::string mla = "automatic";  ///< MLA models: absorbed | naive | automatic (absorbed decode, naive prefill)
  bool recompute = false, fusion = false, fused_silu_mul = false, json = false, csv = false;
  std::string device, results;
  int tp = 1;             ///< tensor-parallel ranks: per-GPU shapes and the per-layer all-reduces
  double tp_busbw_gb = 0; ///< all-reduce bus bandwidth (GB/s); default: the --device's nominal link
  std::optional<double> tp_latency_us;  ///< all-reduce latency; default: default_allreduce_latency_s
  std::string tp_fleet;   ///< fleet results JSON whose measured all_reduce roof gives busbw and latency
};

/// Latency of the smallest NCCL all-reduce, used when neither --tp-latency nor --tp-fleet gives one:
/// 10 µs (NCCL all-reduce of a few kB between two NVLink-connected H200s takes 9–13 µs, measured
/// with roofline's fleet run; NCCL's own tuning model charges ~10 µs of base latency per ring step).
constexpr double default_allreduce_latency_s = 10e-6;

/// The measured all-reduce roof (latency, busbw) of a fleet results file (docs/fleet.md:
/// interconnect.roofs[] {collective, latency_s, busbw_bytes_per_s}).
std::pair<double, double> fleet_allreduce(const std::string& file) {
  json j;
  try {
    j = json::parse(read_file(file));
  } catch (const json::exception& e) {
    throw input_error(file, "", std::string("not valid JSON: ") + e.what());
  }
  const json* roofs = j.contains("interconnect") && j["interconnect"].is_object() && j["interconnect"].contains("roofs")
                          ? &j["interconnect"]["roofs"] : nullptr;
  if (roofs && roofs->is_array())
    for (const auto& r : *roofs)
      if (r.is_object() && r.value("collective", "").find("all_reduce") != std::string::npos && r.contains("latency_s") &&
          r.contains("busbw_bytes_per_s") && r["latency_s"].is_number() && r["busbw_bytes_per_s"].is_number() &&
          r["busbw_bytes_per_s"].get<double>() > 0)
        return {r["latency_s"].get<double>(), r["busbw_bytes_per_s"].get<double>()};
  throw input_error(file, "interconnect.roofs", "no measured all_reduce roof (latency_s, busbw_bytes_per_s)");
}

/// The step's tensor-parallel all-reduces (Megatron-LM §3: two per layer forward), predicted from
/// the all-reduce bus bandwidth: --tp-busbw, else the --device's nominal NVLink/PCIe link.
std::optional<tp_allreduce_plan> tp_plan(const ops_options& o, const model_config& cfg, phase ph,
                                         std::int64_t batch, std::int64_t seq, std::string& source) {
  if (o.tp == 1) return std::nullopt;
  double busbw = o.tp_busbw_gb * 1e9;
  double latency = default_allreduce_latency_s;
  std::string latency_source = "default 10 µs (NCCL's smallest all-reduce on NVLink)";
  if (!o.tp_fleet.empty()) {
    const auto [lat, bw] = fleet_allreduce(o.tp_fleet);
    latency = lat, busbw = bw;
    latency_source = "measured: " + o.tp_fleet;
    source = fmt::format("measured all_reduce roof of {}: {} busbw", o.tp_fleet, units::si(bw, "B/s"));
  }
  if (o.tp_latency_us) {
    if (!(*o.tp_latency_us >= 0)) throw input_error("", "--tp-latency", "must be >= 0 µs");  // NonNegativeNumber lets nan in
    latency = *o.tp_latency_us * 1e-6;
    latency_source = fmt::format("--tp-latency {} µs", *o.tp_latency_us);
  }
  if (!o.tp_fleet.empty()) {
  } else if (busbw > 0) {
    source = fmt::format("--tp-busbw {} GB/s", o.tp_busbw_gb);
  } else if (!o.device.empty()) {
    const auto link = fleet::nominal_link(gpu_nominal(o.device, "--device").device_name);
    if (!link.bytes_per_s)
      throw input_error("", "--tp-busbw", "needed: " + o.device + " link bandwidth " + link.reason);
    busbw = *link.bytes_per_s;
    source = "nominal link: " + link.formula;
  } else {
    throw input_error("", "--tp-busbw", "--tp needs the all-reduce bus bandwidth: --tp-busbw GB/s or --device NAME");
  }
  source += "; latency " + latency_source;
  return tp_allreduce_ops(cfg, ph, batch, ph == phase::decode ? 1 : seq, o.tp, busbw, o.dtype, latency);
}

using roofs = placement_roofs;

std::int64_t parse_count(const std::string& s, const char* flag) {
  std::int64_t v = 0;
  if (!CLI::detail::lexical_cast(s, v)) throw input_error("", flag, "'" + s + "' is not an integer");
  if (v < 1) throw input_error("", flag, fmt::format("must be positive, got {}", v));
  return v;
}

std::optional<roofs> ops_roofs(const ops_options& o, const std::string& precision) {
  return resolve_placement_roofs({o.device, o.results, precision, "--dtype", true});
}

/// t = max(FLOPs ÷ P(shape), bytes ÷ BW(bytes)) + floor and the op's class (compute / bandwidth / latency).
time_terms op_terms(const op_desc& op, const roofs& r) {
  return r.lat.predict(op, r.peak, r.bandwidth);
}
double op_time(const op_desc& op, const roofs& r) { return op_terms(op, r).total_s; }

/// Predicted time a fusion saves per instance: the ops it replaces minus the fused op, each with
/// its floor and latency (a fused SiLU·mul at decode saves a whole kernel, not just its bytes).
double fusion_time_saved(const fusion_saving& f, const roofs& r) {
  double before = 0, after = 0;
  for (const auto& op : f.before_ops) before += op_time(op, r);
  for (const auto& op : f.after_ops) after += op_time(op, r);
  return before - after;
}

json op_json(const op_desc& op, const std::optional<roofs>& r, double total_s) {
  json j = {{"name", op.name}, {"kind", to_string(op.kind)}, {"phase", to_string(op.ph)}, {"count", op.count},
            {"shape", op.shape}, {"dtype", op.dtype}, {"flops", op.flops}, {"bytes_read", op.bytes_read},
            {"bytes_written", op.bytes_written}, {"bytes", op.bytes()}, {"intensity", op.intensity()},
            {"backward", op.backward}, {"recompute", op.recompute}};
  if (op.kind == op_kind::gemm) j["gemm"] = {{"m", op.m}, {"n", op.n}, {"k", op.k}, {"weights", op.weights}, {"weight_bytes", op.weight_bytes}};
  if (op.kind == op_kind::gemm && op.groups > 1) j["gemm"]["groups"] = op.groups;  // MLA per-head absorption
  if (op.rows > 0) j["rows"] = op.rows, j["cols"] = op.cols;
  if (op.heads > 0)
    j["attention"] = {{"batch", op.batch}, {"heads", op.heads}, {"kv_heads", op.kv_heads}, {"head_dim", op.head_dim},
                      {"q_len", op.q_len}, {"kv_len", op.kv_len}, {"kv_dtype_bytes", op.kv_dtype_bytes}};
  if (op.heads > 0 && op.v_head_dim > 0) j["attention"]["v_head_dim"] = op.v_head_dim;  // MLA: v width ≠ q·k width
  if (!op.note.empty()) j["note"] = op.note;
  if (r) {
    const time_terms tt = op_terms(op, *r);
    const double t = tt.total_s;
    j["bound"] = tt.bound;
    j["predicted_s"] = t;
    j["compute_s"] = tt.compute_s, j["memory_s"] = tt.memory_s, j["floor_s"] = tt.floor_s;
    j["share"] = total_s > 0 ? t * op.count / total_s : 0;
  } else {
    j["bound"] = nullptr, j["predicted_s"] = nullptr, j["share"] = nullptr;
  }
  return j;
}

std::string ops_table(const std::vector<op_desc>& ops, const std::optional<roofs>& r, double total_s) {
  std::string out = fmt::format("{:<28} {:>5}  {:<34} {:>10} {:>10} {:>10} {:>9}", "op", "×", "shape", "FLOP",
                                "read B", "written B", "FLOP/B");
  if (r) out += fmt::format(" {:>9} {:>11} {:>7}", "bound", "time", "share");
  out += "\n";
  for (const auto& op : ops) {
    out += fmt::format("{:<28} {:>5}  {:<34} {:>10} {:>10} {:>10} {:>9.3g}", op.name, op.count, op.shape,
                       si(op.flops, ""), si(op.bytes_read, ""), si(op.bytes_written, ""), op.intensity());
    if (r) {
      const time_terms tt = op_terms(op, *r);
      const double t = tt.total_s;
      out += fmt::format(" {:>9} {:>11} {:>6.1f}%", tt.bound, si(t, "s"),
                         total_s > 0 ? 100 * t * op.count / total_s : 0);
    }
    out += "\n";
  }
  return out;
}

/// The step's weight format, where it came from and what stays in the activation dtype.
json weights_json(const weight_scheme& w) {
  return {{"format", w.linear.format}, {"label", w.linear.label()}, {"quantized", w.quantized},
          {"bits_per_weight_4096x4096", bits_per_weight(w.linear, 4096, 4096)},
          {"method", w.method}, {"source", w.source.empty() ? json(nullptr) : json(w.source)},
          {"not_converted", w.not_converted}, {"lm_head_quantized", w.lm_head_quantized},
          {"note", w.note.empty() ? json(nullptr) : json(w.note)}};
}

void run_sweep(const model_config& cfg, const ops_options& o, std::int64_t b0, std::int64_t b1, int b,
               const std::optional<roofs>& r) {
  catalogue_options co;
  co.dtype = o.dtype, co.weights = o.weights, co.group_size = o.group_size;
  const auto pts = linear_batch_sweep(cfg, b0, b1, co);
  const weight_scheme ws = step_weights(cfg, co);
  json j = {{"model", cfg.name}, {"dtype", o.dtype}, {"weights", weights_json(ws)}, {"points", json::array()}, {"knees", json::array()}};
  if (r) j["roofs"] = {{"peak_flops_per_s", r->peak}, {"bandwidth_bytes_per_s", r->bandwidth}, {"ridge", r->ridge()}, {"source", r->source}};
  std::string text = fmt::format("{}: decode linear layers, batch {}…{} ({}; weights {}){}\n", cfg.name, b0, b1, o.dtype,
                                 ws.linear.label(), r ? fmt::format(", ridge {} ({})", units::intensity(r->ridge()), r->source) : "");
  text += fmt::format("{:<12} {:>7} {:>12} {:>10}{}\n", "op", "batch", "[k×n]", "FLOP/B",
                      r ? fmt::format(" {:>14} {:>9}", "attainable", "bound") : "");
  std::map<std::string, bool> seen;
  for (const auto& p : pts) {
    json pj = {{"name", p.name}, {"batch", p.batch}, {"m", p.m}, {"n", p.n}, {"k", p.k}, {"flops", p.flops},
               {"bytes", p.bytes}, {"weight_bytes", p.weight_bytes}, {"weights", p.weights}, {"intensity", p.intensity()}};
    text += fmt::format("{:<12} {:>7} {:>12} {:>10.2f}", p.name, p.batch, fmt::format("{}×{}", p.k, p.n), p.intensity());
    if (r) {
      const double att = std::min(r->peak, p.intensity() * r->bandwidth);
      pj["attainable_flops_per_s"] = att;
      pj["bound"] = p.intensity() < r->ridge() ? "bandwidth" : "compute";
      text += fmt::format(" {:>14} {:>9}", si(att, "FLOP/s"), p.intensity() < r->ridge() ? "bandwidth" : "compute");
    }
    text += "\n";
    j["points"].push_back(pj);
    if (r && !seen[p.name]) {
      seen[p.name] = true;
      const auto knee = knee_batch(p.k, p.n, b, p.weight_bytes / (double(p.k) * double(p.n)), r->ridge());
      j["knees"].push_back({{"name", p.name}, {"k", p.k}, {"n", p.n}, {"knee_batch", knee ? json(*knee) : json(nullptr)}});
    }
  }
  if (r) {
    text += "knee (smallest batch reaching the ridge):\n";
    for (const auto& k : j["knees"])
      text += fmt::format("  {:<12} {}\n", k["name"].get<std::string>(),
                          k["knee_batch"].is_null() ? std::string("never (the B→∞ limit 2kn/(a(k+n)) is below the ridge)")
                                                    : std::to_string(k["knee_batch"].get<std::int64_t>()));
  }
  if (o.csv) {
    std::fputs(render_csv(j["points"], {"name", "batch"}).c_str(), stdout);
    return;
  }
  std::fputs(o.json ? (j.dump(2) + "\n").c_str() : text.c_str(), stdout);
}

/// Everything `ops` prints for one step, computed once; ops_json and ops_text only render it.
struct ops_result {
  model_config cfg;
  catalogue_options opt;
  std::vector<op_desc> ops;
  std::optional<roofs> r;
  memory_need need;
  token_flops model;  ///< the model FLOPs per token `mfu` divides by: the one model, the same defaults
  double flops = 0, bytes = 0, total_s = 0, kv_per_token = 0, kv_total = 0;
  std::int64_t tokens = 0;
  std::string causal, tp_source;
  weight_scheme weights;                ///< the linears' format (step_weights)
  std::optional<std::int64_t> fit;      ///< decode: sequences whose KV cache fits beside the weights
  std::vector<fusion_saving> fusions;
  std::optional<tp_allreduce_plan> tp;
};

ops_result compute_ops(const ops_options& o, const model_config& cfg, phase ph, const std::optional<roofs>& r) {
  ops_result s;
  s.cfg = cfg, s.r = r;
  catalogue_options& opt = s.opt;
  opt.ph = ph;
  opt.batch = parse_count(o.batch, "--batch");
  opt.seq = o.seq;
  opt.context = o.context;
  opt.dtype = o.dtype;
  opt.kv_dtype = o.kv_dtype;
  opt.weights = o.weights, opt.group_size = o.group_size;
  opt.fused_attention = o.attention == "fused";
  opt.causal_halved = o.causal == "halved";
  opt.recompute = o.recompute;
  opt.fused_silu_mul = o.fused_silu_mul;
  opt.tp = o.tp;
  opt.mla = o.mla == "absorbed" ? catalogue_options::mla_form::absorbed
            : o.mla == "naive"  ? catalogue_options::mla_form::naive
                                : catalogue_options::mla_form::automatic;
  const auto& ops = s.ops = build_catalogue(cfg, opt);
  s.weights = step_weights(cfg, opt);
  const memory_need& need = s.need = estimate_memory(cfg, opt, ops);
  if (r && r->memory_bytes > 0 && ph == phase::decode) s.fit = sequences_that_fit(cfg, opt, need, r->memory_bytes);
  if (r && r->memory_bytes > 0 && need.total() > r->memory_bytes)
    throw input_error("", ph == phase::decode ? "--batch" : "--seq",
                      fmt::format("{} cannot run on {}: it needs {} per GPU (weights {}, KV cache {}, activations {}{}) but "
                                  "the device has {}; lower --batch/{} or raise --tp",
                                  cfg.name, r->source, si(need.total(), "B"), si(need.weights, "B"), si(need.kv_cache, "B"),
                                  si(need.activations, "B"),
                                  need.optimizer > 0 ? ", gradients + optimizer " + si(need.optimizer, "B") : std::string(),
                                  si(r->memory_bytes, "B"), ph == phase::decode ? "--context" : "--seq"));

  for (const auto& op : ops) {
    s.flops += op.flops * op.count;
    s.bytes += op.bytes() * op.count;
    if (r) s.total_s += op_time(op, *r) * op.count;
  }
  s.tokens = ph == phase::decode ? opt.batch : opt.batch * opt.seq;
  const int kvb = dtype_bytes(o.kv_dtype.empty() ? o.dtype : o.kv_dtype);
  s.kv_per_token = kv_cache_bytes_per_token(cfg, kvb);
  s.model = model_flops_per_token(cfg, ph, ph == phase::decode ? opt.context : opt.seq, {flops_convention::params::matmul, opt.causal_halved, opt.mla});
  s.kv_total = double(opt.batch) * kv_cache_bytes(cfg, kvb, opt.context);
  s.causal = ph == phase::decode ? "decode: one query sees the whole cache (no mask)"
             : opt.causal_halved ? "halved: causal triangle n(n+1)/2 pairs counted"
                                 : "full: n² pairs counted (mask not exploited)";
  if (o.fusion) s.fusions = fusion_savings(ops);
  s.tp = tp_plan(o, cfg, ph, opt.batch, opt.seq, s.tp_source);
  if (s.tp && r) s.total_s += s.tp->seconds_per_step;  // one GPU's ops, then its share of the all-reduces
  return s;
}

json ops_json(const ops_options& o, const ops_result& s) {
  const auto& [cfg, opt, ops, r, need, model, flops, bytes, total_s, kv_per_token, kv_total, tokens, causal, tp_source, weights, fit, fusions, tp] = s;
  const phase ph = opt.ph;
  json j;
  j["model"] = {{"name", cfg.name}, {"source", cfg.source}, {"family", cfg.family}, {"model_type", cfg.model_type},
                {"parameters", cfg.parameters()}, {"matmul_parameters", matmul_parameters(cfg)}};
  if (!cfg.note.empty()) j["model"]["note"] = cfg.note;
  j["phase"] = to_string(ph);
  j["batch"] = opt.batch;
  j["seq"] = ph == phase::decode ? 1 : opt.seq;
  j["context"] = ph == phase::decode ? opt.context : 0;
  j["dtype"] = o.dtype;
  j["kv_dtype"] = o.kv_dtype.empty() ? o.dtype : o.kv_dtype;
  j["weights"] = weights_json(weights);
  j["conventions"] = {{"attention", ph == phase::decode ? "decode" : o.attention}, {"causal", causal},
                      {"recompute", o.recompute}, {"silu_mul", o.fused_silu_mul ? "fused" : "separate"}};
  if (cfg.mla()) j["conventions"]["mla"] = to_string(resolve_mla_form(opt.mla, ph));
  j["roofs"] = r ? json{{"peak_flops_per_s", r->peak}, {"bandwidth_bytes_per_s", r->bandwidth}, {"ridge", r->ridge()},
                        {"source", r->source}, {"precision", r->precision},
                        {"latency_model", latency_model_json(r->lat)}}
                 : json(nullptr);
  j["ops"] = json::array();
  for (const auto& op : ops) j["ops"].push_back(op_json(op, r, total_s));
  json t = {{"flops", flops}, {"bytes", bytes}, {"intensity", bytes > 0 ? flops / bytes : 0}, {"tokens", tokens},
            {"flops_per_token", flops / double(tokens)}, {"model_flops_per_token", model},
            {"kv_cache_bytes_per_token", kv_per_token}};
  t["memory"] = {{"weights_bytes", need.weights}, {"kv_cache_bytes", need.kv_cache},
                 {"activations_bytes", need.activations}, {"optimizer_bytes", need.optimizer},
                 {"total_bytes", need.total()}, {"device_bytes", r && r->memory_bytes > 0 ? json(r->memory_bytes) : json(nullptr)},
                 {"note", need.note}, {"weights_note", need.weights_note},
                 {"sequences_that_fit", fit ? json(*fit) : json(nullptr)}};
  t["predicted_s"] = r ? json(total_s) : json(nullptr);
  if (ph == phase::decode) {
    t["kv_cache_bytes"] = kv_total;
    t["tpot_s"] = r ? json(total_s) : json(nullptr);
    t["tokens_per_s"] = r ? json(double(opt.batch) / total_s) : json(nullptr);
  }
  j["totals"] = t;
  if (tp) {
    json a = json::array();
    for (const auto& x : tp->ops)
      a.push_back({{"name", x.name}, {"bytes", x.bytes}, {"count", x.count}, {"predicted_s", x.predicted_s}});
    j["tensor_parallel"] = {{"tp", tp->tp}, {"bus_bandwidth_source", tp_source}, {"allreduces", a},
                            {"bytes_per_layer", tp->bytes_per_layer}, {"seconds_per_layer", tp->seconds_per_layer},
                            {"seconds_per_step", tp->seconds_per_step}, {"note", tp->note}};
  }
  if (o.fusion) {
    j["fusion"] = json::array();
    for (const auto& f : fusions)
      j["fusion"].push_back({{"name", f.name}, {"ops", f.ops}, {"description", f.description}, {"count", f.count},
                             {"bytes_before", f.bytes_before}, {"bytes_after", f.bytes_after},
                             {"bytes_saved", f.bytes_saved()}, {"fraction_saved", f.fraction_saved()},
                             {"time_saved_bytes_only_s", r ? json(f.bytes_saved() * f.count / r->bandwidth) : json(nullptr)},
                             {"time_saved_s", r ? json(fusion_time_saved(f, *r) * f.count) : json(nullptr)}});
  }
  return j;
}

std::string ops_text(const ops_options& o, const ops_result& s) {
  const auto& [cfg, opt, ops, r, need, model, flops, bytes, total_s, kv_per_token, kv_total, tokens, causal, tp_source, weights, fit, fusions, tp] = s;
  const phase ph = opt.ph;
  std::string head = fmt::format("{} ({}, {} family, {} parameters) — {} step, batch {}", cfg.name, cfg.model_type,
                                 cfg.family, cfg.parameters(), to_string(ph), opt.batch);
  head += ph == phase::decode ? fmt::format(", context {}", opt.context) : fmt::format(", sequence {}", opt.seq);
  head += fmt::format("; dtype {}, KV cache {}\n", o.dtype, o.kv_dtype.empty() ? o.dtype : o.kv_dtype);
  head += fmt::format("weights: {}{}{}\n", weights.linear.label(),
                      weights.quantized ? fmt::format(" ({:.4g} bits per weight at 4096×4096; {})", bits_per_weight(weights.linear, 4096, 4096),
                                                      weights.source.empty() ? "--dtype" : weights.source)
                                        : " (every weight in --dtype)",
                      weights.note.empty() ? "" : "; " + weights.note);
  if (!cfg.note.empty()) head += "model: " + cfg.note + "\n";
  head += fmt::format("attention: {}; causal: {}{}\n", ph == phase::decode ? "decode over the KV cache" : o.attention,
                      causal, ph == phase::train ? (o.recompute ? "; activation recompute on" : "; no recompute") : "");
  if (cfg.mla())
    head += fmt::format("MLA: {} ({}; --mla absorbed|naive chooses); KV cache {} elements per token per layer (latent + RoPE key)\n",
                        to_string(resolve_mla_form(opt.mla, ph)),
                        opt.mla == catalogue_options::mla_form::automatic ? "the default: absorbed for decode, naive for prefill" : "chosen",
                        cfg.kv_lora_rank + cfg.qk_rope_head_dim);
  if (cfg.nextn_layers > 0)
    head += fmt::format("num_nextn_predict_layers {}: the multi-token-prediction module is not counted (not part of the main model)\n",
                        cfg.nextn_layers);
  head += r ? fmt::format("roofs: {} — peak {}, bandwidth {}, ridge {}\n", r->source, units::rate_flops(r->peak),
                          units::rate_bytes(r->bandwidth), units::intensity(r->ridge()))
            : "roofs: none (give --device NAME or --results FILE for bound and time)\n";
  if (r) head += fmt::format("small work: {}\n", r->lat.source);
  head += "per instance; × = instances per step\n\n";
  std::string tail = fmt::format("\nstep total: {}FLOP, {}B, intensity {} over {} token(s)\n", si(flops, ""),
                                 si(bytes, ""), units::intensity(flops / bytes), tokens);
  tail += fmt::format("FLOPs per token: {} (catalogue) | {} (model FLOPs, as `mfu`: {}; {})\n", si(flops / double(tokens), "FLOP"),
                      si(model.total, "FLOP"), model.formula, model.description);
  tail += fmt::format("KV cache: {} per token", si(kv_per_token, "B"));
  if (ph == phase::decode)
    tail += fmt::format(", {} for {} × {} tokens{}{}", si(kv_total, "B"), opt.batch, opt.context,
                        cfg.sliding_window > 0 ? fmt::format(" (sliding-window layers keep the last {})", cfg.sliding_window) : "",
                        cfg.attention_chunk > 0 ? fmt::format(" (chunked layers keep the current {}-token chunk)", cfg.attention_chunk) : "");
  tail += "\n";
  tail += fmt::format("memory per GPU: {} (weights {}, KV cache {}, activations {}{}){}\n", si(need.total(), "B"),
                      si(need.weights, "B"), si(need.kv_cache, "B"), si(need.activations, "B"),
                      need.optimizer > 0 ? ", gradients + optimizer " + si(need.optimizer, "B") : std::string(),
                      r && r->memory_bytes > 0 ? fmt::format(" of {}", si(r->memory_bytes, "B")) : "");
  tail += fmt::format("weights counted as: {}\n", need.weights_note);
  if (fit)
    tail += fmt::format("KV-cache capacity: {} sequences of {} tokens fit beside the weights and activations\n", *fit, opt.context);
  if (r) {
    tail += fmt::format("predicted step time: {}", si(total_s, "s"));
    if (ph == phase::decode)
      tail += fmt::format(" = TPOT; {:.1f} tokens/s ({} sequences)", double(opt.batch) / total_s, opt.batch);
    else
      tail += fmt::format("; {:.0f} tokens/s", double(tokens) / total_s);
    tail += "\n";
  }
  if (tp) {
    tail += fmt::format("\ntensor parallel, tp = {} ({}): all-reduce per layer {} in {}; per step {}\n", tp->tp,
                        tp_source, si(tp->bytes_per_layer, "B"), si(tp->seconds_per_layer, "s"),
                        si(tp->seconds_per_step, "s"));
    for (const auto& x : tp->ops)
      tail += fmt::format("  {:<28} {:>10} × {:<4} {:>10} each\n", x.name, si(x.bytes, "B"), x.count, si(x.predicted_s, "s"));
    if (!tp->note.empty()) tail += "  " + tp->note + "\n";
  }
  if (o.fusion) {
    tail += "\nfusion (per step = per instance × count; time saved with the per-kernel floor and latency):\n";
    tail += fmt::format("{:<22} {:<36} {:>5} {:>10} {:>10} {:>8}{}\n", "fusion", "replaces", "×", "before B", "after B",
                        "saved", r ? fmt::format(" {:>11}", "time saved") : "");
    for (const auto& f : fusions)
      tail += fmt::format("{:<22} {:<36} {:>5} {:>10} {:>10} {:>7.1f}%{}\n", f.name, f.ops, f.count,
                          si(f.bytes_before, ""), si(f.bytes_after, ""), 100 * f.fraction_saved(),
                          r ? fmt::format(" {:>11}", si(fusion_time_saved(f, *r) * f.count, "s")) : "");
  }
  return head + ops_table(ops, r, total_s) + tail;
}

void run_ops(const ops_options& o) {
  const phase ph = parse_phase(o.phase);
  const int b = dtype_bytes(o.dtype);
  const model_config cfg = load_model_config(resolve_model_path(o.model));
  const std::string precision = o.dtype == "float32" ? "fp32" : o.dtype == "float16" ? "fp16" : o.dtype == "bfloat16" ? "bf16" : o.dtype;
  const std::optional<roofs> r = ops_roofs(o, precision);

  const auto colon = o.batch.find(':');
  if (colon != std::string::npos && ph != phase::decode)
    throw input_error("", "--batch", fmt::format("{} is the decode linear-layer sweep; --phase {} takes one batch", o.batch, o.phase));
  if (colon != std::string::npos && o.tp != 1)
    throw input_error("", "--tp", "the --batch B0:B1 sweep is per GPU without tensor parallelism; give one batch");
  if (colon != std::string::npos) {
    const std::int64_t b0 = parse_count(o.batch.substr(0, colon), "--batch");
    const std::int64_t b1 = parse_count(o.batch.substr(colon + 1), "--batch");
    if (b1 < b0) throw input_error("", "--batch", fmt::format("{}: B0 must not exceed B1", o.batch));
    run_sweep(cfg, o, b0, b1, b, r);
    return;
  }
  const ops_result res = compute_ops(o, cfg, ph, r);
  if (o.csv)  // one line per op
    std::fputs(render_csv(ops_json(o, res)["ops"], {"name", "kind", "phase", "batch", "count", "flops", "bytes", "intensity", "bound", "predicted_s"}).c_str(), stdout);
  else
    std::fputs(o.json ? (ops_json(o, res).dump(2) + "\n").c_str() : ops_text(o, res).c_str(), stdout);
}

}  // namespace

void add_ops(CLI::App& app, context&) {
  auto o = std::make_shared<ops_options>();
  auto* sub = app.add_subcommand("ops", "every op of a model step: FLOPs, bytes, intensity, bound, predicted time");
  sub->add_option("--model", o->model, "shipped model name or path to a HuggingFace config.json")->capture_default_str();
  sub->add_option("--phase", o->phase, "decode | prefill | train")->capture_default_str()->check(phase_value());
  sub->add_option("--batch", o->batch, "batch B, or B0:B1 for the decode linear batch sweep")->capture_default_str();
  sub->add_option("--context", o->context, "decode: KV-cache length (tokens)")->capture_default_str()->check(finite_positive());
  sub->add_option("--seq", o->seq, "prefill / train: sequence length")->capture_default_str()->check(finite_positive());
  sub->add_option("--dtype", o->dtype, "activations (and weights unless --weights): fp32 | fp16 | bf16 | fp8")->capture_default_str()->check(dtype_value());
  sub->add_option("--kv-dtype", o->kv_dtype, "KV cache dtype: fp32 | fp16 | bf16 | fp8 | int8 (default: --dtype)")->check(dtype_value());
  add_weights_options(sub, o->weights, o->group_size);
  sub->add_option("--attention", o->attention, "prefill/train attention: naive | fused")
      ->capture_default_str()->check(CLI::IsMember({"naive", "fused"}));
  sub->add_option("--causal", o->causal, "prefill/train attention FLOPs: halved (causal triangle) | full (PaLM)")
      ->capture_default_str()->check(CLI::IsMember({"halved", "full"}));
  sub->add_option("--mla", o->mla, "MLA models (DeepSeek): absorbed | naive | automatic (absorbed decode, naive prefill)")
      ->capture_default_str()->check(CLI::IsMember({"absorbed", "naive", "automatic"}));
  sub->add_flag("--recompute", o->recompute, "train: activation recompute (each layer's forward runs twice)");
  sub->add_flag("--fused-silu-mul", o->fused_silu_mul, "one silu_mul op instead of silu then mul");
  sub->add_flag("--fusion", o->fusion, "list fused alternatives and the bytes/time they save");
  add_roofs_options(sub, o->device, o->results);
  sub->add_option("--tp", o->tp, "tensor-parallel ranks: add the per-layer all-reduces (Megatron-LM)")
      ->capture_default_str()->check(finite_positive());
  sub->add_option("--tp-busbw", o->tp_busbw_gb, "all-reduce bus bandwidth in GB/s (default: --device's nominal link)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--tp-latency", o->tp_latency_us, "all-reduce latency in µs (default 10)")->check(CLI::NonNegativeNumber);
  sub->add_option("--tp-fleet", o->tp_fleet, "fleet results JSON: its measured all_reduce latency and busbw")->check(CLI::ExistingFile);
  sub->add_flag("--json", o->json, "machine-readable output");
  sub->add_flag("--csv", o->csv, "the op table as CSV (one line per op; with B0:B1 one line per batch)")->excludes("--json");
  sub->callback([o] { run_ops(*o); });
}

}  // namespace roofline::app
