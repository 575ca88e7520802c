// Device + provenance, the nominal derivation, and what did not run.
#include <fmt/format.h>

#include "roofline/json.hpp"
#include "roofline/model_record.hpp"
#include "roofline/vocabulary.hpp"
#include "report/sections.hpp"
#include "report/units.hpp"

namespace roofline::report {

namespace {

std::string or_unknown(const std::string& s) { return s.empty() ? "unknown" : s; }

table factor_table(const std::vector<factor>& fs) {
  table t;
  t.header = {"factor", "value", "unit", "source"};
  for (const auto& f : fs) t.rows.push_back({cell(f.name), cell(plain(f.value), f.value), cell(f.unit.empty() ? "—" : f.unit), cell(f.source)});
  return t;
}

/// A property value with its unit where the key says it (…_bytes → KiB/MiB, …_mhz → MHz).
std::string property_text(const std::string& key, const json& v) { return json_cell(key, v).text; }

}  // namespace

section device_section(const results& r) {
  section s{"Device and how it was measured", "device", {}};
  s.bullets({
      "device: " + or_unknown(r.device.name) + " (" + or_unknown(r.device.kind) + (r.device.id.empty() ? "" : ", " + r.device.id) + ")",
      "tool: " + r.tool.name + " " + or_unknown(r.tool.version) + ", build " + or_unknown(r.tool.build_type) +
          (r.tool.compiler.empty() ? "" : ", " + r.tool.compiler) + ", CUDA backend " + (r.tool.cuda_backend ? "built" : "not built"),
      "host: " + or_unknown(r.host.hostname) + (r.host.os.empty() ? "" : " (" + r.host.os + ")"),
      "timestamp: " + or_unknown(r.host.timestamp),
      "command: `" + or_unknown(r.host.command) + "`",
      "status: " + r.status + "; results schema " + r.schema_version,
  });
  if (r.device.properties->is_object() && !r.device.properties->empty()) {
    table t;
    t.header = {"property", "value"};
    for (auto it = r.device.properties->begin(); it != r.device.properties->end(); ++it) {
      if (it.value().is_null()) continue;
      t.rows.push_back({cell(it.key()), json_cell(it.key(), it.value())});
    }
    s.heading("Device properties");
    s.add(std::move(t));
  }
  if (r.model) {
    const auto& m = *r.model;
    s.heading("Model");
    std::vector<std::string> items = {
        "model: " + or_unknown(m.name) + (m.family.empty() ? "" : " (" + m.family + ")"),
        "parameters: " + si(static_cast<double>(m.parameters), ""),
        "config: " + or_unknown(m.source)};
    const json sizes = model_sizes(m.config);  // the main sizes; the whole parsed config is in results.json
    if (sizes.is_object())
      for (auto it = sizes.begin(); it != sizes.end(); ++it) items.push_back(it.key() + ": " + property_text(it.key(), it.value()));
    s.bullets(items);
  }
  return s;
}

section nominal_section(const results& r) {
  section s{"Nominal roofs and how they are derived", "nominal", {}};
  const auto& n = r.nominal;
  s.para("Source: " + or_unknown(n.source) + (n.device_name.empty() ? "" : " (" + n.device_name + ")") +
         ". Dense peaks only; a sparse figure is shown labelled and never used as a roof.");
  table peaks;
  peaks.header = {"precision", "engine", "accumulate", "dense peak", "formula", "sparse (not a roof)", "note"};
  for (const auto& p : n.peaks)
    peaks.rows.push_back({cell(p.precision), cell(p.engine), cell(p.accumulate.empty() ? "—" : p.accumulate),
                          cell(rate_flops(p.flops_per_s), p.flops_per_s), cell(p.formula.empty() ? "—" : p.formula),
                          p.sparse_flops_per_s ? cell(rate_flops(*p.sparse_flops_per_s) + " sparse", *p.sparse_flops_per_s) : cell("—"),
                          cell(p.note.empty() ? "—" : p.note)});
  if (peaks.rows.empty()) s.para("No nominal peaks in the results.");
  else s.add(std::move(peaks));
  if (!n.factors.empty()) {
    s.heading("Device factors");
    s.add(factor_table(n.factors));
  }
  for (const auto& p : n.peaks)
    if (!p.factors.empty()) {
      // A precision may have a peak per accumulate type (fp16 with fp32 and with fp16 accumulate): the
      // accumulate names the heading, so no two headings are the same.
      s.heading("Factors of the " + p.precision + " " + p.engine + " peak" + (p.accumulate.empty() ? "" : " (" + p.accumulate + " accumulate)"));
      s.add(factor_table(p.factors));
    }
  s.heading("Memory bandwidth");
  if (n.memory_bandwidth_bytes_per_s)
    s.para("Nominal memory bandwidth: " + rate_bytes(*n.memory_bandwidth_bytes_per_s) +
           (n.memory_bandwidth_formula.empty() ? "" : " = " + n.memory_bandwidth_formula) + ".");
  else
    s.para("Nominal memory bandwidth: unknown (" + or_unknown(n.memory_bandwidth_reason) + ").");
  if (!n.memory_factors.empty()) s.add(factor_table(n.memory_factors));
  s.bullets(n.notes);
  return s;
}

section problems_section(const results& r) {
  section s{"Errors and probes that did not run", "problems", {}};
  if (r.errors.empty() && r.measured.skipped.empty()) {
    s.para("None: every probe ran and passed verification.");
  }
  if (!r.errors.empty()) {
    table t;
    t.header = {"probe", "error"};
    for (const auto& e : r.errors) t.rows.push_back({cell(e.probe), cell(e.message)});
    s.heading("Errors");
    s.add(std::move(t));
  }
  if (!r.measured.skipped.empty()) {
    table t;
    t.header = {"probe", "status", "why"};
    for (const auto& k : r.measured.skipped) t.rows.push_back({cell(k.probe), cell(k.status), cell(k.reason)});
    s.heading("Skipped probes");
    s.add(std::move(t));
  }
  int not_run = 0;
  for (const auto& op : r.ops)
    if (!op.measured_s) ++not_run;
  if (not_run > 0) s.para(fmt::format("{} of {} ops have no measured time; the op table says why for each.", not_run, r.ops.size()));
  return s;
}

}  // namespace roofline::report
