// The run's latency model and whole-step measurements (docs/formulas-analysis.md §7, §8).
#include <algorithm>
#include <fmt/format.h>

#include <map>

#include "app/pipeline.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/whole_step.hpp"

namespace roofline::app {

latency_model op_latency_model(backend& be, results& r, const std::string& precision) {
  latency_model lat = latency_model_from(r.measured, r.device.kind, precision);
  if (!r.measured.small_work && !r.measured.launch && r.device.kind != "cpu") {
    // neither probe ran (--only): the backend's graph launch floor, measured on first use
    const double f = be.launch_floor_s();
    if (f > 0) {
      lat.floor_s = f;
      lat.source = fmt::format("measured floor {:.2f} µs (launch floor, measured on first use); memory latency "
                               "{:.2f} µs by default (no ramp measured)", f * 1e6, lat.latency_s * 1e6);
    }
  }
  r.analysis["latency_model"] = latency_model_json(lat);
  return lat;
}

namespace {

/// The catalogue of one whole step as `roofline run` measures its ops (one-pass norms, fused prefill
/// attention, SiLU then mul).
std::vector<op_desc> step_catalogue(const model_config& cfg, phase ph, std::int64_t batch, std::int64_t len,
                                    const std::string& dtype) {
  catalogue_options o;
  o.ph = ph;
  o.batch = batch;
  if (ph == phase::decode) o.context = len;
  else o.seq = len;
  o.dtype = dtype;
  o.one_pass_norms = true;
  o.fused_attention = true;
  return build_catalogue(cfg, o);
}

/// Σ measured_s × count of the isolated op measurements of this step (matched by phase, batch,
/// FLOPs and bytes: the same catalogue entry), nullopt when one is missing.
std::optional<double> sum_of_ops(const results& r, const std::vector<op_result>& placed) {
  double sum = 0;
  std::map<const op_result*, bool> used;
  for (const auto& p : placed) {
    const op_result* hit = nullptr;
    for (const auto& o : r.ops)
      if (!used[&o] && o.phase == p.phase && o.batch == p.batch && o.flops == p.flops && o.bytes == p.bytes &&
          o.count == p.count) {
        hit = &o;
        break;
      }
    if (!hit || !hit->measured_s) return std::nullopt;
    used[hit] = true;
    sum += *hit->measured_s * static_cast<double>(p.count);
  }
  return sum;
}

}  // namespace

void measure_whole_steps(backend& be, results& r, const model_config& cfg, const std::string& precision,
                         const latency_model& lat, const run_options& opt, bool& lost, const progress_fn& progress,
                         const std::function<bool()>& interrupted) {
  struct scenario { phase ph; std::int64_t batch, len; };
  const std::vector<scenario> scenarios = {{phase::decode, 1, 2048}, {phase::decode, 32, 2048}, {phase::prefill, 1, 2048}};
  const bool cpu = r.device.kind == "cpu";
  // a whole step is one long sample: few repeats (medians of 3–5 steps of ~1 ms–1 s each)
  const timing_options timing = opt.quick ? quick_timing() : timing_options{1, cpu ? 3 : 10, cpu ? 10 : 200, 0.2, 2.0};
  // predicted step time above which it is not run
  const double budget_s = opt.step_budget_s > 0 ? opt.step_budget_s : opt.quick ? 0.02 : (cpu ? 5.0 : 1.0);
  for (const auto& sc : scenarios) {
    whole_step_result w;
    w.phase = to_string(sc.ph);
    w.batch = sc.batch;
    if (sc.ph == phase::decode) w.context = sc.len;
    else w.seq = sc.len;
    const auto step = step_catalogue(cfg, sc.ph, sc.batch, sc.len, precision);
    std::vector<op_result> placed;
    for (const auto& op : step) placed.push_back(place_op(op, r.roofline, lat));
    w.predicted_s = sum_predicted(placed);
    w.sum_of_ops_s = sum_of_ops(r, placed);
    w.kernels = static_cast<std::int64_t>(step_order(step).size());
    const std::string label = fmt::format("whole step: {} batch {} {} {}", w.phase, sc.batch,
                                          sc.ph == phase::decode ? "context" : "seq", sc.len);
    if (lost) {
      w.note = "not run (device lost earlier in the run)";
    } else if (interrupted()) {
      w.note = "not run (interrupted)";
    } else if (const auto bad = std::find_if(step.begin(), step.end(),
                                             [](const op_desc& op) { return !unrunnable_reason(op).empty(); });
               bad != step.end()) {
      w.note = fmt::format("not run: op {}: {}", bad->name, unrunnable_reason(*bad));
    } else if (w.predicted_s > budget_s) {
      w.note = fmt::format("not run (predicted {:.3g} s per step, over the {:.3g} s budget{}; --step-budget raises it)",
                           w.predicted_s, budget_s, opt.quick && opt.step_budget_s <= 0 ? " of --quick" : "");
    } else {
      progress(label, 0.96);
      try {
        const op_timing t = be.run_step(step, timing);
        w.measured_s = t.seconds;
        w.best_s = t.best_seconds;
        w.note = t.note;
      } catch (const device_lost_error& e) {
        lost = true;
        w.note = std::string("failed: ") + e.what();
        r.errors.push_back({label, e.what()});
      } catch (const probe_error& e) {
        w.note = std::string("failed: ") + e.what();
        r.errors.push_back({label, e.what()});
      }
    }
    r.whole_step.push_back(std::move(w));
  }
}

}  // namespace roofline::app
