// MFU / HFU. Source: PaLM (Chowdhery et al. 2022) appendix B.
#include "roofline/mfu.hpp"

#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/command_roofs.hpp"
#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

double model_flops_utilization(double flops_per_token, double tokens_per_s, double peak_flops_per_chip,
                               int chips, bool peak_is_sparse) {
  if (peak_is_sparse)
    throw input_error("", "--peak", "a sparse peak is not a peak: MFU is defined against the dense peak");
  auto check = [](double v, const char* field) {
    if (!std::isfinite(v) || v <= 0) throw input_error("", field, fmt::format("must be a finite number > 0 (got {})", v));
  };
  check(flops_per_token, "flops per token");
  check(tokens_per_s, "tokens/s");
  check(peak_flops_per_chip, "--peak");
  if (chips < 1) throw input_error("", "--gpus", fmt::format("must be >= 1 (got {})", chips));
  return flops_per_token * tokens_per_s / (peak_flops_per_chip * chips);
}

mfu_result compute_mfu(const mfu_request& o) {
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

}  // namespace roofline
