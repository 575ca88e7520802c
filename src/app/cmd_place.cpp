// `roofline place`: the user's own kernels (FLOPs, bytes and time from a profiler) on the roofline:
// one by hand (--flops --bytes --time) or many from a file (--csv / --ncu / --trace FILE, read by
// content). Parse → compute (roofline/kernel_analysis.hpp) → render (roofline/kernel_report.hpp) only.
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <memory>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "roofline/io.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"
#include "roofline/json.hpp"
#include "roofline/kernel_analysis.hpp"
#include "roofline/kernel_costs.hpp"
#include "roofline/model.hpp"
#include "roofline/run_analysis.hpp"
#include "roofline/spec.hpp"
#include "roofline/kernel_report.hpp"
#include "roofline/report.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::app {

namespace {

struct place_options {
  double flops = 0, bytes = 0, seconds = 0;
  std::string device, results_file, precision;
  std::string input;     ///< --csv | --trace | --ncu FILE: many kernels, read by content (ingest::read_any)
  std::string baseline;  ///< --baseline FILE: an earlier profile, or a place.csv
  std::string out;       ///< --out DIR: place.svg, place.csv, place.json
  std::size_t top = 10;  ///< --top N
  bool json_out = false;
  bool ncu_metrics = false;  ///< --ncu-metrics: print the recommended metric list and exit
  bool other_gpu = false;    ///< --other-gpu: place a file on another GPU's roofs than the one it names
  std::string model;         ///< --model: join the run to the model's own step
  std::string phase;         ///< --phase: the steps' kind when the file does not tell (an Nsight Compute export)
  std::optional<std::int64_t> batch, seq, context;  ///< what the trace's shapes do not tell
  std::string ecc;           ///< --ecc on|off (a GDDR part's bandwidth; "" = as the part ships)
};

/// The table GPU a name resolves to, or the name itself when the table has none like it.
std::string canonical_gpu(const std::string& name) {
  try {
    return match_gpu_name(name);
  } catch (const input_error&) {
    return name;
  }
}

/// `place --csv|--trace|--ncu FILE`: read (ingest::read_any, by content) → costs the file lacks
/// (capture, same kernel; with --model the model's step) → judge → the run → render. --out is checked
/// before anything is read; every file is rendered before any is written. The roofs: --device /
/// --results, else the GPU the file names; a file that names another GPU than the roofs is refused
/// unless --other-gpu.
void run_place_many(const place_options& o, std::optional<command_roofs> resolved, std::string source) {
  ingest::ingest_result in = ingest::read_any(o.input);
  if (in.kernels.empty()) throw input_error(o.input, "", "no kernels in the file");
  if (!resolved) {
    if (in.gpu.empty())
      throw input_error(o.input, "--device",
                        "the file names no GPU: give --device NAME or --results FILE (the roofs to place the kernels against)");
    roofs_request q;
    q.device = match_gpu_name(in.gpu), q.precision = o.precision, q.ecc = o.ecc;
    resolved = resolve_roofs(q);
    source = resolved->source + " (the GPU the file names); nominal roofs only";
  } else if (!in.gpu.empty() && !o.other_gpu) {
    const std::string roofs_gpu = resolved->file ? resolved->file->device.name : resolved->nominal.device_name;
    const bool cpu = resolved->file && resolved->file->device.kind == "cpu";
    if (cpu || canonical_gpu(in.gpu) != canonical_gpu(roofs_gpu))
      throw input_error(o.input, "GPU",
                        fmt::format("the file ran on {} but the roofs are {}'s: give --results of a run on that GPU (or --device "
                                    "naming it), or --other-gpu to place it on these roofs anyway",
                                    in.gpu, roofs_gpu));
  }
  const command_roofs& c = *resolved;
  results r = c.file ? *c.file : results{};
  if (!c.file) {
    r.device.kind = c.device_kind;
    r.device.name = source;
    r.nominal = c.nominal;
  }
  const cost_fill fill = fill_costs(in);
  step_rule rule = step_rule::whole;
  std::vector<run_step> steps;
  const bool timed = std::any_of(in.kernels.begin(), in.kernels.end(), [](const auto& x) { return x.start_s.has_value(); });
  std::optional<run_model> model;
  if (!o.model.empty()) {
    model.emplace();
    model->cfg = load_model_config(resolve_model_path(o.model));
    model->source = o.model;
    model->batch = o.batch, model->seq = o.seq, model->context = o.context;
    if (!o.phase.empty()) {
      const phase ph = parse_phase(o.phase);
      model->kind = ph == phase::train ? step_kind::train : ph == phase::prefill ? step_kind::prefill : step_kind::decode;
    }
    roofs_request q;
    q.device = o.device.empty() && o.results_file.empty() ? match_gpu_name(in.gpu) : o.device;
    q.results_file = o.results_file, q.precision = o.precision, q.fall_back = true, q.ecc = o.ecc;
    model->roofs = resolve_placement_roofs(q);
  }
  if (timed || model) {
    steps = find_steps(in, rule);
    if (model) join_model(in, steps, *model);
  }
  kernel_report k;
  k.file = o.input;
  k.format = in.format;
  k.tool_version = in.tool_version;
  k.roofs_source = source;
  k.default_precision = c.precision;
  k.skipped = in.skipped;
  k.skipped.insert(k.skipped.end(), fill.notes.begin(), fill.notes.end());
  k.gpu = in.gpu;
  k.incomplete = in.incomplete;
  k.failures = in.failures;
  k.verdicts = judge_kernels(in.kernels, r, c.precision);
  if (timed) k.trace = summarize_trace(in, k.verdicts, r, o.top);
  if (timed || model)
    k.run = analyse_run(in, k.verdicts, c, k.trace ? *k.trace : trace_summary{}, std::move(steps), rule, model ? &*model : nullptr);
  if (!o.baseline.empty()) {
    ingest::ingest_result old = ingest::read_any(o.baseline);
    (void)fill_costs(old);
    k.baseline_verdicts = judge_kernels(old.kernels, r, c.precision);
    k.baseline = diff_baseline(k.baseline_verdicts, k.verdicts);
    k.baseline->file = o.baseline;
    k.baseline->old_span_s = old.span_s;
    k.baseline->new_span_s = in.span_s;
    step_rule old_rule = step_rule::whole;
    auto old_steps = find_steps(old, old_rule);
    if (model) join_model(old, old_steps, *model);
    const trace_summary old_summary = summarize_trace(old, k.baseline_verdicts, r, o.top);
    k.baseline_run = analyse_run(old, k.baseline_verdicts, c, old_summary, std::move(old_steps), old_rule, model ? &*model : nullptr);
  }
  const json j = kernel_report_json(k);
  if (o.json_out) std::fputs((j.dump(2) + "\n").c_str(), stdout);
  else std::fputs(render_kernel_text(k, o.top).c_str(), stdout);
  if (!o.out.empty()) {
    // the device and the precisions placed (the results file and its path are in place.json)
    std::set<std::string> precs;
    for (const auto& v : k.verdicts)
      if (!v.precision.empty()) precs.insert(v.precision);
    const std::string device = c.file ? c.file->device.name : c.nominal.device_name;
    const std::string title = fmt::format("Your kernels on the roofline: {} · {}", device.empty() ? "unknown device" : device,
                                          precs.empty() ? c.precision : fmt::format("{}", fmt::join(precs, ", ")));
    write_files({{"place.svg", render_kernel_svg(k, r, title, o.top)},
                 {"place.csv", render_kernel_csv(k)},
                 {"place.json", j.dump(2) + "\n"},
                 {"place.html", render_kernel_html(k, r, title, o.top)}},
                o.out);
    fmt::print(stderr, "roofline: wrote {}\n", written_files(o.out, "place.svg,place.csv,place.json,place.html"));
  }
}

void run_place(const place_options& o) {
  // Check the numbers and --out first: a bad value fails before any file is read.
  if (o.input.empty()) (void)place_kernel(o.flops, o.bytes, o.seconds, roofline_summary{});
  if (!o.out.empty() && o.input.empty()) throw input_error("", "--out", "needs --csv, --trace or --ncu FILE (the single-kernel form writes no files)");
  if (!o.out.empty()) check_output_dir(o.out);
  roofs_request q;
  q.device = o.device, q.results_file = o.results_file, q.precision = o.precision;
  q.ecc = o.ecc;
  const auto resolved = resolve_roofs(q);
  const auto source_of = [](const command_roofs& c) {
    return c.source + (c.file ? "" : "; nominal roofs only") + (c.bandwidth_note.empty() ? "" : "; " + c.bandwidth_note);
  };
  if (!o.input.empty()) {
    run_place_many(o, resolved, resolved ? source_of(*resolved) : "");
    return;
  }
  if (!resolved) throw input_error("", "--device", "give --device NAME or --results FILE: the roofs to place the kernel against");
  const roofline_summary& roofs = resolved->summary;
  const std::string source = source_of(*resolved);
  const kernel_placement k = place_kernel(o.flops, o.bytes, o.seconds, roofs);
  if (o.json_out) {
    json j = placement_json(k);
    j["roofs"] = roofs;
    j["source"] = source;
    std::fputs((j.dump(2) + "\n").c_str(), stdout);
  } else {
    std::fputs(render_placement_text(k, roofs, source).c_str(), stdout);
  }
}

}  // namespace

void add_place(CLI::App& app, context& ctx) {
  auto o = std::make_shared<place_options>();
  auto* sub = app.add_subcommand("place",
                                 "place your own run on the roofline: a PyTorch profiler trace (--trace), an Nsight Compute "
                                 "export (--ncu), a CSV of kernels (--csv), or one kernel (--flops --bytes --time); on the "
                                 "roofs of --results or --device, joined to --model, diffed against --baseline");
  auto* flops = sub->add_option("--flops", o->flops, "FLOPs the kernel performs");
  auto* bytes = sub->add_option("--bytes", o->bytes, "bytes it reads + writes to device memory");
  auto* time = sub->add_option("--time", o->seconds, "its run time in seconds");
  // --csv, --trace and --ncu are one input read by content: a CSV of name,flops,bytes,time_s, an
  // Nsight Compute CSV export, or a PyTorch profiler trace.
  auto* csv = sub->add_option("--csv", o->input, "many kernels: a CSV of name,flops,bytes,time_s or an Nsight Compute CSV export");
  auto* trace = sub->add_option("--trace", o->input, "a PyTorch profiler (Kineto) trace, .json or .json.gz");
  auto* ncu = sub->add_option("--ncu", o->input, "an Nsight Compute CSV export (long form or raw page)");
  flops->needs(bytes, time);
  for (auto* in : {csv, trace, ncu}) in->excludes(flops, bytes, time);
  csv->excludes(trace, ncu);
  trace->excludes(ncu);
  sub->add_option("--baseline", o->baseline, "an earlier profile (or a place.csv) to diff against: time saved per kernel");
  sub->add_option("--top", o->top, "kernels listed in the summary (default 10)")->check(CLI::PositiveNumber);
  sub->add_option("--out", o->out, "write DIR/place.svg (your kernels on the roofs), DIR/place.csv and DIR/place.json");
  add_roofs_options(sub, o->device, o->results_file);
  add_ecc_option(sub, o->ecc);
  sub->add_option("--precision", o->precision, "fp16 bf16 fp32 tf32 fp64 fp8 int8 (default: the results' default, else fp16)")
      ->check(precision_value());
  sub->add_flag("--json", o->json_out, "print JSON");
  sub->add_option("--model", o->model,
                  "join the run to this model's own step (a shipped model or a config.json): steps' MFU, HFU, MBU, the "
                  "attainable step, time per model op; kernels without shapes costed from the model's ops");
  sub->add_option("--batch", o->batch, "sequences per step, when the trace's shapes do not tell (with --model)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--seq", o->seq, "prefill/train tokens per sequence, when the trace's shapes do not tell (with --model)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--context", o->context, "decode KV-cache length, when the trace's shapes do not tell (with --model)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--phase", o->phase, "the steps' kind when the file does not tell (an Nsight Compute export; with --model)")
      ->check(CLI::IsMember({"decode", "prefill", "train"}));
  sub->add_flag("--other-gpu", o->other_gpu,
                "place a file on the roofs of another GPU than the one it names (a what-if; refused without it)");
  auto* metrics = sub->add_flag("--ncu-metrics", o->ncu_metrics,
                                std::string("print the Nsight Compute metric list that makes a complete answer ") +
                                    "(for ncu --csv --metrics LIST) and exit");
  metrics->excludes(flops, csv, trace, ncu);
  sub->callback([o, sub, &ctx] {
    if (o->ncu_metrics) {
      std::string list;
      for (const auto& m : ingest::recommended_ncu_metrics()) list += (list.empty() ? "" : ",") + m;
      std::fputs((list + "\n").c_str(), stdout);
      ctx.exit_code = 0;
      return;
    }
    if (o->input.empty() && sub->get_option("--flops")->count() == 0)
      throw input_error("", "--flops", "give --flops F --bytes B --time S (one kernel) or --csv / --trace / --ncu FILE (many)");
    run_place(*o);
    ctx.exit_code = 0;
  });
}

}  // namespace roofline::app
