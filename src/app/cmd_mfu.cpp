// `roofline mfu`: model FLOPs utilization (and HFU) from a measured TPOT, throughput or step time,
// against the nominal dense peak (comparable) and the measured roof (what is left to gain).
// Formulas: docs/formulas-analysis.md §4 (PaLM appendix B); FLOPs per token: model_flops_per_token,
// the one model `ops` prints too (docs/formulas-model.md §5).
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "roofline/units.hpp"
#include "roofline/analysis.hpp"
#include "roofline/decode_utilization.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"
#include "roofline/report.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::app {

namespace {

struct mfu_options {
  std::string model, phase_name, device, results_file, precision, causal = "halved";
  std::string weights, group_size, kv_dtype;  ///< decode step: --weights, --group-size, --kv-dtype
  std::string tpot_text, step_time_text;  ///< with units: "25ms", "0.025", "25000us"
  std::optional<double> tpot, tokens_per_s, step_time, peak;
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq;
  int gpus = 1;
  bool recompute = false, json_out = false, csv_out = false;
};

/// Everything `mfu` prints, computed once; the text and JSON printers only render it.
/// Everything `mfu` prints, computed once; mfu_text and mfu_json only render it.
struct mfu_result {
  std::string model, precision, peak_label, tps_formula, convention;
  std::string devices;  ///< what --gpus counts when it is not whole packages ("GCDs: ..."), else empty
  phase ph = phase::decode;
  std::int64_t batch = 1;
  int gpus = 1;
  bool default_context = false;  ///< decode without --context: catalogue_options' default, as in `ops`
  token_flops fpt, all_params, full_attention;  ///< the headline and the two labelled alternatives
  double peak_flops = 0, peak_measured = 0, tps = 0, mfu = 0, hfu = 0, mfu_all = 0, mfu_full = 0;
  double recompute = 0;  ///< FLOPs per token HFU adds (0 without --recompute)
  bool plausible = true;
  std::vector<std::string> causes;
  std::optional<double> frac_measured, intensity, ceiling, ridge_nominal;
  std::optional<decode_utilization> decode;  ///< decode: MBU, attainable TPOT (the catalogue's step)
  std::string weights;  ///< decode: the step's weight format and its source
  /// decode with --results: the step placed on the file's measured step sweep (analysis.step_sweep)
  std::optional<step_placement> on_curve;
  std::string on_curve_why;  ///< why not placed (when --results was given)
};

mfu_result compute_mfu(const mfu_options& o) {
  const phase ph = parse_phase(o.phase_name);
  mfu_result r;
  r.ph = ph, r.batch = o.batch, r.gpus = o.gpus;
  if (!o.tpot && !o.tokens_per_s && !o.step_time) throw input_error("", "--tpot", "give one of --tpot, --tokens-per-s, --step-time");
  if (o.tpot && ph != phase::decode) throw input_error("", "--tpot", "TPOT is a decode measure: use --tokens-per-s or --step-time");
  if (o.recompute && ph != phase::train) throw input_error("", "--recompute", "recomputation applies to training only");
  if (!o.seq && ph != phase::decode)
    throw input_error("", "--seq", "required for prefill and train: the tokens per sequence set the attention FLOPs "
                                   "(the config's max_position_embeddings is a limit, not the length you ran)");
  if (ph != phase::decode && (!o.weights.empty() || !o.group_size.empty() || !o.kv_dtype.empty()))
    throw input_error("", !o.weights.empty() ? "--weights" : !o.group_size.empty() ? "--group-size" : "--kv-dtype",
                      "applies to the decode step (MBU, attainable TPOT); MFU's model FLOPs do not depend on bytes");
  const model_config cfg = load_model_config(resolve_model_path(o.model));
  r.model = cfg.name;
  r.default_context = !o.seq;
  const std::int64_t T = o.seq.value_or(catalogue_options{}.context);

  // ---- the dense peak: --peak, or the device's (--device / --results) ----
  const auto roofs = resolve_roofs({o.device, o.results_file, o.precision});
  if (!roofs && !o.peak) throw input_error("", "--device", "give --device NAME, --results FILE or --peak FLOPS: MFU needs the dense peak");
  r.precision = roofs ? roofs->precision : o.precision.empty() ? default_precision("cuda") : o.precision;
  const nominal_peak* peak = roofs ? peak_for(roofs->nominal, r.precision) : nullptr;
  if (o.peak) {
    if (peak && peak->sparse_flops_per_s && std::fabs(*o.peak / *peak->sparse_flops_per_s - 1) < 0.005)
      throw input_error("", "--peak", fmt::format("{} is the sparse {} peak of {}; MFU uses the dense peak ({})", units::si(*o.peak, "FLOP/s"),
                                                  r.precision, roofs->nominal.device_name, units::si(peak->flops_per_s, "FLOP/s")));
    r.peak_flops = *o.peak;
    r.peak_label = "--peak (dense, as given)";
  } else {
    if (!peak) throw input_error("", "--precision", fmt::format("no nominal {} peak for {}", r.precision, roofs->source));
    if (peak->note.find("sparse") != std::string::npos && peak->note.find("dense") == std::string::npos)
      throw input_error("", "--precision", "the table's peak is marked sparse: a sparse peak is not a peak");
    r.peak_flops = peak->flops_per_s;
    r.peak_label = fmt::format("{} {} dense peak of {}", r.precision, peak->engine, roofs->source);
  }
  if (roofs) r.peak_measured = roofs->summary.peak_measured, r.ridge_nominal = roofs->summary.ridge_nominal;
  if (roofs && !roofs->file)
    for (const auto& n : roofs->nominal.notes)
      if (n.rfind("GCD: ", 0) == 0) r.devices = n.substr(5);

  // ---- FLOPs per token: the one model, the same conventions and defaults as `ops` ----
  using params = flops_convention::params;
  const bool halved = o.causal == "halved";
  r.fpt = model_flops_per_token(cfg, ph, T, {params::matmul, halved});
  r.all_params = model_flops_per_token(cfg, ph, T, {params::all, halved});
  r.full_attention = model_flops_per_token(cfg, ph, T, {params::matmul, false});
  r.recompute = o.recompute ? r.fpt.recompute : 0;

  // ---- tokens/s ----
  const double tokens_per_step = double(o.batch) * (ph == phase::decode ? 1.0 : double(T));
  if (o.tpot) {
    r.tps = double(o.batch) / *o.tpot;
    r.tps_formula = fmt::format("batch ÷ TPOT = {} ÷ {} s", o.batch, *o.tpot);
  } else if (o.tokens_per_s) {
    r.tps = *o.tokens_per_s;
    r.tps_formula = fmt::format("--tokens-per-s, measured over {} GPU(s) together", o.gpus);
  } else {
    r.tps = tokens_per_step / *o.step_time;
    r.tps_formula = fmt::format("batch × tokens per sequence ÷ step time = {} ÷ {} s", tokens_per_step, *o.step_time);
  }
  r.mfu = model_flops_utilization(r.fpt.total, r.tps, r.peak_flops, o.gpus);
  r.mfu_all = model_flops_utilization(r.all_params.total, r.tps, r.peak_flops, o.gpus);
  r.mfu_full = model_flops_utilization(r.full_attention.total, r.tps, r.peak_flops, o.gpus);
  r.hfu = model_flops_utilization(r.fpt.total + r.recompute, r.tps, r.peak_flops, o.gpus);
  if (r.peak_measured > 0) r.frac_measured = r.fpt.total * r.tps / (r.peak_measured * o.gpus);
  // Above the roof beyond the noise is impossible: the model FLOP/s cannot exceed the dense peak.
  const double limit = 1 + roof_noise;
  r.plausible = !(r.mfu > limit) && !(r.hfu > limit) && !(r.frac_measured && *r.frac_measured > limit);
  if (!r.plausible)
    r.causes = {"timing without device synchronisation: the time (TPOT, step) stopped before the GPU finished",
                "tokens/s measured over more GPUs than --gpus, or counted per sequence twice",
                "wrong sequence length or batch: --seq / --batch larger than what ran over-counts FLOPs per token",
                "a sparse peak or a lower precision than the one run (e.g. an fp8 run against a bf16 peak)"};

  // ---- decode: the catalogue's step (the bytes and FLOPs `ops` prints), MBU and the attainable TPOT ----
  if (ph == phase::decode) {
    catalogue_options co;
    co.ph = phase::decode, co.batch = o.batch, co.context = T;
    co.dtype = r.precision == "tf32" ? "fp32" : r.precision;
    co.weights = o.weights, co.group_size = o.group_size, co.kv_dtype = o.kv_dtype;
    const weight_scheme ws = step_weights(cfg, co);
    r.weights = ws.linear.label() + (ws.source.empty() ? " (every weight in the precision's dtype)" : " (" + ws.source + ")") +
                (ws.note.empty() ? "" : "; " + ws.note);
    const auto ops = build_catalogue(cfg, co);
    const auto pr = roofs ? resolve_placement_roofs({o.device, o.results_file, r.precision, "--precision", true}) : std::nullopt;
    const decode_step_cost cost = pr ? decode_cost(ops, &pr->lat, pr->peak, pr->bandwidth, pr->source) : decode_cost(ops);
    if (cost.bytes > 0) r.intensity = cost.flops / cost.bytes;
    if (r.intensity && r.ridge_nominal && !o.peak) r.ceiling = std::min(1.0, *r.intensity / *r.ridge_nominal);
    decode_roofs dr;
    dr.peak_nominal = r.peak_flops;
    if (roofs) {
      dr.bandwidth_nominal = roofs->summary.bandwidth_nominal.value_or(0);
      dr.peak_measured = roofs->summary.peak_measured, dr.bandwidth_measured = roofs->summary.bandwidth_measured;
    }
    // the step time: --tpot, else batch ÷ tokens/s (of all --gpus together, as MFU counts it)
    r.decode = judge_decode(cost, o.tpot ? *o.tpot : double(o.batch) / r.tps, dr, o.gpus);
    if (roofs && roofs->file) {  // the file's measured whole steps: "your T at batch B is N× roofline's"
      const auto sweep = analyse_step_sweep(*roofs->file, analyse_energy(*roofs->file));
      if (!sweep) r.on_curve_why = "the results file has no decode step sweep (written by an older roofline run)";
      else r.on_curve = place_on_step_curve(*sweep, o.batch, r.decode->tpot_s, r.on_curve_why);
    }
    if (!r.decode->plausible) {
      r.plausible = false;
      for (const auto& c : r.decode->causes) r.causes.push_back(c);
    }
  }
  r.convention = fmt::format("MFU = model FLOPs per token × tokens/s ÷ (dense peak × GPUs) (PaLM app. B); HFU adds {}",
                             o.recompute ? "each layer's recomputed forward (not the embedding or logits: Megatron)"
                                         : "nothing (no recompute)");
  return r;
}

json mfu_json(const mfu_result& r) {
  json j = {{"model", r.model}, {"phase", to_string(r.ph)}, {"batch", r.batch}, {"seq", r.fpt.tokens}, {"gpus", r.gpus},
          {"precision", r.precision}, {"peak_flops_per_s", r.peak_flops}, {"peak_source", r.peak_label},
          {"flops_per_token", r.fpt.total}, {"model_flops_per_token", r.fpt}, {"formula", r.fpt.formula},
          {"recompute_flops_per_token", r.recompute}, {"tokens_per_s", r.tps}, {"tokens_per_s_formula", r.tps_formula},
          {"model_flops_per_s", r.fpt.total * r.tps}, {"mfu", r.mfu}, {"hfu", r.hfu},
          {"fraction_of_measured_roof", num_or_null(r.frac_measured)},
          {"measured_peak_flops_per_s", r.peak_measured > 0 ? json(r.peak_measured) : json(nullptr)},
          {"decode_intensity", num_or_null(r.intensity)}, {"decode_mfu_ceiling", num_or_null(r.ceiling)}, {"ridge_nominal", num_or_null(r.ridge_nominal)},
          {"convention", r.convention}, {"matmul_parameters", std::int64_t(r.fpt.n)},
          {"all_parameters_flops_per_token", r.all_params.total}, {"all_parameters_mfu", r.mfu_all},
          {"full_attention_flops_per_token", r.full_attention.total}, {"full_attention_mfu", r.mfu_full},
          {"active_parameters", std::int64_t(r.all_params.n)}, {"plausible", r.plausible}, {"causes", r.causes},
          {"devices_counted", r.devices.empty() ? "GPU" : "GCD"}};
  if (r.decode) {
    const decode_utilization& d = *r.decode;
    j["decode"] = {{"tpot_s", d.tpot_s}, {"step_bytes", d.step.bytes}, {"step_flops", d.step.flops},
                   {"achieved_bytes_per_s", d.achieved_bytes_per_s}, {"mbu", num_or_null(d.mbu)},
                   {"mbu_measured", num_or_null(d.mbu_measured)}, {"attainable_tpot_s", num_or_null(d.step.attainable_tpot_s)},
                   {"attainable_source", d.step.roofs_source}, {"times_attainable", num_or_null(d.times_attainable)},
                   {"share_of_attainable", num_or_null(d.share_of_attainable)}, {"plausible", d.plausible},
                   {"verdict", d.verdict}, {"weights", r.weights}};
    j["mbu"] = num_or_null(d.mbu);
  }
  if (r.on_curve)
    j["step_curve"] = {{"batch", r.on_curve->batch}, {"your_step_s", r.on_curve->user_s},
                       {"measured_step_s", r.on_curve->curve_s}, {"times_measured", r.on_curve->ratio},
                       {"how", r.on_curve->how}};
  else if (!r.on_curve_why.empty())
    j["step_curve"] = {{"note", r.on_curve_why}};
  return j;
}

std::string mfu_text(const mfu_result& r) {
  std::string out = fmt::format("roofline mfu: {}, {}, batch {}, {} {}{}, {} GPU(s)\n", r.model, to_string(r.ph), r.batch,
                                r.ph == phase::decode ? "context" : "seq", r.fpt.tokens, r.default_context ? " (default)" : "", r.gpus);
  out += fmt::format("  FLOPs per token     {} = {:.4g} FLOP\n", r.fpt.formula, r.fpt.total);
  out += fmt::format("  convention          {}\n", r.fpt.description);
  out += fmt::format("  tokens/s            {} = {:.4g}\n", r.tps_formula, r.tps);
  out += fmt::format("  model FLOP/s        {:.4g} × {:.4g} = {}\n", r.fpt.total, r.tps, units::si(r.fpt.total * r.tps, "FLOP/s"));
  out += fmt::format("  peak                {} {} × {} GPU(s) = {}\n", r.peak_label, units::compute_rate(r.peak_flops, r.precision), r.gpus,
                     units::compute_rate(r.peak_flops * r.gpus, r.precision));
  if (!r.devices.empty()) out += fmt::format("  devices             --gpus {} counts GCDs: {}\n", r.gpus, r.devices);
  out += fmt::format("  MFU (vs nominal)    {:.3g}%      fraction of measured roof: {}\n", 100 * r.mfu,
                     r.frac_measured ? fmt::format("{:.3g}% (measured {} {})", 100 * *r.frac_measured, r.precision,
                                                   units::si(r.peak_measured, "FLOP/s"))
                                     : std::string("unknown (no measured roof: give --results FILE)"));
  out += fmt::format("  HFU                 {:.3g}%{}\n", 100 * r.hfu, r.recompute > 0 ? " (with recomputed FLOPs)" : " (= MFU: nothing recomputed)");
  if (!r.plausible) {
    out += "  IMPOSSIBLE          above what this machine can do (MFU or MBU over the roof beyond 5% noise); likely causes:\n";
    for (const auto& c : r.causes) out += "                        - " + c + "\n";
  }
  if (r.decode) {
    const decode_utilization& d = *r.decode;
    out += fmt::format("  MBU (vs nominal)    {}      = {} per step ÷ {} = {} of {} (the step's bytes as `ops` counts them: "
                       "weights once, each layer's KV reads, activations){}\n",
                       d.mbu ? units::percent(*d.mbu) : std::string("unknown (no nominal bandwidth)"), units::si(d.step.bytes, "B"),
                       units::seconds(d.tpot_s), units::rate_bytes(d.achieved_bytes_per_s),
                       d.mbu ? units::rate_bytes(d.achieved_bytes_per_s / *d.mbu) : std::string("?"),
                       d.mbu_measured ? fmt::format("; {} of the measured bandwidth", units::percent(*d.mbu_measured)) : "");
    out += fmt::format("  attainable TPOT     {}\n", d.step.attainable_tpot_s
                                                       ? fmt::format("{} (every op of the step at the roofs, as `roofline ops`: {})",
                                                                     units::seconds(*d.step.attainable_tpot_s), d.step.roofs_source)
                                                       : std::string("unknown (give --device or --results)"));
    out += fmt::format("  weights             {}\n", r.weights);
    out += fmt::format("  verdict             {}\n", d.verdict);
  }
  if (r.on_curve)
    out += fmt::format("  on the step curve   your {} at batch {} is {} roofline's attainable {} ({})\n",
                       units::seconds(r.on_curve->user_s), r.on_curve->batch, units::ratio(r.on_curve->ratio),
                       units::seconds(r.on_curve->curve_s), r.on_curve->how);
  else if (!r.on_curve_why.empty())
    out += fmt::format("  on the step curve   unknown ({})\n", r.on_curve_why);
  if (r.intensity)
    out += fmt::format("  decode ceiling      intensity {} ÷ ridge {} = {}: decode is bandwidth-bound, MFU ≈ intensity ÷ ridge\n",
                       units::intensity(*r.intensity), r.ridge_nominal ? units::intensity(*r.ridge_nominal) : "unknown",
                       r.ceiling ? units::percent(*r.ceiling) : "unknown");
  out += fmt::format("  MFU, HFU            {}\n", r.convention);
  out += fmt::format("  alternative         N = every parameter a token uses ({}, embedding table included): {:.4g} FLOP/token → MFU {:.3g}%\n",
                     std::int64_t(r.all_params.n), r.all_params.total, 100 * r.mfu_all);
  if (r.full_attention.total != r.fpt.total)
    out += fmt::format("  alternative         attention full T² (PaLM app. B, as most published MFUs): {} = {:.4g} FLOP/token → MFU {:.3g}%\n",
                       r.full_attention.formula, r.full_attention.total, 100 * r.mfu_full);
  return out;
}

}  // namespace

void add_mfu(CLI::App& app, context& ctx) {
  auto o = std::make_shared<mfu_options>();
  auto* sub = app.add_subcommand("mfu", "model FLOPs utilization (and HFU) from TPOT, tokens/s or step time");
  sub->add_option("--model", o->model, "shipped model name or path to a HuggingFace config.json")->required();
  sub->add_option("--phase", o->phase_name, "decode | prefill | train")->required()->check(phase_value());
  auto* tpot = sub->add_option("--tpot", o->tpot_text, "decode: time per output token with units (25ms, 0.025, 25000us; a bare number is seconds)");
  auto* tps = sub->add_option("--tokens-per-s", o->tokens_per_s, "throughput of all --gpus together, tokens/s")->check(finite_positive());
  sub->add_option("--step-time", o->step_time_text, "time per step of --batch sequences of --seq tokens, with units (1.2s, 850ms; bare: seconds)")->excludes(tpot, tps);
  tps->excludes(tpot);
  sub->add_option("--batch", o->batch, "sequences per step")->capture_default_str()->check(finite_positive());
  auto* seq = sub->add_option("--seq", o->seq, "prefill/train: tokens per sequence (required); decode: KV context")->check(finite_positive());
  // decode: the KV context is also --context, as in `ops` and `run`, with the same default
  sub->add_option("--context", o->seq, fmt::format("decode: KV-cache length (tokens; default {} as in ops)", catalogue_options{}.context))
      ->excludes(seq)->check(finite_positive());
  add_roofs_options(sub, o->device, o->results_file);
  sub->add_option("--gpus", o->gpus, "GPUs the throughput was measured on")->capture_default_str()->check(finite_positive());
  sub->add_option("--precision", o->precision, "peak precision (default: the results' precision, else fp16)")->check(precision_value());
  sub->add_option("--peak", o->peak, "dense peak FLOP/s per GPU, instead of the table's")->check(finite_positive());
  add_weights_options(sub, o->weights, o->group_size);
  sub->add_option("--kv-dtype", o->kv_dtype, "decode: KV cache dtype fp32 | fp16 | bf16 | fp8 | int8 (default: the precision's)")
      ->check(dtype_value());
  sub->add_flag("--recompute", o->recompute, "training with full activation recompute (HFU counts it)");
  sub->add_option("--causal", o->causal, "prefill/train attention FLOPs: halved (causal triangle) | full (PaLM)")
      ->capture_default_str()->check(CLI::IsMember({"halved", "full"}));
  sub->add_flag("--json", o->json_out, "print JSON");
  sub->add_flag("--csv", o->csv_out, "print CSV: a header line and one value line")->excludes("--json");
  sub->callback([o, &ctx] {
    if (!o->tpot_text.empty()) {
      o->tpot = parse_duration(o->tpot_text, "--tpot");
      if (duration_is_bare(o->tpot_text) && *o->tpot >= 1)
        std::fprintf(stderr, "warning: --tpot %s is read as %s per token; did you mean ms? write units (%sms)\n",
                     o->tpot_text.c_str(), units::seconds(*o->tpot).c_str(), o->tpot_text.c_str());
    }
    if (!o->step_time_text.empty()) o->step_time = parse_duration(o->step_time_text, "--step-time");
    const mfu_result r = compute_mfu(*o);
    if (o->csv_out) std::fputs(render_csv(mfu_json(r), {"model", "phase", "batch", "seq", "gpus", "mfu", "hfu"}).c_str(), stdout);
    else if (o->json_out) std::printf("%s\n", mfu_json(r).dump(2).c_str());
    else std::fputs(mfu_text(r).c_str(), stdout);
    ctx.exit_code = r.plausible ? 0 : 1;  // impossible: the full answer printed, with its causes, exit 1
  });
}

}  // namespace roofline::app
