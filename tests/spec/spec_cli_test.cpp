// The CLI: `roofline spec t4 --json` parses and has the fields; unknown name exits 2.
// One formatter behind every command: H200's fp16 dense peak and ridge read the same in `spec`,
// `ops`, `mfu` and `place` (roofline/units.hpp, 3 significant digits). H200 fp16: 132 SM × 4 TC ×
// 512 FMA × 2 × 1.83 GHz = 989.4 TFLOP/s (H100 whitepaper, Table 3) → "989 TFLOP/s"; 6016 bit / 8 ×
// 6.402 Gbit/s = 4.814 TB/s → "4.81 TB/s"; ridge 989.4 / 4.814 = 205.5 → "206 FLOP/B".
// And per-GCD counting: MI250X --gpus 8 is 8 GCDs of 191.5 TFLOP/s (AMD ROCm documentation).
#include <gtest/gtest.h>

#include <string>

#include "common/run_binary.hpp"
#include "roofline/json.hpp"

using roofline::json;
using roofline::test::run_roofline;

TEST(SpecCli, JsonHasTheFields) {
  const auto r = run_roofline("spec t4 --json");
  ASSERT_EQ(r.code, 0);
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("name"), "NVIDIA T4");
  ASSERT_TRUE(j.at("factors").is_array());
  EXPECT_TRUE(j.at("factors")[0].contains("source"));
  ASSERT_TRUE(j.at("peaks").is_array());
  bool fp16 = false;
  for (const auto& p : j.at("peaks")) {
    for (const char* k : {"precision", "accumulate", "engine", "flops_per_s", "formula", "factors", "sparse_flops_per_s"})
      EXPECT_TRUE(p.contains(k)) << k;
    if (p.at("precision") == "fp16" && p.at("engine") == "tensor" && p.at("accumulate") == "fp32") {
      fp16 = true;
      EXPECT_NEAR(p.at("flops_per_s").get<double>() / 1e12, 65.1, 0.05);
    }
  }
  EXPECT_TRUE(fp16);
  EXPECT_DOUBLE_EQ(j.at("memory_bandwidth_bytes_per_s").get<double>(), 320e9);
  EXPECT_TRUE(j.contains("memory_bandwidth_formula"));
  ASSERT_TRUE(j.at("ridge_points").is_array());
  EXPECT_NEAR(j.at("ridge_points")[0].at("flop_per_byte").get<double>(), 203.5, 0.1);
  EXPECT_TRUE(j.at("notes").is_array());
}

TEST(SpecCli, TextShowsTheDerivation) {
  const auto r = run_roofline("spec 'Tesla T4'");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("40 SM × 8 TC × 64 FMA/clk × 2 FLOP/FMA × 1.59 GHz"), std::string::npos);
  EXPECT_NE(r.out.find("204 FLOP/B"), std::string::npos);  // 65.1e12 / 320e9 = 203.5, printed as every command prints it (units.hpp)
  EXPECT_NE(r.out.find("320 GB/s"), std::string::npos);
}

TEST(SpecCli, UnknownNameExits2) { EXPECT_EQ(run_roofline("spec no-such-gpu").code, 2); }
TEST(SpecCli, NoArgumentExits2) { EXPECT_EQ(run_roofline("spec").code, 2); }
TEST(SpecCli, CudaDeviceWithoutTheBackendExits2) {
#ifndef ROOFLINE_HAVE_CUDA
  EXPECT_EQ(run_roofline("spec --device cuda:0").code, 2);
#endif
}

TEST(CrossCommand, H200PeakBandwidthAndRidgeReadTheSameEverywhere) {
  for (const std::string args : {"spec h200", "ops --model llama-2-7b --phase decode --device h200",
                                 "mfu --model llama-2-7b --phase decode --tpot 20ms --device h200",
                                 "place --device h200 --flops 1e12 --bytes 1e9 --time 0.002"}) {
    SCOPED_TRACE(args);
    const auto r = run_roofline(args);
    const std::string out = r.all();
    EXPECT_EQ(r.code, 0) << out;
    EXPECT_NE(out.find("989 TFLOP/s"), std::string::npos) << out;
    EXPECT_NE(out.find("206 FLOP/B"), std::string::npos) << out;
    // no other spelling of the same values (source citations, "table: ...", may quote the datasheet's 989.4)
    std::string printed;
    for (std::size_t a = 0, b; a < out.size(); a = b + 1) {
      b = out.find('\n', a);
      if (b == std::string::npos) b = out.size();
      const std::string line = out.substr(a, b - a);
      if (line.find("table: ") == std::string::npos) printed += line + "\n";
    }
    for (const char* other : {"989.4", "205.5", "205.6", "4.814 T"}) EXPECT_EQ(printed.find(other), std::string::npos) << other;
    if (args.rfind("mfu", 0) != 0) EXPECT_NE(out.find("4.81 TB/s"), std::string::npos) << out;
  }
}

TEST(CrossCommand, Mi250xGpusCountGcds) {
  const auto r = run_roofline("mfu --model llama-2-7b --phase train --seq 4096 --batch 8 --step-time 4s --device mi250x --gpus 8 --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const json j = json::parse(r.out);
  const double gcd = 110.0 * 4 * 128 * 2 * 1.7e9;  // 191.5 TFLOP/s per GCD
  EXPECT_DOUBLE_EQ(j.at("peak_flops_per_s").get<double>(), gcd);
  EXPECT_EQ(j.at("devices_counted"), "GCD");
  const double model_flops = j.at("model_flops_per_s").get<double>();
  EXPECT_NEAR(j.at("mfu").get<double>(), model_flops / (8 * gcd), 1e-12);
  // against 8 whole modules (383 TFLOP/s each) the MFU would read half: the error this replaces
  const auto r2 = run_roofline("mfu --model llama-2-7b --phase train --seq 4096 --batch 8 --step-time 4s --peak 382.976e12 --gpus 8 --json");
  ASSERT_EQ(r2.code, 0) << r2.all();
  EXPECT_NEAR(j.at("mfu").get<double>() / json::parse(r2.out).at("mfu").get<double>(), 2.0, 1e-9);
}
