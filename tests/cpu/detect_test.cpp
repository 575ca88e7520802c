// CPU detection: the FMA table, the measured clock against /proc/cpuinfo, the detected factors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/fma_table.hpp"
#include "common/run_binary.hpp"

using namespace roofline;
using namespace roofline::cpu;

TEST(CpuFmaTable, PublishedUnitsPerCore) {
  // AMD SOG family 17h/19h §2.11, Intel Opt. Ref. Manual: Zen 1 splits 256-bit FMAs over its two
  // 128-bit pipes; Zen 2/3 have two 256-bit FMA pipes; Zen 4 double-pumps 512-bit ops.
  EXPECT_EQ(fma_units_for("zen", 256, "AMD Ryzen 7 1700").units, 1);
  EXPECT_EQ(fma_units_for("zen2", 256, "AMD EPYC 7742").units, 2);
  EXPECT_EQ(fma_units_for("zen3", 256, "AMD EPYC 7763").units, 2);
  EXPECT_EQ(fma_units_for("zen4", 512, "AMD EPYC 9654").units, 1);
  EXPECT_EQ(fma_units_for("haswell", 256, "Intel Xeon E5-2699 v3").units, 2);
  EXPECT_EQ(fma_units_for("sky_lake", 512, "Intel(R) Xeon(R) Platinum 8180").units, 2);
  EXPECT_EQ(fma_units_for("sky_lake", 512, "Intel(R) Xeon(R) Silver 4114").units, 1);
}

TEST(CpuFmaTable, UnknownMicroarchitectureIsUnknownNotDefault) {
  const auto a = fma_units_for("some_future_core", 256, "X");
  EXPECT_FALSE(a.units.has_value());
  EXPECT_NE(a.source.find("unknown"), std::string::npos);
  EXPECT_FALSE(fma_units_for("sky_lake", 512, "Intel(R) Xeon(R) W-2123").units.has_value());
  // Intel ARK: Gold 5118 has one AVX-512 FMA unit, Gold 5122 two.
  EXPECT_EQ(fma_units_for("sky_lake", 512, "Intel(R) Xeon(R) Gold 5118").units, 1);
  EXPECT_EQ(fma_units_for("sky_lake", 512, "Intel(R) Xeon(R) Gold 5122").units, 2);
}

TEST(CpuDetect, FactorsArePresent) {
  const auto& d = detect_cpu();
  EXPECT_GT(d.desc.cores, 0);
  EXPECT_GE(d.desc.threads, d.desc.cores);
  EXPECT_GT(d.desc.simd_bits, 0);
  EXPECT_FALSE(d.desc.isa.empty());
  EXPECT_FALSE(d.desc.clock_source.empty());
  EXPECT_TRUE(d.properties.contains("caches"));
  if (!d.desc.memory_channels) EXPECT_FALSE(d.desc.memory_reason.empty());
}

TEST(CpuDetect, MeasuredClockIsPhysical) {
  // Holds on any x86-64 or AArch64 core, in a VM or not: the add chain runs at the core clock,
  // which is at least half of the TSC rate "cpu MHz" shows in a VM (no part throttles below that
  // while running) and below 6.5 GHz (no shipping core boosts higher). Where cpufreq exists, the
  // clock is at most its maximum plus 20 % (turbo above the reported maximum on some parts).
  const double hz = measure_clock_hz(timing_options{3, 50, 400, 0.05, 0.3});
  EXPECT_GT(hz, 0.2e9);
  EXPECT_LT(hz, 6.5e9);
  if (const double mhz = proc_cpuinfo_mhz_hz(); mhz > 0) EXPECT_GT(hz, 0.5 * mhz) << "measured " << hz / 1e6 << " MHz";
  if (const double max = cpufreq_max_hz(); max > 0) EXPECT_LT(hz, 1.2 * max) << "measured " << hz / 1e6 << " MHz";
}

// ROOFLINE_CPU_LLC_BYTES: the L3 these cores share where the machine reports more (a VM passing its
// host's whole L3). ctest sets it for every test (tests/CMakeLists.txt) so that no run's working sets
// depend on the host; here its value is what detection reports, and a bad value is one error line.
TEST(CpuDetect, LlcOverrideIsHonouredAndSaid) {
  const char* v = std::getenv("ROOFLINE_CPU_LLC_BYTES");
  if (!v) GTEST_SKIP() << "run under ctest (it sets ROOFLINE_CPU_LLC_BYTES)";
  const cpu_detection& d = detect_cpu();
  EXPECT_EQ(d.desc.l3_bytes, std::atoll(v));
  EXPECT_NE(d.properties.value("caches_source", std::string()).find("ROOFLINE_CPU_LLC_BYTES"), std::string::npos);
}

TEST(CpuDetect, BadLlcOverrideExitsTwoNamingTheVariableAndWritesNothing) {
  const auto dir = std::filesystem::temp_directory_path() / ("roofline_llc_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto r = test::run_command("ROOFLINE_CPU_LLC_BYTES=32MiB " + std::string(ROOFLINE_BINARY) +
                                   " run --device cpu --quick --out " + dir.string());
  EXPECT_EQ(r.code, 2) << r.all();
  EXPECT_NE(r.err.find("ROOFLINE_CPU_LLC_BYTES"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "results.json"));
  std::filesystem::remove_all(dir);
}
