// Whether a run's results stand (roofline/run_verdict.hpp).
#include "roofline/run_verdict.hpp"

#include "roofline/results.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

run_verdict decide_run(const run_facts& f) {
  run_verdict v;
  v.precision = f.precision;
  v.busy = f.busy;
  v.no_compute_roof = f.compute_rows > 0 && f.compute_standing == 0;
  v.no_memory_roof = f.memory_rows > 0 && f.memory_standing == 0;
  v.ops_kept_out = f.ops_kept_out;
  v.steps_kept_out = f.steps_kept_out;
  v.stands = !v.no_compute_roof && !v.no_memory_roof && f.ops_kept_out == 0 && f.steps_kept_out == 0;
  return v;
}

run_verdict judge_run(const results& r) {
  run_facts f;
  f.precision = main_precision(r);
  std::string compute_rejection, memory_rejection;
  for (const auto& c : r.measured.compute) {
    if (c.precision != f.precision) continue;
    ++f.compute_rows;
    if (!c.rejected && c.flops_per_s > 0) ++f.compute_standing;
    else if (compute_rejection.empty()) compute_rejection = c.rejected_reason;
  }
  for (const auto& b : r.measured.bandwidth) {
    if (!is_device_memory(b.level) || is_transition_level(b.level)) continue;
    ++f.memory_rows;
    if (usable_as_roof(b)) ++f.memory_standing;
    else if (memory_rejection.empty()) memory_rejection = b.rejected_reason;
  }
  if (r.interference) {
    f.busy = r.interference->busy;
    f.ops_kept_out = r.interference->ops_kept_out;
    f.steps_kept_out = r.interference->steps_kept_out;
  }
  run_verdict v = decide_run(f);
  if (v.busy) v.busy_summary = r.interference->summary;
  v.rejection = v.no_compute_roof ? compute_rejection : v.no_memory_roof ? memory_rejection : "";
  return v;
}

}  // namespace roofline
