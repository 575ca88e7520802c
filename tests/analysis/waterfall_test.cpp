#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "roofline/analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/record_table.hpp"
#include "roofline/spec.hpp"

using namespace roofline;

TEST(WaveQuantization, A4096SquareGemmOn132SmsRunsAt97Percent) {
  // 4096² output in 128×128 tiles = 1024 tiles; on 132 SMs (H100/H200 SXM) that is 7.76 waves, run as 8:
  // 1024 ÷ (132 × 8) = 96.97%.
  EXPECT_EQ(output_tiles(4096, 4096, {128, 128}), 1024);
  EXPECT_NEAR(wave_efficiency(1024, 132), 0.9697, 1e-4);
  EXPECT_DOUBLE_EQ(tile_efficiency(4096, 4096, {128, 128}), 1.0);
}

TEST(WaveQuantization, AnUnalignedSizePaysTilePaddingAndAPartialWave) {
  // n = 5000: ceil(5000/128) = 40 → 1600 tiles = 12.12 waves on 132 SMs, run as 13 → 1600/1716;
  // padding 5000² to 5120²: 0.9537.
  EXPECT_EQ(output_tiles(5000, 5000, {128, 128}), 1600);
  EXPECT_NEAR(wave_efficiency(1600, 132), 1600.0 / 1716.0, 1e-12);
  EXPECT_NEAR(tile_efficiency(5000, 5000, {128, 128}), 25e6 / (5120.0 * 5120.0), 1e-12);
  // A 256×128 Hopper tile on 4096²: 512 tiles = 3.88 waves → 4.
  EXPECT_EQ(output_tiles(4096, 4096, {256, 128}), 512);
  EXPECT_NEAR(wave_efficiency(512, 132), 512.0 / 528.0, 1e-12);
}

TEST(ComputeWaterfall, AttributesClockWavesAndARemainder) {
  const results r = test::h200_results();
  const json w = json(analyse_compute_waterfall(r));
  ASSERT_EQ(w["per_precision"].size(), 2u);  // fp16 and fp32
  const json& fp16 = w["per_precision"][0];
  EXPECT_EQ(fp16["precision"], "fp16");
  EXPECT_EQ(fp16["best_size"], 8192);
  const json& steps = fp16["steps"];
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_NEAR(steps[1]["factor"].get<double>(), 1740.0 / 1980.0, 1e-12);  // sustained ÷ datasheet clock
  EXPECT_NEAR(steps[2]["factor"].get<double>(), 4096.0 / (132 * 32), 1e-12);  // 64×64 tiles, 31.03 → 32 waves
  EXPECT_DOUBLE_EQ(steps[3]["factor"].get<double>(), 1.0);
  // The waterfall ends at the measured 760/989 = 76.8% of nominal.
  EXPECT_NEAR(steps[4]["percent_of_nominal"].get<double>(), 100 * 760.0 / 989.0, 1e-9);
  EXPECT_NEAR(steps[4]["factor"].get<double>(), (760.0 / 989.0) / ((1740.0 / 1980.0) * (4096.0 / 4224.0)), 1e-9);
  // The sweep shows the remainder growing towards 1 with n (512: small GEMMs lose most to the rest).
  const json& sweep = fp16["size_sweep"];
  ASSERT_EQ(sweep.size(), 3u);
  EXPECT_LT(sweep[0]["remainder_factor"].get<double>(), sweep[2]["remainder_factor"].get<double>());
}

TEST(ComputeWaterfall, TheCpuHasNoTelemetryAndNoWaves) {
  results r;
  r.device.kind = "cpu";
  r.nominal.peaks = {{"fp32", "", "vector", 1e12, "", {}, std::nullopt, ""}};
  r.measured.compute = {test::gemm("fp32", 2048, 0.8e12)};
  const json w = json(analyse_compute_waterfall(r));
  const json& steps = w["per_precision"][0]["steps"];
  EXPECT_TRUE(steps[1]["factor"].is_null());
  EXPECT_NE(steps[1]["detail"].get<std::string>().find("no telemetry"), std::string::npos);
  EXPECT_TRUE(steps[2]["factor"].is_null());
  EXPECT_NEAR(steps[4]["factor"].get<double>(), 0.8, 1e-12);
}

TEST(BandwidthWaterfall, BestPatternThenEachPatternThenL2AndEcc) {
  const results r = test::h200_results();
  const json w = json(analyse_bandwidth_waterfall(r));
  EXPECT_DOUBLE_EQ(w["nominal_bytes_per_s"].get<double>(), 4.8e12);
  EXPECT_EQ(w["steps"][1]["pattern"], "write");
  EXPECT_NEAR(w["steps"][1]["percent_of_nominal"].get<double>(), 100 * 4.3 / 4.8, 1e-9);
  EXPECT_EQ(w["patterns"][0]["pattern"], "read");
  EXPECT_NEAR(w["patterns"][0]["percent_of_nominal"].get<double>(), 100 * 4.0 / 4.8, 1e-9);
  EXPECT_NEAR(w["l2"]["ratio_to_dram"].get<double>(), 10.0 / 4.3, 1e-9);
  EXPECT_EQ(w["ecc"]["state"], "on");
  for (const auto& e : w["dram_overheads"]) EXPECT_EQ(e["label"], "estimate");
  EXPECT_NEAR(w["gap_percent"].get<double>(), 100 - 100 * 4.3 / 4.8, 1e-9);
}

TEST(Ridge, ReportsTheMoveAndWhetherTheUsualExpectationHolds) {
  results r = test::h200_results();
  r.roofline = summarize_roofline(r.nominal, r.measured, "fp16");
  const json j = json(analyse_ridge(r));
  const json& fp16 = j["per_precision"][0];
  // measured 760/4.3 = 176.7 vs nominal 206.0: −14%, within 20% but not within 10%.
  EXPECT_NEAR(fp16["relative_move"].get<double>(), (760.0 / 4.3) / (989.0 / 4.8) - 1, 1e-9);
  EXPECT_TRUE(fp16["within_20_percent"].get<bool>());
  EXPECT_FALSE(fp16["within_10_percent"].get<bool>());
}

TEST(ComputeWaterfall, TheClockStepUsesTheClockTheTablePeakAssumes) {
  // The spec table's H200 tensor peaks are computed at 1830 MHz (the datasheet's tensor clock), not the
  // 1980 MHz max boost: a GEMM sustaining 1755 MHz loses 1755/1830 to the clock.
  results r = test::h200_results();
  r.nominal = gpu_nominal("H200");
  const json w = json(analyse_compute_waterfall(r));
  const json& fp16 = w["per_precision"][0];
  ASSERT_EQ(fp16["precision"], "fp16");
  EXPECT_DOUBLE_EQ(fp16["datasheet_clock_mhz"].get<double>(), 1830.0);
  EXPECT_NEAR(fp16["steps"][1]["factor"].get<double>(), 1740.0 / 1830.0, 1e-12);  // the n=8192 GEMM
}

TEST(RecordTable, TheCpuRowsUseFp32AndFp64AndSayNoTelemetry) {
  results r;
  r.device.kind = "cpu";
  r.nominal.peaks = {{"fp32", "", "vector", 2e12, "", {}, std::nullopt, ""},
                     {"fp64", "", "vector", 1e12, "", {}, std::nullopt, ""}};
  r.nominal.memory_bandwidth_bytes_per_s = 100e9;
  r.measured.compute = {test::gemm("fp32", 4096, 1.6e12), test::gemm("fp64", 4096, 0.8e12)};
  r.measured.bandwidth = {test::bw("read", "dram", 80e9)};
  r.roofline = summarize_roofline(r.nominal, r.measured, "fp32");
  const json rows = json(record_table(r));
  std::vector<std::string> keys;
  for (const auto& x : rows) keys.push_back(x["key"]);
  // A CPU has no power telemetry and no visible DRAM ECC: those rows are absent, not "unknown".
  EXPECT_EQ(keys, (std::vector<std::string>{"bandwidth_read", "bandwidth_write", "bandwidth_copy", "gemm_fp32_4096",
                                            "gemm_fp32_512", "gemm_fp64_4096", "sm_clock", "ridge", "tpot_mfu"}));
  EXPECT_DOUBLE_EQ(rows[0]["ratio"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(rows[0]["expected_low"].get<double>(), 75e9);  // 75–90% of 100 GB/s
  EXPECT_DOUBLE_EQ(rows[3]["ratio"].get<double>(), 0.8);
  EXPECT_TRUE(rows[4]["measured"].is_null());  // n=512 not measured: null with a note, not a guess
  EXPECT_NE(rows[4]["measured_note"].get<std::string>().find("fp32 GEMM sizes run: 4096"), std::string::npos);
  EXPECT_NE(rows[6]["measured_note"].get<std::string>().find("no telemetry"), std::string::npos);
  EXPECT_DOUBLE_EQ(rows[7]["measured"].get<double>(), 1.6e12 / 80e9);  // ridge 20 FLOP/B
  EXPECT_DOUBLE_EQ(rows[7]["nominal"].get<double>(), 2e12 / 100e9);    // 20 FLOP/B nominal
  EXPECT_NE(rows[8]["measured_note"].get<std::string>().find("no decode ops"), std::string::npos);
}

TEST(BandwidthWaterfall, HbmEccCostsNothingGddrEccIsEstimatedAtOneSixteenth) {
  auto ecc_high = [](const results& r) {
    const json w = json(analyse_bandwidth_waterfall(r));
    for (const auto& e : w["dram_overheads"])
      if (e["name"] == "ECC") return e["high_percent"].get<double>();
    return -1.0;
  };
  results h = test::h200_results();
  h.nominal = gpu_nominal("H200");  // memory factors name HBM3e: side-band ECC
  EXPECT_EQ(json(analyse_bandwidth_waterfall(h))["ecc"]["source"], "device.properties.ecc");
  EXPECT_DOUBLE_EQ(ecc_high(h), 0.0);
  results t = test::h200_results();
  t.nominal = gpu_nominal("T4");  // GDDR6: in-line ECC
  EXPECT_DOUBLE_EQ(ecc_high(t), 6.25);
  t.device.properties["ecc"] = false;
  EXPECT_DOUBLE_EQ(ecc_high(t), 0.0);
}

TEST(ComputeWaterfall, UsesTheTileClusterAndSplitKTheLibraryChose) {
  // cuBLASLt reported a 256×128 tile: 8192² is 32 × 64 = 2048 tiles, 15.5 waves on 132 SMs, run as 16
  // → 2048 ÷ 2112. With 4×2 clusters only 16 clusters of 8 (128 SMs) run at once: 2048 ÷ 128 = 16
  // waves exactly → 1. With split-K 2 and no cluster: 4096 units on 132 SMs = 31.03 → 32 waves.
  results r = test::h200_results();
  compute_result* c8192 = nullptr;
  for (auto& c : r.measured.compute)
    if (c.precision == "fp16" && c.size && *c.size == 8192) c8192 = &c;
  ASSERT_NE(c8192, nullptr);
  c8192->algo = {{"tile", "256x128"}, {"tile_m", 256}, {"tile_n", 128}, {"cluster", "1x1x1"}, {"cluster_m", 1},
                 {"cluster_n", 1}, {"split_k", 1}};
  json steps = json(analyse_compute_waterfall(r))["per_precision"][0]["steps"];
  EXPECT_NEAR(steps[2]["factor"].get<double>(), 2048.0 / 2112.0, 1e-12);
  EXPECT_DOUBLE_EQ(steps[3]["factor"].get<double>(), 1.0);
  EXPECT_NE(steps[3]["detail"].get<std::string>().find("chosen by the library"), std::string::npos);
  c8192->algo["cluster_m"] = 4;
  c8192->algo["cluster_n"] = 2;
  steps = json(analyse_compute_waterfall(r))["per_precision"][0]["steps"];
  EXPECT_DOUBLE_EQ(steps[2]["factor"].get<double>(), 1.0);
  c8192->algo["cluster_m"] = 1;
  c8192->algo["cluster_n"] = 1;
  c8192->algo["split_k"] = 2;
  steps = json(analyse_compute_waterfall(r))["per_precision"][0]["steps"];
  EXPECT_NEAR(steps[2]["factor"].get<double>(), 4096.0 / (132.0 * 32), 1e-12);
  // A 192×128 tile pads 8192 to 8256 rows (43 tiles of 192): 8192 ÷ 8256.
  c8192->algo = {{"tile_m", 192}, {"tile_n", 128}};
  steps = json(analyse_compute_waterfall(r))["per_precision"][0]["steps"];
  EXPECT_NEAR(steps[3]["factor"].get<double>(), 8192.0 / 8256.0, 1e-12);
}

TEST(ComputeWaterfall, ALibraryScheduledSplitKCountsAsNoSplit) {
  // cuBLASLt 13.1 reports split-K −1 for its persistent kernels, recorded as null: the tile and
  // cluster still apply, the work units are the tiles alone (2048 on 132 SMs → 16 waves).
  results r = test::h200_results();
  for (auto& c : r.measured.compute)
    if (c.precision == "fp16" && c.size && *c.size == 8192)
      c.algo = {{"tile_m", 256}, {"tile_n", 128}, {"cluster_m", 1}, {"cluster_n", 1}, {"split_k", nullptr}};
  const json steps = json(analyse_compute_waterfall(r))["per_precision"][0]["steps"];
  EXPECT_NEAR(steps[2]["factor"].get<double>(), 2048.0 / 2112.0, 1e-12);
}

TEST(RecordTable, AMissingDramReadSaysWhyAndWhichPatternStandsIn) {
  // The read rows' repeats disagreed twice (a 2-vCPU Zen 5 guest, 2026-12-03): the row says so and
  // names the pattern the device-memory roof stands on instead, in one line.
  results r;
  r.device.kind = "cpu";
  r.nominal.peaks = {{"fp32", "", "vector", 2e12, "", {}, std::nullopt, ""}};
  auto read = test::bw("read", "dram", 90e9);
  read.rejected = true;
  read.rejected_reason = "unreliable: repeats disagree (IQR above 10 % of the median), twice";
  r.measured.bandwidth = {read, test::bw("write", "dram", 40e9), test::bw("copy", "dram", 60e9)};
  r.roofline = summarize_roofline(r.nominal, r.measured, "fp32");
  const json rows = json(record_table(r));
  ASSERT_EQ(rows[0]["key"], "bandwidth_read");
  EXPECT_TRUE(rows[0]["measured"].is_null());
  EXPECT_EQ(rows[0]["measured_note"].get<std::string>(),
            "rejected: unreliable: repeats disagree (IQR above 10 % of the median), twice; the DRAM roof stands on copy (60.0 GB/s)");
}

TEST(RecordTable, AQuickRunWhoseRoofGemmIsTheSmallOneShowsItOnce) {
  // --quick measures n = 256 and 512 only: n = 512 is the roof, and the small-GEMM row would repeat it.
  results r;
  r.device.kind = "cpu";
  r.nominal.peaks = {{"fp32", "", "vector", 2e12, "", {}, std::nullopt, ""}};
  r.measured.compute = {test::gemm("fp32", 256, 0.5e12), test::gemm("fp32", 512, 0.9e12)};
  r.measured.bandwidth = {test::bw("read", "dram", 80e9)};
  r.roofline = summarize_roofline(r.nominal, r.measured, "fp32");
  const json rows = json(record_table(r));
  int n512 = 0;
  for (const auto& x : rows) n512 += x["key"] == "gemm_fp32_512";
  EXPECT_EQ(n512, 1);
}
