// `roofline export` (roofline/export.hpp) of the H100 run of 2026-12-05 (tests/data/h100-2026-12-05),
// each format read back the way its consumer reads it (tests/report/consumers/*.py: torchao's table
// lookup and time formula, TraceLens's arch-file lookup, the Prometheus client's own text parser),
// with Debian's python3 (/usr/bin/python3; scripts/setup.sh test installs python3-prometheus-client).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "roofline/error.hpp"
#include "roofline/export.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

const char* h100_name = "NVIDIA H100 80GB HBM3";
// The run's roofs (results.json): the best bf16 GEMM 765.710761198101 TFLOP/s (n = 8192), fp8 1342.93
// TFLOP/s (n = 4096); the best device-memory rate 3.30179 TB/s (write), read 3.23541 TB/s; nominal bf16
// 989.42976 TFLOP/s, fp8 1978.85952, memory 3.35232 TB/s (H100 SXM datasheet at 1830 MHz; 5 × 1024-bit
// HBM3 stacks at 2619 MHz).
constexpr double bf16_gemm = 765710761198101.4, fp8_gemm = 1342928252974594.8, best_bw = 3301789213351.9146, read_bw = 3235409639971.5625;

std::string h100() { return test::data("h100-2026-12-05/results.json"); }

std::vector<double> numbers(const std::string& s) {
  std::istringstream in(s);
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return v;
}

std::string consumer(const std::string& script, const std::string& args) {
  const auto r = test::run_command("/usr/bin/python3 " + std::string(ROOFLINE_SOURCE_DIR) + "/tests/report/consumers/" + script + " " + args);
  EXPECT_EQ(r.code, 0) << script << " " << args << "\n" << r.err;
  return r.out;
}

TEST(Export, TorchaoTableEntryPredictsTheMeasuredBf16GemmTime) {
  const results r = load_results(h100());
  const json j = json::parse(render_export(r, "torchao", h100()));
  const json& e = j.at(h100_name);
  EXPECT_DOUBLE_EQ(e.at("bf16_peak_tops").get<double>(), 989429760000000.0);
  EXPECT_DOUBLE_EQ(e.at("fp8_peak_tops").get<double>(), 1978859520000000.0);
  EXPECT_DOUBLE_EQ(e.at("peak_mem_bw_bytes_sec").get<double>(), 3352320000000.0);
  EXPECT_DOUBLE_EQ(e.at("pct_achievable_gemm_tops").get<double>(), 0.7739);      // 765.71 ÷ 989.43
  EXPECT_DOUBLE_EQ(e.at("fp8_pct_achievable_gemm_tops").get<double>(), 0.6786);  // 1342.93 ÷ 1978.86
  EXPECT_DOUBLE_EQ(e.at("pct_achievable_mem_bw").get<double>(), 0.9849);         // 3.30179 ÷ 3.35232
  EXPECT_FALSE(e.contains("fp4_peak_tops"));  // the H100 has no fp4 peak: left out, not zero

  test::temp_dir d("export-torchao");
  write_file_atomic(d / "t.json", j.dump());
  // torchao's GEMM time of 8192³ in bf16 on these specs is the measured one (to the 4 digits of pct),
  // its memory time of 1 GB the best measured rate's.
  const auto v = numbers(consumer("torchao_specs.py", d / "t.json" + " '" + h100_name + "' 8192 8192 8192 1e9"));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NEAR(v[0] / (2.0 * 8192 * 8192 * 8192 / bf16_gemm), 1.0, 1e-4);
  EXPECT_NEAR(v[1] / (1e9 / best_bw), 1.0, 1e-4);
}

TEST(Export, TracelensArchFileGivesTheMeasuredGemmAndReadBandwidth) {
  const results r = load_results(h100());
  const std::string text = render_export(r, "tracelens", h100());
  const json a = json::parse(text);
  EXPECT_EQ(a.at("name"), h100_name);
  EXPECT_DOUBLE_EQ(a.at("mem_bw_gbps").get<double>(), 3235.4);  // read, as TraceLens's own microbenchmark
  EXPECT_DOUBLE_EQ(a.at("memory_gb").get<double>(), 79.2);     // 85,017,493,504 B as the GPU reports it, in GiB
  const json& maf = a.at("max_achievable_tflops");
  EXPECT_DOUBLE_EQ(maf.at("matrix_bf16").get<double>(), 765.7);
  EXPECT_DOUBLE_EQ(maf.at("matrix_fp8").get<double>(), 1343.0);
  EXPECT_DOUBLE_EQ(maf.at("matrix_fp32").get<double>(), 53.71);  // SGEMM, n = 16384
  EXPECT_DOUBLE_EQ(maf.at("vector_fp16").get<double>(), 130.1);  // half2 FMA chains
  EXPECT_FALSE(maf.contains("matrix_tf32"));                     // no TraceLens key for it
  EXPECT_FALSE(maf.contains("vector_bf16"));                     // not measured: left out
  test::temp_dir d("export-tracelens");
  write_file_atomic(d / "a.json", text);
  const auto v = numbers(consumer("tracelens_arch.py", d / "a.json" + " matrix_bf16 1e9"));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_DOUBLE_EQ(v[0], 765.7);
  EXPECT_NEAR(v[1], 1e9 / (read_bw / 1e9 * 1000), 0.01);  // µs
}

TEST(Export, VllmPrometheusGaugesParseAndGiveTheMfuOfACounterRate) {
  const results r = load_results(h100());
  test::temp_dir d("export-vllm");
  write_file_atomic(d / "r.prom", render_export(r, "vllm", h100()));
  // 100 TFLOP/s and 1 TB/s of vLLM's counters' rates against the measured bf16 GEMM and device memory
  const auto v = numbers(consumer("vllm_prom.py", d / "r.prom" + " bf16 measured 1e14 1e12"));
  ASSERT_EQ(v.size(), 4u);
  EXPECT_NEAR(v[0], 1e14 / bf16_gemm, 1e-6);  // 0.1306
  EXPECT_NEAR(v[1], 1e12 / best_bw, 1e-6);    // 0.3029
  EXPECT_EQ(v[2], 2);                         // two gauge families
  // against the nominal bf16 peak: 100 ÷ 989.43
  EXPECT_NEAR(numbers(consumer("vllm_prom.py", d / "r.prom" + " bf16 nominal 1e14 1e12"))[0], 1e14 / 989429760000000.0, 1e-6);
}

TEST(Export, CsvHasOneRowPerRoofWithItsSource) {
  const results r = load_results(h100());
  const std::string csv = render_export(r, "csv", h100());
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "device,quantity,precision,engine,level,pattern,source,value,unit,detail");
  EXPECT_NE(csv.find("NVIDIA H100 80GB HBM3,compute,bf16,gemm,,,measured,7.65711e+14,FLOP/s,n = 8192\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("NVIDIA H100 80GB HBM3,compute,int8,gemm,,,measured,1.45761e+15,OP/s,n = 16384\n"), std::string::npos);
  EXPECT_NE(csv.find("NVIDIA H100 80GB HBM3,bandwidth,,,dram,read,measured,3.23541e+12,B/s,"), std::string::npos);
  EXPECT_NE(csv.find(",bandwidth,,,device,,nominal,3.35232e+12,B/s,"), std::string::npos);
}

TEST(Export, CommandWritesEveryFormatOrRefusesBadInput) {
  test::temp_dir d("export-cli");
  const auto ok = test::run_roofline("export " + h100() + " --out " + (d / "x"));
  ASSERT_EQ(ok.code, 0) << ok.err;
  const results r = load_results(h100());
  for (const auto& f : export_formats()) EXPECT_EQ(read_file(d / ("x/" + export_file_name(f))), render_export(r, f, h100())) << f;
  EXPECT_EQ(export_file_name("vllm"), "vllm-roofs.prom");
  const auto one = test::run_roofline("export " + h100() + " --format tracelens");
  EXPECT_EQ(one.code, 0);
  EXPECT_NE(one.out.find("\"matrix_bf16\": 765.7"), std::string::npos) << one.out;
  const auto bad = test::run_roofline("export " + h100() + " --format onnx");
  EXPECT_EQ(bad.code, 2);
  const auto neither = test::run_roofline("export " + h100());
  EXPECT_EQ(neither.code, 2);
  EXPECT_NE(neither.err.find("--format"), std::string::npos) << neither.err;
  // a CPU run has no bf16 tensor peak: torchao's entry cannot be written, and nothing is
  const auto cpu = test::run_roofline("export " + test::data("results-cpu.json") + " --out " + (d / "cpu"));
  EXPECT_EQ(cpu.code, 2);
  EXPECT_NE(cpu.err.find("bf16"), std::string::npos) << cpu.err;
  EXPECT_FALSE(std::filesystem::exists(d / "cpu/roofs.csv"));
}

}  // namespace
}  // namespace roofline
