#include "run/pipeline.hpp"

#include "run/measure_driver.hpp"

#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <memory>

#include "run/progress.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/json.hpp"
#include "roofline/latency.hpp"
#include "roofline/model.hpp"
#include "roofline/model_record.hpp"
#include "roofline/sanity.hpp"
#include "roofline/timing_windows.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::job {

namespace {

std::atomic<int> g_signal{0};
extern "C" void on_signal(int sig) { g_signal.store(sig); }

struct signal_guard {
  struct sigaction old_int{}, old_term{};
  signal_guard() {
    g_signal.store(0);
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~signal_guard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};

bool interrupted() { return g_signal.load() != 0; }

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// The op scenarios of the job: decode at each batch of opt.batches (context opt.context), prefill
/// of opt.seq tokens with fused attention, plus, beside the ops they stand for (alternative_to, never
/// in a step total): naive prefill attention and its softmax, the fused silu_mul and the two-pass
/// input norm. Every decode batch has the same set of op names; attention is named by its kind
/// (attention_fused, attention_naive) so names are unique within a phase.
std::vector<op_desc> scenario_ops(const model_config& cfg, const run_options& opt, const std::string& dtype,
                                  std::vector<std::string>& alternative_to) {
  std::vector<op_desc> all;
  auto push = [&](op_desc op, std::string alt) {
    if (op.kind == op_kind::attention_fused) op.name = "attention_fused";
    if (op.kind == op_kind::attention_naive) op.name = "attention_naive";
    all.push_back(std::move(op));
    alternative_to.push_back(std::move(alt));
  };
  auto add = [&](catalogue_options o, bool attention_only) {
    o.dtype = dtype;
    o.one_pass_norms = true;  // both backends run one-pass norm kernels
    catalogue_options two_pass = o;
    two_pass.one_pass_norms = false;
    const auto unfused = build_catalogue(cfg, two_pass);
    const auto ops = build_catalogue(cfg, o);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const op_desc& op = ops[i];
      if (attention_only && op.kind != op_kind::attention_naive) continue;
      push(op, attention_only ? "attention_fused" : "");
      // The two-pass form beside the one-pass input norm (fusion, measured): x read twice, the
      // catalogue's convention.
      if (op.kind == op_kind::rmsnorm && op.name == "input_norm") {
        op_desc two = unfused[i];
        two.name += "_two_pass";
        push(two, "input_norm");
      }
      // The fused SwiGLU activation beside the unfused silu then mul (fusion, measured):
      // 3 tensors instead of 5 — the measured time ratio is set against the 3/5 byte ratio.
      // At every scenario, decode batch 1 included: there the saving is a whole kernel's floor.
      if (op.kind == op_kind::mul) {
        op_desc fused = elementwise_op(op_kind::silu_mul, "silu_mul", op.rows, op.cols, op.dtype_bytes);
        fused.ph = op.ph, fused.batch = op.batch, fused.seq = op.seq, fused.context = op.context;
        fused.count = op.count;
        push(fused, "silu + mul");
      }
      // The softmax inside naive attention, as its own row at the scores' shape (already part of
      // the attention op's bytes: listed beside it, never added to a step total).
      if (op.kind == op_kind::attention_naive) push(attention_softmax_op(op), "attention_naive");
    }
  };
  for (const auto b : opt.batches) {
    catalogue_options d;
    d.ph = phase::decode;
    d.context = opt.context;
    d.batch = b;
    add(d, false);
  }
  catalogue_options p;
  p.ph = phase::prefill;
  p.seq = opt.seq;
  p.batch = 1;
  p.fused_attention = true;
  add(p, false);
  p.fused_attention = false;
  add(p, true);
  return all;
}

struct op_runner {
  backend& be;
  results& r;
  const run_options& opt;
  timing_options timing;
  bool& lost;
  timing_windows& windows;  ///< judges the timings for interference (CPU), in windows of ≥ 0.1 s

  /// Measures `op` into `res` (measured_s, or measured_note saying why not); errors are recorded.
  /// True when it was timed (or failed while timed): the caller then closes the timing with
  /// windows.end once the result is stored, so a busy window can keep it out.
  bool measure(const op_desc& op, op_result& res, const std::string& label) {
    if (!opt.measure_ops) {
      res.measured_note = "not run (ops measurement disabled)";
    } else if (lost) {
      res.measured_note = "not run (device lost earlier in the run)";
    } else if (interrupted()) {
      res.measured_note = "not run (interrupted)";
    } else if (const std::string why = unrunnable_reason(op); !why.empty()) {
      res.measured_note = "not run: " + why;
    } else if (opt.quick && res.predicted_s > 0.02) {
      res.measured_note = "not run (--quick skips ops predicted over 20 ms; predicted " + units::general(res.predicted_s, 3) + " s)";
    } else {
      windows.begin();
      try {
        const op_timing t = be.run_op(op, timing);
        res.measured_s = t.seconds;
        res.measured_note = t.note;
        res.implementation = t.implementation;
        res.choice = t.choice;
      } catch (const device_lost_error& e) {
        lost = true;
        res.measured_note = std::string("failed: ") + e.what();
        r.errors.push_back({label, e.what()});
      } catch (const probe_error& e) {
        res.measured_note = std::string("failed: ") + e.what();
        r.errors.push_back({label, e.what()});
      }
      return true;
    }
    return false;
  }
};

/// The per-point time budget of the decode linear batch sweep (s): a larger batch is not measured
/// after a point took longer (each batch doubles the work; a GPU's points take micro- to milliseconds).
constexpr double sweep_point_budget_s = 0.5;

/// Decode linear batch sweep, measured: [B×k]·[k×n] at B = 1, 2, 4 … 1024 for the model's
/// gate_proj and Llama-2-7B's (k 4096, n 11008); predicted and measured time per batch. The knees
/// are analysis (analyse_batch_sweep, run by analyse()).
batch_sweep measure_batch_sweep(op_runner& run, const model_config& cfg, const std::string& dtype, const latency_model& floor,
                                const progress_fn& progress) {
  struct shape { std::string label; std::int64_t k, n; };
  std::vector<shape> shapes = {{cfg.name + " gate_proj", cfg.hidden, cfg.intermediate}};
  if (!run.opt.quick) shapes.push_back({"Llama-2-7B gate_proj", 4096, 11008});
  const std::vector<std::int64_t> batches =
      run.opt.quick ? std::vector<std::int64_t>{1, 32, 256}
                    : std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  const int b = dtype_bytes(dtype);
  batch_sweep out;
  for (const auto& sh : shapes) {
    out.shapes.push_back({sh.label, sh.k, sh.n, dtype, {}, std::nullopt, std::nullopt});
    const std::size_t si = out.shapes.size() - 1;
    std::string stop;  // why the larger batches are predicted only
    for (const auto B : batches) {
      const op_desc op = gemm_op("sweep " + sh.label, B, sh.n, sh.k, b);
      op_result res = place_op(op, run.r.roofline, floor);
      progress(fmt::format("batch sweep: {} B={}", sh.label, B), 0.95);
      const std::string label = fmt::format("batch sweep {} B={}", sh.label, B);
      bool timed = false;
      if (!stop.empty()) res.measured_note = stop;
      else timed = run.measure(op, res, label);
      // Each batch doubles the work: once one point takes longer than the sweep's per-point budget
      // (past the knee on a small CPU), the larger ones are predicted only.
      if (stop.empty() && res.measured_s && *res.measured_s > sweep_point_budget_s)
        stop = fmt::format("not run: batch {} took {} (over the sweep's {} a point) and each batch doubles the work", B,
                           units::seconds(*res.measured_s), units::seconds(sweep_point_budget_s));
      sweep_point p{B, op.intensity(), op.flops, op.bytes(), res.predicted_s, res.measured_s, std::nullopt,
                    res.measured_note, res.implementation};
      if (res.measured_s) p.measured_flops_per_s = op.flops / *res.measured_s;
      out.shapes[si].points.push_back(std::move(p));
      const std::size_t pi = out.shapes[si].points.size() - 1;
      if (timed)
        run.windows.end(label, [&out, si, pi](const interference_sample& s) {
          sweep_point& x = out.shapes[si].points[pi];
          std::optional<double> disturbed;
          if (!keep_out_timing(x.measured_s, disturbed, x.note, s)) return false;
          x.measured_flops_per_s.reset();
          return true;
        });
    }
  }
  run.windows.close();  // every point judged before the sweep leaves
  return out;
}

}  // namespace

void fill_provenance(results& r, const std::string& command) {
  r.tool.version = ROOFLINE_VERSION;
  r.tool.build_type = ROOFLINE_BUILD_TYPE;
#if defined(__clang__)
  r.tool.compiler = fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  r.tool.compiler = fmt::format("g++ {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
#ifdef ROOFLINE_HAVE_CUDA
  r.tool.cuda_backend = true;
#endif
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  r.host.hostname = host;
  struct utsname u{};
  if (::uname(&u) == 0) r.host.os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  r.host.timestamp = iso_now();
  r.host.command = command;
}

progress_fn stderr_progress(std::function<void(const std::string&)>* warn) {
  // A fleet rank's lines carry "[rank r/n] " (fleet::progress_label(); "" outside a fleet run) and are
  // plain lines: several ranks share one terminal.
  const bool fleet_rank = !fleet::progress_label().empty();
  const bool tty = !fleet_rank && ::isatty(STDERR_FILENO) == 1;
  std::size_t columns = 100;
  struct winsize ws{};
  if (tty && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns = ws.ws_col;
  auto meter = std::make_shared<progress_meter>(tty, [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }, columns);
  if (warn)  // a warning line of its own: a progress line left open on a terminal is ended first
    *warn = [meter](const std::string& line) {
      std::fputs((meter->finish() + fleet::progress_label() + "roofline: warning: " + line + "\n").c_str(), stderr);
      std::fflush(stderr);
    };
  return [meter](const std::string& what, double fraction) {
    std::fputs((fleet::progress_label() + meter->update(what, fraction)).c_str(), stderr);
    std::fflush(stderr);
  };
}

model_config load_run_model(const run_options& opt, std::string& model_path) {
  if (!opt.model_part) return model_config{};
  model_path = resolve_model_path(opt.model);
  std::string note;
  model_config cfg = runnable_weights(load_model_config(model_path), opt.dtype, opt.weights, note);
  if (!note.empty()) fmt::print(stderr, "roofline: {}\n", note);
  return cfg;
}

results run_pipeline(const run_options& opt, const model_config& cfg, const std::string& model_path) {
  signal_guard guard;
  std::function<void(const std::string&)> warn;
  const auto progress = stderr_progress(&warn);
  results r;
  fill_provenance(r, opt.command);
  if (r.tool.build_type != "Release")  // recorded in tool.build_type; the report warns beside the device
    fmt::print(stderr, "roofline: warning: not a Release build ({}): measurements may be slow\n", r.tool.build_type);

  auto be = make_backend(opt.device, {opt.uarch, opt.memory});

  progress("detecting the device", 0.0);
  r.device = be->describe();
  r.nominal = be->nominal();

  probe_options po;
  po.quick = opt.quick;
  po.timing = opt.quick ? quick_timing() : default_timing();
  po.only = opt.only;
  po.progress = progress;
  if (opt.model_part) {
    po.model_precision = !opt.dtype.empty() ? opt.dtype : default_precision(r.device.kind);
    // the model's linears and decode attention at every batch the op table and the step sweep run
    // (the GPU's gemm/rows and gemm/decode-attention): a sweep batch whose KV cache does not fit
    // beside the weights is not run, nor probed
    const step_sweep_plan sweep = plan_step_sweep(r, cfg, po.model_precision, opt);
    std::vector<std::int64_t> rows;
    for (const auto b : sweep.batches)
      if (kv_cache_fits(sweep, b)) rows.push_back(b);
    rows.insert(rows.end(), opt.batches.begin(), opt.batches.end());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    catalogue_options d;
    d.context = opt.context;
    d.dtype = po.model_precision;
    d.one_pass_norms = true;
    if (r.device.kind != "cpu") po.model_decode_ops = decode_probe_ops(cfg, d, rows);
  }
  auto probes = be->probes(po);
  if (!opt.only.empty() && std::none_of(probes.begin(), probes.end(), [&](const auto& p) { return probe_selected(opt.only, p); })) {
    std::string names;
    for (const auto& p : probes) names += (names.empty() ? "" : ", ") + p.name;
    throw input_error("", "--only", fmt::format("selects no probe on {} ({}); its probes: {}", r.device.name, r.device.id, names));
  }
  if (r.device.kind == "cpu" && !opt.dtype.empty() && opt.dtype != "fp32")
    throw input_error("", "--dtype", "'" + opt.dtype + "': the CPU backend runs its ops in fp32");
  measure_plan plan;
  plan.only = opt.only;
  plan.repeat = opt.repeat;
  plan.judge_cpu_interference = r.device.kind == "cpu" && opt.judge_interference;
  plan.rerun_identical = r.device.kind == "cpu";
  if (opt.judge_interference && be->device_processes())  // the device can tell who else holds it
    plan.device_users = [b = be.get()] {
      const auto seen = b->device_processes();
      return seen ? other_device_processes(*seen, static_cast<unsigned>(::getpid())) : std::vector<std::string>{};
    };
  plan.fail_probe = opt.fail_probe;
  plan.interrupted = interrupted;
  plan.progress = progress;
  plan.on_busy_before = [&warn](const interference_sample& s) {  // said before the long probes, not only at the end
    warn("the machine is busy before measuring (" + describe_interference(s) +
         "): each probe is judged and re-run once, and what stays disturbed, op and step timings included, is kept "
         "out of the roofs and the headline");
  };
  measure_idle_energy(*be, r, opt);  // before the probes warm the device
  const auto idle_energy = r.measured.idle_energy;
  bool lost = measure_probes(probes, plan, r);  // replaces r.measured with the probes' results
  r.measured.idle_energy = idle_energy;
  // A part the FMA table does not know: its nominal from the measured FMA rate, so labelled.
  if (r.device.kind == "cpu") be->complete_nominal(r.nominal, r.measured);

  const std::string precision = !opt.dtype.empty() ? opt.dtype : default_precision(r.device.kind);
  reject_impossible(r);  // a point that breaks a physical rule is never a roof
  r.roofline = summarize_roofline(r.nominal, r.measured, precision);

  if (!opt.model_part) {
    progress("analysing", 0.97);
    flag_results(r);
    analyse(r);
    progress("analysed", 1.0);
    if (interrupted()) r.status = "interrupted";
    else if (!r.errors.empty()) r.status = "partial";
    return r;
  }
  model_summary ms;
  ms.name = cfg.name;
  ms.source = model_path;
  ms.family = cfg.family;
  ms.parameters = cfg.parameters();
  ms.config = model_config_json(cfg);  // the config the ops ran with: analyse() rebuilds the model from it, anywhere
  r.model = ms;

  const latency_model floor = op_latency_model(*be, r, precision);
  std::vector<std::string> alternative_to;
  const auto ops = scenario_ops(cfg, opt, precision, alternative_to);
  const timing_options op_repeats = opt.quick ? quick_timing() : ops_timing();
  // The op and step timings judged for interference like the probes, in windows of ≥ 0.1 s: a timing
  // taken while the machine was busy is kept out (op_result::disturbed_s), never headlined.
  timing_windows op_windows(plan.judge_cpu_interference, plan.policy), step_windows(plan.judge_cpu_interference, plan.policy);
  op_runner runner{*be, r, opt, op_repeats, lost, op_windows};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const op_desc& op = ops[i];
    op_result res = place_op(op, r.roofline, floor);
    res.alternative_to = alternative_to[i];
    res.advice = op_advice(op, res.bound, r.device.kind);  // the backend's own words
    const std::string label = fmt::format("op {}/{}: {} {} b{}", i + 1, ops.size(), to_string(op.ph), op.name, op.batch);
    progress(label, 0.6 + 0.33 * i / std::max<std::size_t>(1, ops.size()));
    const bool timed = runner.measure(op, res, label);
    r.ops.push_back(std::move(res));
    if (timed)
      op_windows.end(label, [&r, k = r.ops.size() - 1](const interference_sample& s) {
        op_result& o = r.ops[k];
        return keep_out_timing(o.measured_s, o.disturbed_s, o.measured_note, s);
      });
  }
  op_windows.close();
  std::optional<batch_sweep> sweep;
  if (opt.measure_ops) sweep = measure_batch_sweep(runner, cfg, precision, floor, progress);
  if (opt.measure_ops) measure_whole_steps(*be, r, cfg, precision, floor, opt, lost, progress, interrupted, step_windows);
  if (r.interference && plan.judge_cpu_interference) {  // the timings' windows join the probes' verdict
    interference_report& in = *r.interference;
    for (const auto* w : {&op_windows, &step_windows}) in.timings.insert(in.timings.end(), w->windows().begin(), w->windows().end());
    in.ops_kept_out = op_windows.kept_out();
    in.steps_kept_out = step_windows.kept_out();
    in.busy = busy_verdict(in);
    in.summary = summarize_interference(in, true);
  }

  progress("analysing", 0.97);
  flag_results(r);
  if (opt.tpot_s > 0)  // before analyse(): the user's TPOT is the batch-1 TPOT of every view
    r.analysis.tpot_input = user_step_time{opt.tpot_s, 1, "--tpot (the user's measured time per output token, decode batch 1)"};
  if (sweep) r.analysis.batch_sweep = std::move(*sweep);  // before analyse(): it fills in the knees
  analyse(r);
  progress("analysed", 1.0);
  if (interrupted()) r.status = "interrupted";
  else if (!r.errors.empty()) r.status = "partial";
  return r;
}

}  // namespace roofline::job
