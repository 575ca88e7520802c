// bench/fleet_table.py (the two-GPU benchmark's table, roofline beside nccl-tests) on a canned sample:
// tests/data/fleet-bench-synthetic/ holds hand-written nccl-tests outputs in nccl-tests' layout and a
// fleet.json, all labelled synthetic. Skipped only when python3 is absent.
#include <gtest/gtest.h>

#include <string>

#include "common/run_binary.hpp"

namespace {

roofline::test::run_result run_table(const std::string& args) {
  return roofline::test::run_command("python3 " + std::string(ROOFLINE_SOURCE_DIR) + "/bench/fleet_table.py " + args);
}

const std::string sample = std::string(ROOFLINE_TEST_DATA) + "/fleet-bench-synthetic";

}  // namespace

TEST(FleetTable, RooflineBesideNcclTestsWithTargets) {
  if (!roofline::test::have_command("python3")) GTEST_SKIP() << "python3 not found";
  const auto r = run_table("--fleet " + sample + "/fleet.json --nccl-tests " + sample + " --machine synthetic");
  const std::string out = r.all();
  ASSERT_EQ(r.code, 0) << out;
  // 512 MiB busbw: 295.0 ÷ 300.0 in place = 0.983 ≥ 0.97; 240 ÷ 250 = 0.960 misses
  EXPECT_NE(out.find("| all_reduce | 295.0 | 298.0 | 300.0 | 0.983 | yes |"), std::string::npos) << out;
  EXPECT_NE(out.find("| all_gather | 240.0 | 245.0 | 250.0 | 0.960 | **no** |"), std::string::npos) << out;
  EXPECT_NE(out.find("| send_recv_bidir 0↔1 | 390.0 | 380.0 | 385.0 | 1.013 | yes |"), std::string::npos) << out;
  // latency at 8 B against the faster nccl-tests time: 10.00 ÷ 11.50 = 0.870; 15.00 ÷ 11.00 = 1.364 misses
  EXPECT_NE(out.find("| all_reduce | 8 | 10.00 | 12.00 | 11.50 | 0.870 | yes |"), std::string::npos) << out;
  EXPECT_NE(out.find("| all_gather | 8 | 15.00 | 11.00 | 11.20 | 1.364 | **no** |"), std::string::npos) << out;
  // no nccl-tests output for reduce-scatter: said, not guessed
  EXPECT_NE(out.find("| reduce_scatter | nccl-tests not run |"), std::string::npos) << out;
  EXPECT_NE(out.find("Targets met: 4 of 6."), std::string::npos) << out;
}

TEST(FleetTable, BadInputExits2) {
  if (!roofline::test::have_command("python3")) GTEST_SKIP() << "python3 not found";
  const auto r = run_table("--fleet " + sample + "/all_reduce_perf.txt --nccl-tests " + sample);
  const std::string out = r.all();
  EXPECT_EQ(r.code, 2) << out;
  EXPECT_NE(out.find("fleet_table.py: "), std::string::npos) << out;
}
