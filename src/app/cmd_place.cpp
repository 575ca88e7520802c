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
#include "roofline/kernel_analysis.hpp"
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
  std::string ecc;           ///< --ecc on|off (a GDDR part's bandwidth; "" = as the part ships)
};

/// `place --csv|--trace|--ncu FILE`: read (ingest::read_any, by content) → judge → render. --out is
/// checked before anything is read; every file is rendered before any is written.
void run_place_many(const place_options& o, const command_roofs& c, const std::string& source) {
  results r = c.file ? *c.file : results{};
  if (!c.file) {
    r.device.kind = c.device_kind;
    r.device.name = source;
    r.nominal = c.nominal;
  }
  const ingest::ingest_result in = ingest::read_any(o.input);
  if (in.kernels.empty()) throw input_error(o.input, "", "no kernels in the file");
  kernel_report k;
  k.file = o.input;
  k.format = in.format;
  k.tool_version = in.tool_version;
  k.roofs_source = source;
  k.default_precision = c.precision;
  k.skipped = in.skipped;
  k.verdicts = judge_kernels(in.kernels, r, c.precision);
  const bool timed = std::any_of(in.kernels.begin(), in.kernels.end(), [](const auto& x) { return x.start_s.has_value(); });
  if (timed) k.trace = summarize_trace(in, k.verdicts, r, o.top);
  if (!o.baseline.empty()) {
    const ingest::ingest_result old = ingest::read_any(o.baseline);
    k.baseline_verdicts = judge_kernels(old.kernels, r, c.precision);
    k.baseline = diff_baseline(k.baseline_verdicts, k.verdicts);
    k.baseline->file = o.baseline;
    k.baseline->old_span_s = old.span_s;
    k.baseline->new_span_s = in.span_s;
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
  if (!resolved) throw input_error("", "--device", "give --device NAME or --results FILE: the roofs to place the kernel against");
  const roofline_summary& roofs = resolved->summary;
  const std::string source = resolved->source + (resolved->file ? "" : "; nominal roofs only") +
                             (resolved->bandwidth_note.empty() ? "" : "; " + resolved->bandwidth_note);
  if (!o.input.empty()) {
    run_place_many(o, *resolved, source);
    return;
  }
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
  auto* sub = app.add_subcommand("place", "place your own kernel (FLOPs, bytes, time) on the roofline");
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
