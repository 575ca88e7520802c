// report.md: the record table first, then the device, the derivations, the measured roofs, the
// attribution, the op table, MFU/HFU, fusion and what did not run.
#include "report/markdown.hpp"

#include "report/sections.hpp"
#include "roofline/report.hpp"

namespace roofline::report {

document build_document(const results& r) {
  document d;
  d.title = "Roofline report: " + (r.device.name.empty() ? std::string("unknown device") : r.device.name);
  std::string intro = "Measured " + (r.host.timestamp.empty() ? std::string("at an unknown time") : r.host.timestamp) + " on " +
                      (r.host.hostname.empty() ? std::string("an unknown host") : r.host.hostname) + " with roofline " +
                      (r.tool.version.empty() ? std::string("(unknown version)") : r.tool.version) + ".";
  if (r.status != "complete") intro += " Run status: " + r.status + " (see the errors at the end).";
  d.intro.push_back(intro);
  if (r.interference && r.interference->busy)
    d.intro.push_back("**Busy machine**: " + r.interference->summary +
                      ". Results measured while other processes ran are marked unreliable and are not roofs.");
  if (r.repeat > 1)
    d.intro.push_back(std::to_string(r.repeat) + " whole measurements (--repeat): each roof is the median run's, "
                      "with the spread across runs beside it in results.json (across_runs).");
  d.sections.push_back(record_section(r));
  d.sections.push_back(device_section(r));
  d.sections.push_back(nominal_section(r));
  d.sections.push_back(measured_section(r));
  d.sections.push_back(roofline_section(r));
  d.sections.push_back(attribution_section(r));
  d.sections.push_back(ops_section(r));
  d.sections.push_back(mfu_section(r));
  d.sections.push_back(fusion_section(r));
  section other = other_analysis_section(r);
  if (!other.blocks.empty()) d.sections.push_back(std::move(other));
  d.sections.push_back(problems_section(r));
  return d;
}

}  // namespace roofline::report

namespace roofline {

std::string render_markdown(const results& r) {
  report::document d = report::build_document(r);
  d.figure_markdown = "![roofline: nominal (dashed) and measured (solid) roofs with every op placed](roofline.svg)";
  return report::to_markdown(d);
}

}  // namespace roofline
