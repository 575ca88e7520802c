// Decode utilization (MBU, MFU, attainable TPOT) of a measured TPOT. docs/formulas-analysis.md §4.5.
#include "roofline/decode_utilization.hpp"

#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/units.hpp"

namespace roofline {

decode_step_cost decode_cost(const std::vector<op_desc>& ops, const latency_model* lat, double peak, double bandwidth,
                             const std::string& roofs_source) {
  decode_step_cost c;
  const bool predict = lat && peak > 0 && bandwidth > 0;
  double t = 0;
  for (const op_desc& op : ops) {
    if (op.ph != phase::decode) throw input_error("", "--phase", "decode utilization needs a decode step, got a " + to_string(op.ph) + " op");
    c.batch = op.batch;
    if (op.kind == op_kind::attention_decode) c.context = op.context;
    c.flops += op.flops * double(op.count);
    c.bytes += op.bytes() * double(op.count);
    if (predict) t += lat->predict(op, peak, bandwidth).total_s * double(op.count);
  }
  if (predict) c.attainable_tpot_s = t, c.roofs_source = roofs_source;
  return c;
}

decode_utilization judge_decode(const decode_step_cost& step, double tpot_s, const decode_roofs& r, int gpus) {
  if (!std::isfinite(tpot_s) || tpot_s <= 0) throw input_error("", "--tpot", fmt::format("must be a finite time > 0 (got {})", tpot_s));
  if (gpus < 1) throw input_error("", "--gpus", fmt::format("must be >= 1 (got {})", gpus));
  decode_utilization u;
  u.step = step, u.gpus = gpus, u.tpot_s = tpot_s;
  u.tokens_per_s = double(step.batch) / tpot_s;
  u.achieved_bytes_per_s = step.bytes / tpot_s;
  u.achieved_flops_per_s = step.flops / tpot_s;
  const double g = double(gpus);
  if (r.bandwidth_nominal > 0) u.mbu = u.achieved_bytes_per_s / (r.bandwidth_nominal * g);
  if (r.bandwidth_measured > 0) u.mbu_measured = u.achieved_bytes_per_s / (r.bandwidth_measured * g);
  if (r.peak_nominal > 0) u.step_mfu = u.achieved_flops_per_s / (r.peak_nominal * g);
  if (step.attainable_tpot_s && *step.attainable_tpot_s > 0) {
    u.times_attainable = tpot_s / *step.attainable_tpot_s;
    u.share_of_attainable = *step.attainable_tpot_s / tpot_s;
  }
  const double limit = 1 + roof_noise;
  const bool over_bw = (u.mbu && *u.mbu > limit) || (u.mbu_measured && *u.mbu_measured > limit);
  const bool over_peak = (u.step_mfu && *u.step_mfu > limit) ||
                         (r.peak_measured > 0 && u.achieved_flops_per_s / (r.peak_measured * g) > limit);
  u.plausible = !over_bw && !over_peak;
  if (!u.plausible) {
    if (over_bw)
      u.causes.push_back(fmt::format("the step must move {} per step; in {} that is {}, above the {} bandwidth roof",
                                     units::si(step.bytes, "B"), units::seconds(tpot_s), units::rate_bytes(u.achieved_bytes_per_s),
                                     units::rate_bytes((r.bandwidth_nominal > 0 ? r.bandwidth_nominal : r.bandwidth_measured) * g)));
    if (over_peak) u.causes.push_back("the step's FLOPs in that time exceed the dense peak");
    u.causes.push_back("a TPOT in the wrong unit (ms or µs given as seconds), or timed without device synchronisation");
    u.causes.push_back("a TPOT of several GPUs (tensor parallel) against --gpus 1, or of speculative decoding (several tokens per step)");
    u.causes.push_back("weights quantized below what was counted (give --weights, or the checkpoint's config.json with its quantization_config)");
  }
  std::string v = fmt::format("{}/token", units::seconds(tpot_s));
  if (step.batch > 1) v = fmt::format("{}/step of {} tokens", units::seconds(tpot_s), step.batch);
  if (u.times_attainable)
    v += fmt::format(" is {} the attainable {}", units::ratio(*u.times_attainable), units::seconds(*step.attainable_tpot_s));
  if (u.mbu) v += fmt::format("; {} of the bandwidth roof", units::percent(*u.mbu));
  else if (u.mbu_measured) v += fmt::format("; {} of the measured bandwidth roof", units::percent(*u.mbu_measured));
  if (!u.plausible) v += ": IMPOSSIBLE on this machine";
  u.verdict = v;
  return u;
}

}  // namespace roofline
