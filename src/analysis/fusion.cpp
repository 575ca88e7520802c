// Fusion: measured (unfused SiLU + mul vs the fused SiLU·mul kernel) and predicted (the model
// catalogue's fusion_savings() timed at the roofs). docs/formulas-analysis.md §5, §7.4.
#include <algorithm>
#include <map>
#include <set>

#include "roofline/analysis.hpp"
#include "roofline/fusion_analysis.hpp"
#include "roofline/latency.hpp"
#include "roofline/model_record.hpp"

namespace roofline {

namespace {

/// The model module's fusion_savings() for the scenarios in the op table (decode batches; prefill
/// with naive attention so the FlashAttention saving shows), each saving's bytes turned into time at
/// the bandwidth the ops are placed against. Needs the model's parsed config stored in the results
/// (model.config: stored_model_config); without it the note says why.
predicted_fusion predict_fusion(const results& r) {
  predicted_fusion out;
  const auto cfg = stored_model_config(r, &out.note);
  if (!cfg) return out;
  const double bw = r.roofline.bandwidth_measured > 0 ? r.roofline.bandwidth_measured
                                                      : r.roofline.bandwidth_nominal.value_or(0);
  if (bw > 0) out.bandwidth_bytes_per_s = bw;
  // the saving in time with the same model the ops are placed with: each kernel pays its floor and
  // its latency-limited memory time, so removing a kernel saves more than its bytes at decode
  const latency_model lat = latency_model_from(r.measured, r.device.kind, r.roofline.precision);
  out.latency_model = lat.source;
  auto predicted = [&](const std::vector<op_desc>& ops) {
    double t = 0;
    for (const auto& op : ops) t += place_op(op, r.roofline, lat).predicted_s;
    return t;
  };
  std::string dtype = r.roofline.precision.empty() ? "fp16" : r.roofline.precision;
  for (const auto& op : r.ops)
    if (!op.dtype.empty()) { dtype = op.dtype; break; }
  std::vector<catalogue_options> scenarios;
  std::set<std::int64_t> batches;
  std::int64_t context = 2048, seq = 0;
  for (const auto& op : r.ops) {
    if (op.phase == "decode") { batches.insert(op.batch); if (op.context > 0) context = op.context; }
    if (op.phase == "prefill") seq = std::max(seq, op.seq);
  }
  for (const auto b : batches) {
    catalogue_options o;
    o.ph = phase::decode;
    o.batch = b;
    o.context = context;
    scenarios.push_back(o);
  }
  if (seq > 0) {
    catalogue_options o;
    o.ph = phase::prefill;
    o.seq = seq;
    o.fused_attention = false;
    scenarios.push_back(o);
  }
  for (auto& o : scenarios) {
    o.dtype = dtype;
    try {
      for (const auto& f : fusion_savings(build_catalogue(*cfg, o))) {
        const double saved = f.bytes_saved() * static_cast<double>(f.count);
        predicted_saving& x = out.savings.emplace_back();
        x.phase = to_string(o.ph), x.batch = o.batch, x.name = f.name, x.ops = f.ops, x.description = f.description;
        x.count = f.count, x.bytes_before = f.bytes_before, x.bytes_after = f.bytes_after;
        x.fraction_saved = f.fraction_saved(), x.bytes_saved_per_step = saved;
        if (bw > 0) {
          x.time_saved_bytes_only_per_step_s = saved / bw;
          x.time_saved_per_step_s = (predicted(f.before_ops) - predicted(f.after_ops)) * static_cast<double>(f.count);
        }
      }
    } catch (const std::exception& e) {
      out.note = std::string("catalogue failed: ") + e.what();
    }
  }
  return out;
}

}  // namespace

fusion_analysis analyse_fusion(const results& r) {
  // Unfused SiLU then mul vs the fused SiLU·mul kernel, per (phase, batch) scenario.
  struct trio { const op_result *silu = nullptr, *mul = nullptr, *fused = nullptr; };
  std::map<std::pair<std::string, std::int64_t>, trio> groups;
  for (const auto& op : r.ops) {
    auto& t = groups[{op.phase, op.batch}];
    const std::string& n = op.name;
    if (n.find("silu_mul") != std::string::npos || n.find("swiglu") != std::string::npos) t.fused = &op;
    else if (n.find("silu") != std::string::npos) t.silu = &op;
    else if (n == "mul" || (n.size() > 4 && n.compare(n.size() - 4, 4, "_mul") == 0)) t.mul = &op;
  }
  fusion_analysis out;
  out.expected_byte_ratio = 3.0 / 5.0;
  out.why = "unfused: SiLU reads g and writes s, mul reads s and u and writes y (5 tensors); fused reads g "
            "and u and writes y (3 tensors)";
  for (const auto& [key, t] : groups) {
    if (!t.fused || !t.silu || !t.mul) continue;
    silu_mul_fusion& e = out.silu_mul.emplace_back();
    e.phase = key.first, e.batch = key.second;
    e.unfused_bytes = t.silu->bytes + t.mul->bytes, e.fused_bytes = t.fused->bytes;
    e.byte_ratio = e.fused_bytes / e.unfused_bytes;
    e.unfused_predicted_s = t.silu->predicted_s + t.mul->predicted_s, e.fused_predicted_s = t.fused->predicted_s;
    e.predicted_saved_s_per_step = (e.unfused_predicted_s - e.fused_predicted_s) * static_cast<double>(t.fused->count);
    if (t.silu->measured_s && t.mul->measured_s && t.fused->measured_s) {
      const double unfused = *t.silu->measured_s + *t.mul->measured_s;
      e.unfused_measured_s = unfused;
      e.fused_measured_s = *t.fused->measured_s;
      e.time_ratio = *t.fused->measured_s / unfused;
      e.saved_s_per_step = (unfused - *t.fused->measured_s) * static_cast<double>(t.fused->count);
    } else {
      e.note = "not all three ops measured";
    }
  }
  if (out.silu_mul.empty()) out.note = "no scenario has silu, mul and silu_mul ops";
  out.predicted = predict_fusion(r);
  return out;
}

}  // namespace roofline
