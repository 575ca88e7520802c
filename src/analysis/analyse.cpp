// analyse(): every view of the gap, computed once into typed blocks (roofline/waterfall.hpp,
// ridge_analysis.hpp, decode_mfu.hpp, fusion_analysis.hpp, accuracy.hpp, batch_sweep.hpp,
// record_table.hpp), the members of results.analysis (roofline/analysis_results.hpp). Keys:
// docs/results-schema.md.
#include "roofline/analysis.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/record_table.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

/// analysis.energy and analysis.step_sweep: computed when the file has an energy reading or a step
/// sweep (older files get neither block).
void energy_blocks(analysis_results& a, const results& r) {
  bool any = r.measured.idle_energy.has_value();
  for (const auto& b : r.measured.bandwidth) any |= b.energy.has_value();
  for (const auto& c : r.measured.compute) any |= c.energy.has_value();
  for (const auto& w : r.whole_step) any |= w.energy.has_value();
  const energy_roofline e = analyse_energy(r);
  a.energy.reset();
  if (any) a.energy = e;
  a.step_sweep = analyse_step_sweep(r, e);
}

}  // namespace

void analyse(results& r) {
  std::optional<double> fastest;  // the fastest usable memory level: nothing moves bytes faster
  for (const auto& b : r.measured.bandwidth)
    if (usable_as_roof(b) && (!fastest || b.bytes_per_s > *fastest)) fastest = b.bytes_per_s;
  for (auto& op : r.ops) {
    judge_plausibility(op, r.roofline, fastest);
    refresh_advice(op, r.roofline, r.device.kind);
  }
  analysis_results& a = r.analysis;
  a.roofline_gaps = roofline_gaps(r.roofline);
  a.compute_waterfall = analyse_compute_waterfall(r);
  a.bandwidth_waterfall = analyse_bandwidth_waterfall(r);
  a.ridge = analyse_ridge(r);
  a.mfu = analyse_mfu(r);
  a.fusion = analyse_fusion(r);
  a.accuracy = analyse_accuracy(r);
  // the sweep `roofline run` measured; a block of another shape (an older one, a malformed one) stays
  // in analysis.other as it was read
  if (a.batch_sweep) a.batch_sweep = analyse_batch_sweep(*a.batch_sweep, r.roofline.ridge_measured);
  energy_blocks(a, r);
  a.record_table = record_table(r);
  for (const char* key : {"roofline_gaps", "compute_waterfall", "bandwidth_waterfall", "ridge", "mfu", "fusion", "accuracy",
                          "energy", "step_sweep", "record_table"}) {  // computed afresh: an old text of them is gone
    a.other->erase(key);
    a.unreadable.erase(key);
  }
}

bool reanalyse_if_older(results& r) {
  if (r.schema_version != "1.0") return false;  // 1.1 and later: the typed blocks as analyse() writes them
  analyse(r);
  return true;
}

}  // namespace roofline
