// `roofline mfu`'s views (roofline/command_views.hpp): every number is a field of mfu_result,
// computed in src/analysis/mfu.cpp (compute_mfu).
#include <fmt/format.h>

#include "roofline/command_views.hpp"
#include "roofline/csv.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

json mfu_json(const mfu_result& r) {
  json j = {{"model", r.model},
            {"phase", to_string(r.ph)},
            {"batch", r.batch},
            {"seq", r.fpt.tokens},
            {"gpus", r.gpus},
            {"precision", r.precision},
            {"peak_flops_per_s", r.peak_flops},
            {"peak_source", r.peak_label},
            {"flops_per_token", r.fpt.total},
            {"model_flops_per_token", r.fpt},
            {"formula", r.fpt.formula},
            {"recompute_flops_per_token", r.recompute},
            {"recompute_policy", r.recompute_policy},
            {"peak_note", r.peak_note.empty() ? json(nullptr) : json(r.peak_note)},
            {"defaults_used", r.defaults_used},
            {"tokens_per_s", r.tps},
            {"tokens_per_s_formula", r.tps_formula},
            {"model_flops_per_s", r.fpt.total * r.tps},
            {"mfu", r.mfu},
            {"hfu", r.hfu},
            {"fraction_of_measured_roof", num_or_null(r.frac_measured)},
            {"measured_peak_flops_per_s", r.peak_measured > 0 ? json(r.peak_measured) : json(nullptr)},
            {"decode_intensity", num_or_null(r.intensity)},
            {"decode_mfu_ceiling", num_or_null(r.ceiling)},
            {"ridge_nominal", num_or_null(r.ridge_nominal)},
            {"convention", r.convention},
            {"matmul_parameters", std::int64_t(r.fpt.n)},
            {"all_parameters_flops_per_token", r.all_params.total},
            {"all_parameters_mfu", r.mfu_all},
            {"full_attention_flops_per_token", r.full_attention.total},
            {"full_attention_mfu", r.mfu_full},
            {"active_parameters", std::int64_t(r.all_params.n)},
            {"plausible", r.plausible},
            {"causes", r.causes},
            {"devices_counted", r.devices.empty() ? "GPU" : "GCD"}};
  if (r.decode) {
    const decode_utilization& d = *r.decode;
    j["decode"] = {{"tpot_s", d.tpot_s},
                   {"step_bytes", d.step.bytes},
                   {"step_flops", d.step.flops},
                   {"achieved_bytes_per_s", d.achieved_bytes_per_s},
                   {"mbu", num_or_null(d.mbu)},
                   {"mbu_measured", num_or_null(d.mbu_measured)},
                   {"attainable_tpot_s", num_or_null(d.step.attainable_tpot_s)},
                   {"attainable_source", d.step.roofs_source},
                   {"times_attainable", num_or_null(d.times_attainable)},
                   {"share_of_attainable", num_or_null(d.share_of_attainable)},
                   {"plausible", d.plausible},
                   {"verdict", d.verdict},
                   {"weights", r.weights}};
    j["mbu"] = num_or_null(d.mbu);
  }
  if (r.plan) {
    const step_plan& p = *r.plan;
    j["plan"] = {{"tp", p.tp},
                 {"ep", p.ep},
                 {"flops_per_gpu", p.flops_per_gpu},
                 {"bytes_per_gpu", p.bytes_per_gpu},
                 {"attainable_s", num_or_null(p.attainable_s)},
                 {"allreduce_s", p.allreduce_s},
                 {"allreduce_source", p.allreduce_source},
                 {"allreduce_note", p.allreduce_note},
                 {"memory_per_gpu_bytes", p.need.total()},
                 {"weights_bytes", p.need.weights},
                 {"kv_cache_bytes", p.need.kv_cache},
                 {"device_bytes", p.memory_bytes > 0 ? json(p.memory_bytes) : json(nullptr)},
                 {"device_bytes_source", p.memory_source},
                 {"sequences_that_fit", p.fit ? json(*p.fit) : json(nullptr)},
                 {"bandwidth_note", p.bandwidth_note},
                 {"measured_s", p.measured_s},
                 {"times_attainable", num_or_null(p.times_attainable)},
                 {"verdict", p.verdict}};
  }
  if (r.on_curve)
    j["step_curve"] = {{"batch", r.on_curve->batch},
                       {"your_step_s", r.on_curve->user_s},
                       {"measured_step_s", r.on_curve->curve_s},
                       {"times_measured", r.on_curve->ratio},
                       {"how", r.on_curve->how}};
  else if (!r.on_curve_why.empty())
    j["step_curve"] = {{"note", r.on_curve_why}};
  return j;
}

std::string mfu_text(const mfu_result& r) {
  std::string out = fmt::format("roofline mfu: {}, {}, batch {}, {} {}{}, {} GPU(s)\n", r.model, to_string(r.ph),
                                r.batch, r.ph == phase::decode ? "context" : "seq", r.fpt.tokens,
                                r.default_context ? " (default)" : "", r.gpus);
  out += fmt::format("  FLOPs per token     {} = {:.4g} FLOP\n", r.fpt.formula, r.fpt.total);
  out += fmt::format("  convention          {}\n", r.fpt.description);
  out += fmt::format("  tokens/s            {} = {:.4g}\n", r.tps_formula, r.tps);
  out += fmt::format("  model FLOP/s        {:.4g} × {:.4g} = {}\n", r.fpt.total, r.tps,
                     units::si(r.fpt.total * r.tps, "FLOP/s"));
  out += fmt::format("  peak                {} {} × {} GPU(s) = {}\n", r.peak_label,
                     units::compute_rate(r.peak_flops, r.precision), r.gpus,
                     units::compute_rate(r.peak_flops * r.gpus, r.precision));
  if (!r.devices.empty()) out += fmt::format("  devices             --gpus {} counts GCDs: {}\n", r.gpus, r.devices);
  if (!r.peak_note.empty()) out += fmt::format("  peak note           {}\n", r.peak_note);
  for (const auto& d : r.defaults_used) out += fmt::format("  config default      {}\n", d);
  out += fmt::format("  MFU (vs nominal)    {:.3g}%      fraction of measured roof: {}\n", 100 * r.mfu,
                     r.frac_measured ? fmt::format("{:.3g}% (measured {} {})", 100 * *r.frac_measured, r.precision,
                                                   units::si(r.peak_measured, "FLOP/s"))
                                     : std::string("unknown (no measured roof: give --results FILE)"));
  out += fmt::format("  HFU                 {:.3g}%{}\n", 100 * r.hfu,
                     r.recompute > 0 ? fmt::format(" (with --recompute {}: +{:.4g} FLOP/token)", r.recompute_policy, r.recompute)
                                     : std::string(" (= MFU: nothing recomputed)"));
  if (!r.plausible) {
    out +=
        "  IMPOSSIBLE          above what this machine can do (MFU or MBU over the roof beyond 5% noise); likely "
        "causes:\n";
    for (const auto& c : r.causes) out += "                        - " + c + "\n";
  }
  if (r.plan) {
    const step_plan& p = *r.plan;
    if (p.tp > 1)
      out += fmt::format("  deployment          {} GPUs, tensor parallel{} as `ops --tp {}{}`: one GPU's share of the ops + "
                         "{} ({})\n",
                         p.tp, p.ep > 1 ? fmt::format(" + expert parallel {}", p.ep) : std::string(), p.tp,
                         p.ep > 1 ? fmt::format(" --ep {}", p.ep) : std::string(), p.allreduce_note, p.allreduce_source);
    if (!p.bandwidth_note.empty()) out += fmt::format("  bandwidth           {}\n", p.bandwidth_note);
    out += fmt::format("  memory per GPU      {} (weights {}, KV cache {}){}{}\n", units::si(p.need.total(), "B"),
                       units::si(p.need.weights, "B"), units::si(p.need.kv_cache, "B"),
                       p.memory_bytes > 0 ? fmt::format(" of {} ({})", units::si(p.memory_bytes, "B"), p.memory_source) : "",
                       p.fit ? fmt::format("; {} sequences of this context fit", *p.fit) : "");
    if (r.ph == phase::prefill)
      out += fmt::format("  attainable step     {}\n",
                         p.attainable_s ? fmt::format("{} (every op of the step at the roofs, as `roofline ops`); {}",
                                                      units::seconds(*p.attainable_s), p.verdict)
                                        : std::string("unknown (give --device or --results)"));
  }
  if (r.decode) {
    const decode_utilization& d = *r.decode;
    out += fmt::format(
        "  MBU (vs nominal)    {}      = {} per step{} ÷ {} = {} of {} (the step's bytes as `ops` counts them: "
        "weights once, each layer's KV reads, activations){}\n",
        d.mbu ? units::percent(*d.mbu) : std::string("unknown (no nominal bandwidth)"), units::si(d.step.bytes, "B"),
        d.gpus > 1 ? fmt::format(" (the {} GPUs' shares together)", d.gpus) : std::string(),
        units::seconds(d.tpot_s), units::rate_bytes(d.achieved_bytes_per_s),
        d.mbu ? units::rate_bytes(d.achieved_bytes_per_s / *d.mbu) : std::string("?"),
        d.mbu_measured ? fmt::format("; {} of the measured bandwidth", units::percent(*d.mbu_measured)) : "");
    out += fmt::format("  attainable TPOT     {}\n",
                       d.step.attainable_tpot_s
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
    out += fmt::format(
        "  decode ceiling      intensity {} ÷ ridge {} = {}: decode is bandwidth-bound, MFU ≈ intensity ÷ ridge\n",
        units::intensity(*r.intensity), r.ridge_nominal ? units::intensity(*r.ridge_nominal) : "unknown",
        r.ceiling ? units::percent(*r.ceiling) : "unknown");
  out += fmt::format("  MFU, HFU            {}\n", r.convention);
  out += fmt::format(
      "  alternative         N = every parameter a token uses ({}, embedding table included): {:.4g} FLOP/token → MFU "
      "{:.3g}%\n",
      std::int64_t(r.all_params.n), r.all_params.total, 100 * r.mfu_all);
  if (r.full_attention.total != r.fpt.total)
    out += fmt::format(
        "  alternative         attention full T² (PaLM app. B, as most published MFUs): {} = {:.4g} FLOP/token → MFU "
        "{:.3g}%\n",
        r.full_attention.formula, r.full_attention.total, 100 * r.mfu_full);
  return out;
}

std::string mfu_csv(const mfu_result& r) {
  return render_csv(mfu_json(r), {"model", "phase", "batch", "seq", "gpus", "mfu", "hfu"});
}

}  // namespace roofline
