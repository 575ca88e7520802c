// The nominal-CPU logic on injected CPUs: no assertion here depends on the machine running it.
// Each case is a real part: its CPUID family/model (Intel SDM vol. 4 table 2-1; AMD revision
// guides), its SIMD width, its core count and clock, and the peak its datasheet factors give.
#include <gtest/gtest.h>

#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/cpu_uarch.hpp"
#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;
using namespace roofline::cpu;

namespace {

cpu_facts facts(const char* vendor, int family, int model, const char* name, int simd_bits, int cores = 2,
                double clock_hz = 3.0e9, const char* cpuinfo_uarch = "") {
  cpu_facts f;
  f.id = {vendor, family, model, name};
  f.cpuinfo_uarch = cpuinfo_uarch;
  f.isa = simd_bits == 512 ? simd_isa{"avx512f", 512, true}
          : simd_bits == 256 ? simd_isa{"avx2+fma", 256, true}
                             : simd_isa{"neon", 128, true};
  f.desc.model = name;
  f.desc.vendor = vendor;
  f.desc.cores = cores;
  f.desc.threads = cores;
  f.desc.clock_hz = clock_hz;
  f.desc.clock_source = "test";
  f.desc.memory_reason = "test: no DMI";
  return f;
}

struct part {
  const char* what;
  const char* vendor;
  int family, model;
  const char* name;
  int simd_bits;
  const char* uarch;
  int fma_units;
};

}  // namespace

TEST(CpuUarch, EveryServerAndDesktopGenerationIsDecidedFromCpuid) {
  const part parts[] = {
      {"Zen 2 (Rome)", "AMD", 0x17, 0x31, "AMD EPYC 7742 64-Core Processor", 256, "zen2", 2},
      {"Zen 3 (Milan)", "AMD", 0x19, 0x01, "AMD EPYC 7763 64-Core Processor", 256, "zen3", 2},
      {"Zen 3 (Vermeer)", "AMD", 0x19, 0x21, "AMD Ryzen 9 5950X 16-Core Processor", 256, "zen3", 2},
      {"Zen 4 (Genoa)", "AMD", 0x19, 0x11, "AMD EPYC 9654 96-Core Processor", 512, "zen4", 1},
      {"Zen 4 (Raphael)", "AMD", 0x19, 0x61, "AMD Ryzen 9 7950X 16-Core Processor", 512, "zen4", 1},
      {"Zen 4c (Bergamo)", "AMD", 0x19, 0xA0, "AMD EPYC 9754 128-Core Processor", 512, "zen4", 1},
      {"Zen 5 (Turin)", "AMD", 0x1A, 0x02, "AMD EPYC 9755 128-Core Processor", 512, "zen5", 2},
      {"Zen 5 (Granite Ridge)", "AMD", 0x1A, 0x44, "AMD Ryzen 9 9950X 16-Core Processor", 512, "zen5", 2},
      {"Zen 5 (Strix Point)", "AMD", 0x1A, 0x24, "AMD Ryzen AI 9 HX 370", 512, "zen5_mobile", 1},
      {"Haswell-EP", "Intel", 6, 0x3F, "Intel(R) Xeon(R) CPU E5-2699 v3 @ 2.30GHz", 256, "haswell", 2},
      {"Skylake-SP Platinum", "Intel", 6, 0x55, "Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz", 512, "sky_lake", 2},
      {"Skylake-SP Gold 5118", "Intel", 6, 0x55, "Intel(R) Xeon(R) Gold 5118 CPU @ 2.30GHz", 512, "sky_lake", 1},
      {"Cascade Lake Gold 6248", "Intel", 6, 0x55, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", 512, "sky_lake", 2},
      {"Cascade Lake Silver", "Intel", 6, 0x55, "Intel(R) Xeon(R) Silver 4214 CPU @ 2.20GHz", 512, "sky_lake", 1},
      {"Ice Lake-SP", "Intel", 6, 0x6A, "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", 512, "sunny_cove", 2},
      {"Sapphire Rapids", "Intel", 6, 0x8F, "Intel(R) Xeon(R) Platinum 8480+", 512, "golden_cove", 2},
      {"Emerald Rapids", "Intel", 6, 0xCF, "INTEL(R) XEON(R) PLATINUM 8592+", 512, "raptor_cove", 2},
      {"Granite Rapids", "Intel", 6, 0xAD, "Intel(R) Xeon(R) 6972P", 512, "redwood_cove", 2},
      {"Sierra Forest", "Intel", 6, 0xAF, "Intel(R) Xeon(R) 6780E", 256, "crestmont", 1},
      {"Tiger Lake", "Intel", 6, 0x8C, "11th Gen Intel(R) Core(TM) i7-1185G7 @ 3.00GHz", 512, "willow_cove", 1},
      {"Neoverse N1 (Graviton2)", "ARM", 0x41, 0xD0C, "Neoverse-N1", 128, "neoverse_n1", 2},
      {"Neoverse V1 (Graviton3)", "ARM", 0x41, 0xD40, "Neoverse-V1", 128, "neoverse_v1", 4},
      {"Neoverse V2 (Grace)", "ARM", 0x41, 0xD4F, "Neoverse-V2", 128, "neoverse_v2", 4},
  };
  for (const auto& p : parts) {
    const cpu_detection d = resolve_cpu(facts(p.vendor, p.family, p.model, p.name, p.simd_bits));
    EXPECT_EQ(d.desc.uarch, p.uarch) << p.what;
    EXPECT_EQ(d.desc.fma_units, p.fma_units) << p.what << ": " << d.desc.fma_units_source;
    EXPECT_NE(d.desc.uarch_source.find("CPUID family"), std::string::npos) << p.what;
    EXPECT_EQ(cpu_nominal(d.desc).peaks.size(), 2u) << p.what;
  }
}

TEST(CpuUarch, Zen4GenoaTwoCoresAt368GHzIs236GflopsFp32) {
  // The worked value: 2 cores × 1 AVX-512 FMA/clk (double-pumped) × 16 lanes × 2 × 3.68 GHz.
  // cpuinfo (2022) calls this part zen3: the CPUID table overrules it.
  const cpu_detection d = resolve_cpu(facts("AMD", 0x19, 0x11, "AMD EPYC 9654 96-Core Processor", 512, 2, 3.68e9, "zen3"));
  EXPECT_EQ(d.desc.uarch, "zen4");
  const nominal_roofs n = cpu_nominal(d.desc);
  ASSERT_NE(peak_for(n, "fp32"), nullptr);
  EXPECT_NEAR(peak_for(n, "fp32")->flops_per_s, 235.52e9, 1e6);
  EXPECT_NEAR(peak_for(n, "fp64")->flops_per_s, 117.76e9, 1e6);
  EXPECT_EQ(d.properties["cpuinfo_uarch"], "zen3");  // what cpuinfo said is kept beside the decision
}

TEST(CpuUarch, AmxProvesAServerCoreWhereAHypervisorShowsAnOlderSignature) {
  // Seen on a 2-vCPU guest (2026-12-01): CPUID 06_A7H (Rocket Lake, one AVX-512 FMA unit) with
  // AMX-TILE and a bare brand string. The Rocket Lake row gave 261.9 GFLOP/s fp32 at 4.09 GHz and
  // the FMA chains measured 480.9: the signature was the hypervisor's, the extensions the host's.
  cpu_facts f = facts("Intel", 6, 0xA7, "Intel(R) Xeon(R) Processor", 512, 2, 4.09159e9);
  f.id.amx_tile = true;
  const cpu_detection d = resolve_cpu(f);
  EXPECT_EQ(d.desc.uarch, "golden_cove");
  EXPECT_EQ(d.desc.fma_units, 2);
  EXPECT_NE(d.desc.uarch_source.find("AMX-TILE"), std::string::npos) << d.desc.uarch_source;
  EXPECT_NE(d.desc.uarch_source.find("cypress_cove"), std::string::npos) << "the overruled answer is named";
  EXPECT_NEAR(peak_for(cpu_nominal(d.desc), "fp32")->flops_per_s, 2 * 2 * 16 * 2 * 4.09159e9, 1e6);  // 523.7 GFLOP/s
  // A real Rocket Lake has no AMX and keeps its one unit; a signature that already names an AMX
  // core is left alone; the user's --uarch is never overruled.
  EXPECT_EQ(resolve_cpu(facts("Intel", 6, 0xA7, "11th Gen Intel(R) Core(TM) i9-11900K", 512)).desc.fma_units, 1);
  cpu_facts emerald = facts("Intel", 6, 0xCF, "INTEL(R) XEON(R) PLATINUM 8592+", 512);
  emerald.id.amx_tile = true;
  EXPECT_EQ(resolve_cpu(emerald).desc.uarch, "raptor_cove");
  EXPECT_EQ(resolve_cpu(f, cpu_overrides{"cypress_cove", std::nullopt}).desc.fma_units, 1);
  // Only Intel implements AMX: another vendor's signature is not second-guessed by the bit.
  cpu_facts amd = facts("AMD", 0x19, 0x11, "AMD EPYC 9654 96-Core Processor", 512);
  amd.id.amx_tile = true;
  EXPECT_EQ(resolve_cpu(amd).desc.uarch, "zen4");
}

TEST(CpuUarch, Zen5TurinHasTwo512BitFmaPipes) {
  const cpu_detection d = resolve_cpu(facts("AMD", 0x1A, 0x02, "AMD EPYC", 512, 2, 4.1e9));
  EXPECT_NEAR(peak_for(cpu_nominal(d.desc), "fp32")->flops_per_s, 2 * 2 * 16 * 2 * 4.1e9, 1e6);  // 524.8 GFLOP/s
}

TEST(CpuUarch, CpuinfoIsTheFallbackForPartsNotInTheTable) {
  const cpu_detection d = resolve_cpu(facts("ARM", 0x41, 0xD49, "Neoverse-N2", 128, 4, 3.0e9, "neoverse_n2"));
  EXPECT_EQ(d.desc.uarch, "neoverse_n2");
  EXPECT_NE(d.desc.uarch_source.find("cpuinfo"), std::string::npos);
  EXPECT_EQ(d.desc.fma_units, 2);
}

TEST(CpuUarch, HybridClientPartsAreUnknownWithTheReason) {
  const cpu_detection d = resolve_cpu(facts("Intel", 6, 0x97, "12th Gen Intel(R) Core(TM) i9-12900K", 256));
  EXPECT_EQ(d.desc.fma_units, 0);
  EXPECT_NE(d.desc.fma_units_source.find("hybrid"), std::string::npos);
}

TEST(CpuUarch, UnknownPartGetsAMeasuredNominalMarkedSo) {
  // A future AMD family: nothing in the table, nothing from cpuinfo.
  const cpu_detection d = resolve_cpu(facts("AMD", 0x1B, 0x00, "AMD EPYC", 512, 2, 3.68e9));
  EXPECT_EQ(d.desc.fma_units, 0);
  EXPECT_NE(d.desc.fma_units_source.find("--uarch"), std::string::npos);
  nominal_roofs n = cpu_nominal(d.desc);
  EXPECT_TRUE(n.peaks.empty());
  compute_result fp32;
  fp32.precision = "fp32";
  fp32.engine = "vector";
  fp32.flops_per_s = 233.1e9;  // 99 % of 2 × 1 × 16 × 2 × 3.68 GHz
  fp32.method = "FMA chains";
  compute_result polluted = fp32;
  polluted.flops_per_s = 900e9;
  polluted.rejected = true;  // a rejected row is never the basis of a nominal
  EXPECT_EQ(cpu_nominal_from_measured(n, d.desc, {fp32, polluted}), 1);
  const nominal_peak* p = peak_for(n, "fp32");
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(p->flops_per_s, 235.52e9, 1e6);  // rounded to 1 FMA/clk/core
  EXPECT_NE(p->formula.find("measured, no datasheet"), std::string::npos) << p->formula;
  bool marked = false;
  for (const auto& f : p->factors) marked |= f.source.find("measured, no datasheet") != std::string::npos;
  EXPECT_TRUE(marked);
  EXPECT_EQ(cpu_nominal_from_measured(n, d.desc, {fp32}), 0) << "a peak is never added twice";
}

TEST(CpuUarch, MeasuredRateThatIsNoWholeUnitCountIsKeptAsMeasured) {
  cpu_description c;
  c.cores = 2;
  c.simd_bits = 256;
  c.clock_hz = 3e9;
  c.isa = "avx2+fma";
  nominal_roofs n;
  compute_result m;
  m.precision = "fp32";
  m.engine = "vector";
  m.flops_per_s = 2 * 8 * 2 * 3e9 * 1.5 * 1.3;  // 1.95 units: within 15 % of 2
  EXPECT_EQ(cpu_nominal_from_measured(n, c, {m}), 1);
  EXPECT_NEAR(peak_for(n, "fp32")->flops_per_s, 2 * 2 * 8 * 2 * 3e9, 1e3);
  nominal_roofs n2;
  m.flops_per_s = 2 * 8 * 2 * 3e9 * 2.5;  // 2.5 units: no rounding fits
  EXPECT_EQ(cpu_nominal_from_measured(n2, c, {m}), 1);
  EXPECT_DOUBLE_EQ(peak_for(n2, "fp32")->flops_per_s, m.flops_per_s);
}

TEST(CpuUarch, UserStatedMicroarchitectureAndMemoryAreRecordedAsSuch) {
  cpu_overrides o;
  o.uarch = "zen4";
  o.memory = parse_memory_config("12 x DDR5-4800");
  const cpu_detection d = resolve_cpu(facts("AMD", 0x1B, 0x00, "AMD EPYC", 512, 2, 3.68e9), o);
  EXPECT_EQ(d.desc.fma_units, 1);
  EXPECT_NE(d.desc.uarch_source.find("given by the user"), std::string::npos);
  const nominal_roofs n = cpu_nominal(d.desc);
  ASSERT_TRUE(n.memory_bandwidth_bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*n.memory_bandwidth_bytes_per_s, 460.8e9);  // 12 × 4800 MT/s × 8 B
  for (const auto& f : n.memory_factors)
    if (f.name != "bytes per transfer per channel") EXPECT_NE(f.source.find("given by the user"), std::string::npos) << f.name;
  EXPECT_THROW(resolve_cpu(facts("AMD", 0x19, 0x11, "x", 512), cpu_overrides{"zen99", std::nullopt}), input_error);
}

TEST(MemoryConfig, ParsesTheUsualSpellingsAndRefusesTheRest) {
  EXPECT_EQ(parse_memory_config("12 x DDR5-4800").channels, 12);
  EXPECT_DOUBLE_EQ(parse_memory_config("8x DDR4-3200").mt_per_s, 3200);
  EXPECT_EQ(parse_memory_config("2 × ddr5-5600").type, "DDR5");
  EXPECT_EQ(parse_memory_config("4*DDR4-2933").channels, 4);
  for (const char* bad : {"", "DDR5-4800", "12 x DDR5", "12 x HBM3-6400", "0 x DDR5-4800", "100 x DDR5-4800",
                          "12 x DDR5-48000", "twelve x DDR5-4800"}) {
    try {
      parse_memory_config(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("--memory"), std::string::npos) << e.what();
    }
  }
}
