// `roofline export results.json (--format F | --out DIR)`: the measured roofs in other tools' formats
// (roofline/export.hpp). `roofline report results.json [--out DIR]` (DIR default out, as everywhere): re-render every output from a results file, without
// measuring. `roofline compare A B [--out DIR]`: two devices (results files, spec --json files or
// GPU names) side by side. Every file is re-analysed (analyse()) before it is rendered. Bad input (unreadable, malformed, old schema) throws input_error: exit 2,
// nothing written.
#include <cstdio>
#include <fmt/format.h>
#include <utility>
#include <vector>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/export.hpp"
#include "roofline/io.hpp"
#include "roofline/model_record.hpp"
#include "roofline/report.hpp"

namespace roofline::app {

void add_report(CLI::App& app, context& ctx) {
  auto file = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>("out");
  auto* sub = app.add_subcommand("report", "re-render results.json, report.md, roofline.svg and report.html from a results file");
  sub->add_option("results", *file, "results.json written by roofline run / measure")->required();
  sub->add_option("--out", *out, "output directory")->capture_default_str();
  auto precisions = std::make_shared<std::vector<std::string>>();
  sub->add_option("--precision", *precisions,
                  "also write roofline-P.svg, the figure's panel for precision P (fp64, fp32, tf32, fp16, bf16, fp8, int8; "
                  "repeatable); report.html shows every measured precision as small multiples");
  auto tpot = std::make_shared<std::string>();
  auto batch = std::make_shared<std::int64_t>(1);
  sub->add_option("--tpot", *tpot, "your framework's measured TPOT with units (3.31ms), placed on the measured step curve");
  sub->add_option("--batch", *batch, "the batch --tpot was measured at")->capture_default_str()->check(CLI::PositiveNumber);
  sub->callback([file, out, precisions, tpot, batch, &ctx] {
    check_output_dir(*out);
    const double user_tpot = tpot->empty() ? 0.0 : parse_duration(*tpot, "--tpot");
    // A file written before model.config stored the parsed config: rebuilt from its model.source where
    // readable here, so analyse() (which reads nothing but r) renders every section; where it is not,
    // the sections that need the model say so.
    results r = load_results_with_model(*file);
    if (user_tpot > 0)  // placed on the measured step curve by the report's step-sweep section
      r.analysis.step_input = user_step_time{user_tpot, *batch, "report --tpot (the user's measured time per output token)"};
    // The analysis is a pure function of the measured inputs: recomputed with this tool, so a re-rendered
    // report carries today's advice and verdicts (a 1.0 file's blocks predate the typed ones anyway).
    analyse(r);
    std::vector<std::pair<std::string, std::string>> panels;  // rendered first: a bad --precision writes nothing
    for (const auto& p : *precisions) panels.emplace_back("roofline-" + p + ".svg", render_svg(r, p));
    write_outputs(r, *out);
    for (const auto& [name, svg] : panels) write_file_atomic(*out + "/" + name, svg);
    std::string names = std::string("results.json,report.md,roofline.svg,report.html,ops.csv") +
                        (render_step_sweep_svg(r).empty() ? "" : ",batch.svg");
    for (const auto& pn : panels) names += "," + pn.first;
    fmt::print(stderr, "roofline: wrote {}\n", written_files(*out, names));
    std::fputs(render_summary(r, *out + "/report.html").c_str(), stdout);
    ctx.exit_code = 0;
  });
}

void add_compare(CLI::App& app, context& ctx) {
  auto a = std::make_shared<std::string>();
  auto b = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>("out");
  auto* sub = app.add_subcommand("compare", "two devices on one roofline and one table (results files, spec --json files or GPU names)");
  sub->add_option("A", *a, "results.json, `roofline spec NAME --json` output, or a GPU name")->required();
  sub->add_option("B", *b, "results.json, `roofline spec NAME --json` output, or a GPU name")->required();
  sub->add_option("--out", *out, "output directory")->capture_default_str();
  sub->callback([a, b, out, &ctx] {
    check_output_dir(*out);
    const compare_side sa = load_compare_side(*a), sb = load_compare_side(*b);
    write_compare_outputs(sa, sb, *out);
    std::fputs(render_compare_text(sa, sb).c_str(), stdout);
    std::fflush(stdout);
    fmt::print(stderr, "roofline: wrote {}\n", written_files(*out, "compare.md,compare.svg,compare.html"));
    ctx.exit_code = 0;
  });
}

void add_export(CLI::App& app, context& ctx) {
  auto file = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("export",
                                 "the measured roofs in other tools' formats: torchao roofline specs, TraceLens arch file, "
                                 "Prometheus gauges for vLLM's MFU counters, CSV");
  sub->add_option("results", *file, "results.json written by roofline run / measure")->required();
  auto* fmt_opt = sub->add_option("--format", *format, "one format on stdout: torchao, tracelens, vllm or csv")
                      ->check(CLI::IsMember(export_formats()));
  auto* out_opt = sub->add_option("--out", *out,
                                  "write every format into DIR: torchao-specs.json, tracelens-arch.json, vllm-roofs.prom, roofs.csv");
  fmt_opt->excludes(out_opt);
  sub->callback([file, format, out, &ctx] {
    if (format->empty() && out->empty()) throw input_error("", "--format", "give --format F (stdout) or --out DIR (every format)");
    if (!out->empty()) check_output_dir(*out);
    results r = load_results(*file);
    analyse(r);
    if (!format->empty()) {
      std::fputs(render_export(r, *format, *file).c_str(), stdout);
      ctx.exit_code = 0;
      return;
    }
    std::vector<std::pair<std::string, std::string>> files;  // rendered first: a format that cannot be written writes nothing
    std::string names;
    for (const auto& f : export_formats()) {
      files.emplace_back(export_file_name(f), render_export(r, f, *file));
      names += (names.empty() ? "" : ",") + export_file_name(f);
    }
    write_files(files, *out);
    fmt::print(stderr, "roofline: wrote {}\n", written_files(*out, names));
    ctx.exit_code = 0;
  });
}

}  // namespace roofline::app
