// Prediction accuracy (predicted ÷ measured per op) and measured fusion. docs/formulas-analysis.md §5.
#include <filesystem>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "roofline/analysis.hpp"
#include "roofline/latency.hpp"

namespace roofline {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

json prediction_accuracy(const results& r) {
  constexpr double long_op_s = 20e-6;
  constexpr double target_all = 0.20, target_long = 0.10, target_step = 0.15;
  json per_op = json::array();
  std::vector<double> errors, long_errors;
  for (const auto& op : r.ops) {
    if (!op.measured_s || !(*op.measured_s > 0)) continue;
    const double ratio = op.predicted_s / *op.measured_s;
    const bool is_long = *op.measured_s > long_op_s;
    errors.push_back(std::fabs(ratio - 1.0));
    if (is_long) long_errors.push_back(std::fabs(ratio - 1.0));
    json e = {{"name", op.name}, {"phase", op.phase}, {"batch", op.batch}, {"bound", op.bound},
              {"predicted_s", op.predicted_s}, {"measured_s", *op.measured_s},
              {"ratio", ratio}, {"abs_error", std::fabs(ratio - 1.0)}, {"counted", true}, {"long", is_long},
              {"roof_fraction", nullptr}, {"headroom", nullptr}, {"on_launch_floor", nullptr}};
    if (const auto f = roof_fraction(op, r.roofline)) {
      e["roof_fraction"] = *f;          // time at the roof ÷ measured time
      e["headroom"] = 1.0 / *f;         // how many times faster the roof would be
    }
    if (op.launch_floor_s && *op.launch_floor_s > 0)
      e["on_launch_floor"] = *op.measured_s < 2.0 * *op.launch_floor_s;
    per_op.push_back(e);
  }
  // Headline: every measured op (no size cut-off); second column: ops longer than 20 µs.
  json out = {{"threshold_s", long_op_s}, {"target", target_all}, {"target_long", target_long}, {"per_op", per_op},
              {"ops_counted", errors.size()}, {"ops_long", long_errors.size()},
              {"median_abs_error", nullptr}, {"median_abs_error_long", nullptr}};
  if (errors.empty()) {
    out["note"] = "no measured op";
  } else {
    out["median_abs_error"] = median_of(errors);
    out["meets_target"] = median_of(errors) <= target_all;
  }
  if (!long_errors.empty()) {
    out["median_abs_error_long"] = median_of(long_errors);
    out["meets_target_long"] = median_of(long_errors) <= target_long;
  }
  json steps = json::array();
  for (const auto& w : r.whole_step) {
    if (!w.measured_s || !(*w.measured_s > 0)) continue;
    const double ratio = w.predicted_s / *w.measured_s;
    json e = {{"phase", w.phase}, {"batch", w.batch}, {"predicted_s", w.predicted_s}, {"measured_s", *w.measured_s},
              {"ratio", ratio}, {"abs_error", std::fabs(ratio - 1.0)}, {"meets_target", std::fabs(ratio - 1.0) <= target_step}};
    if (w.sum_of_ops_s) e["sum_of_ops_s"] = *w.sum_of_ops_s;
    steps.push_back(e);
  }
  out["whole_step"] = steps;
  out["target_whole_step"] = target_step;
  return out;
}

namespace {

/// The model module's fusion_savings() for the scenarios in the op table (decode batches; prefill
/// with naive attention so the FlashAttention saving shows), each saving's bytes turned into time at
/// the bandwidth the ops are placed against. Needs the model's config.json (results.model.source).
json predicted_fusion(const results& r) {
  json out = {{"savings", json::array()}};
  if (!r.model || r.model->source.empty()) {
    out["note"] = "no model in the results";
    return out;
  }
  model_config cfg;
  try {
    cfg = load_model_config(r.model->source);
  } catch (const std::exception& e) {
    // A shipped model is recorded relative to the tree it ran in ("models/NAME.json"): read the
    // shipped copy of the same name, so `roofline report` gives the same answer from any directory.
    const std::filesystem::path src(r.model->source);
    try {
      if (src.parent_path() != "models") throw;
      cfg = load_model_config(resolve_model_path(src.stem().string()));  // the same file's content
    } catch (const std::exception&) {
      out["note"] = std::string("model config not readable here: ") + e.what();
      return out;
    }
  }
  const double bw = r.roofline.bandwidth_measured > 0 ? r.roofline.bandwidth_measured
                                                      : r.roofline.bandwidth_nominal.value_or(0);
  out["bandwidth_bytes_per_s"] = bw > 0 ? json(bw) : json(nullptr);
  // the saving in time with the same model the ops are placed with: each kernel pays its floor and
  // its latency-limited memory time, so removing a kernel saves more than its bytes at decode
  const latency_model lat = latency_model_from(r.measured, r.device.kind, r.roofline.precision);
  out["latency_model"] = lat.source;
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
      for (const auto& f : fusion_savings(build_catalogue(cfg, o))) {
        const double saved = f.bytes_saved() * static_cast<double>(f.count);
        out["savings"].push_back({{"phase", to_string(o.ph)}, {"batch", o.batch},
                                  {"name", f.name}, {"ops", f.ops}, {"description", f.description},
                                  {"count", f.count}, {"bytes_before", f.bytes_before}, {"bytes_after", f.bytes_after},
                                  {"fraction_saved", f.fraction_saved()}, {"bytes_saved_per_step", saved},
                                  {"time_saved_bytes_only_per_step_s", bw > 0 ? json(saved / bw) : json(nullptr)},
                                  {"time_saved_per_step_s",
                                   bw > 0 ? json((predicted(f.before_ops) - predicted(f.after_ops)) * static_cast<double>(f.count))
                                          : json(nullptr)}});
      }
    } catch (const std::exception& e) {
      out["note"] = std::string("catalogue failed: ") + e.what();
    }
  }
  return out;
}

}  // namespace

json fusion_analysis(const results& r) {
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
  json out = {{"expected_byte_ratio", 3.0 / 5.0},
              {"why", "unfused: SiLU reads g and writes s, mul reads s and u and writes y (5 tensors); fused reads g "
                      "and u and writes y (3 tensors)"},
              {"silu_mul", json::array()}};
  for (const auto& [key, t] : groups) {
    if (!t.fused || !t.silu || !t.mul) continue;
    json e = {{"phase", key.first}, {"batch", key.second},
              {"unfused_bytes", t.silu->bytes + t.mul->bytes}, {"fused_bytes", t.fused->bytes},
              {"byte_ratio", t.fused->bytes / (t.silu->bytes + t.mul->bytes)},
              {"unfused_predicted_s", t.silu->predicted_s + t.mul->predicted_s},
              {"fused_predicted_s", t.fused->predicted_s},
              {"predicted_saved_s_per_step",
               (t.silu->predicted_s + t.mul->predicted_s - t.fused->predicted_s) * static_cast<double>(t.fused->count)}};
    if (t.silu->measured_s && t.mul->measured_s && t.fused->measured_s) {
      const double unfused = *t.silu->measured_s + *t.mul->measured_s;
      e["unfused_measured_s"] = unfused;
      e["fused_measured_s"] = *t.fused->measured_s;
      e["time_ratio"] = *t.fused->measured_s / unfused;
      e["saved_s_per_step"] = (unfused - *t.fused->measured_s) * static_cast<double>(t.fused->count);
    } else {
      e["time_ratio"] = nullptr;
      e["note"] = "not all three ops measured";
    }
    out["silu_mul"].push_back(e);
  }
  if (out["silu_mul"].empty()) out["note"] = "no scenario has silu, mul and silu_mul ops";
  out["predicted"] = predicted_fusion(r);
  return out;
}

}  // namespace roofline
