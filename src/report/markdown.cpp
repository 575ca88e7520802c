// report.md: the record table, the figure and the op table first; the device, the derivations, the
// measured roofs, the attribution, op shapes, fusion and what did not run in the appendix.
#include "report/markdown.hpp"

#include "report/sections.hpp"
#include "roofline/report.hpp"

namespace roofline::report {

document build_document(const results& r) {
  document d;
  d.title = "Roofline report: " + (r.device.name.empty() ? std::string("unknown device") : r.device.name);
  d.headline = headline_sentences(r);
  std::string intro = "Measured " + (r.host.timestamp.empty() ? std::string("at an unknown time") : r.host.timestamp) + " on " +
                      (r.host.hostname.empty() ? std::string("an unknown host") : r.host.hostname) + " with roofline " +
                      (r.tool.version.empty() ? std::string("(unknown version)") : r.tool.version) + ".";
  if (r.status != "complete") intro += " Run status: " + r.status + " (see the errors at the end).";
  d.intro.push_back(intro);
  if (r.tool.build_type != "Release" && !r.tool.build_type.empty())
    d.warnings.push_back("not a Release build (" + r.tool.build_type + "): measured numbers may be low.");
  // What people came for first: the record table, the figure, the op table; then the detail.
  if (const std::string failure = run_failure(r); !failure.empty())
    d.warnings.push_back("the run failed: " + failure + ".");
  if (r.interference && r.interference->busy)
    d.warnings.push_back("busy machine: " + r.interference->summary +
                         ". Results measured while other processes ran are marked unreliable and are not roofs; op and "
                         "step timings taken then are kept out of the analysis and the figures.");
  if (r.repeat > 1)
    d.warnings.push_back(std::to_string(r.repeat) + " whole measurements (--repeat): each roof is the median run's; "
                         "results.json gives the spread across runs (across_runs).");
  d.sections.push_back(record_section(r));
  d.figure_after = 1;
  d.sections.push_back(ops_section(r));
  d.sections.push_back(mfu_section(r));
  if (section b = step_sweep_section(r); !b.blocks.empty()) d.sections.push_back(std::move(b));
  section problems = problems_section(r);
  const bool trouble = !r.errors.empty();
  if (trouble) d.sections.push_back(problems);
  // The per-point detail (every bandwidth and GEMM point, every op's shape, the waterfalls, the
  // derivations) is in report.html's collapsed sections and in results.json; report.md names where.
  auto html_only = [](section s, const std::string& where) {
    s.html_only = true;
    s.md_summary = "Per-point detail: report.html (this section, collapsed) and results.json (" + where + ").";
    return s;
  };
  for (section s : {device_section(r), html_only(nominal_section(r), "`nominal.peaks[].factors`"),
                    html_only(measured_section(r), "`measured.bandwidth`, `measured.compute`, `measured.telemetry`"),
                    roofline_section(r),
                    html_only(attribution_section(r), "`analysis.compute_waterfall`, `analysis.bandwidth_waterfall`"),
                    html_only(op_detail_section(r), "`ops[]`: shape, dtype, count, flops, bytes, intensity; `analysis.accuracy`"),
                    fusion_section(r)}) {
    s.detail = true;
    d.sections.push_back(std::move(s));
  }
  if (section e = probe_energy_section(r); !e.blocks.empty()) {  // only a file with energy windows has one
    e = html_only(std::move(e), "`analysis.energy.probes`");
    e.detail = true;
    d.sections.push_back(std::move(e));
  }
  section other = other_analysis_section(r);
  if (!other.blocks.empty()) {
    other.detail = true;
    d.sections.push_back(html_only(std::move(other), "`analysis`"));
  }
  if (!trouble) {
    problems.detail = true;
    d.sections.push_back(std::move(problems));
  }
  return d;
}

}  // namespace roofline::report

namespace roofline {

std::string render_markdown(const results& r) {
  report::document d = report::build_document(r);
  d.figure_markdown = "![roofline: compute roofs (flat) and one memory roof per level (diagonal), nominal dashed and measured solid, "
                      "every op placed; below, bandwidth against working set](roofline.svg)";
  if (!render_step_sweep_svg(r).empty())
    d.figure_markdown += "\n\n![decode step time, tokens/s and J/token against batch, measured and predicted, knees "
                         "marked](batch.svg)";
  return report::to_markdown(d);
}

}  // namespace roofline
