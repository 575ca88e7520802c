// `roofline ops`' views: the step's JSON and text table, the batch sweep's JSON and text
// (roofline/command_views.hpp). Every number comes computed in roofline/ops_step.hpp.
#include <fmt/format.h>

#include "report/units.hpp"
#include "roofline/command_views.hpp"
#include "roofline/csv.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

using report::si;

json op_json(const op_desc& op, const placed_op* placed) {
  json j = {{"name", op.name},          {"kind", to_string(op.kind)},  {"phase", to_string(op.ph)},
            {"count", op.count},        {"shape", op.shape},           {"dtype", op.dtype},
            {"flops", op.flops},        {"bytes_read", op.bytes_read}, {"bytes_written", op.bytes_written},
            {"bytes", op.bytes()},      {"intensity", op.intensity()}, {"backward", op.backward},
            {"recompute", op.recompute}};
  if (op.kind == op_kind::gemm)
    j["gemm"] = {{"m", op.m}, {"n", op.n}, {"k", op.k}, {"weights", op.weights}, {"weight_bytes", op.weight_bytes}};
  if (op.kind == op_kind::gemm && op.groups > 1) j["gemm"]["groups"] = op.groups;  // MLA per-head absorption
  if (op.rows > 0) j["rows"] = op.rows, j["cols"] = op.cols;
  if (op.heads > 0)
    j["attention"] = {{"batch", op.batch},
                      {"heads", op.heads},
                      {"kv_heads", op.kv_heads},
                      {"head_dim", op.head_dim},
                      {"q_len", op.q_len},
                      {"kv_len", op.kv_len},
                      {"kv_dtype_bytes", op.kv_dtype_bytes}};
  if (op.heads > 0 && op.v_head_dim > 0) j["attention"]["v_head_dim"] = op.v_head_dim;  // MLA: v width ≠ q·k width
  if (!op.note.empty()) j["note"] = op.note;
  if (placed) {
    const time_terms& tt = placed->terms;
    j["bound"] = tt.bound;
    j["predicted_s"] = tt.total_s;
    j["compute_s"] = tt.compute_s, j["memory_s"] = tt.memory_s, j["floor_s"] = tt.floor_s;
    j["share"] = placed->share;
  } else {
    j["bound"] = nullptr, j["predicted_s"] = nullptr, j["share"] = nullptr;
  }
  return j;
}

json weights_json(const weight_scheme& w) {
  return {{"format", w.linear.format},
          {"label", w.linear.label()},
          {"quantized", w.quantized},
          {"bits_per_weight_4096x4096", bits_per_weight(w.linear, 4096, 4096)},
          {"method", w.method},
          {"source", w.source.empty() ? json(nullptr) : json(w.source)},
          {"not_converted", w.not_converted},
          {"lm_head_quantized", w.lm_head_quantized},
          {"note", w.note.empty() ? json(nullptr) : json(w.note)}};
}

namespace {

const placed_op* placed_at(const ops_step& s, std::size_t i) { return s.placed.empty() ? nullptr : &s.placed[i]; }

std::string ops_table(const ops_step& s) {
  const bool r = s.roofs.has_value();
  std::string out = fmt::format("{:<28} {:>5}  {:<34} {:>10} {:>10} {:>10} {:>9}", "op", "×", "shape", "FLOP", "read B",
                                "written B", "FLOP/B");
  if (r) out += fmt::format(" {:>9} {:>11} {:>7}", "bound", "time", "share");
  out += "\n";
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const op_desc& op = s.ops[i];
    out += fmt::format("{:<28} {:>5}  {:<34} {:>10} {:>10} {:>10} {:>9.3g}", op.name, op.count, op.shape,
                       si(op.flops, ""), si(op.bytes_read, ""), si(op.bytes_written, ""), op.intensity());
    if (r) {
      const placed_op& p = s.placed[i];
      out += fmt::format(" {:>9} {:>11} {:>6.1f}%", p.terms.bound, si(p.terms.total_s, "s"), 100 * p.share);
    }
    out += "\n";
  }
  return out;
}

}  // namespace

json ops_step_json(const ops_step& s) {
  const auto& cfg = s.cfg;
  const auto& opt = s.opt;
  const auto& r = s.roofs;
  const auto& need = s.need;
  const phase ph = opt.ph;
  json j;
  j["model"] = {{"name", cfg.name},
                {"source", cfg.source},
                {"family", cfg.family},
                {"model_type", cfg.model_type},
                {"parameters", cfg.parameters()},
                {"matmul_parameters", matmul_parameters(cfg)}};
  if (!cfg.note.empty()) j["model"]["note"] = cfg.note;
  j["model"]["defaults_used"] = cfg.defaults_used;
  j["model"]["context_limit"] = cfg.context_limit;
  j["model"]["context_limit_source"] = cfg.context_limit_source;
  j["phase"] = to_string(ph);
  j["batch"] = opt.batch;
  j["seq"] = ph == phase::decode ? 1 : opt.seq;
  j["context"] = ph == phase::decode ? opt.context : 0;
  j["dtype"] = opt.dtype;
  j["kv_dtype"] = s.kv_dtype();
  j["weights"] = weights_json(s.weights);
  j["conventions"] = {{"attention", ph == phase::decode   ? "decode"
                                    : opt.fused_attention ? "fused"
                                                          : "naive"},
                      {"causal", s.causal},
                      {"recompute", opt.recompute},
                      {"silu_mul", opt.fused_silu_mul ? "fused" : "separate"},
                      {"logits", ph == phase::prefill && opt.last_logits ? "last position" : "every position"}};
  if (cfg.mla()) j["conventions"]["mla"] = to_string(resolve_mla_form(opt.mla, ph));
  j["roofs"] = r ? json{{"peak_flops_per_s", r->peak}, {"bandwidth_bytes_per_s", r->bandwidth},
                        {"ridge", r->ridge()},         {"source", r->source},
                        {"precision", r->precision},   {"latency_model", json(r->lat)},
                        {"bandwidth_note", r->bandwidth_note}}
                 : json(nullptr);
  j["ops"] = json::array();
  for (std::size_t i = 0; i < s.ops.size(); ++i) j["ops"].push_back(op_json(s.ops[i], placed_at(s, i)));
  json t = {{"flops", s.flops},
            {"bytes", s.bytes},
            {"intensity", s.bytes > 0 ? s.flops / s.bytes : 0},
            {"tokens", s.tokens},
            {"flops_per_token", s.flops / double(s.tokens)},
            {"model_flops_per_token", s.model},
            {"kv_cache_bytes_per_token", s.kv_per_token}};
  t["memory"] = {{"weights_bytes", need.weights},
                 {"kv_cache_bytes", need.kv_cache},
                 {"activations_bytes", need.activations},
                 {"optimizer_bytes", need.optimizer},
                 {"total_bytes", need.total()},
                 {"device_bytes", r && r->memory_bytes > 0 ? json(r->memory_bytes) : json(nullptr)},
                 {"device_bytes_source", r && r->memory_bytes > 0 ? json(r->memory_source) : json(nullptr)},
                 {"note", need.note},
                 {"weights_note", need.weights_note},
                 {"sequences_that_fit", s.fit ? json(*s.fit) : json(nullptr)}};
  t["predicted_s"] = r ? json(s.total_s) : json(nullptr);
  if (ph == phase::decode) {
    t["kv_cache_bytes"] = s.kv_total;
    t["tpot_s"] = r ? json(s.total_s) : json(nullptr);
    t["tokens_per_s"] = r ? json(double(opt.batch) / s.total_s) : json(nullptr);
  }
  j["totals"] = t;
  if (s.tp) {
    const tp_allreduce_plan& tp = *s.tp;
    json a = json::array();
    for (const auto& x : tp.ops)
      a.push_back({{"name", x.name}, {"bytes", x.bytes}, {"count", x.count}, {"predicted_s", x.predicted_s}});
    j["tensor_parallel"] = {{"tp", tp.tp},
                            {"ep", opt.ep},
                            {"bus_bandwidth_source", s.tp_source},
                            {"allreduces", a},
                            {"bytes_per_layer", tp.bytes_per_layer},
                            {"seconds_per_layer", tp.seconds_per_layer},
                            {"seconds_per_step", tp.seconds_per_step},
                            {"note", tp.note}};
  }
  if (s.fusion) {
    j["fusion"] = json::array();
    for (std::size_t i = 0; i < s.fusions.size(); ++i) {
      const fusion_saving& f = s.fusions[i];
      const fusion_time* ft = s.fusion_times.empty() ? nullptr : &s.fusion_times[i];
      j["fusion"].push_back({{"name", f.name},
                             {"ops", f.ops},
                             {"description", f.description},
                             {"count", f.count},
                             {"bytes_before", f.bytes_before},
                             {"bytes_after", f.bytes_after},
                             {"bytes_saved", f.bytes_saved()},
                             {"fraction_saved", f.fraction_saved()},
                             {"time_saved_bytes_only_s", ft ? json(ft->bytes_only_s) : json(nullptr)},
                             {"time_saved_s", ft ? json(ft->saved_s) : json(nullptr)}});
    }
  }
  return j;
}

std::string ops_step_csv(const ops_step& s) {
  return render_csv(ops_step_json(s)["ops"],
                    {"name", "kind", "phase", "batch", "count", "flops", "bytes", "intensity", "bound", "predicted_s"});
}

std::string ops_step_text(const ops_step& s) {
  const auto& cfg = s.cfg;
  const auto& opt = s.opt;
  const auto& r = s.roofs;
  const auto& need = s.need;
  const auto& weights = s.weights;
  const auto& model = s.model;
  const phase ph = opt.ph;
  std::string head = fmt::format("{} ({}, {} family, {} parameters) — {} step, batch {}", cfg.name, cfg.model_type,
                                 cfg.family, cfg.parameters(), to_string(ph), opt.batch);
  head += ph == phase::decode ? fmt::format(", context {}", opt.context) : fmt::format(", sequence {}", opt.seq);
  head += fmt::format("; dtype {}, KV cache {}\n", opt.dtype, s.kv_dtype());
  head += fmt::format("weights: {}{}{}\n", weights.linear.label(),
                      weights.quantized ? fmt::format(" ({:.4g} bits per weight at 4096×4096; {})",
                                                      bits_per_weight(weights.linear, 4096, 4096),
                                                      weights.source.empty() ? "--dtype" : weights.source)
                                        : " (every weight in --dtype)",
                      weights.note.empty() ? "" : "; " + weights.note);
  if (!cfg.note.empty()) head += "model: " + cfg.note + "\n";
  for (const auto& d : cfg.defaults_used) head += "default: " + d + "\n";
  if (ph == phase::prefill)
    head += opt.last_logits ? "logits: each sequence's last position (a server's TTFT; --logits all counts every position)\n"
                            : "logits: every position (--logits all; a server computes the last one only)\n";
  head +=
      fmt::format("attention: {}; causal: {}{}\n",
                  ph == phase::decode   ? "decode over the KV cache"
                  : opt.fused_attention ? "fused"
                                        : "naive",
                  s.causal, ph == phase::train ? (opt.recompute ? "; activation recompute on" : "; no recompute") : "");
  if (cfg.mla())
    head += fmt::format(
        "MLA: {} ({}; --mla absorbed|naive chooses); KV cache {} elements per token per layer (latent + RoPE key)\n",
        to_string(resolve_mla_form(opt.mla, ph)),
        opt.mla == catalogue_options::mla_form::automatic ? "the default: absorbed for decode, naive for prefill"
                                                          : "chosen",
        cfg.kv_lora_rank + cfg.qk_rope_head_dim);
  if (cfg.nextn_layers > 0)
    head += fmt::format(
        "num_nextn_predict_layers {}: the multi-token-prediction module is not counted (not part of the main model)\n",
        cfg.nextn_layers);
  head += r ? fmt::format("roofs: {} — peak {}, bandwidth {}, ridge {}\n", r->source, units::rate_flops(r->peak),
                          units::rate_bytes(r->bandwidth), units::intensity(r->ridge()))
            : "roofs: none (give --device NAME or --results FILE for bound and time)\n";
  if (r && !r->bandwidth_note.empty()) head += fmt::format("bandwidth: {}\n", r->bandwidth_note);
  if (r) head += fmt::format("small work: {}\n", r->lat.source);
  head += "per instance; × = instances per step\n\n";
  std::string tail = fmt::format("\nstep total: {}FLOP, {}B, intensity {} over {} token(s)\n", si(s.flops, ""),
                                 si(s.bytes, ""), units::intensity(s.flops / s.bytes), s.tokens);
  tail +=
      fmt::format("FLOPs per token: {} (catalogue) | {} (model FLOPs, as `mfu`: {}; {})\n",
                  si(s.flops / double(s.tokens), "FLOP"), si(model.total, "FLOP"), model.formula, model.description);
  tail += fmt::format("KV cache: {} per token", si(s.kv_per_token, "B"));
  if (ph == phase::decode)
    tail += fmt::format(
        ", {}{} for {} × {} tokens{}{}", si(s.kv_total, "B"), opt.tp > 1 ? " per GPU" : "", opt.batch, opt.context,
        cfg.sliding_window > 0 ? fmt::format(" (sliding-window layers keep the last {})", cfg.sliding_window) : "",
        cfg.attention_chunk > 0 ? fmt::format(" (chunked layers keep the current {}-token chunk)", cfg.attention_chunk)
                                : "");
  tail += "\n";
  tail += fmt::format("memory per GPU: {} (weights {}, KV cache {}, activations {}{}){}\n", si(need.total(), "B"),
                      si(need.weights, "B"), si(need.kv_cache, "B"), si(need.activations, "B"),
                      need.optimizer > 0 ? ", gradients + optimizer " + si(need.optimizer, "B") : std::string(),
                      r && r->memory_bytes > 0 ? fmt::format(" of {} ({})", si(r->memory_bytes, "B"), r->memory_source) : "");
  tail += fmt::format("weights counted as: {}\n", need.weights_note);
  if (s.fit)
    tail += fmt::format("KV-cache capacity: {} sequences of {} tokens fit beside the weights and activations\n", *s.fit,
                        opt.context);
  if (r) {
    tail += fmt::format("predicted step time: {}", si(s.total_s, "s"));
    if (ph == phase::decode)
      tail += fmt::format(" = TPOT; {:.1f} tokens/s ({} sequences)", double(opt.batch) / s.total_s, opt.batch);
    else
      tail += fmt::format("; {:.0f} tokens/s", double(s.tokens) / s.total_s);
    tail += "\n";
  }
  if (s.tp) {
    const tp_allreduce_plan& tp = *s.tp;
    tail +=
        fmt::format("\ntensor parallel, tp = {} ({}): all-reduce per layer {} in {}; per step {}\n", tp.tp, s.tp_source,
                    si(tp.bytes_per_layer, "B"), si(tp.seconds_per_layer, "s"), si(tp.seconds_per_step, "s"));
    for (const auto& x : tp.ops)
      tail += fmt::format("  {:<28} {:>10} × {:<4} {:>10} each\n", x.name, si(x.bytes, "B"), x.count,
                          si(x.predicted_s, "s"));
    if (!tp.note.empty()) tail += "  " + tp.note + "\n";
  }
  if (s.fusion) {
    tail += "\nfusion (per step = per instance × count; time saved with the per-kernel floor and latency):\n";
    tail += fmt::format("{:<22} {:<36} {:>5} {:>10} {:>10} {:>8}{}\n", "fusion", "replaces", "×", "before B", "after B",
                        "saved", r ? fmt::format(" {:>11}", "time saved") : "");
    for (std::size_t i = 0; i < s.fusions.size(); ++i) {
      const fusion_saving& f = s.fusions[i];
      tail += fmt::format("{:<22} {:<36} {:>5} {:>10} {:>10} {:>7.1f}%{}\n", f.name, f.ops, f.count,
                          si(f.bytes_before, ""), si(f.bytes_after, ""), 100 * f.fraction_saved(),
                          r ? fmt::format(" {:>11}", si(s.fusion_times[i].saved_s, "s")) : "");
    }
  }
  return head + ops_table(s) + tail;
}

json ops_sweep_json(const ops_sweep& s) {
  const auto& r = s.roofs;
  json j = {{"model", s.model},
            {"dtype", s.dtype},
            {"weights", weights_json(s.weights)},
            {"points", json::array()},
            {"knees", json::array()}};
  if (r)
    j["roofs"] = {{"peak_flops_per_s", r->peak},
                  {"bandwidth_bytes_per_s", r->bandwidth},
                  {"ridge", r->ridge()},
                  {"source", r->source}};
  for (const auto& sp : s.points) {
    const batch_point& p = sp.p;
    json pj = {{"name", p.name},
               {"kind", sp.attention ? "attention" : "linear"},
               {"batch", p.batch},
               {"m", p.m},
               {"n", p.n},
               {"k", p.k},
               {"flops", p.flops},
               {"bytes", p.bytes},
               {"weight_bytes", p.weight_bytes},
               {"weights", p.weights},
               {"intensity", p.intensity()}};
    if (sp.attainable_flops_per_s) {
      pj["attainable_flops_per_s"] = *sp.attainable_flops_per_s;
      pj["bound"] = sp.bound;
    }
    pj["share_of_step"] = num_or_null(sp.share);
    pj["fits"] = sp.fits ? json(*sp.fits) : json(nullptr);
    j["points"].push_back(pj);
  }
  j["context"] = s.context;
  j["batches"] = json::array();
  for (const auto& b : s.batches)
    j["batches"].push_back({{"batch", b.batch},
                            {"memory_bytes", b.need.total()},
                            {"device_bytes", r && r->memory_bytes > 0 ? json(r->memory_bytes) : json(nullptr)},
                            {"fits", b.fits ? json(*b.fits) : json(nullptr)},
                            {"step_s", num_or_null(b.step_s)}});
  for (const auto& k : s.knees)
    j["knees"].push_back(
        {{"name", k.name}, {"k", k.k}, {"n", k.n}, {"knee_batch", k.batch ? json(*k.batch) : json(nullptr)}});
  return j;
}

std::string ops_sweep_csv(const ops_sweep& s) { return render_csv(ops_sweep_json(s)["points"], {"name", "batch"}); }

std::string ops_sweep_text(const ops_sweep& s) {
  const auto& r = s.roofs;
  std::string text = fmt::format("{}: decode step, batch {}…{}, context {} ({}; weights {}){}\n", s.model, s.b0, s.b1,
                                 s.context, s.dtype, s.weights.linear.label(),
                                 r ? fmt::format(", ridge {} ({})", units::intensity(r->ridge()), r->source) : "");
  if (r && !r->bandwidth_note.empty()) text += fmt::format("bandwidth: {}\n", r->bandwidth_note);
  text += fmt::format("{:<16} {:>7} {:>12} {:>10}{}\n", "op", "batch", "[k×n]", "FLOP/B",
                      r ? fmt::format(" {:>14} {:>9} {:>7}", "attainable", "bound", "share") : "");
  for (const auto& sp : s.points) {
    const batch_point& p = sp.p;
    text += fmt::format("{:<16} {:>7} {:>12} {:>10.2f}", p.name, p.batch,
                        sp.attention ? std::string("(per layer)") : fmt::format("{}×{}", p.k, p.n), p.intensity());
    if (sp.attainable_flops_per_s)
      text += fmt::format(" {:>14} {:>9} {:>7}", si(*sp.attainable_flops_per_s, "FLOP/s"), sp.bound,
                          sp.share ? units::percent(*sp.share) : std::string("—"));
    if (sp.fits && !*sp.fits) text += "  does not fit";
    text += "\n";
  }
  text += "the whole step per batch (memory per GPU, predicted time):\n";
  for (const auto& b : s.batches)
    text += fmt::format("  batch {:>6}: {}{}{}\n", b.batch, si(b.need.total(), "B"),
                        r && r->memory_bytes > 0
                            ? fmt::format(" of {}: {}", si(r->memory_bytes, "B"),
                                          b.fits && *b.fits ? "fits" : "DOES NOT FIT (these rows are not a step that runs)")
                            : std::string(),
                        b.step_s ? fmt::format(", {} per step", units::seconds(*b.step_s)) : std::string());
  if (r && r->memory_bytes > 0) text += fmt::format("device memory: {}\n", r->memory_source);
  if (r) {
    text += "knee (smallest batch reaching the ridge):\n";
    for (const auto& k : s.knees)
      text += fmt::format(
          "  {:<12} {}\n", k.name,
          !k.batch ? std::string("never (the B→∞ limit 2kn/(a(k+n)) is below the ridge)") : std::to_string(*k.batch));
  }
  return text;
}

}  // namespace roofline
