// Hand-built result models for the analysis tests (numbers from datasheets, stated per field).
#pragma once
#include "roofline/json.hpp"
#include "roofline/results.hpp"

namespace roofline::test {

/// NVIDIA H200 SXM nominal roofs as the datasheet gives them: 989 TFLOP/s dense fp16/bf16 tensor,
/// 67 TFLOP/s fp32 vector, 4.8 TB/s HBM3e; 132 SMs, 1980 MHz boost clock.
inline nominal_roofs h200_nominal() {
  nominal_roofs n;
  n.device_name = "NVIDIA H200";
  n.factors = {{"SMs", 132, "", "table: NVIDIA H200 datasheet"}, {"boost clock", 1980, "MHz", "table"},
               {"memory clock", 2619, "MHz", "table"}};
  nominal_peak fp16{"fp16", "fp32", "tensor", 989e12, "", {}, 1979e12, ""};
  nominal_peak bf16{"bf16", "fp32", "tensor", 989e12, "", {}, 1979e12, ""};
  nominal_peak fp32{"fp32", "", "vector", 67e12, "", {}, std::nullopt, ""};
  n.peaks = {fp16, bf16, fp32};
  n.memory_bandwidth_bytes_per_s = 4.8e12;
  return n;
}

inline telemetry_summary clocks(double sm_mhz, double power_w) {
  telemetry_summary t;
  t.samples = 100;
  t.sample_hz = 100;
  t.sm_clock_mhz = stats_summary{100, sm_mhz, sm_mhz, sm_mhz, sm_mhz, 0};
  t.power_w = stats_summary{100, power_w, power_w, power_w, power_w, 0};
  return t;
}

inline compute_result gemm(const std::string& prec, std::int64_t n, double flops, std::optional<telemetry_summary> t = {}) {
  compute_result c;
  c.precision = prec;
  c.engine = "gemm";
  c.size = n;
  c.flops_per_s = flops;
  c.median_flops_per_s = flops;
  c.verified = true;
  c.telemetry = t;
  return c;
}

inline bandwidth_result bw(const std::string& pattern, const std::string& level, double bytes_per_s) {
  bandwidth_result b;
  b.pattern = pattern;
  b.level = level;
  b.bytes_per_s = bytes_per_s;
  b.median_bytes_per_s = bytes_per_s;
  b.working_set_bytes = level == "l2" ? (16LL << 20) : (4LL << 30);
  b.verified = true;
  return b;
}

/// A plausible measured H200: fp16 GEMM 512…8192, DRAM patterns, L2.
inline results h200_results() {
  results r;
  r.device.kind = "cuda";
  r.device.name = "NVIDIA H200";
  r.device.properties = {{"sms", 132}, {"ecc", true}, {"power_limit_w", 700}};
  r.nominal = h200_nominal();
  r.measured.compute = {gemm("fp16", 512, 30e12, clocks(1980, 300)),
                        gemm("fp16", 4096, 700e12, clocks(1755, 690)),
                        gemm("fp16", 8192, 760e12, clocks(1740, 699)),
                        gemm("fp32", 4096, 50e12, clocks(1800, 650))};
  r.measured.bandwidth = {bw("read", "hbm", 4.0e12), bw("write", "hbm", 4.3e12), bw("copy", "hbm", 3.9e12),
                          bw("triad", "hbm", 3.95e12), bw("read", "l2", 10e12)};
  return r;
}

}  // namespace roofline::test
