// The run's latency model, whole-step measurements and the decode step sweep over batch, and the idle
// energy read (docs/formulas-analysis.md §7, §8, §10).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include "run/pipeline.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/units.hpp"
#include "roofline/whole_step.hpp"

namespace roofline::job {

latency_model op_latency_model(backend& be, results& r, const std::string& precision) {
  latency_model lat = latency_model_from(r.measured, r.device.kind, precision);
  if (!r.measured.small_work && !r.measured.launch && r.device.kind != "cpu") {
    // neither probe ran (--only): the backend's graph launch floor, measured on first use
    const double f = be.launch_floor_s();
    if (f > 0) {
      lat.floor_s = f;
      lat.source = fmt::format("measured floor {} µs (launch floor, measured on first use); memory latency "
                               "{} µs by default (no ramp measured)", units::fixed(f * 1e6, 2), units::fixed(lat.latency_s * 1e6, 2));
    }
  }
  r.analysis.latency_model = lat;
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

/// The op table's measurement of `p` (matched by phase, batch, FLOPs, bytes and count: the same
/// catalogue entry), skipping the entries in `used`; null when there is none.
const op_result* table_op(const results& r, const op_result& p, std::map<const op_result*, bool>& used) {
  for (const auto& o : r.ops)
    if (!used[&o] && o.phase == p.phase && o.batch == p.batch && o.flops == p.flops && o.bytes == p.bytes &&
        o.count == p.count)
      return &o;
  return nullptr;
}

/// Σ measured_s × count of the isolated op measurements of this step (table_op), nullopt when one is
/// missing.
std::optional<double> sum_of_ops(const results& r, const std::vector<op_result>& placed) {
  double sum = 0;
  std::map<const op_result*, bool> used;
  for (const auto& p : placed) {
    const op_result* hit = table_op(r, p, used);
    if (!hit || !hit->measured_s) return std::nullopt;
    used[hit] = true;
    sum += *hit->measured_s * static_cast<double>(p.count);
  }
  return sum;
}

}  // namespace

/// The decode batches of the step sweep: --step-batches, else 1, 2, 4, … 256 (quick: 1, 8, 64 —
/// enough for the knee rule, which needs batches ≤ 8 and one above).
std::vector<std::int64_t> step_sweep_batches(const run_options& opt) {
  if (!opt.step_batches.empty()) {
    std::vector<std::int64_t> b = opt.step_batches;
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
  }
  if (opt.quick) return {1, 8, 64};
  std::vector<std::int64_t> b;
  for (std::int64_t x = 1; x <= 256; x *= 2) b.push_back(x);
  return b;
}

namespace {

/// Device memory (bytes) the KV-cache bound uses: the GPU's (device.properties.memory_bytes), the
/// CPU's physical memory (sysconf); nullopt when unknown.
std::optional<double> device_memory_bytes(const results& r) {
  const json& p = r.device.properties;
  if (p.is_object() && p.contains("memory_bytes") && p["memory_bytes"].is_number()) return p["memory_bytes"].get<double>();
  if (r.device.kind == "cpu") {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) return static_cast<double>(pages) * static_cast<double>(page);
  }
  return std::nullopt;
}

}  // namespace

step_sweep_plan plan_step_sweep(const results& r, const model_config& cfg, const std::string& precision,
                                const run_options& opt) {
  step_sweep_plan p;
  p.context = opt.context;
  p.batches = step_sweep_batches(opt);
  if (opt.tpot_target_s > 0) p.tpot_target_s = opt.tpot_target_s;
  const int b = dtype_bytes(precision == "tf32" ? "fp32" : precision);
  p.weights_bytes = static_cast<double>(cfg.parameters()) * b;
  p.kv_bytes_per_sequence = kv_cache_bytes(cfg, b, opt.context + 1);
  p.memory_bytes = device_memory_bytes(r);
  if (p.memory_bytes && p.kv_bytes_per_sequence > 0)
    p.kv_capacity_batch = static_cast<std::int64_t>(std::max(0.0, (*p.memory_bytes - p.weights_bytes) / p.kv_bytes_per_sequence));
  return p;
}

bool kv_cache_fits(const step_sweep_plan& plan, std::int64_t b) {
  return !plan.kv_capacity_batch || b <= *plan.kv_capacity_batch;
}

void measure_idle_energy(backend& be, results& r, const run_options& opt) {
  // The device at rest: the energy counter over a short pause before any probe (the energy roofline's
  // idle power, docs/formulas-analysis.md §10).
  const energy_mark a = be.energy_now();
  std::this_thread::sleep_for(std::chrono::duration<double>(opt.quick ? 0.2 : 1.1 * min_energy_window_s));
  const energy_mark b = be.energy_now();
  r.measured.idle_energy = be.energy_between(a, b);
}

namespace {

/// One whole step timed (be.run_step) into w: its median and best time, note, energy window and executed
/// FLOPs; a failure's reason into w.note and r.errors (`lost` set where the device is gone).
void time_whole_step(backend& be, const std::vector<op_desc>& step, const timing_options& timing, const std::string& label,
                     whole_step_result& w, results& r, bool& lost) {
  try {
    const op_timing t = be.run_step(step, timing);
    w.measured_s = t.seconds;
    w.best_s = t.best_seconds;
    w.note = t.note;
    w.energy = t.energy;
    if (t.executed) w.flops_executed_tensor = t.executed->tensor, w.flops_executed_cuda_cores = t.executed->cuda_cores;
  } catch (const device_lost_error& e) {
    lost = true;
    w.note = std::string("failed: ") + e.what();
    r.errors.push_back({label, e.what()});
  } catch (const probe_error& e) {
    w.note = std::string("failed: ") + e.what();
    r.errors.push_back({label, e.what()});
  }
}

}  // namespace

void measure_whole_steps(backend& be, results& r, const model_config& cfg, const std::string& precision,
                         const latency_model& lat, const run_options& opt, bool& lost, const progress_fn& progress,
                         const std::function<bool()>& interrupted, timing_windows& windows) {
  struct scenario { phase ph; std::int64_t batch, len; };
  step_sweep_plan plan = plan_step_sweep(r, cfg, precision, opt);
  progress(fmt::format("whole steps: KV-cache capacity at context {}: {}", plan.context,
                       plan.kv_capacity_batch ? fmt::format("{} sequences ({} of KV per sequence beside {} of weights in {})",
                                                            *plan.kv_capacity_batch, units::bytes_binary(plan.kv_bytes_per_sequence),
                                                            units::bytes_binary(plan.weights_bytes), units::bytes_binary(*plan.memory_bytes))
                                              : std::string("unknown (device memory unknown)")),
           0.955);
  std::vector<scenario> scenarios;
  for (const auto b : plan.batches) {
    if (!kv_cache_fits(plan, b)) {
      plan.notes.push_back(fmt::format("decode batch {}: not run (its KV cache, {} × {}, does not fit beside the weights: "
                                       "capacity {} sequences)",
                                       b, b, units::bytes_binary(plan.kv_bytes_per_sequence), *plan.kv_capacity_batch));
      continue;
    }
    scenarios.push_back({phase::decode, b, plan.context});
  }
  scenarios.push_back({phase::prefill, 1, opt.seq});
  const bool cpu = r.device.kind == "cpu";
  // predicted step time above which it is not run
  const double budget_s = opt.step_budget_s > 0 ? opt.step_budget_s : opt.quick ? 0.02 : (cpu ? 5.0 : 1.0);
  // the decode sweep's whole predicted cost (plan_step_replays' cost_s), above which the larger
  // batches are not run: a short run (TinyLlama on a CPU: batch 256 would hold 24 GB of fp32 KV cache
  // and take minutes per step); on a GPU the sweep's replays take ~1.05 s per batch (its energy window)
  const double sweep_budget_s = opt.step_budget_s > 0 ? 1e300 : cpu ? (opt.quick ? 1.0 : 10.0) : 30.0;
  double sweep_spent_s = 0;
  double sweep_wall_s = 0;  // wall time of the decode steps run: setup, verification and replays
  int sweep_run = 0;
  struct measured_step { std::int64_t batch; std::vector<op_desc> step; };
  std::optional<measured_step> first_decode;  // the first decode step measured: the drift check's op
  // The drift check (docs/formulas-analysis.md §8.2): the first decode step's largest op again, as
  // the op table timed it, beside its op-table time; run once, right after the decode sweep (before
  // the prefill step), so that it sees the machine the decode steps ran on.
  bool drift_checked = false;
  const auto drift_check_now = [&] {
    drift_checked = true;
    if (sweep_run == 0 || !first_decode || lost || interrupted()) return;
    const auto& step = first_decode->step;
    const auto big = std::max_element(step.begin(), step.end(),
                                      [](const op_desc& a, const op_desc& b) { return a.bytes() < b.bytes(); });
    std::map<const op_result*, bool> used;
    const op_result placed = place_op(*big, r.roofline, lat);
    const op_result* table = table_op(r, placed, used);
    if (table && table->measured_s && *table->measured_s > 0) {
      progress(fmt::format("whole steps: drift check, {} (decode b{}) again", big->name, first_decode->batch), 0.96);
      windows.begin();
      try {
        const op_timing t = be.run_op(*big, opt.quick ? quick_timing() : ops_timing());
        if (!std::isfinite(t.seconds) || !(t.seconds > 0))  // impossible: say so, write no check
          throw probe_error(fmt::format("{} timed at an impossible {} s", big->name, t.seconds));
        plan.drift = drift_check{big->name,           fmt::format("decode b{}", first_decode->batch),
                                 big->bytes(),        placed.predicted_s,
                                 *table->measured_s,  t.seconds};
      } catch (const device_lost_error& e) {
        lost = true;
        r.errors.push_back({"whole steps: drift check", e.what()});
      } catch (const probe_error& e) {
        r.errors.push_back({"whole steps: drift check", e.what()});
      }
      // taken while the machine was busy, the time after the sweep says nothing about the machine moving
      windows.end("whole steps: drift check", [&plan](const interference_sample& s) {
        if (!plan.drift) return false;
        std::optional<double> after = plan.drift->after_s, disturbed;
        std::string note;
        keep_out_timing(after, disturbed, note, s);
        plan.notes.push_back("drift check (" + plan.drift->op + " again after the sweep): " + note);
        plan.drift.reset();
        return true;
      });
    }
  };
  // The decode GEMMs' energy (docs/formulas-analysis.md §10.3): the linear layers of the smallest decode batch
  // measured, then of the largest, replayed alone as a whole step right after the sweep, on the machine the
  // steps ran on: what a FLOP of them costs at the clock the steps run at (the roof GEMM's J/FLOP is read
  // where the power cap holds the clock lower). Replayed alone the linear layers draw more than the step
  // (an H100's at batch 256: 700 W, the step 636 W): one at the power cap is followed by the next smaller
  // batch, up to four.
  const auto linear_layers_now = [&] {
    if (cpu || opt.quick || lost || interrupted()) return;
    std::vector<std::int64_t> measured;
    for (const auto& w : r.whole_step)
      if (w.phase == "decode" && w.context == plan.context && w.measured_s && w.energy) measured.push_back(w.batch);
    if (measured.empty()) return;
    std::sort(measured.begin(), measured.end());
    const std::optional<double> limit = device_power_limit_w(r);
    int large_tries = 0;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      // the smallest first, then from the largest down while the last one ran at the power cap
      const std::int64_t b = i == 0 ? measured.front() : measured[measured.size() - i];
      if (i > 0) {
        if (b == measured.front() || large_tries == 4) return;
        if (large_tries > 0 && !(plan.linear_layers.back().energy && at_power_cap(*plan.linear_layers.back().energy, limit)))
          return;
        ++large_tries;
      }
      std::vector<op_desc> step;
      for (auto& op : step_catalogue(cfg, phase::decode, b, plan.context, precision))
        if (op.kind == op_kind::gemm) step.push_back(std::move(op));
      if (step.empty() || lost || interrupted()) return;
      whole_step_result w;
      w.phase = "decode";
      w.batch = b;
      w.context = plan.context;
      std::vector<op_result> placed;
      double flops = 0, bytes = 0;
      for (const auto& op : step) {
        placed.push_back(place_op(op, r.roofline, lat));
        flops += op.flops * static_cast<double>(op.count), bytes += op.bytes() * static_cast<double>(op.count);
      }
      w.kernels = static_cast<std::int64_t>(step_order(step).size());
      w.predicted_s = predict_step(placed, w.kernels, lat.switch_s);
      w.flops = flops, w.bytes = bytes;
      const std::string label = fmt::format("whole step: decode batch {} context {}, linear layers alone", b, plan.context);
      progress(fmt::format("whole steps: decode b{} linear layers alone (the decode GEMMs' J/FLOP)", b), 0.96);
      windows.begin();
      time_whole_step(be, step, plan_step_replays(true, false, true, w.predicted_s, min_energy_window_s).timing, label, w, r,
                      lost);
      if (w.measured_s) w.note = "the decode step's linear layers alone: " + w.note;
      plan.linear_layers.push_back(std::move(w));
      windows.end(label, [&plan, k = plan.linear_layers.size() - 1](const interference_sample& s) {
        whole_step_result& x = plan.linear_layers[k];
        if (!keep_out_timing(x.measured_s, x.disturbed_s, x.note, s)) return false;
        x.best_s.reset();
        return true;
      });
    }
  };
  const auto after_decode_sweep = [&] {
    linear_layers_now();
    drift_check_now();
  };
  for (const auto& sc : scenarios) {
    if (sc.ph != phase::decode && !drift_checked) after_decode_sweep();
    whole_step_result w;
    w.phase = to_string(sc.ph);
    w.batch = sc.batch;
    if (sc.ph == phase::decode) w.context = sc.len;
    else w.seq = sc.len;
    const auto step = step_catalogue(cfg, sc.ph, sc.batch, sc.len, precision);
    std::vector<op_result> placed;
    for (const auto& op : step) placed.push_back(place_op(op, r.roofline, lat));
    w.kernels = static_cast<std::int64_t>(step_order(step).size());
    w.predicted_s = predict_step(placed, w.kernels, lat.switch_s);
    w.sum_of_ops_s = sum_of_ops(r, placed);
    double flops = 0, bytes = 0;
    for (const auto& op : step) flops += op.flops * static_cast<double>(op.count), bytes += op.bytes() * static_cast<double>(op.count);
    w.flops = flops, w.bytes = bytes;
    const std::string label = fmt::format("whole step: {} batch {} {} {}", w.phase, sc.batch,
                                          sc.ph == phase::decode ? "context" : "seq", sc.len);
    // every GPU decode step replayed long enough for its energy reading (plan_step_replays)
    const step_replay_plan replay = plan_step_replays(!cpu, opt.quick, sc.ph == phase::decode, w.predicted_s, min_energy_window_s);
    const double cost_s = replay.cost_s;
    bool timed = false;  // run_step ran: its window decides whether the time stands
    if (lost) {
      w.note = "not run (device lost earlier in the run)";
    } else if (interrupted()) {
      w.note = "not run (interrupted)";
    } else if (const auto bad = std::find_if(step.begin(), step.end(),
                                             [](const op_desc& op) { return !unrunnable_reason(op).empty(); });
               bad != step.end()) {
      w.note = fmt::format("not run: op {}: {}", bad->name, unrunnable_reason(*bad));
    } else if (w.predicted_s > budget_s) {
      w.note = fmt::format("not run (predicted {} s per step, over the {} s budget{}; --step-budget raises it)",
                           units::general(w.predicted_s), units::general(budget_s), opt.quick && opt.step_budget_s <= 0 ? " of --quick" : "");
    } else if (sc.ph == phase::decode && sc.batch > 1 && std::max(sweep_spent_s, sweep_wall_s) + cost_s > sweep_budget_s) {
      // spent: the wall time of the batches run (their ops' allocation and verification included: on a
      // CPU several times their replays), at least their predicted replays
      w.note = fmt::format("not run (the decode sweep's {} s budget on this {}: {} s spent, this batch needs about "
                           "{} s more; --step-budget lifts it)",
                           units::general(sweep_budget_s), cpu ? "CPU" : "device",
                           units::general(std::max(sweep_spent_s, sweep_wall_s)), units::general(cost_s));
    } else {
      progress(label, 0.96);
      if (sc.ph == phase::decode) sweep_spent_s += cost_s;
      const double wall0 = now_s();
      windows.begin();
      timed = true;
      time_whole_step(be, step, replay.timing, label, w, r, lost);
      if (sc.ph == phase::decode) sweep_wall_s += now_s() - wall0, ++sweep_run;
      if (sc.ph == phase::decode && w.measured_s && !first_decode) first_decode = measured_step{sc.batch, step};
    }
    if (sc.ph == phase::decode && !w.measured_s) plan.notes.push_back(fmt::format("decode batch {}: {}", sc.batch, w.note));
    r.whole_step.push_back(std::move(w));
    if (timed)
      windows.end(label, [&r, &plan, k = r.whole_step.size() - 1](const interference_sample& s) {
        whole_step_result& x = r.whole_step[k];
        if (!keep_out_timing(x.measured_s, x.disturbed_s, x.note, s)) return false;
        x.best_s.reset();
        if (x.phase == "decode") plan.notes.push_back(fmt::format("decode batch {}: {}", x.batch, x.note));
        return true;
      });
  }
  if (!drift_checked) after_decode_sweep();
  windows.close();  // every step judged before the plan is stored
  if (sweep_run > 0)
    plan.notes.push_back(fmt::format("{} decode batches run in {} s of wall time (each step's ops allocated and "
                                     "verified, then its replays timed)",
                                     sweep_run, units::fixed(sweep_wall_s, 1)));
  r.step_sweep = std::move(plan);
}

}  // namespace roofline::job
