// analyse(): every view of the gap, written into results.analysis. Keys: docs/formulas-analysis.md.
#include "roofline/analysis.hpp"
#include "roofline/record_table.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

void analyse(results& r) {
  std::optional<double> fastest;  // the fastest usable memory level: nothing moves bytes faster
  for (const auto& b : r.measured.bandwidth)
    if (usable_as_roof(b) && (!fastest || b.bytes_per_s > *fastest)) fastest = b.bytes_per_s;
  for (auto& op : r.ops) {
    judge_plausibility(op, r.roofline, fastest);
    refresh_advice(op, r.roofline);
  }
  json a = r.analysis.is_object() ? r.analysis : json::object();
  json gaps = json::array();
  for (const auto& g : roofline_gaps(r.roofline)) gaps.push_back(g);
  a["roofline_gaps"] = gaps;
  a["compute_waterfall"] = compute_waterfall(r);
  a["bandwidth_waterfall"] = bandwidth_waterfall(r);
  a["ridge"] = ridge_analysis(r);
  a["mfu"] = decode_mfu(r);
  a["fusion"] = fusion_analysis(r);
  a["accuracy"] = prediction_accuracy(r);
  if (a.contains("batch_sweep")) a["batch_sweep"] = batch_sweep_knees(a["batch_sweep"], r.roofline.ridge_measured);
  a["record_table"] = to_json(record_table(r));
  r.analysis = a;
}

}  // namespace roofline
