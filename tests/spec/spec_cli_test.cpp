// The CLI: `roofline spec t4 --json` parses and has the fields; unknown name exits 2.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "roofline/json.hpp"

using roofline::json;

namespace {

std::pair<int, std::string> run(const std::string& args) {
  const std::string cmd = std::string(ROOFLINE_BINARY) + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST(SpecCli, JsonHasTheFields) {
  const auto [rc, out] = run("spec t4 --json");
  ASSERT_EQ(rc, 0);
  const json j = json::parse(out);
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
  const auto [rc, out] = run("spec 'Tesla T4'");
  ASSERT_EQ(rc, 0);
  EXPECT_NE(out.find("40 SM × 8 TC × 64 FMA/clk × 2 FLOP/FMA × 1.59 GHz"), std::string::npos);
  EXPECT_NE(out.find("204 FLOP/B"), std::string::npos);  // 65.1e12 / 320e9 = 203.5, printed as every command prints it (units.hpp)
  EXPECT_NE(out.find("320 GB/s"), std::string::npos);
}

TEST(SpecCli, ListNamesEveryGpu) {
  const auto [rc, out] = run("spec --list --json");
  ASSERT_EQ(rc, 0);
  EXPECT_GE(json::parse(out).size(), 18u);
}

TEST(SpecCli, UnknownNameExits2) { EXPECT_EQ(run("spec no-such-gpu").first, 2); }
TEST(SpecCli, NoArgumentExits2) { EXPECT_EQ(run("spec").first, 2); }
TEST(SpecCli, CudaDeviceWithoutTheBackendExits2) {
#ifndef ROOFLINE_HAVE_CUDA
  EXPECT_EQ(run("spec --device cuda:0").first, 2);
#endif
}
