// bench/gemm_pair.py --table (the GEMM pairs' table, roofline beside PyTorch) on a canned sample:
// tests/data/gemm-pair-synthetic/gemm-pair.json is hand-written and labelled synthetic. Skipped only
// when python3 is absent. The GPU part of the script (libroofline_gemm_pair.so and PyTorch) runs in
// bench/gemm-pair.sh on a GPU machine.
#include <gtest/gtest.h>

#include <string>

#include "common/run_binary.hpp"

namespace {

roofline::test::run_result run_pair_table(const std::string& args) {
  return roofline::test::run_command("python3 " + std::string(ROOFLINE_SOURCE_DIR) + "/bench/gemm_pair.py " + args);
}

}  // namespace

TEST(GemmPairTable, VerdictsCountMissesFailedChecksAndCasesNotRun) {
  if (!roofline::test::have_command("python3")) GTEST_SKIP() << "python3 not found";
  const auto r =
      run_pair_table("--table " + std::string(ROOFLINE_TEST_DATA) + "/gemm-pair-synthetic/gemm-pair.json");
  const std::string out = r.all();
  ASSERT_EQ(r.code, 0) << out;
  // 650 ÷ 625 TFLOP/s = 1.040 ≥ 1.00: met
  EXPECT_NE(out.find("| fp16 | fp32 | 4096 | 650.0 | 625.0 | 1.040× |"), std::string::npos) << out;
  EXPECT_NE(out.find("| NN tile 256x128, rank 1 | 290 | met |"), std::string::npos) << out;
  // 0.991 < 1.00: missed; a ratio above 1 with a failed output check is missed too
  EXPECT_NE(out.find("| TN tile 128x256, rank 5 | 20 | **missed** |"), std::string::npos) << out;
  EXPECT_NE(out.find("**missed** (output check failed)"), std::string::npos) << out;
  // a case in scope that did not run is said, never counted as met; int8 is out of scope
  EXPECT_NE(out.find("| **not run** |"), std::string::npos) << out;
  EXPECT_NE(out.find("| int8 | int32 | 4096 | 1400.0 | 750.0 | 1.867× |"), std::string::npos) << out;
  EXPECT_NE(out.find("1 met, 2 missed: tf32/fp32 n=16384 (0.991×), bf16/fp32 n=8192 (1.077×); 1 not run: fp8/fp32 n=2048."),
            std::string::npos)
      << out;
}

TEST(GemmPairTable, AMissingFileExits2) {
  if (!roofline::test::have_command("python3")) GTEST_SKIP() << "python3 not found";
  const auto r = run_pair_table("--table /nonexistent/gemm-pair.json");
  const std::string out = r.all();
  EXPECT_EQ(r.code, 2) << out;
  EXPECT_NE(out.find("--table /nonexistent/gemm-pair.json"), std::string::npos) << out;
}
