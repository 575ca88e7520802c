// MFU / HFU. Source: PaLM (Chowdhery et al. 2022) appendix B.
#include "roofline/mfu.hpp"

#include <algorithm>

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

namespace {

/// The problem text of an input_error, without its "file: field: " prefix.
std::string problem_of(const input_error& e) {
  std::string w = e.what();
  const std::string prefix = (e.file().empty() ? "" : e.file() + ": ") + (e.field().empty() ? "" : e.field() + ": ");
  return w.rfind(prefix, 0) == 0 ? w.substr(prefix.size()) : w;
}

/// --logits: "last" (a server's prefill, the default there) or "all"; decode has one position.
bool last_logits_of(const std::string& logits, phase ph) {
  if (!logits.empty() && logits != "last" && logits != "all")
    throw input_error("", "--logits", "'" + logits + "': give last or all");
  if (ph == phase::train && logits == "last")
    throw input_error("", "--logits", "last: training computes the logits (and the loss) of every position");
  return ph == phase::prefill && logits != "all";
}

/// Refuses a request whose flags contradict each other or the phase (input_error naming the flag).
void check_request(const mfu_request& o, phase ph) {
  if (!o.tpot && !o.tokens_per_s && !o.step_time) throw input_error("", "--tpot", "give one of --tpot, --tokens-per-s, --step-time");
  if (o.tpot && ph != phase::decode) throw input_error("", "--tpot", "TPOT is a decode measure: use --tokens-per-s or --step-time");
  if (o.recompute != "none" && !o.recompute.empty() && ph != phase::train)
    throw input_error("", "--recompute", "recomputation applies to training only");
  if (!o.seq && ph != phase::decode)
    throw input_error("", "--seq", "required for prefill and train: the tokens per sequence set the attention FLOPs "
                                   "(the config's max_position_embeddings is a limit, not the length you ran)");
  if (ph == phase::train && (!o.weights.empty() || !o.group_size.empty() || !o.kv_dtype.empty()))
    throw input_error("", !o.weights.empty() ? "--weights" : !o.group_size.empty() ? "--group-size" : "--kv-dtype",
                      "applies to the decode and prefill steps (MBU, attainable step time); training's MFU counts model FLOPs only");
  if (o.gpus < 1) throw input_error("", "--gpus", fmt::format("must be >= 1 (got {})", o.gpus));
  if (ph == phase::train && o.ep != 1)
    throw input_error("", "--ep", "applies to decode and prefill (the serving plan); training's --gpus are data parallel here");
}

/// The dense peak: --peak, or the device's (--device / --results); fills r's peak fields. Returns
/// the roofs resolved (nullopt with --peak and no device).
std::optional<command_roofs> resolve_peak(const mfu_request& o, mfu_result& r, roofs_request& rq) {
  rq.device = o.device, rq.results_file = o.results_file, rq.precision = o.precision;
  rq.ecc = o.ecc, rq.memory_utilization = o.memory_utilization, rq.allow_missing_peak = o.peak.has_value();
  auto roofs = resolve_roofs(rq);  // not const: returned by move (a --results file is a whole results)
  if (!roofs && !o.peak) throw input_error("", "--device", "give --device NAME, --results FILE or --peak FLOPS: MFU needs the dense peak");
  r.precision = roofs ? roofs->precision : o.precision.empty() ? default_precision("cuda") : o.precision;
  const nominal_peak* peak = roofs && roofs->peak ? &*roofs->peak : nullptr;
  if (o.peak) {
    if (peak && peak->sparse_flops_per_s && std::fabs(*o.peak / *peak->sparse_flops_per_s - 1) < 0.005)
      throw input_error("", "--peak", fmt::format("{} is the sparse {} peak of {}; MFU uses the dense peak ({})", units::si(*o.peak, "FLOP/s"),
                                                  r.precision, roofs->nominal.device_name, units::si(peak->flops_per_s, "FLOP/s")));
    r.peak_flops = *o.peak;
    r.peak_label = "--peak (dense, as given)";
  } else {
    if (!peak)
      throw input_error("", "--precision",
                        (roofs->missing_peak.empty() ? fmt::format("no nominal {} peak for {}", r.precision, roofs->source)
                                                     : roofs->missing_peak) +
                            "; give --peak FLOPS (the dense peak per GPU) if you know it");
    if (peak->note.find("sparse") != std::string::npos && peak->note.find("dense") == std::string::npos)
      throw input_error("", "--precision", "the table's peak is marked sparse: a sparse peak is not a peak");
    r.peak_flops = peak->flops_per_s;
    r.peak_label = fmt::format("{} {} dense peak of {}", r.precision, peak->engine, roofs->source);
    r.peak_note = peak->note;
  }
  if (roofs) r.peak_measured = roofs->summary.peak_measured, r.ridge_nominal = roofs->summary.ridge_nominal;
  if (roofs && !roofs->file)
    for (const auto& n : roofs->nominal.notes)
      if (n.rfind("GCD: ", 0) == 0) r.devices = n.substr(5);
  return roofs;
}

/// Tokens/s from --tpot, --tokens-per-s or --step-time; MFU, HFU and the fraction of the measured
/// peak; plausibility (above the roof beyond the noise is impossible).
void utilization(const mfu_request& o, phase ph, std::int64_t T, mfu_result& r) {
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
}

/// Decode and prefill: the deployment's step as `ops --tp --gpus` plans it (one GPU's share of the
/// ops + the all-reduces), MBU and the attainable step time.
void plan_deployment(const mfu_request& o, phase ph, std::int64_t T, bool halved, bool last, const model_config& cfg,
                     const std::optional<command_roofs>& roofs, const roofs_request& rq, mfu_result& r) {
  catalogue_options co;
  co.ph = ph, co.batch = o.batch, co.context = T, co.seq = T;
  co.dtype = r.precision == "tf32" ? "fp32" : r.precision;
  co.weights = o.weights, co.group_size = o.group_size, co.kv_dtype = o.kv_dtype;
  co.causal_halved = halved, co.last_logits = last;
  co.tp = o.gpus, co.ep = o.ep;
  const weight_scheme ws = step_weights(cfg, co);
  r.weights = ws.linear.label() + (ws.source.empty() ? " (every weight in the precision's dtype)" : " (" + ws.source + ")") +
              (ws.note.empty() ? "" : "; " + ws.note);
  const bool placeable = roofs && (roofs->peak || roofs->summary.peak_measured > 0);
  std::optional<placement_roofs> pr;
  if (placeable) {
    roofs_request pq = rq;
    pq.precision = r.precision, pq.precision_flag = "--precision", pq.fall_back = true, pq.allow_missing_peak = false;
    pr = resolve_placement_roofs(pq);
  }
  allreduce_link_request link = o.link;
  link.device = o.device;  // --results: compute_ops_step takes the file's GPU
  ops_step st;
  try {
    st = compute_ops_step(cfg, co, pr, false, link);
  } catch (const input_error& e) {
    if (e.field() != "--tp") throw;
    throw input_error("", "--gpus",
                      fmt::format("{} GPUs cannot be planned as one tensor-parallel deployment of {} (as `ops --tp {}`): {}; "
                                  "give the GPUs one copy of the model runs on",
                                  o.gpus, cfg.name, o.gpus, problem_of(e)));
  }
  step_plan plan;
  plan.tp = o.gpus, plan.ep = o.ep;
  plan.flops_per_gpu = st.flops, plan.bytes_per_gpu = st.bytes;
  if (pr) plan.attainable_s = st.total_s;
  if (st.tp) {
    plan.allreduce_s = st.tp->seconds_per_step;
    plan.allreduce_source = st.tp_source;
    plan.allreduce_note = fmt::format("{} all-reduces of {} per layer, {} per step{}", st.tp->ops.size(),
                                      units::si(st.tp->bytes_per_layer / double(std::max<std::size_t>(1, st.tp->ops.size())), "B"),
                                      units::seconds(st.tp->seconds_per_step),
                                      o.ep > 1 ? "; experts placed whole (ep): the dispatch is local, the combine is the "
                                                 "MLP all-reduce (no all-to-all)"
                                               : "");
  }
  plan.need = st.need, plan.fit = st.fit;
  if (pr) plan.memory_bytes = pr->memory_bytes, plan.memory_source = pr->memory_source, plan.bandwidth_note = pr->bandwidth_note;
  const double tokens_per_step = double(o.batch) * (ph == phase::decode ? 1.0 : double(T));
  plan.measured_s = o.tpot ? *o.tpot : o.step_time ? *o.step_time : tokens_per_step / r.tps;
  if (plan.attainable_s && *plan.attainable_s > 0) {
    plan.times_attainable = plan.measured_s / *plan.attainable_s;
    plan.verdict = fmt::format("{} per step is {} the attainable {}", units::seconds(plan.measured_s),
                               units::ratio(*plan.times_attainable), units::seconds(*plan.attainable_s));
  }
  if (st.bytes > 0 && ph == phase::decode) r.intensity = st.flops / st.bytes;
  if (r.intensity && r.ridge_nominal && !o.peak) r.ceiling = std::min(1.0, *r.intensity / *r.ridge_nominal);
  if (ph == phase::decode) {
    // Every GPU moves its share: all GPUs' bytes ÷ TPOT ÷ (bandwidth × GPUs) = one GPU's bytes ÷ TPOT ÷ its bandwidth.
    decode_step_cost cost;
    cost.batch = o.batch, cost.context = T;
    cost.flops = st.flops * double(o.gpus), cost.bytes = st.bytes * double(o.gpus);
    if (plan.attainable_s) {
      cost.attainable_tpot_s = *plan.attainable_s;
      cost.roofs_source = pr->source + (st.tp ? fmt::format("; tensor parallel over {} GPUs, all-reduces {}", o.gpus,
                                                              units::seconds(plan.allreduce_s))
                                               : std::string());
    }
    decode_roofs dr;
    dr.peak_nominal = r.peak_flops;
    if (roofs) {
      dr.bandwidth_nominal = roofs->summary.bandwidth_nominal.value_or(0);
      dr.peak_measured = roofs->summary.peak_measured, dr.bandwidth_measured = roofs->summary.bandwidth_measured;
    }
    // the step time: --tpot, else batch ÷ tokens/s (of all --gpus together, as MFU counts it)
    r.decode = judge_decode(cost, plan.measured_s, dr, o.gpus);
    if (roofs && roofs->file) {  // the file's measured whole steps: "your T at batch B is N× roofline's"
      const auto sweep = analyse_step_sweep(*roofs->file, analyse_energy(*roofs->file));
      if (!sweep) r.on_curve_why = "the results file has no decode step sweep (written by an older roofline run)";
      else if (o.gpus > 1) r.on_curve_why = "the file's step sweep ran on one GPU; this plan runs on " + std::to_string(o.gpus);
      else r.on_curve = place_on_step_curve(*sweep, o.batch, r.decode->tpot_s, r.on_curve_why);
    }
    if (!r.decode->plausible) {
      r.plausible = false;
      for (const auto& c : r.decode->causes) r.causes.push_back(c);
    }
  }
  r.plan = std::move(plan);
}

/// The MFU/HFU convention, in words, for the recompute policy.
std::string convention_of(const std::string& rp) {
  return fmt::format("MFU = model FLOPs per token × tokens/s ÷ (dense peak × GPUs) (PaLM app. B); HFU adds {}",
      rp == "full"        ? "each layer's recomputed forward (not the embedding or logits: Megatron, Korthikanti et al. §4)"
      : rp == "selective" ? "the recomputed core attention, QKᵀ, softmax and A·V (Megatron --recompute-activations, "
                            "Korthikanti et al. 2022 §5)"
      : rp == "selective-op" ? "every second matmul of each layer, recomputed (torchtitan selective_ac_option \"op\")"
      : rp.rfind("selective-layer", 0) == 0 ? "every N-th layer's forward, recomputed whole (torchtitan selective_ac_option N, "
                                              "default 2)"
                                            : "nothing (no recompute)");
}

}  // namespace

mfu_result compute_mfu(const mfu_request& o) {
  const phase ph = parse_phase(o.phase_name);
  mfu_result r;
  r.ph = ph, r.batch = o.batch, r.gpus = o.gpus;
  check_request(o, ph);
  const bool last = last_logits_of(o.logits, ph);
  const model_config cfg = load_model_config(resolve_model_path(o.model));
  r.model = cfg.name;
  r.defaults_used = cfg.defaults_used;
  r.default_context = !o.seq;
  const std::int64_t T = o.seq.value_or(catalogue_options{}.context);
  roofs_request rq;
  const auto roofs = resolve_peak(o, r, rq);

  // ---- FLOPs per token: the one model, the same conventions and defaults as `ops` ----
  using params = flops_convention::params;
  const bool halved = o.causal == "halved";
  using mla = catalogue_options::mla_form;
  r.fpt = model_flops_per_token(cfg, ph, T, {params::matmul, halved, mla::automatic, last});
  r.all_params = model_flops_per_token(cfg, ph, T, {params::all, halved, mla::automatic, last});
  r.full_attention = model_flops_per_token(cfg, ph, T, {params::matmul, false, mla::automatic, last});
  r.recompute_policy = o.recompute.empty() ? "none" : o.recompute;
  r.recompute = recompute_flops_per_token(cfg, r.fpt, r.recompute_policy);

  utilization(o, ph, T, r);
  if (ph != phase::train) plan_deployment(o, ph, T, halved, last, cfg, roofs, rq, r);
  r.convention = convention_of(r.recompute_policy);
  return r;
}

}  // namespace roofline
