// gpu_nominal_live: table row by name with live factors beside it; else derived from live factors
// and the architecture's per-clock rates; unknown architecture -> no peaks, "unknown (why)".
#include <gtest/gtest.h>

#include <algorithm>

#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;

namespace {

live_gpu h200_as_nvml_reports_it() {
  live_gpu g;  // values as nvidia-smi -q prints them on an H200 SXM
  g.name = "NVIDIA H200";
  g.cc_major = 9;
  g.cc_minor = 0;
  g.sms = 132;
  g.max_sm_clock_mhz = 1980;
  g.max_mem_clock_mhz = 3201;
  g.bus_width_bits = 6016;  // as the runtime reports it on an H200 (2026-11-29)
  g.memory_bytes = 143771.0 * 1024 * 1024;
  g.power_limit_w = 700;
  g.ecc_enabled = true;
  g.l2_bytes = 60.0 * 1024 * 1024;
  return g;
}

bool any_note(const nominal_roofs& n, const std::string& s) {
  return std::any_of(n.notes.begin(), n.notes.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
}

}  // namespace

TEST(SpecLive, H200MatchesItsTableRowAndAddsTheLiveFactors) {
  const auto n = gpu_nominal_live(h200_as_nvml_reports_it());
  EXPECT_EQ(n.source, "table");
  EXPECT_NEAR(peak_for(n, "bf16")->flops_per_s / 1e12, 989.4, 0.1);
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e9, 4814.3, 0.5);
  const auto live = std::count_if(n.factors.begin(), n.factors.end(), [](const factor& f) { return f.source.rfind("detected: ", 0) == 0; });
  EXPECT_GE(live, 6);
  // Live bandwidth (2 × 3201 MHz × 6016 / 8) and clock agree with the row: no difference notes.
  EXPECT_FALSE(any_note(n, "differs"));
}

TEST(SpecLive, DifferencesFromTheRowAreNoted) {
  auto g = h200_as_nvml_reports_it();
  g.sms = 16;  // a MIG slice
  g.name = "NVIDIA H200 MIG 1g.18gb";
  const auto n = gpu_nominal_live(g);
  EXPECT_EQ(n.source, "table");
  EXPECT_TRUE(any_note(n, "live SM count 16 differs"));
}

TEST(SpecLive, UnknownNameKnownArchitectureIsDerived) {
  live_gpu g;
  g.name = "NVIDIA H100 SXM5 94GB";  // a part the table does not list
  g.cc_major = 9;
  g.cc_minor = 0;
  g.sms = 132;
  g.max_sm_clock_mhz = 1980;
  g.max_mem_clock_mhz = 2619;
  g.bus_width_bits = 5120;
  const auto n = gpu_nominal_live(g);
  EXPECT_EQ(n.source, "derived (live factors + architecture rates)");
  const auto* bf16 = peak_for(n, "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_NEAR(bf16->flops_per_s / 1e12, 132 * 4 * 512 * 2 * 1.98e9 / 1e12, 1e-6);  // at the max SM clock
  EXPECT_NE(bf16->factors.front().source.find("detected: "), std::string::npos);
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e9, 5120 / 8 * 5.238, 0.01);
}

TEST(SpecLive, GeForceNotInTheTableGetsTheHalfRateException) {
  live_gpu g;
  g.name = "NVIDIA GeForce RTX 4070 Ti";  // not in the table
  g.cc_major = 8;
  g.cc_minor = 9;
  g.sms = 60;
  g.max_sm_clock_mhz = 2610;
  const auto n = gpu_nominal_live(g);
  double f16 = 0, f32 = 0;
  for (const auto& p : n.peaks)
    if (p.engine == "tensor" && p.precision == "fp16") (p.accumulate == "fp16" ? f16 : f32) = p.flops_per_s;
  EXPECT_DOUBLE_EQ(f32 * 2, f16);
  EXPECT_FALSE(n.memory_bandwidth_bytes_per_s.has_value());
  EXPECT_FALSE(n.memory_bandwidth_reason.empty());
}

TEST(SpecLive, UnknownArchitectureGivesNoPeaksAndSaysWhy) {
  live_gpu g;
  g.name = "NVIDIA Tesla K80";
  g.cc_major = 3;
  g.cc_minor = 7;
  g.sms = 13;
  g.max_sm_clock_mhz = 875;
  const auto n = gpu_nominal_live(g);
  EXPECT_TRUE(n.peaks.empty());
  EXPECT_TRUE(any_note(n, "unknown (compute capability 3.7"));
}
