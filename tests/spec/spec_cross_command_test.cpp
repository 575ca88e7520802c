// One formatter behind every command: H200's fp16 dense peak and ridge read the same in `spec`,
// `ops`, `mfu` and `place` (roofline/units.hpp, 3 significant digits). H200 fp16: 132 SM × 4 TC ×
// 512 FMA × 2 × 1.83 GHz = 989.4 TFLOP/s (H100 whitepaper, Table 3) → "989 TFLOP/s"; 6016 bit / 8 ×
// 6.402 Gbit/s = 4.814 TB/s → "4.81 TB/s"; ridge 989.4 / 4.814 = 205.5 → "206 FLOP/B".
// And per-GCD counting: MI250X --gpus 8 is 8 GCDs of 191.5 TFLOP/s (AMD ROCm documentation).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "roofline/json.hpp"

using roofline::json;

namespace {

std::pair<int, std::string> run(const std::string& args) {
  const std::string cmd = std::string(ROOFLINE_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST(CrossCommand, H200PeakBandwidthAndRidgeReadTheSameEverywhere) {
  for (const std::string args : {"spec h200", "ops --model llama-2-7b --phase decode --device h200",
                                 "mfu --model llama-2-7b --phase decode --tpot 20ms --device h200",
                                 "place --device h200 --flops 1e12 --bytes 1e9 --time 0.002"}) {
    SCOPED_TRACE(args);
    const auto [rc, out] = run(args);
    EXPECT_EQ(rc, 0) << out;
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
  const auto [rc, out] = run("mfu --model llama-2-7b --phase train --seq 4096 --batch 8 --step-time 4s --device mi250x --gpus 8 --json");
  ASSERT_EQ(rc, 0) << out;
  const json j = json::parse(out);
  const double gcd = 110.0 * 4 * 128 * 2 * 1.7e9;  // 191.5 TFLOP/s per GCD
  EXPECT_DOUBLE_EQ(j.at("peak_flops_per_s").get<double>(), gcd);
  EXPECT_EQ(j.at("devices_counted"), "GCD");
  const double model_flops = j.at("model_flops_per_s").get<double>();
  EXPECT_NEAR(j.at("mfu").get<double>(), model_flops / (8 * gcd), 1e-12);
  // against 8 whole modules (383 TFLOP/s each) the MFU would read half: the error this replaces
  const auto [rc2, out2] = run("mfu --model llama-2-7b --phase train --seq 4096 --batch 8 --step-time 4s --peak 382.976e12 --gpus 8 --json");
  ASSERT_EQ(rc2, 0) << out2;
  EXPECT_NEAR(j.at("mfu").get<double>() / json::parse(out2).at("mfu").get<double>(), 2.0, 1e-9);
}
