// `roofline export`: a run's measured roofs (and the nominal peaks beside them) in the forms other
// tools read their denominators from (docs/export.md says which file of each tool reads which field):
//   torchao   — one entry of torchao's roofline table (torchao/testing/training/roofline_utils.py,
//               gpu_name_to_specs): nominal bf16/fp8/fp4 peaks and memory bandwidth, and the achievable
//               fractions pct_achievable_gemm_tops (bf16) and pct_achievable_mem_bw, as JSON;
//   tracelens — a TraceLens GPU arch file (examples/gpu_arch_example.md): name, mem_bw_gbps,
//               memory_gb, max_achievable_tflops {matrix_<p>, vector_<p>}, _reference;
//   vllm      — Prometheus text exposition (format 0.0.4) gauges of every compute roof and bandwidth,
//               the denominators of vLLM's --enable-mfu-metrics counters
//               (vllm:estimated_flops_per_gpu_total, vllm:estimated_read/write_bytes_per_gpu_total);
//   csv       — every roof, one row each: device,quantity,precision,engine,level,pattern,source,value,unit,detail.
// Only numbers the file holds are written: a roof not measured is left out, never filled with a default.
#pragma once
#include <string>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

/// The formats, in the order `export --out DIR` writes them.
const std::vector<std::string>& export_formats();
/// The file name `export --out DIR` gives format `f` ("torchao-specs.json", "tracelens-arch.json",
/// "vllm-roofs.prom", "roofs.csv").
std::string export_file_name(const std::string& format);
/// `r` in format `format` (one of export_formats()). Throws input_error (field "--format") for another
/// name, and (field naming the missing roof, file `source`) when the format needs a roof the file lacks:
/// torchao needs the nominal bf16 peak and the nominal memory bandwidth.
std::string render_export(const results& r, const std::string& format, const std::string& source);

}  // namespace roofline
