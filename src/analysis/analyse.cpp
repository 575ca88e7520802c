// analyse(): every view of the gap, computed once into typed blocks (roofline/waterfall.hpp,
// ridge_analysis.hpp, decode_mfu.hpp, fusion_analysis.hpp, accuracy.hpp, batch_sweep.hpp,
// record_table.hpp) and written into results.analysis as their JSON. Keys: docs/results-schema.md.
#include "roofline/analysis.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/record_table.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

/// analysis.energy and analysis.step_sweep: written when the file has an energy reading or a step
/// sweep (older files get neither key).
void energy_blocks(json& a, const results& r) {
  bool any = r.measured.idle_energy.has_value();
  for (const auto& b : r.measured.bandwidth) any |= b.energy.has_value();
  for (const auto& c : r.measured.compute) any |= c.energy.has_value();
  for (const auto& w : r.whole_step) any |= w.energy.has_value();
  const energy_roofline e = analyse_energy(r);
  if (any) a["energy"] = e;
  else a.erase("energy");
  if (auto s = analyse_step_sweep(r, e)) a["step_sweep"] = *s;
  else a.erase("step_sweep");
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
  json a = r.analysis.is_object() ? r.analysis : json::object();
  a["roofline_gaps"] = roofline_gaps(r.roofline);
  a["compute_waterfall"] = analyse_compute_waterfall(r);
  a["bandwidth_waterfall"] = analyse_bandwidth_waterfall(r);
  a["ridge"] = analyse_ridge(r);
  a["mfu"] = analyse_mfu(r);
  a["fusion"] = analyse_fusion(r);
  a["accuracy"] = analyse_accuracy(r);
  // the sweep `roofline run` measured; any other shape (an older one, a malformed one) is left as it is
  const auto sweep = a.find("batch_sweep");
  if (sweep != a.end() && sweep->is_object() && sweep->contains("shapes")) try {
      *sweep = analyse_batch_sweep(sweep->get<batch_sweep>(), r.roofline.ridge_measured);
    } catch (const json::exception&) {
    }
  energy_blocks(a, r);
  a["record_table"] = to_json(record_table(r));
  r.analysis = a;
}

bool reanalyse_if_older(results& r) {
  if (r.schema_version != "1.0") return false;  // 1.1 and later: the typed blocks as analyse() writes them
  analyse(r);
  return true;
}

}  // namespace roofline
