// `roofline mfu`: model FLOPs utilization (and HFU) from a measured TPOT, throughput or step time,
// against the nominal dense peak (comparable) and the measured roof (what is left to gain).
// Formulas: docs/formulas-analysis.md §4 (PaLM appendix B).
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "app/commands.hpp"
#include "roofline/report.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"
#include "roofline/spec.hpp"

namespace roofline::app {

namespace {

struct mfu_options {
  std::string model, phase_name, device, results_file, precision, causal = "full";
  std::optional<double> tpot, tokens_per_s, step_time, peak;
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq;
  int gpus = 1;
  bool recompute = false, json_out = false, csv_out = false;
};

void check_positive(std::optional<double> v, const char* field) {
  if (v && (!std::isfinite(*v) || *v <= 0))
    throw input_error("", field, fmt::format("must be a finite number > 0 (got {})", *v));
}

const char* precision_order[] = {"bf16", "fp16", "fp32"};

void run_mfu(const mfu_options& o) {
  // ---- inputs ----
  const int given = (o.tpot ? 1 : 0) + (o.tokens_per_s ? 1 : 0) + (o.step_time ? 1 : 0);
  if (given != 1) throw input_error("", "--tpot", "give exactly one of --tpot, --tokens-per-s, --step-time");
  check_positive(o.tpot, "--tpot");
  check_positive(o.tokens_per_s, "--tokens-per-s");
  check_positive(o.step_time, "--step-time");
  check_positive(o.peak, "--peak");
  if (o.batch < 1) throw input_error("", "--batch", "must be >= 1");
  if (o.gpus < 1) throw input_error("", "--gpus", "must be >= 1");
  if (o.seq && *o.seq < 0) throw input_error("", "--seq", "must be >= 0");
  if (!o.device.empty() && !o.results_file.empty())
    throw input_error("", "--device", "give either --device NAME or --results FILE, not both");
  const phase ph = parse_phase(o.phase_name);
  const attention_convention conv = parse_attention_convention(o.causal);
  if (o.tpot && ph != phase::decode) throw input_error("", "--tpot", "TPOT is a decode measure: use --tokens-per-s or --step-time");
  const model_config cfg = load_model_config(resolve_model_path(o.model));

  // ---- the device's roofs ----
  nominal_roofs nom;
  measured_roofs meas;
  std::string device_label, results_precision;
  if (!o.results_file.empty()) {
    const results r = load_results(o.results_file);
    results_precision = r.roofline.precision;
    nom = r.nominal;
    meas = r.measured;
    device_label = r.device.name + " (" + o.results_file + ")";
  } else if (!o.device.empty()) {
    nom = gpu_nominal(o.device);
    device_label = nom.device_name + " (spec table)";
  } else if (!o.peak) {
    throw input_error("", "--device", "give --device NAME, --results FILE or --peak FLOPS: MFU needs the dense peak");
  }
  std::string prec = o.precision;
  if (prec.empty() && !results_precision.empty() && find_peak(nom, results_precision)) prec = results_precision;
  if (prec.empty()) {
    for (const char* p : precision_order)
      if (find_peak(nom, p)) { prec = p; break; }
    if (prec.empty()) prec = "bf16";
  }
  const nominal_peak* peak = find_peak(nom, prec);
  double peak_flops = 0;
  std::string peak_label;
  if (o.peak) {
    if (peak && peak->sparse_flops_per_s && std::fabs(*o.peak / *peak->sparse_flops_per_s - 1) < 0.005)
      throw input_error("", "--peak", fmt::format("{} is the sparse {} peak of {}; MFU uses the dense peak ({})",
                                                  format_si(*o.peak, "FLOP/s"), prec, nom.device_name, format_si(peak->flops_per_s, "FLOP/s")));
    peak_flops = *o.peak;
    peak_label = "--peak (dense, as given)";
  } else {
    if (!peak) throw input_error("", "--precision", fmt::format("no nominal {} peak for {}", prec, nom.device_name));
    if (peak->note.find("sparse") != std::string::npos && peak->note.find("dense") == std::string::npos)
      throw input_error("", "--precision", "the table's peak is marked sparse: a sparse peak is not a peak");
    peak_flops = peak->flops_per_s;
    peak_label = fmt::format("{} {} dense peak of {}", prec, peak->engine, device_label);
  }
  const roofline_summary roofs = summarize_roofline(nom, meas, prec);

  // ---- FLOPs per token ----
  // Headline: matmul-only (PaLM appendix B; Megatron-LM, Narayanan et al. 2021 §5.1): 2N or 6N over
  // the weights every token multiplies (MoE: the routed experts), plus attention (sliding-window
  // layers count at most the window). Alternative: every parameter (all experts' routed share).
  std::int64_t T = 0;
  std::string t_note;
  if (o.seq) {
    T = *o.seq;
  } else if (ph == phase::decode) {
    t_note = "attention not counted (give --seq C for a KV context of C tokens)";
  } else {
    throw input_error("", "--seq", "required for prefill and train: the tokens per sequence set the attention FLOPs "
                                   "(the config's max_position_embeddings is a limit, not the length you ran)");
  }
  if (ph != phase::decode && T < 1) throw input_error("", "--seq", "must be >= 1 for prefill and train");
  if (T > 0 && cfg.max_positions > 0 && T > cfg.max_positions)
    throw input_error("", "--seq", fmt::format("{} exceeds {}'s {} = {}", T, cfg.name,
                                               cfg.family == "gpt2" ? "n_positions" : "max_position_embeddings", cfg.max_positions));
  const attention_convention used_conv = ph == phase::decode ? attention_convention::full : conv;
  const bool halved = used_conv == attention_convention::causal_halved;
  const double mult = ph == phase::train ? 6.0 : 2.0;
  const double N = static_cast<double>(matmul_parameters(cfg));
  const double attn = T > 0 ? attention_flops_per_token(cfg, ph, T, halved) : 0.0;
  const double fpt = mult * N + attn;
  // every parameter a token uses: the active parameters (embedding, norms and biases included)
  const double all_params = static_cast<double>(cfg.active_parameters());
  const double fpt_all = mult * all_params + attn;
  std::string formula = ph == phase::train
                            ? (halved ? "6N + 6·L·H·Q·T (PaLM appendix B, attention halved for the causal mask)"
                                      : "6N + 12·L·H·Q·T (PaLM, Chowdhery et al. 2022, appendix B)")
                            : (halved ? "2N + 2·L·H·Q·T (forward pass, attention halved for the causal mask)"
                                      : "2N + 4·L·H·Q·T (forward pass; Kaplan et al. 2020 §2.1, PaLM appendix B)");
  if (cfg.sliding_window > 0)
    formula += fmt::format("; T capped at the {}-token window on {} of {} layers", cfg.sliding_window, cfg.sliding_layers, cfg.layers);
  double recompute = 0;
  if (o.recompute) {
    if (ph != phase::train) throw input_error("", "--recompute", "recomputation applies to training only");
    // Full activation recompute re-runs each layer's forward, not the embedding or the logits
    // (Megatron-LM, Korthikanti et al. 2022 §4): 2·(N − V·h) + the forward attention term.
    recompute = 2.0 * (N - static_cast<double>(cfg.vocab) * static_cast<double>(cfg.hidden)) + attn / 3.0;
  }

  // ---- tokens/s ----
  double tps = 0;
  std::string tps_formula;
  const double tokens_per_step = static_cast<double>(o.batch) * (ph == phase::decode ? 1.0 : static_cast<double>(T));
  if (o.tpot) {
    tps = static_cast<double>(o.batch) / *o.tpot;
    tps_formula = fmt::format("batch ÷ TPOT = {} ÷ {} s", o.batch, *o.tpot);
  } else if (o.tokens_per_s) {
    tps = *o.tokens_per_s;
    tps_formula = fmt::format("--tokens-per-s, measured over {} GPU(s) together", o.gpus);
  } else {
    if (ph != phase::decode && T == 0) throw input_error("", "--seq", "a step of --step-time needs --seq > 0");
    tps = tokens_per_step / *o.step_time;
    tps_formula = fmt::format("batch × tokens per sequence ÷ step time = {} ÷ {} s", tokens_per_step, *o.step_time);
  }
  const double mfu = model_flops_utilization(fpt, tps, peak_flops, o.gpus);
  const double mfu_all = model_flops_utilization(fpt_all, tps, peak_flops, o.gpus);
  const double hfu = model_flops_utilization(fpt + recompute, tps, peak_flops, o.gpus);
  // Above 100% is impossible: the model FLOP/s cannot exceed the dense peak.
  const bool plausible = !(mfu > 1.0) && !(hfu > 1.0);
  std::vector<std::string> causes;
  if (!plausible)
    causes = {"timing without device synchronisation: the time (TPOT, step) stopped before the GPU finished",
              "tokens/s measured over more GPUs than --gpus, or counted per sequence twice",
              "wrong sequence length or batch: --seq / --batch larger than what ran over-counts FLOPs per token",
              "a sparse peak or a lower precision than the one run (e.g. an fp8 run against a bf16 peak)"};
  std::optional<double> frac_measured;
  if (roofs.peak_measured > 0) frac_measured = fpt * tps / (roofs.peak_measured * o.gpus);

  // ---- decode: MFU ≈ intensity ÷ ridge ----
  std::optional<double> intensity, ceiling;
  if (ph == phase::decode) {
    const int wb = dtype_bytes(prec == "tf32" ? "fp32" : prec);
    // the matmul weights read once per step (the embedding gather reads B rows, not the table; MoE:
    // the experts a batch of B is expected to route to) + the KV cache
    double weight_params = N;
    if (cfg.experts > 0)
      weight_params = N +
                      (expected_distinct_experts(cfg.experts, cfg.experts_per_token, o.batch) - cfg.experts_per_token) *
                          3.0 * static_cast<double>(cfg.hidden * cfg.expert_intermediate * cfg.moe_layers);
    const double step_bytes = weight_params * wb + static_cast<double>(o.batch) * (T > 0 ? kv_cache_bytes(cfg, wb, T) : 0.0);
    intensity = fpt * static_cast<double>(o.batch) / step_bytes;
    if (roofs.ridge_nominal && !o.peak) ceiling = std::min(1.0, *intensity / *roofs.ridge_nominal);
  }

  const std::string convention = fmt::format(
      "MFU = model FLOPs per token × tokens/s ÷ (dense peak × GPUs); N = {} matmul weights per token (PaLM appendix B, "
      "Megatron-LM: the embedding gather does no FLOPs{}); attention {}; HFU adds {}",
      matmul_parameters(cfg), cfg.experts > 0 ? "; MoE: the routed experts and the router" : "", to_string(used_conv),
      o.recompute ? "each layer's recomputed forward (not the embedding or logits: Megatron)" : "nothing (no recompute)");
  if (o.json_out || o.csv_out) {
    auto opt = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
    json j = {{"model", cfg.name}, {"phase", to_string(ph)}, {"batch", o.batch}, {"seq", T}, {"gpus", o.gpus},
              {"precision", prec}, {"peak_flops_per_s", peak_flops}, {"peak_source", peak_label},
              {"flops_per_token", fpt}, {"recompute_flops_per_token", recompute}, {"formula", formula},
              {"tokens_per_s", tps}, {"tokens_per_s_formula", tps_formula}, {"model_flops_per_s", fpt * tps},
              {"mfu", mfu}, {"hfu", hfu}, {"fraction_of_measured_roof", opt(frac_measured)},
              {"measured_peak_flops_per_s", roofs.peak_measured > 0 ? json(roofs.peak_measured) : json(nullptr)},
              {"decode_intensity", opt(intensity)}, {"decode_mfu_ceiling", opt(ceiling)},
              {"ridge_nominal", opt(roofs.ridge_nominal)}, {"convention", convention}, {"note", t_note},
              {"matmul_parameters", matmul_parameters(cfg)}, {"all_parameters_flops_per_token", fpt_all},
              {"all_parameters_mfu", mfu_all}, {"active_parameters", cfg.active_parameters()},
              {"plausible", plausible}, {"causes", causes}};
    if (o.csv_out) std::fputs(render_csv(j, {"model", "phase", "batch", "seq", "gpus", "mfu", "hfu"}).c_str(), stdout);  // a header line and one value line
    else std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::string out = fmt::format("roofline mfu: {}, {}, batch {}, {} {}, {} GPU(s)\n", cfg.name, to_string(ph), o.batch,
                                ph == phase::decode ? "context" : "seq", T, o.gpus);
  out += fmt::format("  FLOPs per token     {} = {:.4g} FLOP{}\n", formula, fpt, t_note.empty() ? "" : "  (" + t_note + ")");
  out += fmt::format("  tokens/s            {} = {:.4g}\n", tps_formula, tps);
  out += fmt::format("  model FLOP/s        {:.4g} × {:.4g} = {}\n", fpt, tps, format_si(fpt * tps, "FLOP/s"));
  out += fmt::format("  peak                {} × {} GPU(s) = {}\n", peak_label, o.gpus, format_si(peak_flops * o.gpus, "FLOP/s"));
  out += fmt::format("  MFU (vs nominal)    {:.3g}%      fraction of measured roof: {}\n", 100 * mfu,
                     frac_measured ? fmt::format("{:.3g}% (measured {} {})", 100 * *frac_measured, prec, format_si(roofs.peak_measured, "FLOP/s"))
                                   : std::string("unknown (no measured roof: give --results FILE)"));
  out += fmt::format("  HFU                 {:.3g}%{}\n", 100 * hfu, o.recompute ? " (with recomputed FLOPs)" : " (= MFU: nothing recomputed)");
  if (!plausible) {
    out += "  IMPOSSIBLE          MFU/HFU above 100%: the model FLOP/s exceed the dense peak; likely causes:\n";
    for (const auto& c : causes) out += "                        - " + c + "\n";
  }
  if (intensity)
    out += fmt::format("  decode ceiling      intensity {:.3g} FLOP/B ÷ ridge {} = {}: decode is bandwidth-bound, MFU ≈ intensity ÷ ridge\n",
                       *intensity, roofs.ridge_nominal ? fmt::format("{:.3g} FLOP/B", *roofs.ridge_nominal) : "unknown",
                       ceiling ? fmt::format("{:.3g}%", 100 * *ceiling) : "unknown");
  out += fmt::format("  convention          {}\n", convention);
  out += fmt::format("  alternative         N = every parameter a token uses ({}, embedding table included): {:.4g} FLOP/token → MFU {:.3g}%\n",
                     cfg.active_parameters(), fpt_all, 100 * mfu_all);
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void add_mfu(CLI::App& app, context& ctx) {
  auto o = std::make_shared<mfu_options>();
  auto* sub = app.add_subcommand("mfu", "model FLOPs utilization (and HFU) from TPOT, tokens/s or step time");
  sub->add_option("--model", o->model, "shipped model name or path to a HuggingFace config.json")->required();
  sub->add_option("--phase", o->phase_name, "decode | prefill | train")->required();
  sub->add_option("--tpot", o->tpot, "decode: time per output token, seconds");
  sub->add_option("--tokens-per-s", o->tokens_per_s, "throughput of all --gpus together, tokens/s");
  sub->add_option("--step-time", o->step_time, "seconds per step of --batch sequences of --seq tokens");
  sub->add_option("--batch", o->batch, "sequences per step")->capture_default_str();
  auto* seq = sub->add_option("--seq", o->seq, "prefill/train: tokens per sequence (required); decode: KV context (default: attention not counted)");
  // decode: the KV context is also --context, as in `ops` and `run`
  sub->add_option("--context", o->seq, "decode: KV-cache length (tokens)")->excludes(seq);
  sub->add_option("--device", o->device, "GPU name from the spec table");
  sub->add_option("--results", o->results_file, "results.json (nominal and measured roofs)");
  sub->add_option("--gpus", o->gpus, "GPUs the throughput was measured on")->capture_default_str();
  sub->add_option("--precision", o->precision, "peak precision (default: the results' precision, else bf16, fp16, fp32)");
  sub->add_option("--peak", o->peak, "dense peak FLOP/s per GPU, instead of the table's");
  sub->add_flag("--recompute", o->recompute, "training with full activation recompute (HFU counts it)");
  sub->add_option("--causal", o->causal, "attention FLOPs: full (PaLM) | halved (causal mask)")->capture_default_str();
  sub->add_flag("--json", o->json_out, "print JSON");
  sub->add_flag("--csv", o->csv_out, "print CSV: a header line and one value line")->excludes("--json");
  sub->callback([o, &ctx] {
    run_mfu(*o);
    ctx.exit_code = 0;
  });
}

}  // namespace roofline::app
