// `roofline run` (the main job) and `roofline measure` (roofs only).
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/pipeline.hpp"
#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/io.hpp"
#include "roofline/report.hpp"

namespace roofline::app {

namespace {

std::string joined_args(CLI::App& app) {
  std::string s = "roofline " + app.get_name();
  for (const auto& o : app.get_options())
    if (o->count() > 0 && !o->get_lnames().empty()) {
      s += " --" + o->get_lnames()[0];
      for (const auto& v : o->results()) s += " " + v;
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

void check_device_arg(const std::string& d) {
  if (d == "auto" || d == "cpu" || d == "cuda" || d.rfind("cuda:", 0) == 0) return;
  throw input_error("", "--device", "unknown device '" + d + "' (expected auto, cpu or cuda:N)");
}

int finish(const results& r, const std::string& out_path, bool dir) {
  if (dir) {
    write_outputs(r, out_path);
    std::fprintf(stderr, "[roofline 100%%] wrote %s/{results.json,report.md,roofline.svg,report.html}\n",
                 out_path.c_str());
  } else {
    write_file_atomic(out_path, render_json(r));
    std::fprintf(stderr, "[roofline 100%%] wrote %s\n", out_path.c_str());
  }
  if (r.interference && r.interference->busy)
    std::fprintf(stderr, "roofline: warning: %s\n", r.interference->summary.c_str());
  if (r.status == "complete") {
    std::fprintf(stderr, "roofline: run complete%s\n",
                 r.interference && r.interference->busy ? " on a busy machine: the roofs exclude the disturbed results" : "");
    return 0;
  }
  std::fprintf(stderr, "roofline: run %s: %zu probe(s) failed or not run; see errors in the results\n",
               r.status.c_str(), r.errors.size());
  return 1;
}

/// The inputs `run` and `measure` share, checked before anything is written: the device string,
/// --only, the model (loaded here); also the recorded command line and the test hook.
model_config prepare_run(run_options& opt, CLI::App& sub, std::string& model_path) {
  check_device_arg(opt.device);
  check_only_arg(opt.only);
  check_overrides(opt.device, {opt.uarch, opt.memory});
  const model_config cfg = load_run_model(opt, model_path);
  opt.command = joined_args(sub);
  if (const char* f = std::getenv("ROOFLINE_FAIL_PROBE")) opt.fail_probe = f;
  return cfg;
}

/// Options `run` and `measure` share beyond --device/--only: what the machine cannot tell, and repeats.
void add_machine_options(CLI::App* sub, run_options& opt) {
  sub->add_option("--repeat", opt.repeat, "take the whole measurement N times: per-roof median and spread across runs")
      ->check(CLI::Range(1, 20))->capture_default_str();
  sub->add_option("--memory", opt.memory, "CPU DRAM configuration the machine cannot tell, e.g. \"12 x DDR5-4800\"");
  sub->add_option("--uarch", opt.uarch, "CPU microarchitecture when detection cannot tell (zen4, sky_lake, ...)");
}

}  // namespace

void add_run(CLI::App& app, context& ctx) {
  auto opt = std::make_shared<run_options>();
  auto* sub = app.add_subcommand("run", "measure this machine, place the model's ops, write the report");
  sub->add_option("--device", opt->device, "auto | cpu | cuda:N")->capture_default_str();
  sub->add_option("--model", opt->model, "shipped model name or path to a HuggingFace config.json")->capture_default_str();
  sub->add_option("--out", opt->out, "output directory")->capture_default_str();
  sub->add_flag("--quick", opt->quick, "short run (tests): fewer sizes and repeats");
  sub->add_option("--only", opt->only, "probe groups: bandwidth, compute, gemm, launch, latency")->delimiter(',');
  add_machine_options(sub, *opt);
  sub->add_option("--tpot", opt->tpot_s, "your measured time per output token (s, decode batch 1) for the TPOT → MFU row")
      ->check(CLI::Range(1e-9, 1e6));
  auto fleet_opt = std::make_shared<fleet::fleet_options>();
  sub->add_option("--straggler-threshold", fleet_opt->straggler_threshold,
                  "fleet runs (mpirun): flag a device more than this fraction below the fleet median")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  sub->callback([sub, opt, fleet_opt, &ctx] {
    std::string model_path;
    const model_config cfg = prepare_run(*opt, *sub, model_path);  // bad input fails before any write
    if (fleet::launched_by_mpi()) {  // mpirun -np N roofline run: src/fleet measures, gathers, reports
      fleet_opt->quick = opt->quick;
      ctx.exit_code = fleet::run(*fleet_opt, opt->device, opt->out, cfg,
                                 [&](const std::string& dev) { run_options o = *opt; o.device = dev; return run_pipeline(o, cfg, model_path); });
      return;
    }
    prepare_output_dir(opt->out);
    const results r = run_pipeline(*opt, cfg, model_path);
    ctx.exit_code = finish(r, opt->out, true);
  });
}

void add_measure(CLI::App& app, context& ctx) {
  auto opt = std::make_shared<run_options>();
  auto out = std::make_shared<std::string>("results.json");
  auto* sub = app.add_subcommand("measure", "measure the roofs only; write results.json");
  sub->add_option("--device", opt->device, "auto | cpu | cuda:N")->capture_default_str();
  sub->add_option("--out", *out, "results file")->capture_default_str();
  sub->add_flag("--quick", opt->quick, "short run: fewer sizes and repeats");
  sub->add_option("--only", opt->only, "probe groups: bandwidth, compute, gemm, launch, latency")->delimiter(',');
  add_machine_options(sub, *opt);
  sub->callback([sub, opt, out, &ctx] {
    opt->measure_ops = false;
    std::string model_path;
    const model_config cfg = prepare_run(*opt, *sub, model_path);
    const results r = run_pipeline(*opt, cfg, model_path);
    ctx.exit_code = finish(r, *out, false);
  });
}

}  // namespace roofline::app
