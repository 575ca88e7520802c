// `roofline export` (roofline/export.hpp): the measured roofs in other tools' formats. The roofs are
// the ones every view uses (vocabulary.hpp: peak_for, best_compute_on, best_device_bandwidth,
// best_level_bandwidth); this file only lays them out as each consumer reads them.
#include "roofline/csv.hpp"
#include "roofline/export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

std::vector<std::string> precisions_of(const results& r) {
  std::vector<std::string> v = nominal_precisions(r.nominal);
  for (const auto& p : measured_precisions(r.measured))
    if (std::find(v.begin(), v.end(), p) == v.end()) v.push_back(p);
  return v;
}

std::string provenance(const results& r, const std::string& source) {
  return fmt::format("roofline {} export of {} ({} measured on {} at {})", r.tool.version, source, r.device.name,
                     r.host.hostname.empty() ? "an unnamed host" : r.host.hostname, r.host.timestamp);
}

/// A value rounded to 4 significant digits (the measurements' repeatability is ~1 %: more digits
/// would claim what the run did not show).
double sig4(double v) {
  if (!(v > 0)) return v;
  const double e = std::pow(10.0, std::floor(std::log10(v)) - 3);
  return std::round(v / e) * e;
}

// ---- torchao: one entry of gpu_name_to_specs ----

std::string torchao(const results& r, const std::string& source) {
  const nominal_peak* bf16 = peak_for(r.nominal, "bf16", peak_engine::tensor);
  if (!bf16) throw input_error(source, "nominal.peaks", "no nominal bf16 tensor peak: torchao's table needs bf16_peak_tops");
  const auto bw = r.nominal.memory_bandwidth_bytes_per_s;
  if (!bw || !(*bw > 0))
    throw input_error(source, "nominal.memory_bandwidth_bytes_per_s", "unknown: torchao's table needs peak_mem_bw_bytes_sec");
  json e = json::object();
  e["bf16_peak_tops"] = bf16->flops_per_s;
  for (const char* p : {"fp8", "fp4"})
    if (const nominal_peak* n = peak_for(r.nominal, p, peak_engine::tensor)) e[std::string(p) + "_peak_tops"] = n->flops_per_s;
  e["peak_mem_bw_bytes_sec"] = *bw;
  // The achievable fractions: the best GEMM of each precision ÷ its nominal tensor peak (torchao's
  // one pct_achievable_gemm_tops is the bf16 one; the others under their precision's name), the best
  // device-memory bandwidth ÷ the nominal.
  for (const char* p : {"bf16", "fp8", "fp4"}) {
    const nominal_peak* n = peak_for(r.nominal, p, peak_engine::tensor);
    const compute_result* g = best_compute_on(r.measured, p, "gemm");
    if (!n || !g) continue;
    const std::string key = std::string(p) == "bf16" ? "pct_achievable_gemm_tops" : std::string(p) + "_pct_achievable_gemm_tops";
    e[key] = std::round(g->flops_per_s / n->flops_per_s * 1e4) / 1e4;
  }
  if (const bandwidth_result* m = best_device_bandwidth(r.measured)) e["pct_achievable_mem_bw"] = std::round(m->bytes_per_s / *bw * 1e4) / 1e4;
  e["_source"] = provenance(r, source);
  json top = json::object();
  top[r.device.name] = e;
  return top.dump(4) + "\n";
}

// ---- TraceLens: a GPU arch file ----

std::string tracelens(const results& r, const std::string& source) {
  json a = json::object();
  a["name"] = r.device.name;
  // TraceLens's own microbenchmark writes the read bandwidth; a file without a read row gives its best.
  const bandwidth_result* bw = best_device_bandwidth(r.measured, "read");
  if (!bw) bw = best_device_bandwidth(r.measured);
  if (!bw) throw input_error(source, "measured.bandwidth", "no device-memory bandwidth measured: TraceLens needs mem_bw_gbps");
  a["mem_bw_gbps"] = std::round(bw->bytes_per_s / 1e9 * 10) / 10;
  if (auto mem = property_number(r, {"memory_bytes"})) a["memory_gb"] = std::round(*mem / (1024.0 * 1024 * 1024) * 10) / 10;
  json maf = json::object();
  // matrix_<p>: the best GEMM of the precision (TraceLens looks GEMMs, convolutions and SDPA up here);
  // vector_<p>: the FMA chains (its elementwise ops). TraceLens's keys: no tf32.
  for (const auto& p : precisions_of(r)) {
    static const std::vector<std::string> matrix{"fp16", "bf16", "fp32", "fp64", "fp8", "fp4", "fp6", "int8"};
    static const std::vector<std::string> vector{"fp16", "bf16", "fp32", "fp64"};
    if (std::find(matrix.begin(), matrix.end(), p) != matrix.end())
      if (const compute_result* g = best_compute_on(r.measured, p, "gemm")) maf["matrix_" + p] = sig4(g->flops_per_s / 1e12);
    if (std::find(vector.begin(), vector.end(), p) != vector.end())
      if (const compute_result* f = best_compute_on(r.measured, p, "vector")) maf["vector_" + p] = sig4(f->flops_per_s / 1e12);
  }
  if (maf.empty()) throw input_error(source, "measured.compute", "no compute roof measured: TraceLens needs max_achievable_tflops");
  a["max_achievable_tflops"] = maf;
  a["_reference"] = provenance(r, source) + fmt::format("; mem_bw_gbps: {} at {:.0f} MiB", bw->pattern,
                                                         static_cast<double>(bw->working_set_bytes) / (1024.0 * 1024));
  return a.dump(4) + "\n";
}

// ---- Prometheus text exposition: the denominators of vLLM's MFU counters ----

std::string label_value(const std::string& s) {  // escaped as the text format requires: \ " and newline
  std::string o;
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '"') o += "\\\"";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o;
}

std::string prometheus(const results& r, const std::string& source) {
  const std::string dev = label_value(r.device.name);
  std::string o = "# " + provenance(r, source) + "\n";
  o += "# HELP roofline_compute_roof_flops_per_second A compute roof (FLOP/s; OP/s for int8): nominal peak or best measured rate.\n";
  o += "# TYPE roofline_compute_roof_flops_per_second gauge\n";
  for (const auto& p : precisions_of(r)) {
    for (const auto [which, engine] : {std::pair{peak_engine::tensor, "tensor"}, std::pair{peak_engine::vector, "vector"}})
      if (const nominal_peak* n = peak_for(r.nominal, p, which); n && n->engine == engine)
        o += fmt::format("roofline_compute_roof_flops_per_second{{device=\"{}\",precision=\"{}\",engine=\"{}\",source=\"nominal\"}} {:.6g}\n", dev, p,
                         engine, n->flops_per_s);
    for (const char* engine : {"gemm", "vector"})
      if (const compute_result* m = best_compute_on(r.measured, p, engine))
        o += fmt::format("roofline_compute_roof_flops_per_second{{device=\"{}\",precision=\"{}\",engine=\"{}\",source=\"measured\"}} {:.6g}\n", dev, p,
                         engine, m->flops_per_s);
  }
  o += "# HELP roofline_memory_bandwidth_bytes_per_second A memory roof (B/s): nominal device memory, or the best measured rate per level and pattern.\n";
  o += "# TYPE roofline_memory_bandwidth_bytes_per_second gauge\n";
  if (auto bw = r.nominal.memory_bandwidth_bytes_per_s; bw && *bw > 0)
    o += fmt::format("roofline_memory_bandwidth_bytes_per_second{{device=\"{}\",level=\"device\",pattern=\"any\",source=\"nominal\"}} {:.6g}\n", dev, *bw);
  for (const char* pattern : {"read", "write", "copy", "triad"})
    if (const bandwidth_result* b = best_device_bandwidth(r.measured, pattern))
      o += fmt::format("roofline_memory_bandwidth_bytes_per_second{{device=\"{}\",level=\"device\",pattern=\"{}\",source=\"measured\"}} {:.6g}\n", dev,
                       pattern, b->bytes_per_s);
  for (const auto& lvl : cache_levels(r.measured))
    if (const bandwidth_result* b = best_level_bandwidth(r.measured, lvl))
      o += fmt::format("roofline_memory_bandwidth_bytes_per_second{{device=\"{}\",level=\"{}\",pattern=\"{}\",source=\"measured\"}} {:.6g}\n", dev,
                       label_value(lvl), b->pattern, b->bytes_per_s);
  return o;
}

// ---- CSV (fields through roofline/csv.hpp) ----

std::string csv(const results& r) {
  std::string o = "device,quantity,precision,engine,level,pattern,source,value,unit,detail\n";
  const std::string dev = csv_field(r.device.name);
  auto row = [&](const std::string& q, const std::string& p, const std::string& e, const std::string& l, const std::string& pat,
                 const std::string& src, double v, const std::string& unit, const std::string& detail) {
    o += fmt::format("{},{},{},{},{},{},{},{:.6g},{},{}\n", dev, q, p, e, l, pat, src, v, unit, csv_field(detail));
  };
  for (const auto& p : precisions_of(r)) {
    const std::string unit = p == "int8" ? "OP/s" : "FLOP/s";
    for (const auto [which, engine] : {std::pair{peak_engine::tensor, "tensor"}, std::pair{peak_engine::vector, "vector"}})
      if (const nominal_peak* n = peak_for(r.nominal, p, which); n && n->engine == engine)
        row("compute", p, engine, "", "", "nominal", n->flops_per_s, unit, n->formula);
    for (const char* engine : {"gemm", "vector"})
      if (const compute_result* m = best_compute_on(r.measured, p, engine))
        row("compute", p, engine, "", "", "measured", m->flops_per_s, unit,
            m->size ? fmt::format("n = {}", *m->size) : std::string(std::string(engine) == "vector" ? "FMA chains" : ""));
  }
  if (auto bw = r.nominal.memory_bandwidth_bytes_per_s; bw && *bw > 0)
    row("bandwidth", "", "", "device", "", "nominal", *bw, "B/s", r.nominal.memory_bandwidth_formula);
  for (const char* pattern : {"read", "write", "copy", "triad"})
    if (const bandwidth_result* b = best_device_bandwidth(r.measured, pattern))
      row("bandwidth", "", "", b->level, pattern, "measured", b->bytes_per_s, "B/s",
          fmt::format("working set {} B", b->working_set_bytes));
  for (const auto& lvl : cache_levels(r.measured))
    if (const bandwidth_result* b = best_level_bandwidth(r.measured, lvl))
      row("bandwidth", "", "", lvl, b->pattern, "measured", b->bytes_per_s, "B/s", fmt::format("working set {} B", b->working_set_bytes));
  return o;
}

}  // namespace

const std::vector<std::string>& export_formats() {
  static const std::vector<std::string> f{"torchao", "tracelens", "vllm", "csv"};
  return f;
}

std::string export_file_name(const std::string& format) {
  if (format == "torchao") return "torchao-specs.json";
  if (format == "tracelens") return "tracelens-arch.json";
  if (format == "vllm") return "vllm-roofs.prom";
  if (format == "csv") return "roofs.csv";
  throw input_error("", "--format", "unknown format '" + format + "' (torchao, tracelens, vllm, csv)");
}

std::string render_export(const results& r, const std::string& format, const std::string& source) {
  if (format == "torchao") return torchao(r, source);
  if (format == "tracelens") return tracelens(r, source);
  if (format == "vllm") return prometheus(r, source);
  if (format == "csv") return csv(r);
  throw input_error("", "--format", "unknown format '" + format + "' (torchao, tracelens, vllm, csv)");
}

}  // namespace roofline
