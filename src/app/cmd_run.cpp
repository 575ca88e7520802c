// `roofline run` (the main job) and `roofline measure` (roofs only). Both take the same flags for
// the same things (README "The commands"); --out is a directory for both, checked before anything is
// measured and created only when the outputs are written, so a failed run leaves nothing behind.
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#endif

#include "app/commands.hpp"
#include "app/options.hpp"
#include "run/pipeline.hpp"
#include "roofline/error.hpp"
#include "roofline/vocabulary.hpp"
#include "roofline/fleet.hpp"
#include "roofline/io.hpp"
#include "roofline/report.hpp"

namespace roofline::app {

using job::load_run_model;
using job::run_options;
using job::run_pipeline;

namespace {

/// A command-line word as a POSIX shell reads it back: quoted when it holds anything but
/// [A-Za-z0-9_./:,=+-].
std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:,=+-") == std::string::npos)
    return s;
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

/// The command as given, re-runnable: flags bare (`--quick`, never `--quick true`), list options
/// joined with commas, values quoted for the shell.
std::string joined_args(CLI::App& app) {
  std::string s = "roofline " + app.get_name();
  for (const auto& o : app.get_options()) {
    if (o->count() == 0 || o->get_lnames().empty()) continue;
    s += " --" + o->get_lnames()[0];
    if (o->get_expected_min() == 0 && o->get_items_expected_max() == 0) continue;  // a flag: no value
    std::string v;
    for (const auto& x : o->results()) v += (v.empty() ? "" : ",") + x;
    s += " " + shell_word(v);
  }
  return s;
}

/// --only takes probe groups or probe names ("bandwidth", "gemm/bf16").
void check_only_arg(const std::vector<std::string>& only) {
  for (const auto& o : only)
    if (o != "bandwidth" && o != "compute" && o != "gemm" && o != "launch" && o != "latency" &&
        o.find('/') == std::string::npos)
      throw input_error("", "--only", "unknown probe group '" + o + "' (expected bandwidth, compute, gemm, launch, latency or a probe name like gemm/bf16)");
}

void check_device_arg(const std::string& d) { parse_device(d); }

int finish(const results& r, const std::string& out_dir) {
  write_outputs(r, out_dir);
  const std::string files = std::string("results.json,report.md,roofline.svg,report.html,ops.csv") +
                            (render_step_sweep_svg(r).empty() ? "" : ",batch.svg");
  fmt::print(stderr, "roofline: wrote {}\n", written_files(out_dir, files));
  std::fputs(render_summary(r, out_dir + "/report.html").c_str(), stdout);
  std::fflush(stdout);
  // A run whose results do not stand (a busy machine, a roof with no result standing) failed: exit 1,
  // the reason first in the summary and last here (roofline/run_verdict.hpp).
  if (const std::string failure = run_failure(r); !failure.empty()) {
    fmt::print(stderr, "roofline: run failed: {}\n", failure);
    return 1;
  }
  if (r.interference && r.interference->busy)
    fmt::print(stderr, "roofline: warning: {}\n", r.interference->summary);
  if (r.status == "complete") {  // the summary's first line already says "run complete"
    if (r.interference && r.interference->busy)
      std::fputs("roofline: run complete on a busy machine: the roofs exclude the disturbed results\n", stderr);
    return 0;
  }
  fmt::print(stderr, "roofline: run {}: {} probe(s) failed or not run; see errors in the results\n", r.status, r.errors.size());
  return 1;
}

/// The inputs `run` and `measure` share, checked before anything is measured or written: the
/// device string, --only, --out (writable, not created yet), the model (loaded here), the model
/// part's numbers; also the recorded command line and the test hook.
model_config prepare_run(run_options& opt, CLI::App& sub, std::string& model_path) {
  check_device_arg(opt.device);
  check_only_arg(opt.only);
  check_overrides(opt.device, {opt.uarch, opt.memory});
  check_output_dir(opt.out);
  for (const auto b : opt.batches)
    if (b < 1) throw input_error("", "--batch", fmt::format("{}: every batch must be >= 1", b));
  if (opt.batches.empty()) throw input_error("", "--batch", "give at least one batch");
  if (opt.context < 1) throw input_error("", "--context", "must be >= 1");
  if (opt.seq < 1) throw input_error("", "--seq", "must be >= 1");
  if (!opt.dtype.empty() && opt.dtype != "fp32" && opt.dtype != "fp16" && opt.dtype != "bf16")
    throw input_error("", "--dtype", "'" + opt.dtype + "' (expected fp32, fp16 or bf16)");
  if (opt.threads < 0) throw input_error("", "--threads", "must be >= 1");
  const model_config cfg = load_run_model(opt, model_path);
  opt.command = joined_args(sub);
  if (const char* f = std::getenv("ROOFLINE_FAIL_PROBE")) opt.fail_probe = f;
#ifdef ROOFLINE_HAVE_OPENMP
  if (opt.threads > 0) omp_set_num_threads(opt.threads);  // every OpenMP region and OpenBLAS call of the run
#else
  if (opt.threads > 1) throw input_error("", "--threads", "this build has no OpenMP: one thread only");
#endif
  return cfg;
}

/// The flags `run` and `measure` share, with the same names, meanings and defaults.
void add_common(CLI::App* sub, run_options& opt) {
  sub->add_option("--device", opt.device, "auto | cpu | cuda:N")->capture_default_str();
  sub->add_option("--out", opt.out, "output directory (results.json, report.md, roofline.svg, report.html, ops.csv)")->capture_default_str();
  sub->add_flag("--quick", opt.quick, "short run: fewer sizes and repeats");
  sub->add_option("--only", opt.only, "probe groups (bandwidth, compute, gemm, launch, latency) or probe names (gemm/bf16)")->delimiter(',');
  sub->add_option("--repeat", opt.repeat, "take the whole measurement N times: per-roof median and spread across runs")
      ->check(CLI::Range(1, 20))->capture_default_str();
  sub->add_option("--memory", opt.memory, "CPU DRAM configuration the machine cannot tell, e.g. \"12 x DDR5-4800\"");
  sub->add_option("--uarch", opt.uarch, "CPU microarchitecture when detection cannot tell (zen4, sky_lake, ...)");
  sub->add_option("--threads", opt.threads, "CPU: OpenMP/OpenBLAS threads for the whole run (default: one per core)")
      ->check(CLI::PositiveNumber);
}

/// The flags only a fleet run (started by mpirun) reads, on `run` and `measure` alike.
void add_fleet_flags(CLI::App* sub, fleet::fleet_options& f) {
  sub->add_option("--straggler-threshold", f.straggler_threshold,
                  "fleet runs (mpirun): flag a device more than this fraction below the fleet median")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  sub->add_option("--nccl", f.nccl_path,
                  "fleet runs on GPUs: the libnccl.so.2 to load (default: the dynamic loader's search, then PyTorch's "
                  "site-packages/nvidia/nccl/lib)")
      ->check(CLI::ExistingFile);
}

/// mpirun -np N roofline run|measure: src/fleet measures every rank's device, gathers, reports.
int run_fleet(const run_options& opt, fleet::fleet_options f, const model_config& cfg, const std::string& model_path) {
  f.quick = opt.quick;
  return fleet::run(f, opt.device, opt.out, cfg, [&](const std::string& dev) {
    run_options o = opt;
    o.device = dev;
    // ranks share their host by design: another rank is not interference (stragglers are the
    // fleet's own check); repeats that disagree still are
    o.judge_interference = false;
    return run_pipeline(o, cfg, model_path);
  });
}

}  // namespace

void add_run(CLI::App& app, context& ctx) {
  auto opt = std::make_shared<run_options>();
  auto* sub = app.add_subcommand("run", "measure this machine, place the model's ops, write the report");
  add_common(sub, *opt);
  sub->add_option("--model", opt->model, "shipped model name or path to a HuggingFace config.json")->capture_default_str();
  sub->add_option("--batch", opt->batches, "decode batches, comma-separated")->delimiter(',')->capture_default_str();
  sub->add_option("--context", opt->context, "decode: KV-cache length (tokens)")->capture_default_str();
  sub->add_option("--seq", opt->seq, "prefill: sequence length (tokens)")->capture_default_str();
  sub->add_option("--dtype", opt->dtype, "ops' data type: fp32 | fp16 | bf16 (default: fp32 on a CPU, fp16 on a GPU)");
  sub->add_option("--weights", opt->weights,
                  "linear weights: only the ops' dtype runs here (int4, nvfp4, mxfp4, nf4, fp8, int8 are refused: no kernel; "
                  "predict them with `roofline ops --weights`); overrides a config's quantization_config");
  sub->add_option("--step-budget", opt->step_budget_s,
                  "whole steps predicted longer than this many seconds are not run (default 5 on a CPU, 1 on a GPU)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--tpot", opt->tpot_s, "your measured time per output token (s, decode batch 1) for the TPOT → MFU row")
      ->check(CLI::Range(1e-9, 1e6));
  sub->add_option("--step-batches", opt->step_batches,
                  "the decode step sweep's batches, comma-separated (default 1,2,4,…,256; --quick 1,8,64)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  auto target = std::make_shared<std::string>();
  sub->add_option("--tpot-target", *target,
                  "the step sweep's TPOT target with units (20ms, 0.02, 20000us): the largest batch whose decode step "
                  "meets it");
  auto fleet_opt = std::make_shared<fleet::fleet_options>();
  add_fleet_flags(sub, *fleet_opt);
  sub->callback([sub, opt, target, fleet_opt, &ctx] {
    if (!target->empty()) opt->tpot_target_s = parse_duration(*target, "--tpot-target");
    std::string model_path;
    const model_config cfg = prepare_run(*opt, *sub, model_path);  // bad input fails before any measuring or write
    if (fleet::launched_by_mpi()) {  // mpirun -np N roofline run: src/fleet measures, gathers, reports
      ctx.exit_code = run_fleet(*opt, *fleet_opt, cfg, model_path);
      return;
    }
    const results r = run_pipeline(*opt, cfg, model_path);
    ctx.exit_code = finish(r, opt->out);
  });
}

void add_measure(CLI::App& app, context& ctx) {
  auto opt = std::make_shared<run_options>();
  auto* sub = app.add_subcommand("measure", "measure the roofs only (no model); write the report into --out");
  add_common(sub, *opt);
  auto fleet_opt = std::make_shared<fleet::fleet_options>();
  add_fleet_flags(sub, *fleet_opt);
  sub->callback([sub, opt, fleet_opt, &ctx] {
    opt->measure_ops = false;
    opt->model_part = false;
    std::string model_path;
    const model_config cfg = prepare_run(*opt, *sub, model_path);
    if (fleet::launched_by_mpi()) {  // mpirun -np N roofline measure: the fleet report of the roofs alone
      ctx.exit_code = run_fleet(*opt, *fleet_opt, cfg, model_path);
      return;
    }
    const results r = run_pipeline(*opt, cfg, model_path);
    ctx.exit_code = finish(r, opt->out);
  });
}

}  // namespace roofline::app
