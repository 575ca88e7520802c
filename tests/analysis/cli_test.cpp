// The `roofline mfu` and `roofline place` commands, run as a user would.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "fixtures.hpp"
#include "roofline/json.hpp"

using namespace roofline;

namespace {

struct run_result {
  int code = -1;
  std::string out;
};

run_result run(const std::string& args) {
  run_result r;
  const std::string cmd = std::string(ROOFLINE_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int status = p ? pclose(p) : -1;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string write_h200_results() {
  const auto path = std::filesystem::temp_directory_path() / "roofline_analysis_h200_results.json";
  results r = test::h200_results();
  r.roofline.precision = "fp16";
  json j = r;
  std::ofstream(path) << j.dump(2);
  return path.string();
}

}  // namespace

TEST(CliMfu, TinyLlamaDecodeAt25msOnAT4) {
  // 2 × 1,100,048,384 FLOP ÷ 0.025 s ÷ 65.1 TFLOP/s (T4 fp16 tensor, dense, from the spec table) ≈ 0.135%.
  const auto r = run("mfu --model tinyllama-1.1b --phase decode --tpot 0.025 --device T4 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const json j = json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["flops_per_token"].get<double>(), 2.0 * 1100048384.0);
  EXPECT_NEAR(100 * j["mfu"].get<double>(), 0.135, 0.001);
  EXPECT_EQ(j["hfu"], j["mfu"]);
  // Decode at batch 1 in fp16: ~1 FLOP/B, so MFU can be at most intensity ÷ ridge.
  EXPECT_NEAR(j["decode_intensity"].get<double>(), 1.0, 0.01);
}

TEST(CliMfu, TextOutputShowsBothRoofsAndTheConvention) {
  const std::string file = write_h200_results();
  const auto r = run("mfu --model tinyllama-1.1b --phase decode --tpot 0.01 --results " + file);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("MFU (vs nominal)"), std::string::npos);
  EXPECT_NE(r.out.find("fraction of measured roof: "), std::string::npos);
  EXPECT_EQ(r.out.find("unknown (no measured roof"), std::string::npos);  // the results carry a measured roof
  EXPECT_NE(r.out.find("convention"), std::string::npos);
  EXPECT_NE(r.out.find("MFU ≈ intensity ÷ ridge"), std::string::npos);
}

TEST(CliMfu, RefusesASparsePeakAndMisusedFlags) {
  // 1979 TFLOP/s is the H200's sparse fp16 number; the dense peak is half of it.
  auto r = run("mfu --model tinyllama-1.1b --phase train --step-time 1 --seq 2048 --device H200 --precision fp16 --peak 1978.85952e12");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("sparse"), std::string::npos) << r.out;
  r = run("mfu --model tinyllama-1.1b --phase train --tpot 0.02 --device H200");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--tpot"), std::string::npos) << r.out;
  r = run("mfu --model tinyllama-1.1b --phase decode --tpot 0.02 --tokens-per-s 5 --device H200");
  EXPECT_EQ(r.code, 2);
}

TEST(CliPlace, ABandwidthBoundKernelAgainstMeasuredRoofs) {
  const std::string file = write_h200_results();
  const auto r = run("place --flops 1e9 --bytes 1e10 --time 5e-3 --results " + file + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const json j = json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["intensity"].get<double>(), 0.1);
  EXPECT_EQ(j["bound"], "bandwidth");
  EXPECT_NEAR(j["fraction_of_measured_roof"].get<double>(), (1e10 / 4.3e12) / 5e-3, 1e-9);
  EXPECT_NEAR(j["fraction_of_nominal_roof"].get<double>(), (1e10 / 4.8e12) / 5e-3, 1e-9);
  EXPECT_EQ(j["advice"].get<std::string>().rfind("bandwidth-bound", 0), 0u);
}

TEST(CliPlace, BadValuesExit2NamingTheFlag) {
  for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string>>{
           {"--flops nan --bytes 1 --time 1", "--flops"},
           {"--flops 1 --bytes 0 --time 1", "--bytes"},
           {"--flops 1 --bytes 1 --time 0", "--time"},
           {"--flops 1 --bytes 1 --time -2", "--time"}}) {
    const auto r = run("place " + args + " --device H200");
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(flag), std::string::npos) << r.out;
  }
  EXPECT_EQ(run("place --flops 1 --bytes 1 --time 1").code, 2);  // no roofs to place against
}
